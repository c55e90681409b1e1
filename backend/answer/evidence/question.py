"""What a question asks, for scoring its answer candidates (backend/answer/evidence/scoring.py):
its content words (German compounds and participles folded, a small German/English glossary),
its exact tokens (config keys, codes, versions, § numbers), the value type it asks for (number,
duration, date, name, path) and its years and figures."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.answer.evidence import crosslingual
from backend.answer.evidence.crosslingual import Bridge, CrossLingual
from backend.ingest.language import detect_language
from backend.retrieval.dictionary import TEXT_WORD, knows
from backend.retrieval.stopwords import STOP_WORDS

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = STOP_WORDS
# Generic words that questions and documents use in the other language (units, time, common
# nouns of question frames). Maps each to a shared token; both sides are mapped.
_GLOSSARY = {
    "default": "dflt", "standardwert": "dflt", "voreinstellung": "dflt", "standardmäßig": "dflt",
    "voreingestellt": "dflt", "standardmaessig": "dflt",
    "seconds": "sec", "second": "sec", "sekunden": "sec", "sekunde": "sec",
    "minutes": "min", "minute": "min", "minuten": "min",
    "hours": "hour", "hour": "hour", "stunden": "hour", "stunde": "hour",
    "days": "day", "day": "day", "tage": "day", "tagen": "day", "tag": "day",
    "weeks": "week", "week": "week", "wochen": "week", "woche": "week",
    "months": "month", "month": "month", "monate": "month", "monaten": "month", "monat": "month",
    "years": "year", "year": "year", "jahre": "year", "jahren": "year", "jahr": "year",
    "password": "passw", "passwords": "passw", "passwort": "passw", "passwörter": "passw",
    "price": "price", "preis": "price", "costs": "cost", "cost": "cost", "kosten": "cost",
    "meeting": "meet", "sitzung": "meet", "port": "port", "file": "file", "datei": "file",
    "user": "user", "users": "user", "nutzer": "user", "benutzer": "user",
    "role": "role", "rolle": "role", "key": "key", "schlüssel": "key",
    "error": "err", "fehler": "err", "fehlercode": "err", "code": "code",
    "valid": "valid", "gültig": "valid", "deleted": "delet", "gelöscht": "delet",
    "kept": "keep", "stored": "keep", "aufbewahrt": "keep", "gespeichert": "keep",
    "reported": "report", "gemeldet": "report", "melden": "report", "report": "report",
    "temperature": "temp", "temperatur": "temp", "winter": "winter", "summer": "summer",
    "sommer": "summer", "water": "water", "wasser": "water", "data": "data", "daten": "data",
    "customer": "cust", "customers": "cust", "kunden": "cust", "kundin": "cust",
    "portal": "portal", "kundenportal": "portal", "invoices": "invoice", "rechnungen": "invoice",
    "invoice": "invoice", "rechnung": "invoice", "employees": "staff", "beschäftigte": "staff",
    "mitarbeiter": "staff", "mitarbeiterinnen": "staff", "responsible": "resp",
    "verantwortlich": "resp", "maximum": "max", "höchstens": "max", "maximal": "max",
    "minimum": "minm", "mindestens": "minm", "least": "minm",
}
_EXACT = re.compile(r"(§\s*\d+[a-z]?|\b[\w-]+(?:[._][\w-]+)+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
                    r"|\b[A-Z]{2,}-\d[\d-]*\b|\b\d{4}/\d+\b|\b(?:19|20)\d\d\b|\b\d+\.\d+(?:\.\d+)*\b)")
_NUMBER_WORDS = ("eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zwanzig "
                 "dreißig hundert tausend one two three four five six seven eight nine ten "
                 "eleven twelve twenty thirty hundred thousand").split()
_UNITS = (r"(?:sekunden?|minuten?|stunden?|tage?n?|wochen?|monate?n?|jahre?n?|ms|"
          r"millisekunden|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|werktage?n?|"
          r"working days)")
_NUM = rf"(?:\d[\d.,]*|{'|'.join(_NUMBER_WORDS)})"
_DURATION = re.compile(rf"\b{_NUM}\s+{_UNITS}\b|\b(?:jährlich|täglich|monatlich|wöchentlich|"
                       r"vierteljährlich|halbjährlich|stündlich|annually|daily|monthly|weekly|"
                       r"yearly|hourly|quarterly)\b|"
                       rf"\b(?:every|alle)\s+(?:{_NUM}\s+|other\s+|zwei\s+)?(?:{_UNITS}|"
                       r"quarter|quartal|halbjahr)\b", re.I)
_MONTHS = ("januar februar märz april mai juni juli august september oktober november dezember "
           "january february march may june july october december").split()
# a season of a year: "im Herbst 2026", "in spring 2025"
_SEASON = (r"\b(?:frühjahr|frühling|sommer|herbst|winter|spring|summer|autumn)\s+"
           r"(?:19|20)\d\d\b")
_DATE = re.compile(rf"\b(?:{'|'.join(_MONTHS)})\b|\b\d{{1,2}}\.\d{{1,2}}\.\d{{2,4}}\b|"
                   r"\b\d{4}-\d\d-\d\d\b|\b\d{1,2}:\d\d\b|\b(?:montag|dienstag|mittwoch|"
                   r"donnerstag|freitag|samstag|sonntag|monday|tuesday|wednesday|thursday|"
                   r"friday|saturday|sunday|dienstags|montags)\b|\bQ[1-4]\b|" + _SEASON, re.I)
_UNIT_KEY = re.compile(r"[a-z]_(?:ms|s|sec|secs|seconds|minutes|hours|days)\b")
_LENGTH = re.compile(rf"\b{_NUM}\s+(?:kilometres|kilometers|kilometern?|km|metres|meters|"
                     r"metern?|m)\b", re.I)
# A name: a title before a capitalised word, or two capitalised words that are not an article
# plus a noun ("Die Datenschutzbeauftragte") nor a noun ending in a common suffix; or a firm.
_PERSON = re.compile(
    r"\b(?:Dr\.|Frau|Herr|Mr\.?|Ms\.?)\s+[A-ZÄÖÜ]|\b(?!(?:Die|Der|Das|Den|Dem|Des|Ein|Eine|"
    r"Einen|The|This|These|All|Alle|Jede|Jeder|Unser|Unsere|Ihr|Ihre|Im|Am|Zum|Zur|Bei|Nach|"
    r"Für|Mit|Von|Vor|In|On|At|For|If|When)\b)[A-ZÄÖÜ][a-zäöüß]+ [A-ZÄÖÜ][a-zäöüß]+"
    r"(?<!ung)(?<!heit)(?<!keit)(?<!schaft)(?<!tion)(?<!tät)(?<!beauftragte)(?<!nis)"
    r"(?=[\s,.;)]|$)|\b(?:GmbH|AG|Behörde)\b|amt\b")
_PLACE = re.compile(r"(?:^|\s)/\w|\b(?:in|im|unter|bei|at|under|in the)\s+[A-ZÄÖÜ\"„]")
_QTYPES = [
    ("duration", re.compile(
        r"\b(?:wie\s+lange?|wie\s+schnell|wie\s+oft|innerhalb\s+welcher|welche\s+frist|"
        r"nach\s+wie\s+vielen|bis\s+wann|how\s+long|how\s+quickly|how\s+often|how\s+far\s+in"
        r"|within\s+how|after\s+how\s+many|for\s+how\s+many\s+(?:days|hours|minutes|months|"
        r"years))\b", re.I)),
    ("date", re.compile(r"\b(?:wann|seit\s+wann|an\s+welchem|when|which\s+date|what\s+date)\b",
                        re.I)),
    ("number", re.compile(
        r"\b(?:wie\s+viele?|wie\s+hoch|welche[nrs]?\s+(?:standard)?wert|standardwert|"
        r"voreinstellung|auf\s+welchen\s+wert|welche[rn]?\s+port|ab\s+welche[rm]|was\s+kostet|"
        r"how\s+many|how\s+much|default\s+value|what\s+(?:is|was|are)\s+the\s+(?:default|"
        r"value|size|number|revenue|ratio|price|budget|volume|storage|temperature|"
        r"availability|minimum|maximum|flow|gross|net|equity)|which\s+port|to\s+what|"
        r"at\s+what|which\s+(?:\w+\s+)?version|welche[rn]?\s+(?:\w+)?version)\b", re.I)),
    ("person", re.compile(r"\b(?:wer|wem|welche\s+firma|welches\s+unternehmen|who|whom|"
                          r"which\s+company)\b", re.I)),
    ("place", re.compile(r"\b(?:wo|wohin|unter\s+welchem|in\s+welchem\s+bereich|where|"
                         r"which\s+path|what\s+path|to\s+which\s+path|under\s+which)\b", re.I)),
]


# a question for an amount of money, and a currency: "Was kostet …", "How much is … charged"
ASKS_MONEY = re.compile(r"\b(?:kost\w*|preis\w*|\w*preis|gebühr\w*|miete|\w*miete|budget\w*|"
                        r"umsatz\w*|zuschuss|förder\w*|betr[äa]g\w*|price\w*|cost\w*|fee\w*|"
                        r"charge\w*|rent|revenue|grant|spend\w*|pay\w*|zahlt\w*|zahlen|"
                        r"bezahl\w*)\b", re.I)
CURRENCY = r"(?:EUR|Euros?|€|USD|US-Dollar|\$|£|GBP|CHF)"
# an amount: a currency sign or code before the figure (the word "Euro" only after it:
# "Euro 6" is an emission class), or free of charge
_MONEY = re.compile(rf"(?:EUR|€|USD|\$|£|GBP|CHF)\s?\d|\d\s?(?:{CURRENCY}|Cent\b|pence\b|ct\b)|"
                    r"\b(?:kostenlos|kostenfrei|gebührenfrei|free of charge|no charge)\b"
                    r"|\bfree\b", re.I)


def has_money(text: str) -> bool:
    """An amount of money (or "free of charge") in `text`."""
    return bool(_MONEY.search(text))


def _has_type(qtype: str, text: str) -> bool:
    if qtype == "number":
        return bool(re.search(r"\d", text)) or any(
            re.search(rf"\b{w}\b", text, re.I) for w in _NUMBER_WORDS[:20])
    if qtype == "duration":  # also a figure of a key named in a time unit ("…_ms: 1500")
        return bool(_DURATION.search(text) or _LENGTH.search(text)
                    or (re.search(r"\d", text) and _UNIT_KEY.search(text)))
    if qtype == "date":
        return bool(_DATE.search(text) or _DURATION.search(text))
    if qtype == "person":
        return bool(_PERSON.search(text))
    if qtype == "place":
        return bool(_PLACE.search(text))
    return False


_NOT_VALUE = re.compile(
    rf"^\s*\(?\d{{1,2}}[.)]\s|§\s*\d+\w?|\b\d{{1,2}}\.?\s+(?:{'|'.join(_MONTHS)})\b|"
    r"\b\d{1,2}\.\d{1,2}\.\d{2,4}\b|\b\d{4}-\d\d-\d\d\b|\b(?:19|20)\d\d\b", re.IGNORECASE)

_VERSION = re.compile(r"\b(?:version|release|v)\s?\d+(?:\.\d+)+\b", re.IGNORECASE)
_ASKS_VERSION = re.compile(r"\b(?:version|release)", re.IGNORECASE)


def new_value(q: Question, text: str) -> bool:
    """The candidate has what the question asks for outside what the question itself says:
    the question's own words and figures are removed first, and for a number also
    enumerations ("(2)"), § numbers, dates and years, which are rarely the asked value, and
    version numbers unless the question asks for a version."""
    if not q.qtype:
        return False
    rest = text
    for w in set(_WORD.findall(q.text)):
        if len(w) >= 2 or w.isdigit():
            rest = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)", " ", rest, flags=re.I)
    if q.qtype == "number":
        rest = _NOT_VALUE.sub(" ", rest)
        if not _ASKS_VERSION.search(q.text):  # "removed in version 4.0" is no default value
            rest = _VERSION.sub(" ", rest)
    return _has_type(q.qtype, rest)


_PARTICIPLE = re.compile(r"^(ab|an|auf|aus|ein|mit|nach|vor|zu|zurück|)ge(\w{4,})$")


def terms(text: str) -> list[str]:
    """Content words: lower-cased, glossary-mapped, else cut to a 6-character stem; the
    "ge" of German participles is dropped ("abgestimmt" → "abstimmt", "gelöscht" →
    "löscht") so that they meet their nouns ("Abstimmung", "Löschfrist")."""
    out = []
    for w in (m.lower() for m in _WORD.findall(text)):
        if w in _STOP or (len(w) < 2 and not w.isdigit()):
            continue
        if w not in _GLOSSARY:
            m = _PARTICIPLE.match(w)
            if m and w.endswith(("t", "en")):
                w = m.group(1) + m.group(2)
        out.append(_GLOSSARY.get(w, w[:6]))
    return out


def _matches(q: set[str], ts: set[str], *, loose: bool = True) -> set[str]:
    """Question terms found in `ts`; a term also matches a longer or shorter one it starts
    (German compounds: "Portnummer" finds "Port"), and, when `loose`, one sharing its first
    five letters ("löscht" / "Löschfrist")."""
    found = q & ts
    for t in q - found:
        if len(t) >= 4 and any(len(u) >= 4 and (u.startswith(t) or t.startswith(u)
                                                or (loose and len(t) >= 5 and t[:5] == u[:5]))
                               for u in ts):
            found.add(t)
    return found


@dataclass
class Question:
    text: str
    language: str
    terms: set[str]
    exact: list[str]  # keys, codes, versions, § numbers, figures of 3+ digits
    qtype: str | None
    years: list[str] = field(default_factory=list)  # only for `missing`: too common to rank by
    words: list[str] = field(default_factory=list)  # content words as written (for `unseen`)
    bridge: Bridge | None = None  # dictionary translations (backend/answer/evidence/crosslingual.py)
    # terms of its names: capitalised after the first word, unknown to the dictionary
    # ("Ostrander", "Talblick"); English questions only — in German every noun is
    # capitalised and a compound the dictionary lacks ("Sicherheitsbeauftragter") is no
    # name; none without the dictionary
    names: set[str] = field(default_factory=set)
    money: bool = False  # a "number" question for an amount of money (ASKS_MONEY)


_YEAR = re.compile(r"^(?:19|20)\d\d$")
_FIGURE = re.compile(r"\b\d{3,}\b")


def analyse(question: str, cross: CrossLingual | None = None) -> Question:
    found = {m.strip().casefold() for m in _EXACT.findall(question) if len(m.strip()) >= 3}
    found |= set(_FIGURE.findall(question))
    years = sorted(x for x in found if _YEAR.match(x))
    exact = sorted(x for x in found if not _YEAR.match(x))
    qtype = next((name for name, rx in _QTYPES if rx.search(question)), None)
    words = list(dict.fromkeys(w for w in _WORD.findall(question) if len(w) >= 3
                               and w.lower() not in _STOP and not w.isdigit()))
    lang = detect_language(question)
    bridged = crosslingual.bridge(cross.dictionary if cross else None, question, lang, _STOP,
                                  terms)
    d = cross.dictionary if cross else None
    names = {t for w in TEXT_WORD.findall(question)[1:] if w[:1].isupper() and d is not None
             and not knows(d, w) for t in terms(w)} if lang == "en" else set()
    return Question(question, lang, set(terms(question)), exact, qtype, years, words, bridged,
                    names, qtype == "number" and bool(ASKS_MONEY.search(question)))
