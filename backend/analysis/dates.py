"""Dates and time limits in German and English text, normalised to ISO 8601.

Absolute dates ("12. März 2024", "18 April 2024", "April 18, 2024", "12.03.2024",
"2024-03-12", "Ende Februar 2024", "Q4 2024", "im Jahr 2025") are found and normalised by
regular expressions over Babel's month names: fast enough for thousands of dates per
document. Relative dates ("next Friday", "in zwei Wochen", "morgen") are resolved by
dateparser against the document's own date (never against today), and only when that date is
known. Time limits ("innerhalb von 24 Stunden", "within 7 days") become ISO 8601 durations.

ISO forms: a day "2024-05-24", a month "2024-05", a year "2024", a quarter or season as an
interval "2024-10/2024-12", a duration "PT24H" / "P7D"."""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

import babel.dates as _bd

_MONTHS: dict[str, int] = {}
for _loc in ("de", "en"):
    for _width in ("wide", "abbreviated"):
        for _n, _name in _bd.get_month_names(_width, locale=_loc).items():
            _MONTHS[_name.rstrip(".").lower()] = _n
_MONTHS.update({"sept": 9, "mrz": 3, "jänner": 1, "sep": 9})
MONTH_WORDS = frozenset(_MONTHS)
_WEEKDAYS = sorted({d for loc in ("de", "en") for d in _bd.get_day_names("wide", locale=loc).values()}
                   | {d for loc in ("de", "en") for d in
                      _bd.get_day_names("abbreviated", locale=loc).values()}, key=len, reverse=True)
_M = "(?:" + "|".join(re.escape(m[0].upper() + m[1:]) for m in sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_WD = "(?:" + "|".join(re.escape(w.rstrip(".")) for w in _WEEKDAYS) + r")\.?,?\s+"

_NUMWORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "ein": 1, "eine": 1, "einer": 1, "einem": 1, "einen": 1,
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9,
    "zehn": 10, "elf": 11, "zwölf": 12, "vierzehn": 14, "fünfzehn": 15, "zwanzig": 20,
    "dreißig": 30,
}
_NUM = r"(?:\d+(?:[.,]\d+)?|" + "|".join(sorted(_NUMWORDS, key=len, reverse=True)) + ")"
_UNITS = [
    (r"Sekunden?|seconds?|s\b", "S", True), (r"Minuten?|minutes?|min\b", "M", True),
    (r"Stunden?|hours?|Std\.?|h\b", "H", True),
    (r"Werktagen?|Arbeitstagen?|business days?|working days?|Tagen?|Tage|days?", "D", False),
    (r"Wochen?|weeks?", "W", False), (r"Monaten?|Monate|Monats|months?", "M", False),
    (r"Jahren?|Jahre|Jahres|years?", "Y", False),
]
_DURATION = re.compile(
    r"(?<![\w.,])(?P<n>" + _NUM + r")\s*(?:-\s*)?(?P<u>" + "|".join(u for u, _, _ in _UNITS) + r")(?![\w-])",
    re.I)
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3,
                  "4th": 4, "ersten": 1, "zweiten": 2, "dritten": 3, "vierten": 4}
