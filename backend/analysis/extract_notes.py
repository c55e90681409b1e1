"""Obligations and operation: requirements (must/shall/mandatory/may only, muss/darf nur/
ist ... zu/bedarf, prerequisites), operational notes (warnings, notes, "do not", conditional
instructions, troubleshooting) and risks (risks, blockers, delays, dependencies, warning
signs). One item per sentence, list item or table row; labelled blocks ("Warning:",
"Risk R-3 (high):", "Blocker:") are taken whole."""
from __future__ import annotations

import re

from backend.analysis.common import content_units, item_from_units, labelled_block
from backend.analysis.source import Source
from backend.analysis.types import Item

# ---- requirements --------------------------------------------------------------------------

_MUST_EN = re.compile(r"\b(?:must|shall|is required|are required|required to|mandatory|may only|"
                      r"needs? (?:the|a|an|to)|you need|you will need|has to|have to|should|prerequisite|requires?|"
                      r"is not permitted|are not permitted|is prohibited|at the latest|immediately)\b",
                      re.I)
_MUST_DE = re.compile(r"\b(?:muss|müssen|(?:darf|dürfen)\b[^.;]{0,80}?\b(?:nicht|nur|kein\w*)|"
                      r"soll|sollen|sollte|sollten|erforderlich|Voraussetzung|benötigt|"
                      r"benötigen Sie|Sie benötigen|brauchen Sie|bedarf|bedürfen|verpflichtet|"
                      r"zwingend|nur zulässig|ist untersagt|sind untersagt|stellen sicher|stellt sicher|"
                      r"unverzüglich|spätestens)\b")
_ZU_INF = re.compile(r"\b(?:ist|sind)\b[^;]{0,160}?(?:\bzu\s+[a-zäöü]+(?:en|ern|eln)\b|"
                     r"\b[a-zäöüß]{2,}zu[a-zäöüß]{3,}en\b)")
_PREREQ_SECTION = re.compile(r"\b(?:prerequisites?|requirements?|voraussetzungen|anforderungen|"
                             r"systemvoraussetzungen)\b", re.I)
# what was (not) needed, or is not needed: a statement, no obligation ("Eine Abstimmung war
# nicht erforderlich.", "No vote was required."); taken out before the modal words are sought
_NOT_REQ = re.compile(r"\b(?:no decision was required|(?:was|were)\s+(?:not\s+)?required|"
                      r"(?:is|are)\s+not\s+required|not\s+(?:required|necessary|needed)|"
                      r"(?:war|waren|wäre|wären)\s+(?:\w+\s+){0,3}?(?:erforderlich|notwendig|nötig)|"
                      r"nicht\s+(?:erforderlich|notwendig|nötig|benötigt)|"
                      r"(?:keine|kein)\s+\w+\s+(?:erforderlich|notwendig|nötig))\b", re.I)


def extract_requirements(src: Source) -> list[Item]:
    items: list[Item] = []
    prereq: dict[int, bool] = {}
    for i, u in content_units(src):
        if u.kind == "code":
            continue
        t = u.text
        signals = []
        if u.kind == "item" and u.section not in prereq:
            prereq[u.section] = bool(_PREREQ_SECTION.search(src.sections[u.section].label))
        if u.kind == "item" and prereq[u.section]:
            signals.append("prerequisite_section")
        said = _NOT_REQ.sub(" ", t)  # "muss …; eine Abstimmung war nicht erforderlich" stays
        if _MUST_EN.search(said):
            signals.append("modal_en")
        if _MUST_DE.search(said):
            signals.append("modal_de")
        if _ZU_INF.search(t):
            signals.append("zu_infinitive")
        if not signals or t.rstrip().endswith("?"):
            continue
        strong = re.search(r"\b(?:must|shall|mandatory|may only|muss|müssen|darf|dürfen|"
                           r"zwingend|verpflichtet)\b", t, re.I)
        conf = 0.85 if strong or "prerequisite_section" in signals else 0.72
        items.append(item_from_units(src, "requirements", i, i, conf, signals,
                                     strength="must" if strong else "should",
                                     prerequisite="prerequisite_section" in signals))
    return items


