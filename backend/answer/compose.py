"""Answer text for the chat's analysis route (backend/answer/route.py): analysis
results written as a short German or English answer, one line per item, each line citing its
source `[n]`; the sources are the sections and pages the items were found in (with the chunk
that holds them, so the answer's sources link like retrieval sources do).

The text is plain (quoted document text is never interpreted as Markdown): a heading line
ending in ":" and numbered lines. No store access here except `Citations.locate`, which maps a
text position to its chunk; everything else is pure."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.analysis.types import Item

QUOTE_CHARS = 320  # longer item texts are cut (the source link opens the whole section)

LABELS = {
    "decisions": ("Beschlüsse", "Decisions"),
    "meeting_actions": ("Aufgaben und offene Punkte", "Action items and open points"),
    "deadlines": ("Fristen und Termine", "Deadlines and dates"),
    "requirements": ("Anforderungen", "Requirements"),
    "config_keys": ("Konfigurationsschlüssel, Umgebungsvariablen und Optionen",
                    "Configuration keys, environment variables and flags"),
    "setup_steps": ("Einrichtungsschritte", "Setup steps"),
    "api_surface": ("API-Schnittstelle", "API surface"),
    "operational_notes": ("Betriebshinweise", "Operational notes"),
    "risks": ("Risiken", "Risks"),
    "entities": ("Personen, Organisationen und Kontakte", "Persons, organisations and contacts"),
}
OPEN_LABEL = ("Offene Punkte", "Open items")
_W = {  # small words of the frame, German / English
    "in": ("in", "in"), "version": ("Version", "version"), "found": ("gefunden", "found"),
    "page": ("S.", "p."), "about": ("zu", "about"),
    "approved": ("angenommen", "approved"), "rejected": ("abgelehnt", "rejected"),
    "noted": ("zur Kenntnis genommen", "noted"), "vote": ("Abstimmung", "vote"),
    "yes": ("Ja", "yes"), "no": ("Nein", "no"), "abstain": ("Enthaltungen", "abstentions"),
    "unanimous": ("einstimmig", "unanimous"), "owner": ("verantwortlich", "owner"),
    "due": ("fällig", "due"), "status": ("Status", "status"), "open": ("offen", "open"),
    "done": ("erledigt", "done"), "default": ("Standardwert", "default"),
    "step": ("Schritt", "step"), "level": ("Stufe", "level"), "limit": ("Frist", "time limit"),
}


def w(key: str, lang: str) -> str:
    return _W[key][0 if lang == "de" else 1]


def one_line(text: str, limit: int = QUOTE_CHARS) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= limit else t[:limit - 1].rsplit(" ", 1)[0] + " …"


@dataclass
class Place:
    """A place an answer line cites: a section (and page) of one document version."""

    document_id: int
    version_id: int
    section_id: int | None
    section_path: list[str]
    page: int | None
    offset: int | None  # a character offset inside it (finds the chunk)
    text: str = ""  # what is cited there (kept in the trace, trimmed)
    score: float = 1.0  # the item's confidence, the sentence's or the hit's score
    chunk_id: str | None = None  # when known (cross-reference hits)


@dataclass
class Citations:
    """Numbered sources in order of first use; the same section and page get one number."""

    places: list[Place] = field(default_factory=list)
    _index: dict[tuple, int] = field(default_factory=dict)

    def cite(self, p: Place) -> int:
        key = (p.version_id, p.section_id, p.page)
        if key not in self._index:
            self.places.append(p)
            self._index[key] = len(self.places)
        return self._index[key]

    def item(self, i: Item, document_id: int, version_id: int) -> int:
        return self.cite(Place(document_id, version_id, i.section_id, list(i.section_path),
                               i.page, i.start, i.text, i.confidence))


def _vote(v: dict | None, lang: str) -> str:
    if not v:
        return ""
    if v.get("unanimous") and not v.get("no"):
        return f"{w('vote', lang)}: {w('unanimous', lang)}" + (
            f" ({v['yes']} {w('yes', lang)})" if v.get("yes") else "")
    parts = [f"{v[k]} {w(k, lang)}" for k in ("yes", "no", "abstain") if v.get(k) is not None]
    return f"{w('vote', lang)}: " + ", ".join(parts) if parts else ""


def details(i: Item, lang: str) -> str:
    """The extractor's own fields of an item as a short phrase ("" when there is none)."""
    f, out = i.fields, []
    if i.extractor == "decisions":
        if f.get("outcome") in ("approved", "rejected", "noted"):
            out.append(w(f["outcome"], lang))
        out.append(_vote(f.get("vote"), lang))
    elif i.extractor == "meeting_actions":
        if f.get("owner"):
            out.append(f"{w('owner', lang)}: {f['owner']}")
        if f.get("due"):
            out.append(f"{w('due', lang)}: {f['due']}")
        if f.get("status") in ("open", "done"):
            out.append(f"{w('status', lang)}: {w(f['status'], lang)}")
    elif i.extractor == "deadlines":
        if f.get("due"):
            out.append(f"{w('due', lang)}: {f['due']}")
        if f.get("durations"):
            out.append(f"{w('limit', lang)}: {', '.join(f['durations'])}")
    elif i.extractor == "config_keys":
        if f.get("default") not in (None, ""):
            out.append(f"{w('default', lang)}: {f['default']}")
    elif i.extractor == "setup_steps":
        if f.get("step"):
            out.append(f"{w('step', lang)} {f['step']}")
    elif i.extractor == "risks":
        if f.get("level"):
            out.append(f"{w('level', lang)}: {f['level']}")
    elif i.extractor == "entities":
        out.append(str(f.get("type") or ""))
        if f.get("role"):
            out.append(str(f["role"]))
    return "; ".join(x for x in out if x)


