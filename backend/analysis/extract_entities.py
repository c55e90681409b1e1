"""Entities: persons (with their role), organisations, dates, e-mail addresses, phone
numbers, URLs and amounts of money. One item per distinct entity and document, anchored at
its first mention, with the number of mentions.

Persons come from contexts that name a person, not from "two capitalised words" (German
capitalises every noun): an honorific or title ("Frau Dr. Vogelsang", "Mr", "Dr."), a label
("Chair:", "Owner:", "Vorsitz:", "gez."), an attendee list, or a role next to the name
("Martin Hellwig, Technical Director"). A surname mentioned alone is resolved to the full
name when the document names exactly one such person. No statistical NER model: none that
installs offline from PyPI was trustworthy (spaCy's models are not published there)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.analysis.common import content_units, make_item, memo
from backend.analysis.dates import find_dates
from backend.analysis.source import Source
from backend.analysis.types import Item

NAME = "entities"
_TOK = r"[A-ZÄÖÜŞÇĞİ][a-zäöüßışçğéèáàóòúñ'’-]+"
_FULL = rf"{_TOK}(?:\s+{_TOK}){{1,2}}"
_HON = r"(?:Herrn?|Frau|Mr\.?|Mrs\.?|Ms\.?|Dr\.|Prof\.)"
_TITLE = r"(?:Dr\.|Prof\.|Dipl\.-Ing\.|Bürgermeister(?:in)?|Oberbürgermeister(?:in)?|Landrat|Landrätin)"
_HONORIFIC = re.compile(rf"\b{_HON}\s+(?:(?:Dr\.|Prof\.)\s+)*(?P<name>{_TOK}(?:\s+{_TOK})?)")
_LABELS = (r"Chair|Chairperson|Minutes|Minute taker|Author|Owner|Policy owner|Project manager|Project sponsor|"
           r"Responsible|Contact|Presenter|Vorsitz|Vorsitzende[rn]?|Protokoll|Protokollführer(?:in)?|"
           r"Verantwortlich|Entschuldigt|Pressekontakt|Kontakt|Ansprechpartner(?:in)?|Leitung|"
           r"Moderation|Berichterstatter(?:in)?|gez\.|Signed|Apologies")
_LABELLED = re.compile(rf"\b(?P<label>(?i:{_LABELS}))\s*:?\s+(?:(?:{_HON}|{_TITLE})\s+)*(?P<name>{_FULL})"
                       r"(?P<rest>\s*(?:,\s*[^.;\n(]{2,60}|\([^)\n]{2,60}\)))?")
_ATTENDEE_CTX = re.compile(r"\b(Anwesend|Anwesende|Teilnehmer(?:innen)?|Teilnehmende|Attendees|"
                           r"Participants|Present|Entschuldigt|Apologies|Abwesend|Absent)\b", re.I)
_ROLE_BEFORE = re.compile(rf"(?P<role>\b(?:Geschäftsführerin|Geschäftsführer|Bürgermeister(?:in)?|"
                          r"Datenschutzbeauftragte[rn]?|Vorsitzende[rn]?|Leiterin|Leiter|Sprecherin|"
                          r"Sprecher|Managing Director|Head of [A-Z][\w ]{1,30}?|Director|Officer))\s+"
                          rf"(?:{_HON}\s+)*(?:(?:Dr\.|Prof\.)\s+)*(?P<name>{_TOK}(?:\s+{_TOK})?)\b")
_HON_QUICK = re.compile(r"Herr|Frau|Mr|Mrs|Ms|Dr\.|Prof\.")
_ROLE_QUICK = re.compile(r"Geschäftsführ|Bürgermeister|beauftragte|Vorsitzende|Leiter|Sprecher|Director|"
                         r"Head of|Officer")
# Words that are capitalised but never part of a person's name here.
_NOT_NAME = {
    "der", "die", "das", "des", "dem", "den", "the", "a", "an", "und", "and", "of", "for", "von",
    "office", "director", "officer", "head", "finance", "management", "board", "committee",
    "team", "department", "operations", "programme", "program", "project", "service", "centre",
    "center", "group", "abteilung", "leiter", "leiterin", "technical", "managing", "data",
    "protection", "information", "security", "it", "gmbh", "ag", "mitglieder", "vorsitz",
    "finance", "metering", "fleet", "electrical", "engineering", "programme", "gateway",
    "system", "server", "portal", "stadtwerke", "werkausschuss", "aufsichtsrat", "minutes",
    "chair", "owner", "agenda", "item", "action", "decision", "beschluss", "top", "anlage",
    "protokoll", "sitzung", "herr", "herrn", "frau", "mr", "ms", "mrs", "dr", "prof",
    "geschäftsführerin", "geschäftsführer", "bürgermeister", "datenschutzbeauftragte",
    "unternehmenskommunikation", "kundenservice", "support", "version", "status", "risk",
    "open", "due", "vote", "telefon", "phone", "e-mail", "email", "kommunikation",
}
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(r"\bhttps?://[^\s<>\"')\]]+")
_HOST = re.compile(r"(?<![@/\w.-])(?:[a-z0-9-]+\.)+(?:de|com|org|net|eu|io|example)(?:/[^\s,;)]*)?\b")
_PHONE = re.compile(r"(?:Telefon|Tel\.?|Phone|phone|Fax|Mobil|Mobile|Hotline|call)\s*:?\s*"
                    r"(?P<num>\+?\d[\d ()/-]{5,22}\d)")
_AMOUNT = re.compile(
    r"(?:(?:EUR|€|USD|US\$|\$|CHF)\s?\d{1,3}(?:[.,\u202f ]\d{3})*(?:[.,]\d+)?(?:\s?(?:million|billion|"
    r"Millionen|Milliarden|Mio\.|Mrd\.|thousand|Tsd\.))?"
    r"|\d{1,3}(?:[.,]\d{3})*(?:[.,]\d+)?\s?(?:million|billion|Millionen|Milliarden|Mio\.|Mrd\.)?\s?"
    r"(?:EUR|Euro|€|USD|CHF)\b)")
_ORG = re.compile(r"\b(?P<name>(?:[A-ZÄÖÜ][\w&.-]*\s+){1,4}(?:GmbH(?:\s&\sCo\.\sKG)?|AG|SE|KG|"
                  r"e\.\s?V\.|Inc\.|Ltd\.?|LLC|GbR|KGaA|plc)(?!\w))")
_ORG_LEAD = {"die", "der", "das", "den", "dem", "des", "the", "bei", "von", "an", "für", "mit", "and",
             "und", "to", "at", "from", "of", "a", "ein", "eine", "einer", "angebot", "support"}


@dataclass
class Person:
    name: str
    role: str = ""
    first: int = 0  # offset of the first mention
    section: int = 0
    mentions: int = 0
    surname_only: bool = False
    signals: set[str] = field(default_factory=set)


def _clean_name(raw: str) -> str | None:
    toks = [t for t in raw.split() if t.lower().rstrip(".") not in ("dr", "prof", "herr", "herrn",
                                                                    "frau", "mr", "ms", "mrs")]
    while toks and toks[0].lower() in _NOT_NAME:
        toks.pop(0)
    while toks and toks[-1].lower() in _NOT_NAME:
        toks.pop()
    if not toks or any(t.lower() in _NOT_NAME for t in toks):
        return None
    return " ".join(toks)


def persons(src: Source) -> dict[str, Person]:
    """Every person the document names, keyed by the name shown (full name when known)."""
    return memo(src, "persons", lambda: _persons(src))


def _persons(src: Source) -> dict[str, Person]:
    found: dict[str, Person] = {}

    def add(raw: str, role: str, offset: int, section: int, signal: str, surname: bool = False):
        name = _clean_name(raw)
        if not name or (not surname and len(name.split()) < 2):
            return
        p = found.setdefault(name, Person(name, first=offset, section=section,
                                          surname_only=len(name.split()) == 1))
        p.signals.add(signal)
        if role and not p.role:
            p.role = role.strip(" ,()")
        if offset < p.first:
            p.first, p.section = offset, section

    units = content_units(src)
    attendee_block = -1
    for i, u in units:
        t = u.text
        if _ATTENDEE_CTX.search(t) and (t.rstrip().endswith(":") or u.kind == "prose"
                                        or _ATTENDEE_CTX.search(src.sections[u.section].label)):
            attendee_block = u.block
        in_attendees = (u.block == attendee_block or _ATTENDEE_CTX.search(src.sections[u.section].label)
                        or _ATTENDEE_CTX.match(t))
        if in_attendees and u.kind in ("item", "sentence", "prose"):
            _attendee_line(t, u.start, u.section, add)
        if ":" in t or "gez." in t or "Signed" in t:
            for m in _LABELLED.finditer(t):
                rest = (m.group("rest") or "").strip(" ,()")
                role = rest if rest and not re.match(_FULL + r"$", rest) else m.group("label")
                add(m.group("name"), role, u.start + m.start("name"), u.section, "label")
        if _ROLE_QUICK.search(t):
            for m in _ROLE_BEFORE.finditer(t):
                add(m.group("name"), m.group("role"), u.start + m.start("name"), u.section,
                    "role", surname=True)
        if _HON_QUICK.search(t):
            for m in _HONORIFIC.finditer(t):
                add(m.group("name"), "", u.start + m.start("name"), u.section, "honorific",
                    surname=True)
    # a surname alone becomes the full name when exactly one full name has it
    full = [p for p in found.values() if not p.surname_only]
    for p in [p for p in found.values() if p.surname_only]:
        matches = [f for f in full if f.name.split()[-1] == p.name]
        if len(matches) == 1:
            m = matches[0]
            m.role = m.role or p.role
            m.signals |= p.signals
            if p.first < m.first:
                m.first, m.section = p.first, p.section
            del found[p.name]
    if found:  # mentions by surname, counted in one pass over the text
        surnames = {p.name.split()[-1] for p in found.values()}
        rx = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(surnames, key=len,
                                                                           reverse=True)) + r")\b")
        counts: dict[str, int] = {}
        for m in rx.finditer(src.text):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        for p in found.values():
            p.mentions = counts.get(p.name.split()[-1], 0)
    return found


def _attendee_line(t: str, start: int, section: int, add) -> None:
    body = re.sub(r"^\s*(?:[-•*]|\d+[.)])\s+", "", t)
    body = re.sub(r"^[^:]{0,30}:\s*", "", body) if _ATTENDEE_CTX.match(body) else body
    depth, parts, cur = 0, [], ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch in ",;" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    last = None
    for part in parts:
        part = part.strip().rstrip(".")
        paren = re.search(r"\(([^)]*)\)?", part)
        head = part[:paren.start()].strip() if paren else part
        m = re.fullmatch(rf"(?:(?:{_HON}|{_TITLE})\s+)*(?P<name>{_FULL})", head)
        if m:
            role = paren.group(1) if paren and not re.search(_FULL, paren.group(1) or "") else ""
            add(m.group("name"), role, start + t.find(m.group("name")), section, "attendees")
            last = m.group("name")
        elif last and head:
            add(last, head, start + t.find(last), section, "attendees")
            last = None
        if paren:  # "(deputising for Frank Seidel, Head of Finance, ...)"
            for m2 in re.finditer(rf"\b(?:for|für|von|by)\s+(?:{_HON}\s+)*(?P<name>{_FULL})",
                                  paren.group(0)):
                add(m2.group("name"), "", start + t.find(m2.group("name")), section, "attendees")
                last = m2.group("name")


def extract_entities(src: Source) -> list[Item]:
    items: list[Item] = []
    for p in sorted(persons(src).values(), key=lambda p: p.first):
        items.append(make_item(src, NAME, p.first, p.first + len(p.name) if
                               src.text.startswith(p.name, p.first) else p.first,
                               p.section, 0.6 + 0.1 * min(3, len(p.signals)),
                               sorted(p.signals), type="person", value=p.name, role=p.role,
                               mentions=p.mentions))
    seen: dict[tuple[str, str], Item] = {}

    def add(kind: str, value: str, s: int, e: int, section: int, conf: float, signal: str,
            **extra):
        key = (kind, value.lower())
        if key in seen:
            seen[key].fields["mentions"] += 1
            return
        it = make_item(src, NAME, s, e, section, conf, [signal], type=kind, value=value,
                       role="", mentions=1, **extra)
        seen[key] = it

    for _i, u in content_units(src):
        t = u.text
        emails = [(m.start(), m.end()) for m in _EMAIL.finditer(t)]
        for m in _EMAIL.finditer(t):
            add("email", m.group(0), u.start + m.start(), u.start + m.end(), u.section, 0.95, "pattern")
        urls = []
        for m in _URL.finditer(t):
            v = m.group(0).rstrip(".,;:")
            urls.append((m.start(), m.start() + len(v)))
            add("url", v, u.start + m.start(), u.start + m.start() + len(v), u.section, 0.95, "pattern")
        for m in _HOST.finditer(t):
            if any(a <= m.start() < b for a, b in emails + urls):
                continue
            add("url", m.group(0).rstrip(".,;:"), u.start + m.start(), u.start + m.end(), u.section,
                0.7, "host")
        for m in _PHONE.finditer(t):
            num = " ".join(m.group("num").split())
            add("phone", num, u.start + m.start("num"), u.start + m.end("num"), u.section, 0.85, "context")
        for m in _AMOUNT.finditer(t):
            v = " ".join(m.group(0).split())
            add("amount", v, u.start + m.start(), u.start + m.end(), u.section, 0.9, "currency")
        for m in _ORG.finditer(t):
            name = m.group("name").split()
            while name and name[0].lower() in _ORG_LEAD:
                name.pop(0)
            if len(name) >= 2:
                v = " ".join(name)
                s = u.start + m.end() - len(v)
                add("organisation", v, s, u.start + m.end(), u.section, 0.85, "legal_form")
        if u.kind != "code":
            for d in find_dates(t, src.doc_date, src.language):
                if d.iso and d.precision in ("day", "month"):
                    add("date", d.iso, u.start + d.start, u.start + d.end, u.section, 0.9, "date",
                        text_form=d.text)
    items.extend(sorted(seen.values(), key=lambda i: i.start))
    return items