# ---- operational notes --------------------------------------------------------------------

_NOTE_LABEL = re.compile(r"^(?:Warning|Caution|Note|Notes|Important|Attention|Tip|Hinweis|Hinweise|"
                         r"Achtung|Wichtig|Vorsicht|Warnung|Beachten Sie|Bitte beachten|Workaround|"
                         r"Known issue)\b", re.I)
_DONT = re.compile(r"^(?:Do not|Don't|Never|Avoid|Make sure|Ensure|Keep|Nicht|Niemals|Vermeiden Sie|"
                   r"Achten Sie|Stellen Sie sicher)\b|\b(?:Setzen|Ändern|Starten|Löschen)\s+Sie\b[^.]{0,80}"
                   r"\b(?:nie|niemals|keinesfalls|nicht)\b", re.I)
_CONDITIONAL = re.compile(r"^(?:If|When|Wenn|Falls|Sollte|Bei|Lässt sich|Unless|In case)\b[^.]{3,200}?,\s*"
                          r"(?:\w+\s+){0,2}?(?:escalate|check|restart|raise|contact|call|reduce|"
                          r"do not|open|run|wait|eskalieren|prüfen|starten|informieren|erhöhen|"
                          r"erstellen|melden|the \w+|der \w+|die \w+|das \w+)", re.I)
_TROUBLE_SECTION = re.compile(r"\b(?:troubleshoot\w*|fehlerbehebung|fehlersuche|known issues|"
                              r"bekannte probleme|störungs?\w*|operating notes|operation notes|"
                              r"betriebshinweise|sicherheitshinweise|hinweise zum betrieb|upgrade notes|"
                              r"migration notes|limit reached|[A-Z]{2,5}-\d{3,4}|error\w*|meldekett\w*|"
                              r"alarmierung|notfall\w*|emergenc\w*|"
                              r"incident response)\b", re.I)
_COND_DE = re.compile(r"^(?:(?:Bei|Im Falle|Falls|Wenn|Sollte)\b[^.]{3,160}?\b(?:ist|sind)\b[^.]{0,120}?\bzu\s+\w+en\b|"
                      r"(?:Besteht|Fällt|Fallen|Tritt|Treten|Liegt|Kommt|Steigt|Sinkt)\b[^.]{3,160}?,\s*"
                      r"(?:ist|sind|wird|werden|übernimmt|startet|muss|müssen)\b)")
_ERROR_CODE = re.compile(r"\b(?:[A-Z]{2,5}-\d{3,4}|Fehler(?:code)?\s+[A-Z]*-?\d+|error\s+[A-Z]*-?\d+)\b")