_SEASONS = {"spring": (3, 5), "frühjahr": (3, 5), "frühling": (3, 5), "summer": (6, 8),
            "sommer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "herbst": (9, 11)}
_YEAR = r"((?:19|20)\d{2})"

_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("dmy_num", re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?![\d.]\d)")),
    ("dmy", re.compile(r"(?:" + _WD + r")?\b(\d{1,2})(?:\.|st|nd|rd|th)?\s+(" + _M + r")\s+" + _YEAR + r"\b")),
    ("mdy", re.compile(r"\b(" + _M + r")\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+" + _YEAR + r"\b")),
    ("qual_my", re.compile(r"\b(Anfang|Mitte|Ende|Beginn|early|mid|end of|beginning of)\s+(" + _M
                           + r")(?:\s+" + _YEAR + r")?\b", re.I)),
    ("dm", re.compile(r"\b(\d{1,2})(?:\.|st|nd|rd|th)?\s+(" + _M + r")(?![\w])")),
    ("my", re.compile(r"\b(" + _M + r")\s+" + _YEAR + r"\b")),
    ("quarter", re.compile(r"\bQ([1-4])[\s/]*" + _YEAR + r"\b|\b([1-4])\.\s*Quartal\s+" + _YEAR
                           + r"\b|\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+)?"
                           + _YEAR + r"\b|\b(ersten|zweiten|dritten|vierten)\s+Quartals?\s+" + _YEAR
                           + r"\b", re.I)),
    ("season", re.compile(r"\b(spring|summer|autumn|fall|Frühjahr|Frühling|Sommer|Herbst)\s+"
                          + _YEAR + r"\b", re.I)),
    ("prep_m", re.compile(r"\b(?:in|im|ab|bis|seit|from|until|by|before|after|since|during|zum)\s+("
                          + _M + r")(?!\s*\d)")),
    ("prep_y", re.compile(r"\b(?:in|im Jahr|im Jahre|für das Jahr|for|bis|ab|from|until|by|seit|since|"
                          r"Ende|end of|before|vor|nach|after|zum|spätestens)\s+" + _YEAR
                          + r"\b(?![/.\-]\d)")),
]
_RELATIVE = re.compile(
    r"\b(?:(?:next|this|coming)\s+(?:week|month|year|" + "|".join(_bd.get_day_names("wide", locale="en").values())
    + r")|(?:nächste[nrs]?|kommende[nrs]?)\s+(?:Woche|Monat|Jahr|"
    + "|".join(_bd.get_day_names("wide", locale="de").values())
    + r")|in\s+" + _NUM + r"\s+(?:days|weeks|months|Tagen|Wochen|Monaten)|tomorrow"
    r"|end of (?:the )?(?:week|month|year)|Ende (?:der|des) (?:Woche|Monats|Jahres))\b", re.I)


@dataclass(frozen=True)
class DateMention:
    start: int  # offsets into the string searched
    end: int
    text: str
    iso: str | None  # None: found but not resolvable (relative without a document date)
    first: date | None = None  # first and last day the mention covers
    last: date | None = None
    precision: str = "day"  # day | month | quarter | season | year | relative
    range_end: bool = False  # the second date of "from X to Y" / "von X bis Y"


@dataclass(frozen=True)
class Duration:
    start: int
    end: int
    text: str
    iso: str  # "PT24H", "P7D", "P6M"


def _month(s: str) -> int | None:
    return _MONTHS.get(s.rstrip(".").lower())


