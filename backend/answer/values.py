"""Where the value a question asks for stands in a quoted sentence: the span an extractive
answer shows in bold (backend/answer/extractive_text.py).

The question's asked type comes from its analysis (backend/answer/evidence/question.py:
"Wie hoch / How much / Wie viele / How many" → number, "Wann / When" → date, "Wie lange /
How long" → duration, "Wer / Who / Welche Firma" → person or organisation). Here that type
becomes a span of the sentence: an amount with its currency, scale and unit ("2,69 EUR je
Kubikmeter", "EUR 84.6 million", "12 %"), a count with what it counts ("vier Angebote"), a
date ("1. Januar 2025", "March 8, 2024", "Q3 2025"), a duration ("3 Jahre", "every 15
minutes") or a name ("Frau Dr. Katrin Vogelsang", "Hartmann Bau GmbH").

Never a value the question itself names (its figures, dates and words), nor, for a number, an
enumeration "(2)", a § number, a year, a date or a version. When a sentence holds several, the
one next to the question's words wins ("Der Arbeitspreis beträgt 2,69 EUR, der Grundpreis 9,50
EUR" → 9,50 EUR for the Grundpreis), and of a change "von X auf Y" / "from X to Y" the new
value, unless the question asks for the earlier one ("vorher", "previously"); of "X of the Y"
the part X; for "Was kostet / How much is the fee" an amount of money. Pure functions, no
model."""
from __future__ import annotations

import re
from dataclasses import dataclass

from backend.answer.evidence.question import (ASKS_MONEY, CURRENCY, _DURATION, _LENGTH,
                                             _NUMBER_WORDS, Question, terms)
from backend.retrieval.stopwords import STOP_WORDS

_SCALE = r"(?:Mio\.|Millionen|Million|Mrd\.|Milliarden|million|billion|bn|Tsd\.|thousand)"
_UNIT = (r"(?:%|Prozent|percent|per\s+cent|EUR|Euros?|€|USD|GBP|CHF|kWh|MWh|GWh|kW|MW|m³|m²|"
         r"km/h|km|cm|mm|m|kg|t|Liter|litres?|liters?|GB|MB|TB|KB|GiB|MiB|ms|Sekunden|"
         r"Sekunde|seconds?|Minuten|minutes?|Stunden|hours?|Tagen|Tage|days?|Wochen|weeks?|"
         r"Monaten|Monate|months?|Jahren|Jahre|years?|°C|Grad|Zeichen|characters|Mbit/s|"
         r"Gbit/s|Punkte|points|Stück|Plätze|seats|Ja-Stimmen|Gegenstimmen?|Enthaltungen|"
         r"Kubikmetern?|Quadratmetern?|Kilometern?|Metern?|Kilogramm|Tonnen|"
         r"cubic\s+met(?:re|er)s?|square\s+met(?:re|er)s?|kilomet(?:re|er)s?|met(?:re|er)s?|"
         r"tonnes?|NTU|J/m²|J/m2|Hz|dB|bar|mg/l|µg/l)")
_FIGURE = r"\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_WORDS = "|".join(_NUMBER_WORDS)
_PER = rf"(?:\s?/\s?[^\W\d_][\wäöü³²]*|\s(?:je|pro|per)\s(?:[A-ZÄÖÜ]?[\wäöüß³²]+))"
_AMOUNT = re.compile(
    rf"(?<![\w./-])(?:{CURRENCY}\s?)?(?:{_FIGURE})(?:\s?{_SCALE})?(?:\s?{_UNIT}(?![\w/]))?"
    rf"(?:\s?{CURRENCY}(?!\w))?(?:{_PER})?", re.I)
_COUNT_WORD = re.compile(rf"\b(?:{_WORDS})\b", re.I)
_MONTH = (r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|"
          r"November|Dezember|January|February|March|May|June|July|October|December|"
          r"Jan\.|Feb\.|Mär\.|Apr\.|Jun\.|Jul\.|Aug\.|Sep\.|Sept\.|Okt\.|Oct\.|Nov\.|Dez\.|"
          r"Dec\.)(?![a-zäöü])")
_WEEKDAY = (r"(?:Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag|Monday|"
            r"Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?")
_TIME = (r"\d{1,2}:\d\d\s?(?:Uhr|h|a\.m\.|p\.m\.|am|pm)?|\d{1,2}\.\d\d\s?Uhr|"
         r"\d{1,2}\s?(?:Uhr|a\.m\.|p\.m\.)")
