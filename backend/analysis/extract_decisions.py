"""Minutes: decisions, with vote results. Action items and open points: extract_actions.py;
deadlines: extract_deadlines.py.

Signals, strongest first: the document's own labels ("Beschluss 2024/17:", "Decision:"), then
wording (decision verbs next to a body or an object such as "Protokoll", "agenda",
"proposal")."""
from __future__ import annotations

import re

from backend.analysis.common import content_units, item_from_units, labelled_block
from backend.analysis.source import Source
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


# a section that holds the decisions as a list ("## 4. Entscheidungen", "Decisions taken")
_DECISION_SECTION = re.compile(r"^\s*(?:(?:TOP\s*)?\d+(?:\.\d+)*[.)]?\s*)?(?:Beschlüsse|Entscheidungen|"
                               r"Beschlusslage|Decisions(?: taken| made)?|Resolutions)\s*:?\s*$", re.I)


def _in_decision_section(src: Source, u) -> bool:
    return u.kind == "item" and bool(_DECISION_SECTION.match(src.sections[u.section].label or ""))


def extract_decisions(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    units = src.units
    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        if _in_decision_section(src, u):  # each list item of a "Entscheidungen" section
            covered.add(i)
            items.append(item_from_units(src, "decisions", i, i, 0.85, ["section"], label="",
                                         vote=vote_of(u.text), outcome=_outcome(u.text)))
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