def _last_day(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def _mk(kind: str, g: tuple, ref: date | None) -> tuple[str, date, date, str] | None:
    """(iso, first, last, precision) of one pattern match, or None when invalid."""
    try:
        if kind == "iso":
            d = date(int(g[0]), int(g[1]), int(g[2]))
            return d.isoformat(), d, d, "day"
        if kind == "dmy_num":
            y = int(g[2]) + (2000 if len(g[2]) == 2 else 0)
            d = date(y, int(g[1]), int(g[0]))
            return d.isoformat(), d, d, "day"
        if kind == "dmy":
            d = date(int(g[2]), _month(g[1]), int(g[0]))
            return d.isoformat(), d, d, "day"
        if kind == "mdy":
            d = date(int(g[2]), _month(g[0]), int(g[1]))
            return d.isoformat(), d, d, "day"
        if kind == "dm":
            if ref is None:
                return None
            d = date(ref.year, _month(g[1]), int(g[0]))
            return d.isoformat(), d, d, "day"
        if kind == "qual_my":
            y = int(g[2]) if g[2] else (ref.year if ref else None)
            if y is None:
                return None
            m = _month(g[1])
            q = g[0].lower()
            if q in ("ende", "end of"):
                d = _last_day(y, m)
            elif q in ("mitte", "mid"):
                d = date(y, m, 15)
            else:
                d = date(y, m, 1)
            return d.isoformat(), d, d, "day"
        if kind in ("my", "prep_m"):
            y = int(g[1]) if kind == "my" else (ref.year if ref else None)
            if y is None:
                return None
            m = _month(g[0])
            return f"{y:04d}-{m:02d}", date(y, m, 1), _last_day(y, m), "month"
        if kind == "quarter":
            if g[0]:
                q, y = int(g[0]), int(g[1])
            elif g[2]:
                q, y = int(g[2]), int(g[3])
            elif g[4]:
                q, y = _QUARTER_WORDS[g[4].lower()], int(g[5])
            else:
                q, y = _QUARTER_WORDS[g[6].lower()], int(g[7])
            a, b = 3 * q - 2, 3 * q
            return f"{y:04d}-{a:02d}/{y:04d}-{b:02d}", date(y, a, 1), _last_day(y, b), "quarter"
        if kind == "season":
            a, b = _SEASONS[g[0].lower()]
            y = int(g[1])
            return f"{y:04d}-{a:02d}/{y:04d}-{b:02d}", date(y, a, 1), _last_day(y, b), "season"
        if kind == "prep_y":
            y = int(g[0])
            return f"{y:04d}", date(y, 1, 1), date(y, 12, 31), "year"
    except (ValueError, TypeError):
        return None
    return None


def find_dates(s: str, ref: date | None = None, lang: str = "") -> list[DateMention]:
    """Every date in `s`, in order. `ref` (the document's date) supplies the year of
    "12. März" and resolves relative dates; without it those stay unresolved."""
    return list(_find_dates(s, ref, lang))


_MONTH_KINDS = {"dmy", "mdy", "qual_my", "dm", "my", "prep_m"}
_DIGIT_KINDS = {"iso", "dmy_num", "dmy", "mdy", "dm", "my", "quarter", "season", "prep_y"}


@lru_cache(maxsize=50_000)
def _find_dates(s: str, ref: date | None, lang: str) -> tuple[DateMention, ...]:
    has_digit = _DIGIT.search(s) is not None
    has_month = bool(_MONTH_QUICK.search(s))
    if not has_digit and not has_month and not _RELATIVE_QUICK.search(s):
        return ()
    taken: list[tuple[int, int]] = []
    out: list[DateMention] = []
    for kind, rx in _PATTERNS:
        if (kind in _MONTH_KINDS and not has_month) or (kind in _DIGIT_KINDS and not has_digit):
            continue
        for m in rx.finditer(s):
            a, b = m.span()
            if any(a < y and x < b for x, y in taken):
                continue
            r = _mk(kind, m.groups(), ref)
            if r is None:
                continue
            taken.append((a, b))
            out.append(DateMention(a, b, m.group(0), r[0], r[1], r[2], r[3]))
    if _RELATIVE_QUICK.search(s):
        for m in _RELATIVE.finditer(s):
            a, b = m.span()
            if any(a < y and x < b for x, y in taken):
                continue
            d = _relative(m.group(0), ref, lang)
            out.append(DateMention(a, b, m.group(0), d.isoformat() if d else None, d, d,
                                   "relative"))
    out.sort(key=lambda d: d.start)
    return tuple(_mark_ranges(s, out))


_DIGIT = re.compile(r"\d")
# cheap prefilters: a month name (any case of its first three letters), a relative phrase
_MONTH_QUICK = re.compile(r"(?i:jan|feb|mär|mar|mrz|apr|mai|may|jun|jul|aug|sep|okt|oct|nov|dez|dec|"
                          r"quart|quarter|spring|summer|autumn|fall|frühjahr|frühling|sommer|herbst)")
_RELATIVE_QUICK = re.compile(r"(?i:next|this|coming|nächst|kommend|tomorrow|end of|ende de|in \w+ "
                             r"(?:days|weeks|months|tagen|wochen|monaten))")


_RANGE_GAP = re.compile(r"^\s*(?:bis(?: zum)?|to|until|till|–|-|and|und)\s*$", re.I)


def _mark_ranges(s: str, ms: list[DateMention]) -> list[DateMention]:
    out = list(ms)
    for i in range(1, len(out)):
        if _RANGE_GAP.match(s[out[i - 1].end:out[i].start]):
            out[i] = DateMention(**{**out[i].__dict__, "range_end": True})
    return out


@lru_cache(maxsize=4096)
def _relative(phrase: str, ref: date | None, lang: str) -> date | None:
    if ref is None:
        return None
    p = phrase.lower()
    if p.startswith(("end of", "ende")):
        if "week" in p or "woche" in p:
            return date.fromordinal(ref.toordinal() + (6 - ref.weekday()))
        if "month" in p or "monat" in p:
            return _last_day(ref.year, ref.month)
        return date(ref.year, 12, 31)
    data = _parser(("de", "en"), ref).get_date_data(phrase)
    if data is None or data.date_obj is None:
        return None
    return data.date_obj.date()


@lru_cache(maxsize=64)
def _parser(languages: tuple[str, ...], ref: date):
    from dateparser.date import DateDataParser

    return DateDataParser(languages=list(languages), settings={
        "PREFER_DATES_FROM": "future", "RELATIVE_BASE": datetime(ref.year, ref.month, ref.day)})


def resolve_relative(phrase: str, ref: date, lang: str = "") -> date | None:
    """Resolve one relative phrase ("next Friday", "in zwei Wochen") against `ref`."""
    return _relative(phrase, ref, lang)


def find_durations(s: str) -> list[Duration]:
    return list(_find_durations(s))


@lru_cache(maxsize=50_000)
def _find_durations(s: str) -> tuple[Duration, ...]:
    if _DIGIT.search(s) is None and not _NUMWORD_QUICK.search(s):
        return ()
    out = []
    for m in _DURATION.finditer(s):
        n_text, unit = m.group("n"), m.group("u")
        n = _NUMWORDS.get(n_text.lower())
        if n is None:
            try:
                n = float(n_text.replace(",", "."))
            except ValueError:
                continue
        if n <= 0 or (unit.lower() in ("s", "h", "min") and not n_text[0].isdigit()):
            continue
        if n_text.lower() in ("a", "an") and unit.lower().startswith("second"):
            continue  # "a second charging row": the ordinal, not a duration
        for rx, code, is_time in _UNITS:
            if re.fullmatch(rx, unit, re.I):
                num = int(n) if float(n).is_integer() else n
                out.append(Duration(m.start(), m.end(), m.group(0),
                                    f"PT{num}{code}" if is_time else f"P{num}{code}"))
                break
    return tuple(out)


_NUMWORD_QUICK = re.compile(r"(?i:\b(?:" + "|".join(_NUMWORDS) + r")\s+\w)")


_DOC_DATE_LABEL = re.compile(
    r"(?:report date|date|datum|stand|meeting of|sitzung[^.\n]{0,80}?vom|dated|last (?:updated|reviewed)|"
    r"fassung vom|as of|status\s*:\s*[\w ]{0,20},|ausgabe \d+, gültig ab|approved by[^.\n]{0,60}? on)\s*:?\s*$",
    re.I)
_FILE_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def document_date(filename: str, head: str) -> date | None:
    """The document's own date: from the file name (…_2024-03-12.txt), else a date labelled
    as the report/meeting/"Stand" date near the top, else the first full date there."""
    m = _FILE_DATE.search(filename or "")
    if m:
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    found = [d for d in find_dates(head) if d.precision == "day" and d.first]
    for d in found:
        if _DOC_DATE_LABEL.search(head[max(0, d.start - 90):d.start]):
            return d.first
    return found[0].first if found else None