_ID_CELL = re.compile(r"^[\w./-]{1,16}$")


def row_text(text: str, i: Item) -> str:
    """An item found in a table row ("A-24-07 | Run a load test | Jonas Albrecht | 24 May
    2024") as words: the owner's and the due date's cells are left out (the details name
    them), a short id leads ("A-24-07: Run a load test"), other cells joined by commas."""
    from backend.analysis.dates import find_dates

    owner = str(i.fields.get("owner") or "").strip().lower()
    cells = [c.strip() for c in text.split(" | ") if c.strip()]
    if i.fields.get("due"):
        cells = [c for c in cells if not (find_dates(c) and len(c) <= 30)]
    cells = [c for c in cells if not owner or c.lower() != owner] or cells
    if len(cells) > 1 and _ID_CELL.match(cells[0]):
        return f"{cells[0]}: " + ", ".join(cells[1:])
    return ", ".join(cells)


_BULLET = re.compile(r"^\s*[-*•–]\s+")


def item_line(n: int, i: Item, cite: int, lang: str) -> str:
    """`n. quote (details) – section, p. X [cite]`."""
    where = i.section or ""
    if i.page is not None:
        where += f", {w('page', lang)} {i.page}"
    text = one_line(i.fields.get("context") if i.extractor == "config_keys"
                    and i.fields.get("context") and i.text == i.fields.get("key") else i.text)
    text = _BULLET.sub("", text)  # "- Die Infoveranstaltung …": the list's own marker
    if i.extractor == "config_keys" and text != i.text:
        text = f"{i.text}: {text}"
    d = details(i, lang)
    if " | " in text:
        text = row_text(text, i)
    return (f"{n}. {text}" + (f" ({d})" if d else "") + (f" – {where}" if where else "")
            + f" [{cite}]")


def items_answer(title: str, version: int, names: list[str], items: list[Item], *,
                 document_id: int, version_id: int, lang: str, status: str | None,
                 topic: str | None, section: str | None, limit: int,
                 cites: Citations) -> list[str]:
    """The lines of an extraction answer: a heading and one numbered line per item."""
    i = 0 if lang == "de" else 1
    label = OPEN_LABEL[i] if status == "open" and names == ["meeting_actions"] else \
        " / ".join(LABELS[n][i] for n in names)
    scope = f" ({section})" if section else ""
    about = f" {w('about', lang)} „{topic}“" if topic and lang == "de" else \
        f" {w('about', lang)} “{topic}”" if topic else ""
    head = (f"{label}{about} {w('in', lang)} „{title}“{scope}, {w('version', lang)} {version} "
            f"({len(items)} {w('found', lang)}):" if lang == "de" else
            f"{label}{about} {w('in', lang)} “{title}”{scope}, {w('version', lang)} {version} "
            f"({len(items)} {w('found', lang)}):")
    lines = [head]
    for n, it in enumerate(items[:limit], 1):
        lines.append(item_line(n, it, cites.item(it, document_id, version_id), lang))
    return lines


# ---- topic and status filters -----------------------------------------------------------

def _stem(word: str) -> str:
    w_ = word.lower().strip(".-/")
    for suffix in ("ungen", "ung", "en", "es", "er", "e", "n", "s"):
        if len(w_) - len(suffix) >= 4 and w_.endswith(suffix):
            return w_[: -len(suffix)]
    return w_


def keep(i: Item, status: str | None) -> bool:
    """The status filter of a list answer ("open items": not the done ones); the topic filter
    is backend/answer/topic.py."""
    return not (status == "open" and i.extractor == "meeting_actions"
                and i.fields.get("status") == "done")


def line_citations(text: str, n_sources: int) -> dict:
    """The chat's citation check (backend.chat.prompt.check_citations) with the line as the
    unit: a routed answer cites per item line, and quoted items often hold several sentences.
    Lines ending in ":" are headings and need no citation."""
    from backend.chat.prompt import _CITE, _MIN_WORDS, check_citations

    out = check_citations(text, n_sources)
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    bare = [x for x in lines if not x.endswith(":") and not _CITE.search(x)
            and len(re.findall(r"\w+", x)) >= _MIN_WORDS]
    out.update(uncited_sentences=bare, sentences=len(lines),
               ok=not out["invalid"] and not bare)
    return out