_DATE = re.compile(
    rf"\b(?:{_WEEKDAY},?\s+(?:(?:den|the)\s+)?)?(?:"
    rf"\d{{1,2}}\.\s?{_MONTH}(?:\s\d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}"
    rf"(?:,?\s\d{{4}})?|{_MONTH}\s\d{{1,2}}(?!\d)(?:st|nd|rd|th)?(?:,\s?\d{{4}})?|"
    rf"{_MONTH}\s\d{{4}}|"
    rf"\d{{1,2}}\.\d{{1,2}}\.\d{{2,4}}|\d{{4}}-\d\d-\d\d|Q[1-4]\s?\d{{4}}|"
    rf"\d\.\s?(?:Quartal|Halbjahr)\s\d{{4}}|{_WEEKDAY}|"
    rf"(?:Frühjahr|Frühling|Sommer|Herbst|Winter|spring|summer|autumn)\s\d{{4}})"
    rf"(?:,?\s(?:(?:um|at|ab|from|von)\s)?(?:{_TIME}))?(?:\s?(?:–|-|bis|to)\s?(?:{_TIME}))?"
    rf"|\b(?:{_TIME})(?:\s?(?:–|-|bis|to)\s?(?:{_TIME}))?", re.I)
_YEAR_ONLY = re.compile(r"^(?:19|20)\d\d$")
_TITLE = r"(?:Frau|Herrn?|Dr\.|Prof\.|Mr\.?|Mrs\.?|Ms\.?|Dipl\.-Ing\.)"
_NAME = r"[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)?"
_FIRM = r"(?:GmbH(?:\s&\sCo\.\sKG)?|AG|KG|SE|eG|e\.\s?V\.|Ltd\.?|plc|Inc\.?|LLC|LLP|Co\.)"
_PERSON = re.compile(
    rf"(?:{_TITLE}\s+)+(?:{_NAME}\s+){{0,2}}{_NAME}"  # Frau Dr. Katrin Vogelsang
    rf"|(?:{_NAME}\s+){{1,3}}{_FIRM}(?!\w)"  # Hartmann Bau GmbH
    rf"|{_NAME}(?:\s+[A-Z]\.)?(?:\s+(?!(?:Dr|Prof|Frau|Herrn?|Mr|Mrs|Ms)\b){_NAME}){{1,3}}"
    rf"(?!\w)")  # Martin Hellwig, Priya Raman, Bürgermeister Thomas Reinhardt
# capitalised words that do not start a name ("Die Leitung", "The Board", "Am Montag")
_NOT_NAME = {w.casefold() for w in (
    "Die Der Das Den Dem Des Ein Eine Einen Einem Einer The This These That Those All Alle "
    "Jede Jeder Jedes Unser Unsere Ihr Ihre Im Am Zum Zur Bei Nach Für Mit Von Vor In On At "
    "For If When Ab Bis Seit Laut Gemäß Nur Auch Neue Neuer Neues New Our Its Their His Her "
    "Herr Frau Mr Mrs Ms Dr Prof").split()}
_NOUN_END = ("ung", "heit", "keit", "schaft", "tion", "tät", "nis", "ment", "ness", "ity",
             "ismus", "ium", "ei", "ik", "ssion")
# the question asks for the earlier value ("bisher" in a question is "so far", not "before")
_EARLIER = re.compile(r"\b(?:vorher|zuvor|früher|ehemal\w*|alte[nrs]?|"
                      r"vorig\w*|im\s+vorjahr|previous\w*|before|earlier|formerly|old|"
                      r"prior|last\s+year)\b", re.I)
_FROM = re.compile(r"(?:\bvon|\bfrom)\s+(?:\S+\s+)?$", re.I)
# an earlier value's cue shortly before it ("bisher 1,98 EUR", "dem bisherigen Wert von …";
# not "Bisher wurden 412 gebaut": so far)
_OLD = re.compile(r"\b(?:bisherig\w*|bisher(?=\s+(?:$|(?:EUR|€|rund|ca\.|etwa|lag|waren|"
                  r"war|galt|betrug)\b))|vorher\w*|zuvor|früher\w*|vorjahr\w*|previous\w*|formerly|"
                  r"prior\s+year|the\s+year\s+before|last\s+year|up\s+from|down\s+from)\b"
                  r"[^.;,()]{0,25}$", re.I)
_TO = re.compile(r"(?:\bauf|\bto|\bnunmehr|\bnow)\s+$", re.I)
_CHANGE = re.compile(r"\b(?:von|from)\s[^.;]{0,60}?\b(?:auf|to)\s", re.I)
_PART_OF = re.compile(r"\s(?:of|von)\s(?:the\s|den\s|insgesamt\s)?(?:approximately\s|around\s|"
                      r"about\s|rund\s|ca\.\s|etwa\s)?\d", re.I)
_PART_AFTER = re.compile(r"\s(?:davon|thereof|of\s+(?:them|these|which))\b", re.I)
_TOTAL = re.compile(r"\b(?:(?:of|von)\s(?:the|den|insgesamt)|out\s+of)\s(?:approximately\s|"
                    r"around\s|about\s|rund\s|ca\.\s|etwa\s|[a-zäöüß]+\s)?$", re.I)