def extract_operational_notes(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        blk = labelled_block(src, i, _NOTE_LABEL)
        if blk:
            first, last, label = blk
            covered.update(range(first, last + 1))
            items.append(item_from_units(src, "operational_notes", first, last, 0.9, ["label"],
                                         kind=_note_kind(label)))
            continue
        t = u.text
        signals = []
        sec = src.sections[u.section]
        section = " / ".join(sec.path) or sec.label
        if _DONT.search(t):
            signals.append("imperative_warning")
        if _CONDITIONAL.search(t) or _COND_DE.search(t):
            signals.append("conditional_instruction")
        if _TROUBLE_SECTION.search(section) and u.kind in ("sentence", "item", "row"):
            signals.append("troubleshooting_section")
        if _ERROR_CODE.search(t) and u.kind in ("row", "item") and _TROUBLE_SECTION.search(section):
            signals.append("error_code")
        if not signals:
            continue
        conf = 0.8 if len(signals) > 1 or signals[0] != "troubleshooting_section" else 0.7
        kind = ("troubleshooting" if "error_code" in signals or "troubleshooting_section" in signals
                and re.search(r"fehler|troubl|error|LDG|limit", section, re.I) else
                "warning" if "imperative_warning" in signals else "instruction")
        items.append(item_from_units(src, "operational_notes", i, i, conf, signals, kind=kind))
    return items


def _note_kind(label: str) -> str:
    low = label.lower()
    if low.startswith(("warn", "caution", "achtung", "vorsicht", "attention", "wichtig", "important")):
        return "warning"
    if low.startswith(("known", "workaround")):
        return "troubleshooting"
    return "note"


# ---- risks ---------------------------------------------------------------------------------

_RISK_LABEL = re.compile(r"^(?:Risk|Risks|Risiko|Risiken|Blocker|Blockers|Gefahr|Threat|Issue|Problem|"
                         r"Engpass|Warnsignal|Warning sign)\b", re.I)
_RISK_WORDS = re.compile(
    r"\b(?:risk|risks|at risk|risiko|risiken|blocker|delays|delayed|behind (?:plan|"
    r"schedule)|postponed|verzögert|verzögerung\w*|verschoben|im verzug|bottleneck|engpass|shortage|"
    r"could fail|might fail|may fail|can be lost|could be lost|verloren gehen|depends on|abhängig von|"
    r"only supports?|not (?:yet )?been tested|noch nicht getestet|not before|nicht vor|gefahr|gefährdet|"
    r"droht|threat|overdue|überfällig|amber|red status|critical path|kritischer pfad|warning sign|"
    r"warnsignal|cannot be carried out|nicht möglich|cracks?|risse|damage[sd]?|schäden|beschädigt|"
    r"corrosion|korrosion|leckage|defects?|defekt\w*|mängel)\b", re.I)
_RISK_SECTION = re.compile(r"\b(?:what went wrong|risks?|risiken|issues|probleme|schwachstellen|weaknesses|"
                           r"concerns|bedenken|threats|gefährdungen|blockers?)\b", re.I)


# A cheap test before _RISK_WORDS: every one of its words contains one of these (lower case),
# and most sentences contain none, so the long regex runs on few of them.
_RISK_STEMS = ("risk", "risik", "block", "delay", "behind", "postpon", "verzög", "verschob",
               "verzug", "bottleneck", "engpass", "shortage", "fail", "lost", "verloren", "depend",
               "abhängig", "only support", "tested", "getestet", "before", "nicht vor", "gefahr",
               "gefährd", "droht", "threat", "overdue", "überfällig", "amber", "red status",
               "critical path", "kritischer pfad", "warning sign", "warnsignal", "cannot be",
               "nicht möglich", "crack", "risse", "damage", "schäden", "beschädigt", "corrosion",
               "korrosion", "leckage", "defect", "defekt", "mängel")


def extract_risks(src: Source) -> list[Item]:
    items: list[Item] = []
    covered: set[int] = set()
    labels: dict[int, bool] = {}

    def risk_section(ordinal: int) -> bool:
        if ordinal not in labels:
            labels[ordinal] = bool(_RISK_SECTION.search(src.sections[ordinal].label))
        return labels[ordinal]

    for i, u in content_units(src):
        if i in covered or u.kind == "code":
            continue
        blk = labelled_block(src, i, _RISK_LABEL)
        if blk:
            first, last, label = blk
            covered.update(range(first, last + 1))
            body = src.text[src.units[first].start:src.units[last].end]
            items.append(item_from_units(src, "risks", first, last, 0.9, ["label"],
                                         level=_level(label + " " + body),
                                         kind="blocker" if "block" in label.lower() else "risk"))
            continue
        low = u.text.lower()
        words = sorted({m.group(0).lower() for m in _RISK_WORDS.finditer(u.text)}) \
            if any(k in low for k in _RISK_STEMS) else []
        in_section = u.kind in ("item", "row", "sentence") and risk_section(u.section)
        if in_section:
            words.append("risk_section")
        if not words:
            continue
        conf = 0.65 + 0.1 * min(2, len(words) - 1)
        if conf < 0.65:
            continue
        items.append(item_from_units(src, "risks", i, i, conf, ["wording"], level=_level(u.text),
                                     kind="blocker" if any(w.startswith("block") for w in words)
                                     else "risk", cues=words))
    return items


def _level(text: str) -> str | None:
    m = re.search(r"\((high|medium|low|hoch|mittel|niedrig|critical|kritisch)\)", text, re.I)
    if m:
        return {"hoch": "high", "mittel": "medium", "niedrig": "low", "kritisch": "critical"}.get(
            m.group(1).lower(), m.group(1).lower())
    return None
