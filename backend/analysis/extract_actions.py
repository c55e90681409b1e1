"""Minutes and status reports: action items and open points (owner, due date, status).
Decisions: extract_decisions.py; deadlines: extract_deadlines.py.

Signals, strongest first: the document's own labels ("Open item OI-7:", "Action:",
"Aufgabe:"), tables whose header names an action / owner / due column, then wording (a named
person committing to something by a future date; a date after the document's own date, a due
marker, a time limit)."""
from __future__ import annotations

import re
from datetime import date

from backend.analysis.common import content_units, item_from_units, labelled_block, memo
from backend.analysis.dates import DateMention, find_dates
from backend.analysis.extract_entities import persons
from backend.analysis.source import Source, Unit
from backend.analysis.types import Item

# ---- actions -----------------------------------------------------------------------------

_ACTION_LABEL = re.compile(r"^(?:Action(?:\s+item)?|Open\s+(?:item|point|issue)|To\s*do|TODO|Task|"
                           r"Follow[- ]up|Aufgabe|Offener\s+Punkt|Offene\s+Punkte|Maßnahme|Auftrag|"
                           r"Arbeitsauftrag|AP|Wiedervorlage)\b", re.I)
_ACTION_HEAD = re.compile(r"^(?:action|aufgabe|maßnahme|task|to ?do|item|todo|massnahme|"
                          r"beschreibung|description|what)\b", re.I)
_OWNER_HEAD = re.compile(r"^(?:owner|verantwortlich|responsible|zuständig|wer|who|assignee|lead)\b", re.I)
_DUE_HEAD = re.compile(r"^(?:due|frist|termin|bis|deadline|fällig|due date|target date|planned|"
                       r"geplant|zieltermin|by when)\b", re.I)
_STATUS_HEAD = re.compile(r"^(?:status|stand|state)\b", re.I)
_OWNER_INLINE = re.compile(r"\b(?:Owner|Verantwortlich|Responsible|Zuständig|Assignee)\s*:\s*"
                           r"(?P<o>[^.;,\n]{2,60}?)(?=\s*(?:[.;,]|\bdue\b|\bbis\b|$))", re.I)
_STATUS_INLINE = re.compile(r"\bStatus\s*:\s*(?P<s>[^.;\n]{2,40})", re.I)
_DONE = re.compile(r"\b(?:done|completed|closed|erledigt|abgeschlossen|finished|resolved)\b", re.I)
_OPEN = re.compile(r"\b(?:open|offen|pending|outstanding|in progress|in Arbeit|ongoing|laufend)\b", re.I)
_COMMIT = re.compile(
    r"\b(?:will|is to|are to|has to|have to|agreed to|undertook to|promised to|is asked to|"
    r"sagte zu|sagt zu|wird|werden|übernimmt|übernehmen|berichtet|berichten|legt\b[^.]{0,80}\bvor|"
    r"kümmert sich|ist beauftragt|wird gebeten|prüft|klärt)\b", re.I)
_ACTION_SECTION = re.compile(r"\b(?:open points?|open items?|action items?|actions|to-?dos?|next steps|"
                             r"follow-?ups?|offene punkte|aufgaben|aufgabenliste|maßnahmen|nächste schritte|"
                             r"arbeitsaufträge)\b", re.I)
_OPEN_POINT = re.compile(r"\b(?:still outstanding|is outstanding|remains open|steht noch aus|ist noch offen|"
                         r"noch offen)\b", re.I)