_NOT_A_VALUE_BEFORE = re.compile(r"(?:§|\b(?:Abs\.|Art\.|Nr\.|No\.|Ziff\.|TOP|Anlage|Version|"
                                 r"Release|v|Kapitel|Chapter|Section|Abschnitt))\s?$", re.I)
_WORD = re.compile(r"[\wäöüÄÖÜß]+(?:-[\wäöüÄÖÜß]+)*")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def _spans(rx: re.Pattern, text: str) -> list[Span]:
    out = []
    for m in rx.finditer(text):
        s, e = m.start(), m.end()
        while e > s and text[e - 1] in " ,;:(":
            e -= 1
        if e > s:
            out.append(Span(s, e, text[s:e]))
    return out


def _in_question(span: Span, q: Question) -> bool:
    """The span repeats what the question says: its figures or (for names) its words."""
    asked = q.text.casefold()
    if span.text.casefold() in asked:
        return True
    figures = re.findall(r"\d[\d.,]*\d|\d", span.text)
    return bool(figures) and all(re.search(rf"(?<![\d.,]){re.escape(f)}(?![\d]|[.,]\d)", asked)
                                 for f in figures)


def _overlaps(a: Span, spans: list[Span]) -> bool:
    return any(a.start < b.end and b.start < a.end for b in spans)


def amounts(text: str, q: Question, *, count: bool = False) -> list[Span]:
    """Figures with their currency, scale and unit; for a count also number words and the
    word counted ("vier Angebote", "412 employees")."""
    dates = _spans(_DATE, text)
    out = []
    for sp in _spans(_AMOUNT, text) + (_spans(_COUNT_WORD, text) if count else []):
        if _YEAR_ONLY.match(sp.text) or _overlaps(sp, dates) or _NOT_A_VALUE_BEFORE.search(
                text[:sp.start]) or _enumeration(text, sp):
            continue  # a year, part of a date, § 3, Version 2.1, "(2)", "1. …"
        if re.match(r"0\d{2,}\b", sp.text) or re.match(r"/\d", text[sp.end:sp.end + 2]):
            continue  # a phone number or postcode ("0147 …"), a code "2025/15", "25/106"
        if count and not re.search(_UNIT + r"$", sp.text, re.I):
            sp = _with_counted_words(text, sp, q)
        out.append(sp)
    return out


def _enumeration(text: str, sp: Span) -> bool:
    """"(2)" or a list number "1. " / "2) " at the start."""
    if not re.fullmatch(r"\d{1,2}", sp.text):
        return False
    return (text[sp.start - 1:sp.start] == "(" and text[sp.end:sp.end + 1] == ")") or (
        not text[:sp.start].strip() and re.match(r"[.)]\s", text[sp.end:sp.end + 2]) is not None)


def _with_counted_words(text: str, sp: Span, q: Question) -> Span:
    """A count with the question's words right after it ("4 Angebote" for "Wie viele
    Angebote", "6,840 full-load hours")."""
    end = sp.end
    for _ in range(3):
        m = re.match(r"\s([\wäöüÄÖÜß][\wäöüÄÖÜß-]*)", text[end:])
        word = m.group(1) if m else ""
        if not word or word.casefold() in STOP_WORDS or not _is_asked(word, q) or (
                q.language == "de" and not word[0].isupper()):
            break  # a German count's noun is capitalised ("286 davon aktiviert": no noun)
        end += m.end()
    return Span(sp.start, end, text[sp.start:end])


def _is_asked(word: str, q: Question) -> bool:
    return any(t == u or (len(t) >= 4 and len(u) >= 4 and (t.startswith(u) or u.startswith(t)))
               for t in terms(word) for u in q.terms)


def dates(text: str) -> list[Span]:
    return [s for s in _spans(_DATE, text) if not _YEAR_ONLY.match(s.text)]


_HYPHENATED = re.compile(r"\b\d+-(?:years?|months?|weeks?|days?|hours?|minutes?|jährig\w*|"
                         r"monatig\w*|wöchig\w*|tägig\w*|stündig\w*)\b", re.I)


def durations(text: str) -> list[Span]:
    """"3 Jahre", "every 15 minutes", "jährlich", "a 7-year warranty", "287 km"."""
    return _spans(_DURATION, text) + _spans(_HYPHENATED, text) + _spans(_LENGTH, text)


def names(text: str) -> list[Span]:
    """Persons (with a title, or two capitalised words that are no article and noun) and
    firms ("… GmbH")."""
    out = []
    for sp in _spans(_PERSON, text):
        titled = re.match(_TITLE, sp.text) is not None
        firm = re.search(_FIRM + r"$", sp.text) is not None
        if not titled and not firm:
            sp = _without_article(text, sp)
            words = sp.text.split()
            if len(words) < 2 or any(w.casefold().endswith(_NOUN_END) for w in words[1:]):
                continue
        out.append(sp)
    return out


