"""Minutes and status reports: decisions (with vote results), action items and open points
(owner, due date, status). Deadlines: extract_deadlines.py.

Signals, strongest first: the document's own labels ("Beschluss 2024/17:", "Decision:",
"Open item OI-7:", "Action:", "Aufgabe:"), tables whose header names an action / owner / due
column, then wording (decision verbs next to a body or an object such as "Protokoll",
"agenda", "proposal"; a named person committing to something by a future date; a date after
the document's own date, a due marker, a time limit)."""
from __future__ import annotations

import re
from datetime import date

from backend.analysis.common import content_units, item_from_units, labelled_block, memo
from backend.analysis.dates import DateMention, find_dates
from backend.analysis.extract_entities import persons
from backend.analysis.source import Source, Unit
from backend.analysis.types import MINUTES_TYPES, Item

# ---- decisions ------------------------------------------------------------------------

_DECISION_LABEL = re.compile(r"^(?:Beschluss|Beschlüsse|Entscheidung|Decision|Decisions|Resolution|"
                             r"Resolved|Agreed|Beschlossen)\b", re.I)
_DECISION_VERB = re.compile(
    r"\b(?:beschlie(?:ß|ss)t|beschlossen|beschließen|genehmigt|angenommen|abgelehnt|zugestimmt|"
    r"stimmt\b[^.]{0,120}\bzu\b|entschieden|entscheidet|verabschiedet|empfiehlt|einigt\w*\s+sich|"
    r"approved?|approves|agreed|agrees|decided|decides|resolved|resolves|rejected|rejects|"
    r"confirm(?:s|ed)|accept(?:s|ed)|adopt(?:s|ed)|endorse[sd]?|ratifie[sd])\b", re.I)
_DECISION_BODY = re.compile(
    r"\b(?:Ausschuss|Werkausschuss|Aufsichtsrat|Gremium|Gremien|Vorstand|Geschäftsführung|Gemeinderat|"
    r"Stadtrat|Rat|Versammlung|Kommission|Lenkungskreis|committee|committees|board|council|assembly|"
    r"management|shareholders?|Gesellschafter\w*|group|working group|team|panel|participants|"
    r"Arbeitsgruppe|Arbeitskreis|Runde|Teilnehmenden|Teilnehmer)\b", re.I)
_IMPERSONAL = re.compile(r"\b(?:it was|it has been|es wurde|es ist)\s+(?:unanimously\s+|einstimmig\s+)?"
                         r"(?:resolved|decided|agreed|beschlossen|vereinbart|entschieden)\b", re.I)
_DECISION_OBJECT_PASSIVE = re.compile(
    r"\b(?:Protokoll|Tagesordnung|Antrag|Vorschlag|Bericht|Haushalt|Budget|Plan|Vergabe|agenda|"
    r"minutes of|proposal|motion|report|budget|plan)\b[^.]{0,120}\b(?:was|were|is|are|has been|"
    r"have been|wurde|wurden|wird|werden|ist|sind)\b", re.I)
_DECISION_INTRO = re.compile(r"(?:folgenden Beschluss|beschlie(?:ß|ss)t|beschloss|fasste? (?:den|einen) Beschluss|"
                             r"as follows|resolved|decided|the following decision)\s*:\s*$", re.I)
_NOT_DECISION = re.compile(r"\b(?:no decision was required|keine Entscheidung|nicht erforderlich war|"
                           r"took note|zur Kenntnis|if approved|falls genehmigt|to be approved|"
                           r"zur Genehmigung vorgelegt)\b", re.I)
_VOTE_LABEL = re.compile(r"^\s*(?:Abstimmung|Abstimmungsergebnis|Ergebnis|Vote|Voting|Result)\s*:", re.I)
_VOTE_SEGMENT = re.compile(r"(?:Abstimmung\w*|Ergebnis|Vote|Voting|Stimmen|votes?)\s*:?\s*(?P<v>[^.\n]{0,120})|"
                           r"(?P<w>[^.\n]{0,80}\b(?:Ja-Stimmen|Gegenstimmen?|Enthaltung\w*|in favou?r|dafür|dagegen|"
                           r"against|abstentions?|einstimmig|unanimous\w*)\b[^.\n]{0,60})", re.I)