def extract_actions(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    units = src.units
    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        if u.kind == "row" and u.header:
            it = _action_row(src, i, u)
            if it:
                items.append(it)
            continue
        blk = labelled_block(src, i, _ACTION_LABEL)
        if blk:
            first, last, label = blk
            covered.update(range(first, last + 1))
            body = src.text[units[first].start:units[last].end]
            items.append(item_from_units(src, "meeting_actions", first, last, 0.9, ["label"],
                                         id=_item_id(label), owner=_owner(src, body, u),
                                         due=_due(src, body), status=_status(body)))
            continue
        t = u.text
        owner_m = _OWNER_INLINE.search(t)
        if owner_m and u.kind in ("item", "sentence") and (_due(src, t) or _STATUS_INLINE.search(t)):
            items.append(item_from_units(src, "meeting_actions", i, i, 0.85, ["owner_field"],
                                         id="", owner=_resolve(src, owner_m.group("o")),
                                         due=_due(src, t), status=_status(t)))
            continue
        if u.kind == "item" and (_ACTION_SECTION.search(src.sections[u.section].label)
                                 or _action_list_intro(src, i)):
            items.append(item_from_units(src, "meeting_actions", i, i, 0.75, ["action_section"],
                                         id="", owner=_person_subject(src, t) or _owner_anywhere(src, t),
                                         due=_due(src, t), status=_status(t) or "open"))
            continue
        commitment = None
        for clause in (re.split(r";\s*", t) if ";" in t else (t,)):
            if not _commits(clause):
                continue
            subject = _person_subject(src, clause)
            due = subject and (_due(src, clause, future_only=True)
                               or _next_meeting_due(src, clause))
            if subject and due:
                commitment = (subject, due)
                break
        if commitment:
            items.append(item_from_units(src, "meeting_actions", i, i, 0.8,
                                         ["person_subject", "commitment", "future_date"],
                                         id="", owner=commitment[0], due=commitment[1],
                                         status="open"))
        elif _OPEN_POINT.search(t):
            items.append(item_from_units(src, "meeting_actions", i, i, 0.6, ["open_point"],
                                         id="", owner="", due=_due(src, t, future_only=True),
                                         status="open"))
    return items


_SUBJECT = re.compile(r"^\s*(?:[-•*]\s+)?(?:[\w ]{0,20}:\s*)?(?:(?:Herrn?|Frau|Mr\.?|Mrs\.?|Ms\.?)\s+)?"
                      r"(?:(?:Dr\.|Prof\.)\s+)?[A-ZÄÖÜ][\w'’-]+(?:\s+[A-ZÄÖÜ][\w'’-]+)?\s+")


def _action_list_intro(src: Source, i: int) -> bool:
    """The list item follows a line such as "Offene Punkte:" / "Action items:" in its block."""
    units = src.units
    j = i - 1
    while j >= 0 and units[j].block == units[i].block and units[j].kind == "item":
        j -= 1
    return (j >= 0 and units[j].block == units[i].block and units[j].text.rstrip().endswith(":")
            and bool(_ACTION_SECTION.search(units[j].text)))


def _owner_anywhere(src: Source, t: str) -> str:
    """The first person the text names, e.g. "(Herr Stein, bis 28. Juni 2024)"."""
    best: tuple[int, str] | None = None
    for name in persons(src):
        m = re.search(rf"\b{re.escape(name.split()[-1])}\b", t)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else ""


_NEXT_MEETING_REF = re.compile(r"\b(?:bis zur nächsten Sitzung|zur nächsten Sitzung|in der nächsten Sitzung|"
                               r"by the next meeting|before the next meeting|at the next meeting|"
                               r"until the next meeting)\b", re.I)
_NEXT_MEETING = re.compile(r"\b(?:nächste Sitzung|next meeting)\b", re.I)


def _next_meeting_due(src: Source, t: str) -> str | None:
    """"bis zur nächsten Sitzung" / "by the next meeting": the date of the next meeting
    when the document states it; else the phrase itself."""
    if not _NEXT_MEETING_REF.search(t):
        return None

    def find() -> str:
        for _i, u in content_units(src):
            if _NEXT_MEETING.search(u.text) and not _NEXT_MEETING_REF.search(u.text):
                ds = [d for d in find_dates(u.text, src.doc_date, src.language) if d.iso]
                if ds:
                    return ds[0].iso
        return "next meeting"

    return memo(src, "next_meeting", find)


def _commits(t: str) -> bool:
    """The commitment verb follows the person directly ("Frau Krüger berichtet ...",
    "Ahmed Karimi is to ..."), and is not negated."""
    m = _SUBJECT.match(t)
    if not m:
        return False
    rest = t[m.end():]
    c = _COMMIT.match(rest)
    return bool(c) and not re.match(r"\s*(?:not|nicht)\b", rest[c.end():], re.I)


def _columns(header: tuple[str, ...]) -> dict[str, int]:
    cols: dict[str, int] = {}
    for k, h in enumerate(header):
        h = h.strip().lower()
        for name, rx in (("action", _ACTION_HEAD), ("owner", _OWNER_HEAD), ("due", _DUE_HEAD),
                         ("status", _STATUS_HEAD)):
            if name not in cols and rx.match(h):
                cols[name] = k
        if k == 0 and re.match(r"^(?:no\.?|nr\.?|id|#|lfd)\b", h):
            cols.setdefault("id", 0)
    return cols


def _action_row(src: Source, i: int, u: Unit) -> Item | None:
    cols = memo(src, f"cols:{u.header}", lambda: _columns(u.header))
    if "action" not in cols or not ({"owner", "due", "status"} & set(cols)):
        return None
    cell = lambda name: u.cells[cols[name]].strip() if name in cols and cols[name] < len(u.cells) else ""  # noqa: E731
    due_text = cell("due")
    due = _due(src, due_text) if due_text else None
    return item_from_units(src, "meeting_actions", i, i, 0.9, ["action_table"],
                           id=cell("id"), owner=_resolve(src, cell("owner")), due=due,
                           status=_status(cell("status")) if "status" in cols else None,
                           action=cell("action"))


def _item_id(label: str) -> str:
    m = re.search(r"\b([A-Z]{1,4}-?\d[\w/-]*|\d+[\w/-]*)\s*$", label)
    return m.group(1) if m else ""


def _status(text: str) -> str | None:
    m = _STATUS_INLINE.search(text)
    t = m.group("s") if m else text
    if _DONE.search(t) or re.search(r"\berledigt am\b|\bdone on\b", text, re.I):
        return "done"
    if _OPEN.search(t):
        return "open"
    return "open" if not m and re.search(r"\b(?:due|bis|Frist)\b", text, re.I) else None


def _owner(src: Source, body: str, u: Unit) -> str:
    """Owner of a labelled item: an "Owner:" field, else a person named in the label
    ("ACTION Samuel Okafor: ..."), else the person the text starts with, else the first
    person it names."""
    m = _OWNER_INLINE.search(body)
    if m:
        return _resolve(src, m.group("o"))
    label, _, rest = body.partition(":")
    return (_owner_anywhere(src, label) if len(label) <= 60 else "") \
        or _person_subject(src, rest if len(label) <= 60 else body) or _owner_anywhere(src, body)


def _resolve(src: Source, raw: str) -> str:
    """An owner as written ("Frau Dr. Vogelsang", "J. Albrecht", "IT Operations") mapped
    to the person's full name when the document names that person."""
    raw = " ".join(raw.split()).strip(" .,;")
    plain = re.sub(r"\b(?:Herrn?|Frau|Mr\.?|Mrs\.?|Ms\.?|Dr\.|Prof\.)\s*", "", raw).strip()
    if not plain:
        return raw
    people = persons(src)
    if plain in people:
        return plain
    last = plain.split()[-1]
    hits = [p for p in people if p.split()[-1] == last]
    return hits[0] if len(hits) == 1 else plain


def _person_subject(src: Source, t: str) -> str | None:
    """The person a sentence starts with ("Frau Krüger berichtet ...", "Ahmed Karimi is to
    ...", "Action: Elena Novak will ...")."""
    t = re.sub(r"^\s*(?:[-•*]\s+)?(?:[\w ]{0,20}:\s*)?", "", t, count=1)
    m = re.match(r"(?:(?:Herrn?|Frau|Mr\.?|Mrs\.?|Ms\.?)\s+)?(?:(?:Dr\.|Prof\.)\s+)?"
                 r"(?P<n>[A-ZÄÖÜ][\w'’-]+(?:\s+[A-ZÄÖÜ][\w'’-]+)?)", t)
    if not m:
        return None
    name = m.group("n")
    index = _surnames(src)
    for cand in (name, name.split()[0], name.split()[-1]):
        hits = index.get(cand, [])
        if len(hits) == 1:
            return hits[0]
    return None


def _surnames(src: Source) -> dict[str, list[str]]:
    """Person names by full name and by surname."""
    def build() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in persons(src):
            out.setdefault(p, []).append(p)
            if p.split()[-1] != p:
                out.setdefault(p.split()[-1], []).append(p)
        return out

    return memo(src, "surnames", build)


def _due(src: Source, text: str, future_only: bool = False) -> str | None:
    ds = [d for d in find_dates(text, src.doc_date, src.language) if d.iso]
    if not ds:
        return None
    marked = [d for d in ds if re.search(r"(?:\bby|\bbis(?: zum)?|\bdue|\buntil|\bspätestens|Frist|"
                                         r"\bbefore|\bzum|\bam|\bon)\s*:?\s*$",
                                         text[max(0, d.start - 14):d.start], re.I)]
    pick = (marked or ds)[-1] if any(d.range_end for d in ds) else (marked or ds)[0]
    if future_only and not _is_future(pick, src.doc_date):
        return None
    return pick.iso


def _is_future(d: DateMention, ref: date | None) -> bool:
    if ref is None or d.last is None:
        return True
    return d.last >= ref