def _without_article(text: str, sp: Span) -> Span:
    """The span without its leading capitalised non-names ("Die Datenschutzbeauftragte Anna
    Schmidt" → "Datenschutzbeauftragte Anna Schmidt")."""
    start = sp.start
    for w in sp.text.split():
        if w.casefold().strip(".") not in _NOT_NAME and not w.casefold().endswith(_NOUN_END):
            break
        start = text.index(w, start) + len(w)
        start += len(text[start:sp.end]) - len(text[start:sp.end].lstrip())
    return Span(start, sp.end, text[start:sp.end])


def candidates(qtype: str, text: str, q: Question) -> list[Span]:
    """Every span of the asked type in `text` that the question does not name itself."""
    if qtype == "number":
        count = bool(re.search(r"\b(?:wie\s+viele?|how\s+many|anzahl|number\s+of)\b", q.text,
                               re.I))
        found = amounts(text, q, count=count)
    elif qtype == "date":
        found = dates(text) or durations(text)
    elif qtype == "duration":
        found = durations(text) or dates(text)
    elif qtype == "person":
        found = names(text)
    else:
        return []
    return [s for s in found if not _in_question(s, q)]


def _anchors(text: str, q: Question) -> list[tuple[int, int]]:
    """Positions of the question's content words in the text (prefix match for German
    compounds, as the scorer matches them)."""
    return [(m.start(), m.end()) for m in _WORD.finditer(text) if _is_asked(m.group(0), q)]


def _closeness(sp: Span, text: str, anchors: list[tuple[int, int]]) -> float:
    """How near the question's words stand: Σ weight / (1 + distance in characters), a word
    after the value at one and a half times its distance, a capitalised word (a German noun,
    a name) or a code at double weight; a word inside the span (the counted noun) at
    distance 0."""
    total = 0.0
    for s, e in anchors:
        word = text[s:e]
        w = 2.0 if word[:1].isupper() or any(c.isdigit() for c in word) else 1.0
        d = 0.0 if s >= sp.start and e <= sp.end else (
            sp.start - e if e <= sp.start else (s - sp.end) * 1.5)
        total += w / (1.0 + max(d, 0.0))
    return total


_CELL_LABEL = re.compile(r"(?:^|;\s)([^;:]{1,40}):\s*$")


def _named_column(before: str, question: str) -> bool:
    """The value stands in a table row under a header label the question names verbatim
    ("Parameter: Refrigerant charge (R290); HP-6: 0.9 kg; HP-9: 1.3 kg" for "… HP-9?")."""
    m = _CELL_LABEL.search(before)
    label = m.group(1).strip() if m else ""
    return bool(label) and re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", question,
                                     re.I) is not None


def _score(sp: Span, text: str, anchors: list[tuple[int, int]], earlier: bool,
           q_text: str = "") -> float:
    """Higher is better: closeness to the question's words, the side of a change the
    question asks for (new unless it asks for the earlier value), the part rather than the
    whole ("9,800 of the approximately 31,000"), a figure with its unit."""
    score = _closeness(sp, text, anchors)
    before = text[:sp.start]
    if _OLD.search(before):
        score += 10 if earlier else -10
    elif _CHANGE.search(text):
        if _FROM.search(before):
            score += 10 if earlier else -10
        elif _TO.search(before):
            score += -10 if earlier else 10
    if _named_column(before, q_text):
        score += 3  # "HP-9: 1.3 kg" in a row, the question naming HP-9
    if _TOTAL.search(before):
        score -= 5  # "Von den geplanten 38,6 km …", "of the approximately 31,000 …"
    elif _PART_AFTER.match(text[sp.end:]) or (
            re.search(r"\d" + _PART_OF.pattern, text, re.I) and _PART_OF.match(text[sp.end:])):
        score += 5  # "… 9,800 of the 31,000 …", "412 gebaut und 286 davon aktiviert"
    if re.search(rf"(?:{_UNIT}|{CURRENCY})", sp.text) is None and re.search(r"\d", sp.text):
        score -= 0.1  # a bare figure is less often the asked amount than one with its unit
    return score


def value_span(q: Question, text: str) -> Span | None:
    """The span of `text` holding what the question asks for, or None."""
    if not q.qtype:
        return None
    found = candidates(q.qtype, text, q)
    if not found:
        return None
    anchors = _anchors(text, q)
    earlier = bool(_EARLIER.search(q.text))
    if q.qtype == "number" and ASKS_MONEY.search(q.text):  # "Was kostet …": money, if any
        found = [s for s in found if re.search(CURRENCY, s.text)] or found
    return max(found, key=lambda s: (_score(s, text, anchors, earlier, q.text), -s.start))