_VOTE_PARTS = {
    "yes": re.compile(r"(\d+)\s*(?:Ja-Stimmen|Ja|Stimmen dafür|dafür|in favou?r|yes)\b", re.I),
    "no": re.compile(r"(\d+)\s*(?:Gegenstimmen?|Nein-Stimmen|Nein|dagegen|against|no)\b", re.I),
    "abstain": re.compile(r"(\d+)\s*(?:Enthaltung(?:en)?|abstentions?)\b", re.I),
}
_UNANIMOUS = re.compile(r"\b(?:einstimmig|unanimous(?:ly)?)\b", re.I)


def vote_of(text: str) -> dict | None:
    """The vote result of a decision: {"yes": 5, "no": 1, "abstain": 0, "unanimous": True}."""
    vote: dict = {}
    for seg in _VOTE_SEGMENT.finditer(text):
        part = seg.group("v") or seg.group("w") or ""
        if _UNANIMOUS.search(part):
            vote["unanimous"] = True
        for k, rx in _VOTE_PARTS.items():
            m = rx.search(part)
            if m and k not in vote:
                vote[k] = int(m.group(1))
    return vote or None


def extract_decisions(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    units = src.units
    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        blk = labelled_block(src, i, _DECISION_LABEL)
        if blk:
            first, last, label = blk
            covered.update(range(first, last + 1))
            body = src.text[units[first].start:units[last].end]
            if _NOT_DECISION.search(body) and not re.search(r"beschluss|decision", label, re.I):
                continue
            items.append(item_from_units(src, "decisions", first, last, 0.95, ["label"],
                                         label=label, vote=vote_of(body), outcome=_outcome(body)))
            continue
        t = u.text
        if _introduced(src, i):
            lo, hi = src.block_span(i)
            last = i
            while last + 1 <= hi and (_VOTE_LABEL.match(units[last + 1].text)
                                      or units[last + 1].kind == u.kind == "sentence"):
                last += 1
            covered.update(range(i, last + 1))
            body = src.text[u.start:units[last].end]
            items.append(item_from_units(src, "decisions", i, last, 0.9, ["introduced"],
                                         label="", vote=vote_of(body), outcome=_outcome(body)))
            continue
        if not _verb_used(t) or _NOT_DECISION.search(t) or t.rstrip().endswith("?"):
            continue
        signals = ["verb"]
        conf = 0.55
        if _IMPERSONAL.search(t):
            signals.append("impersonal_formula")
            conf += 0.3
        elif _DECISION_BODY.search(t):
            signals.append("body")
            conf += 0.25
        elif _DECISION_OBJECT_PASSIVE.search(t):
            signals.append("passive_object")
            conf += 0.25
        if src.doc_type in MINUTES_TYPES or src.sections[u.section].kind == "agenda_item":
            signals.append("minutes")
            conf += 0.1
        if re.search(r"\b(?:soll|sollte|should|may|could|would|will be asked|wird gebeten)\b", t, re.I):
            conf -= 0.25
        if conf < 0.7:
            continue
        last = i
        lo, hi = src.block_span(i)
        if i + 1 <= hi and _VOTE_LABEL.match(units[i + 1].text):
            last = i + 1
            covered.add(i + 1)
        body = src.text[u.start:units[last].end]
        items.append(item_from_units(src, "decisions", i, last, conf, signals, label="",
                                     vote=vote_of(body), outcome=_outcome(body)))
    return items


def _introduced(src: Source, i: int) -> bool:
    """The unit opens the block right after a line ending in "... folgenden Beschluss:"."""
    units = src.units
    if i == 0 or units[i - 1].block == units[i].block:
        return False
    return bool(_DECISION_INTRO.search(units[i - 1].text))


_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an|der|die|das|den|dem|des|ein|eine|einen|this|these)\s+$", re.I)


def _verb_used(t: str) -> bool:
    """A decision verb used as a verb ("was approved"), not as an adjective ("the approved
    budget")."""
    return any(not _ARTICLE_BEFORE.search(t[max(0, m.start() - 8):m.start()])
               for m in _DECISION_VERB.finditer(t))


def _outcome(text: str) -> str:
    if re.search(r"\b(?:abgelehnt|rejected|rejects|declined)\b", text, re.I):
        return "rejected"
    if re.search(r"\b(?:zur Kenntnis|took note|noted)\b", text, re.I):
        return "noted"
    return "approved"


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
