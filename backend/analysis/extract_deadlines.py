"""Deadlines: due dates, scheduled future dates and time limits, normalised to ISO dates and
ISO 8601 durations. A date counts when a due marker or label governs it ("bis zum", "by",
"Due:", a due/planned/Frist column), when it lies after the document's own date, or when
future wording goes with it; a duration counts as a limit after "innerhalb von", "within",
"spätestens", "at least ... before", "gültig", in a Frist/retention column. Dates of the
document itself ("Fassung vom", "Report date:") and timeline rows are not deadlines."""
from __future__ import annotations

import re

from backend.analysis.common import content_units, item_from_units, labelled_block
from backend.analysis.dates import find_dates, find_durations
from backend.analysis.extract_actions import _ACTION_LABEL, _DUE_HEAD, _due
from backend.analysis.extract_decisions import _DECISION_LABEL
from backend.analysis.source import Source, Unit
from backend.analysis.types import Item

_DUE_MARK = re.compile(r"(?:\bby|\bbis(?: zum| spätestens)?|\bdue(?: date)?|\buntil|\bspätestens|"
                       r"\bno later than|\bdeadline|\bFrist|\bfällig|\bbefore|\bprior to|\bzum|"
                       r"\bwith effect from|\bmit Wirkung zum|\bab dem|\beffective)\s*:?\s*$", re.I)
_FUTURE = re.compile(r"\b(?:will|shall|is scheduled|are scheduled|is planned|are planned|planned|"
                     r"geplant|findet\b[^.]{0,80}\bstatt|wird|werden|soll|sollen|takes? place|next|"
                     r"nächste[nrs]?|upcoming|is due|are due|postponed to|verschoben auf|"
                     r"abzuschließen|zu erledigen|tritt\b[^.]{0,60}\bin Kraft|takes effect)\b", re.I)
_PAST = re.compile(r"\b(?:was|were|had been|has been|have been|wurde|wurden|worden|war|waren|"
                   r"completed|erledigt am|done on|met on|took place|fand\b[^.]{0,80}\bstatt|"
                   r"ist\b[^.]{0,80}\b(?:getreten|erfolgt)|hat\b[^.]{0,80}\b(?:beschlossen|getagt))\b",
                   re.I)
_LIMIT = re.compile(r"(?:\bwithin|\binnerhalb(?: von)?|\bbinnen|\bspätestens(?: nach)?|\bat the latest|"
                    r"\bno later than|\bmaximum of|\bhöchstens|\bmax\.|\bnach Ablauf von|\bfor a maximum of|"
                    r"\bfor up to|\bvalid for|\bat least|\bmindestens)\s*(?:\w+\s+)?$", re.I)
_LIMIT_AFTER = re.compile(r"^\s*(?:\w+\s+){0,3}?(?:vorher|vor\b|before|in advance|im Voraus|gültig|"
                          r"valid|nach (?:Erhebung|Vertragsende|Abschluss|Ende|Bekanntwerden|Eintritt)|"
                          r"after (?:the )?(?:end|collection|termination))", re.I)
_REF_MARK = re.compile(r"(?:\bvom|\bof|\bdated|\bStand:?|\bas of|\bissued|\berstellt am|\bLast (?:updated|reviewed):?|"
                       r"\bReport date:?|\bDatum:?)\s*$", re.I)
_DUE_LABEL = re.compile(r"\b(?:Due|Frist|Termin|Deadline|Fällig(?:keit)?|Due date|Zieltermin|Target date)\s*:\s*$",
                        re.I)
_FRIST = re.compile(r"\b(?:innerhalb|binnen|within|vor Ablauf)\s+(?:dieser|der|einer|the|this)\s+"
                    r"(?:Frist|period|deadline)\b", re.I)
_LIMIT_HEAD = re.compile(r"(?:frist|deadline|retention|aufbewahrung|löschfrist|period|dauer)", re.I)


def extract_deadlines(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    units = src.units
    ref = src.doc_date
    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        blk = (labelled_block(src, i, _ACTION_LABEL) or labelled_block(src, i, _DECISION_LABEL)
               or labelled_block(src, i, re.compile(r"^(?:Risk|Risiko)\b", re.I)))
        first, last = (blk[0], blk[1]) if blk else (i, i)
        covered.update(range(first, last + 1))
        text = src.text[units[first].start:units[last].end]
        dates = [d for d in find_dates(text, ref, src.language) if d.iso]
        durations = find_durations(text)
        signals: list[str] = []
        conf = 0.0
        if u.kind == "row" and u.cells and re.fullmatch(r"\d{1,2}[:.]\d{2}(?:\s*\w+)?", u.cells[0].strip()):
            continue  # a timeline row: an event at a clock time, not something due
        table_due = u.kind == "row" and u.header and _due_column(u)
        if table_due:
            signals.append("due_column")
            conf = 0.9
        for d in dates:
            before = text[max(0, d.start - 30):d.start]
            if _REF_MARK.search(before):
                continue  # the date of the document or of a reference, not something due
            if _DUE_LABEL.search(before):
                signals.append("due_label")
                conf = max(conf, 0.9)
                continue
            coarse = d.precision not in ("day", "month", "relative")
            future = ref is not None and d.first is not None and d.first > ref
            current = ref is not None and d.first is not None and d.first <= ref <= (d.last or ref)
            not_past = ref is None or d.last is None or d.last >= ref
            if _DUE_MARK.search(before) and not_past and not (d.last == ref and _PAST.search(text)):
                signals.append("due_marker")
                conf = max(conf, 0.85)
            if future and not coarse:
                signals.append("future_date")
                conf = max(conf, 0.8)
            elif (future or current or ref is None) and _FUTURE.search(text):
                signals.append("future_tense")
                conf = max(conf, 0.75)
        for dur in durations:
            before = text[max(0, dur.start - 40):dur.start]
            after = text[dur.end:dur.end + 40]
            if _LIMIT.search(before) or _LIMIT_AFTER.match(after) or (table_due and _LIMIT_HEAD.search(" ".join(u.header))):
                signals.append("time_limit")
                conf = max(conf, 0.8)
        if _FRIST.search(text):
            signals.append("frist")
            conf = max(conf, 0.7)
        if not dates and not durations and "frist" not in signals:
            continue
        if conf < 0.7:
            continue
        iso_dates = [d.iso for d in dates]
        due = _due(src, text) if dates else None
        items.append(item_from_units(src, "deadlines", first, last, conf, signals,
                                     due=due, dates=iso_dates,
                                     durations=[d.iso for d in durations],
                                     expression=", ".join([d.text for d in dates] +
                                                          [d.text for d in durations])))
    return items


def _due_column(u: Unit) -> bool:
    return any(_DUE_HEAD.match(h.strip().lower()) or _LIMIT_HEAD.search(h) for h in u.header)
