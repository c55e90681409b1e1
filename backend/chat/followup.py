"""Follow-up questions (issue 22, part 5): "Und wie hoch war er vorher?", "And who owns it?",
"Und Los 1?" name neither the entity nor the document they are about; retrieved as typed
they find whatever else the words match (a sentence about maintenance windows). The chat
rewrites the retrieval query of such a question from the conversation before retrieving:

* **detect** a follow-up (German and English): a leading "und"/"and", a pronoun standing for
  something said before ("er", "davon", "dafür", "it", "she", "that"), a time reference to an
  earlier value ("vorher", "im Vorjahr", "the year before"), a very short question, or (in
  English) a question that names no entity at all;
* **carry over** from the previous turn the entity and attribute words of its question (its
  own rewritten query when it was a follow-up too, so chains of three turns keep the subject),
  the names in its answer when the follow-up says "er"/"sie"/"she"/"he", and for "vorher" /
  "before" the earlier value the answer quoted ("von 2,48 EUR auf 2,69 EUR" -> 2,48 EUR) and
  the year before the one asked about;
* **pin** retrieval to the document in focus (the previous answer's first cited document)
  unless the follow-up names another document (a title word of another document that the
  document in focus does not contain).

Deterministic rules, no model. The rewrite and why are kept with the answer (chat_messages.
rewrite) and shown as the `rewrite` stage of the query-debug trace. The conversation read is
the session's context window (`context_mode`: regular 25 lines, full 500 lines, seed 004),
read from the store by backend/chat/followup_context.py, which also holds the chat's hooks."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

WORD = re.compile(r"[^\W_][\w.,/%°€£$-]*[^\W_%]|[^\W_]", re.UNICODE)

# a leading conjunction: "Und Los 1?", "And its output signal?", "What about the TX-460?"
_LEAD = re.compile(r"^\s*(?:und|aber|sowie|auch|was ist mit|wie ist es mit|wie sieht es mit|"
                   r"and|but|also|what about|how about|and what about)\b", re.I)
# pronouns and pro-adverbs that stand for something said before
_PRONOUN_DE = {"er", "ihn", "ihm", "es", "davon", "dafür", "dazu", "damit", "daran", "darauf",
               "darüber", "dabei", "dadurch", "dessen", "deren", "dies", "dieser", "dieses",
               "derselbe", "dieselbe", "dort", "dorthin", "selbiges"}
_PRONOUN_EN = {"it", "its", "it's", "they", "them", "their", "theirs", "he", "him", "his",
               "she", "her", "hers", "that", "this", "those", "these", "there", "one", "ones"}
_PERSON = {"er", "ihn", "ihm", "sie", "ihr", "he", "him", "his", "she", "her", "hers", "whom"}
# the previous value: "vorher", "im Vorjahr", "the year before", "previously"
_EARLIER = re.compile(r"\b(?:vorher|zuvor|davor|vorjahr\w*|vorige[nmrs]?|früher|bisher\w*|"
                      r"before|previously|earlier|prior|previous|last year|"
                      r"the year before|a year (?:earlier|before))\b", re.I)
_YEAR_BEFORE = re.compile(r"\b(?:vorjahr\w*|jahr davor|jahr zuvor|vorige[nmrs]? jahr\w*|"
                          r"year before|previous year|prior year|a year earlier|last year)\b",
                          re.I)
_ALSO = re.compile(r"\b(?:as well|too|also|either|ebenfalls|auch)\s*\??\s*$", re.I)
# "von 2,48 EUR auf 2,69 EUR", "from 135.9 to 148.6", "fell to 2,140 tonnes ... from 2,610",
# "im Vorjahr waren es 2,61 Millionen Euro", "(2023: 135.9)"
_VALUE = r"(?:[£$€]\s?)?\d[\d.,]*(?:\s?(?:%|[A-Za-zÄÖÜäöü€£$/³²]+(?:/[A-Za-zäöü³²]+)?))?"
_EARLIER_VALUE = [
    re.compile(rf"\bvon\s+(?P<x>{_VALUE})\s+auf\s+(?:\S+\s+){{0,1}}\d", re.I),
    re.compile(rf"\bfrom\s+(?P<x>{_VALUE})\s+(?:\S+\s+){{0,3}}?to\s+(?:[£$€]\s?)?\d", re.I),
    re.compile(rf"\bto\s+(?:[£$€]\s?)?\d[\d.,]*\b.{{0,60}}?\bfrom\s+(?P<x>{_VALUE})", re.I),
    re.compile(rf"\bim vorjahr\s+(?:waren es|war(?:en)? \S+|lag \S+ bei)\s+(?P<x>{_VALUE})",
               re.I),
    re.compile(rf"\b(?:gegenüber|nach|compared with|against|up from|down from)\s+"
               rf"(?P<x>{_VALUE})", re.I),
]
_QWORDS = {
    # German question words and function words that carry no topic
    "wie", "was", "wer", "wen", "wem", "wessen", "wann", "wo", "woher", "wohin", "warum",
    "weshalb", "welche", "welcher", "welches", "welchem", "welchen", "wieviel", "viel", "viele",
    "hoch", "lange", "oft", "groß", "der", "die", "das", "den", "dem", "des", "ein", "eine",
    "einen", "einem", "einer", "eines", "und", "oder", "aber", "ist", "sind", "war", "waren",
    "wird", "werden", "wurde", "wurden", "hat", "haben", "hatte", "kann", "können", "muss",
    "müssen", "soll", "sollen", "darf", "dürfen", "im", "in", "am", "an", "auf", "aus", "bei",
    "für", "mit", "nach", "von", "vom", "zu", "zum", "zur", "über", "unter", "um", "bis", "es",
    "er", "sie", "ihr", "ich", "man", "sich", "noch", "schon", "denn", "bitte", "gibt", "mir",
    "uns", "nicht", "kein", "keine", "auch", "nur", "dann", "da", "so", "jahr", "jahre",
    "jahres", "davon", "dafür", "dazu", "damit", "findet", "statt", "gibt", "liegt", "steht",
    "beträgt", "gilt", "geht", "kommt", "sein", "neue", "neuen",
    # English
    "what", "who", "whom", "whose", "when", "where", "why", "which", "how", "much", "many",
    "long", "often", "the", "a", "an", "and", "or", "but", "is", "are", "was", "were", "be",
    "been", "do", "does", "did", "has", "have", "had", "can", "could", "may", "might", "must",
    "shall", "should", "will", "would", "of", "in", "on", "at", "to", "for", "from", "by",
    "with", "about", "into", "as", "it", "its", "they", "them", "their", "he", "she", "him",
    "her", "his", "i", "we", "you", "me", "us", "that", "this", "those", "these", "there",
    "not", "no", "any", "some", "also", "too", "well", "again", "year", "years", "one",
    "please", "tell", "give", "vorher", "zuvor", "davor", "before", "previously", "earlier",
    "prior", "previous", "vorjahr",
}
_WHO = re.compile(r"^\s*(?:wer|wen|wem|who|whom)\b", re.I)
SENTENCE_WORDS = 12  # words of the sentence that names the earlier value, carried over
SHORT_WORDS = 4  # "Und Los 1?", "Und wie oft?", "And the TX-460?": a question this short
# a run of capitalised words ("Prof. Dr. Miriam Oldenburg", "Projektleiter Benedikt Kramer")
NAME = re.compile(r"(?:[A-ZÄÖÜ][\w'-]*\.?\s+)+[A-ZÄÖÜ][\w'-]+")


@dataclass(frozen=True)
class Turn:
    """One earlier question/answer pair as the rewrite sees it: the question's effective
    retrieval query (its rewrite's, if it had one), the answer and its cited documents."""

    question: str
    answer: str
    query: str = ""
    documents: tuple[int, ...] = ()  # cited first, then the other sources
    abstained: bool = False
    page: dict | None = None  # the web source of a page its question named (question_url.py)

    @property
    def effective(self) -> str:
        return self.query or self.question


@dataclass
class Rewrite:
    """What the retrieval of a question uses. `followup` False: the question as typed."""

    question: str
    query: str
    followup: bool = False
    signals: list[str] = field(default_factory=list)
    carried: list[str] = field(default_factory=list)
    earlier: str | None = None
    document_ids: list[int] | None = None
    why: str = "not a follow-up"
    broader: str | None = None  # the query with the previous question's whole subject

    def use_broader(self) -> str:
        """Retry with `broader` (the own words found no evidence in the document)."""
        self.query, self.broader = self.broader or self.query, None
        self.why += ("; its own words found no evidence there: retried with the previous "
                     "question's whole subject")
        return self.query

    def to_dict(self) -> dict:
        return {"query": self.query, "followup": self.followup, "signals": self.signals,
                "carried": self.carried, "earlier": self.earlier,
                "document_ids": self.document_ids, "why": self.why}

    def stage(self) -> dict:
        """The `rewrite` stage of the stored trace (dict form, as note_trace stores it)."""
        return {"name": "rewrite", "ms": 0.0, "candidates": [], "error": None,
                "params": {"question": self.question, **self.to_dict()}, "note": self.why}


def words(text: str) -> list[str]:
    return WORD.findall(text or "")


def _low(ws: Sequence[str]) -> list[str]:
    return [w.lower() for w in ws]


def signals(q: str, language: str = "") -> list[str]:
    """Why `q` reads as a follow-up (empty: it does not). German pronouns count only in
    their pronoun use: "das"/"diese" before a lowercase word or the end ("wurde das
    beschlossen?"), "sie" in lowercase (not the polite "Sie")."""
    ws = words(q)
    low = _low(ws)
    found = []
    if _LEAD.match(q):
        found.append(f"starts with '{_LEAD.match(q).group(0).strip().lower()}'")
    for i, (w, lw) in enumerate(zip(ws, low)):
        nxt = ws[i + 1] if i + 1 < len(ws) else ""
        if (language != "en" and _pronoun_de(w, lw, i, nxt, low)) or \
                (language != "de" and _pronoun_en(lw, i, nxt)):
            found.append(f"pronoun '{w}'")
            break
    m = _EARLIER.search(q)
    if m:
        found.append(f"earlier value '{m.group(0)}'")
    if _ALSO.search(q):
        found.append("'as well'")
    if len(ws) <= SHORT_WORDS:
        found.append(f"short question ({len(ws)} words)")
    if language == "en" and not found and not _entities(q):
        found.append("names no entity")
    return found


def _pronoun_de(w: str, lw: str, i: int, nxt: str, low: list[str]) -> bool:
    if lw == "es" and i > 0 and low[i - 1] in {"gibt", "geht", "handelt"}:
        return False  # "Gibt es eine Frist?": no reference
    if lw in _PRONOUN_DE:
        return True
    if lw in {"sie", "ihr", "ihre", "ihren", "ihrem", "ihrer"}:
        return w == lw  # "sie" in lowercase, not the polite "Sie"
    # "wurde das beschlossen?": a demonstrative before a lowercase word (German nouns are
    # capitalised) or at the end
    return lw in {"das", "diese"} and i > 0 and (not nxt or nxt[:1].islower())


def _pronoun_en(lw: str, i: int, nxt: str) -> bool:
    if lw not in _PRONOUN_EN or (lw == "there" and i <= 1):
        return False  # "Is there a deadline?": no reference
    # "that"/"this"/"one" before a noun is a determiner ("this policy"), else a pronoun
    return not (lw in {"that", "this", "these", "those", "one"} and nxt[:1].isalpha()
                and nxt.lower() not in _QWORDS)


def _entities(q: str) -> list[str]:
    """Words of an English question that name something: capitalised after the first
    word, or holding a digit (TX-410, 2024, Los 2)."""
    ws = words(q)
    return [w for i, w in enumerate(ws) if any(c.isdigit() for c in w)
            or (i > 0 and w[:1].isupper() and w.lower() not in {"i"})]


def content(text: str) -> list[str]:
    """Topic words in order, without question and function words (first spelling kept)."""
    out, seen = [], set()
    for w in words(text):
        lw = w.lower().strip(".,")
        if lw in _QWORDS or len(lw) < 2 and not lw.isdigit() or lw in seen:
            continue
        seen.add(lw)
        out.append(w.strip(".,"))
    return out


def earlier_value(answer: str) -> str | None:
    """The earlier value an answer quotes ("von 2,48 EUR auf 2,69 EUR" -> "2,48 EUR")."""
    for rx in _EARLIER_VALUE:
        m = rx.search(answer or "")
        if m:
            return m.group("x").strip(" ,.")
    return None


def _digits(w: str) -> bool:
    return any(c.isdigit() for c in w)


def _is_year(w: str) -> bool:
    return bool(re.fullmatch(r"(?:19|20)\d\d", w))


def carry(q: str, prev: Turn) -> list[str]:
    """The previous turn's topic words the follow-up lacks. A number or code in the
    follow-up replaces those of the previous question ("Und Los 1?" after "Los 2"; "And the
    TX-460?" after "TX-410"); a year only replaces a year."""
    own = {w.lower() for w in content(q)}
    own_codes = [w for w in content(q) if _digits(w)]
    kept = []
    for w in content(prev.effective):
        if w.lower() in own:
            continue
        if _digits(w) and own_codes and (_is_year(w) == any(_is_year(x) for x in own_codes)):
            continue
        kept.append(w)
    return kept


# words of the previous question that ask for the current value: left out when the
# follow-up asks for the earlier one ("der neue Arbeitspreis" -> "vorher")
_NOW = re.compile(r"^(?:neu\w*|aktuell\w*|jetzig\w*|heutig\w*|künftig\w*|new|current|"
                  r"latest|now|today)$", re.I)
_NUMBER = re.compile(r"\d[\d.,]*\d|\d")


def numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text or ""))


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence (or line) of `text` around [start, end)."""
    a = max(text.rfind(". ", 0, start), text.rfind("\n\n", 0, start), -1) + 1
    stops = [i for i in (text.find(". ", end), text.find("\n\n", end)) if i >= 0]
    return " ".join(text[a:min(stops) if stops else len(text)].split())


def earlier_in(texts: Sequence[str], answer: str) -> tuple[str, str] | None:
    """The earlier value of a change whose new value the answer quoted: the first "von X
    auf Y" / "from X to Y" in `texts` (the focus document) with Y among the answer's
    figures ("Arbeitspreis: 2,69 EUR" and "soll von 2,48 EUR auf 2,69 EUR steigen" ->
    2,48 EUR), and the sentence that says so."""
    figures = numbers(answer)
    if not figures:
        return None
    for text in texts:
        for rx in _EARLIER_VALUE[:3]:
            for m in rx.finditer(text):
                tail = text[m.end("x"):m.end("x") + 80]
                new = _NUMBER.findall(tail)
                if new and new[0] in figures and _NUMBER.findall(m.group("x"))[0] not in figures:
                    return m.group("x").strip(" ,."), _sentence_at(text, m.start(), m.end())
    return None


_EARLIER_EN = re.compile(r"\b(?:the year before|a year (?:earlier|before)|the previous year|"
                         r"the prior year|before|previously|earlier|prior)\b", re.I)


def own_attribute(q: str, found: Sequence[str]) -> bool:
    """The follow-up asks for something new about the same subject ("And in which room is
    the course office?"), not for the same thing of something else ("Und Los 1?")."""
    return len(content(q)) >= 2 and not any(x.startswith(("short", "earlier", "'as well'"))
                                            for x in found)


# a code: letters and digits in one word ("F28", "R290", "TX-460", "B2"), not a date or amount
_CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-zÄÖÜäöü])[A-Za-zÄÖÜäöü\d-]+$")
ANSWER_CODES = 2  # codes of the previous answer carried for "it"/"davon"


def _refers(found: Sequence[str]) -> bool:
    return any(x.startswith("pronoun") for x in found)


def answer_codes(answer: str, question: str) -> list[str]:
    """The codes the previous answer quoted that its question did not name: what "it" or
    "davon" stands for ("Lockout fault F28" -> F28 for "Who fixed it?"; "refrigerant R290"
    -> R290 for "Und wie viel davon enthält die HP-9?")."""
    asked = {w.lower() for w in words(question)}
    found = [w for w in words(answer) if _CODE.match(w) and w.lower() not in asked]
    return list(dict.fromkeys(found))[:ANSWER_CODES]


_COMPANY = {"GmbH", "AG", "KG", "eG", "SE", "Ltd", "plc", "Inc", "LLP", "LLC", "Co", "e.V"}


def _names(answer: str, question: str) -> list[str]:
    """Person-like names in an answer that are not part of what the question named
    ("Projektleiter Benedikt Kramer" after "Wer ist Projektleiter …?" -> "Benedikt Kramer")."""
    asked = {w.lower() for w in words(question)}
    out = []
    for m in NAME.finditer(answer or ""):
        parts = m.group(0).split()
        while parts and parts[0].lower() in asked:
            parts = parts[1:]
        if len(parts) >= 2 and not any(p.lower() in asked or p.strip(".") in _COMPANY
                                       for p in parts):
            out.append(" ".join(parts))
    return list(dict.fromkeys(out))[:3]


def rewrite(q: str, turns: Sequence[Turn], *, language: str = "",
            names_other: Callable[[str, int], str | None] | None = None,
            document_texts: Callable[[int], Sequence[str]] | None = None,
            document_name: Callable[[int], str] | None = None) -> Rewrite:
    """The retrieval query of `q` after `turns` (oldest first). `names_other(q, doc_id)`:
    the title of another document `q` names (then retrieval is not pinned), or None;
    `document_texts(doc_id)`: the focus document's texts, searched for the earlier value
    when the previous answer quoted only the new one; `document_name(doc_id)`: its title
    and file name."""
    if not turns:
        return Rewrite(q, q, why="first question of the session")
    prev = turns[-1]
    found = signals(q, language)
    if not found:
        return Rewrite(q, q, why="not a follow-up: names its own subject")
    carried = carry(q, prev)
    extra: list[str] = []
    low = set(_low(words(q)))
    if low & _PERSON and _WHO.search(prev.effective):  # "er" = the person just named
        extra += _names(prev.answer, prev.effective)
        carried = [] if extra else carried  # ... who replaces the previous question
    elif _refers(found):  # "it", "davon": the entity the previous answer quoted
        extra += answer_codes(prev.answer, f"{prev.effective} {q}")
    asked = q.strip()
    earlier = None
    focus = prev.documents[0] if prev.documents and not prev.abstained else None
    if _EARLIER.search(q):
        carried = [w for w in carried if not _NOW.match(w)]
        earlier = earlier_value(prev.answer)
        if earlier is None and focus is not None and document_texts is not None:
            found_in = earlier_in(document_texts(focus), prev.answer)
            if found_in:  # the words of the sentence of the change lead the answer to it
                earlier = found_in[0]
                have = {x.lower() for x in carried + earlier.split()}
                extra += [w for w in content(found_in[1])
                          if not _digits(w) and w.lower() not in have][:SENTENCE_WORDS]
        if earlier:
            extra.insert(0, earlier)
        if _YEAR_BEFORE.search(q):
            extra += [str(int(y) - 1) for y in content(prev.effective) if _is_year(y)]
        if extra:  # "before" as a word would match "profit before tax"
            asked = re.sub(r"\s+([?.!])", r"\1", " ".join(_EARLIER_EN.sub(" ", asked).split()))
    docs, other, broader = None, None, None
    if focus is not None:
        other = names_other(q, focus) if names_other else None
        if not other:
            docs = [focus]
            # the document's own name adds nothing within it, and pulls the answer to its
            # title line ("Fenwick Instruments plc Annual Report 2024 | Page 1")
            named = (document_name(focus) if document_name else "").lower()
            carried = [w for w in carried if w.lower() not in named] or carried
            if own_attribute(q, found):  # within the document, its own words decide
                broader = " ".join([asked] + carried + [x for x in extra if x not in carried])
                carried = [w for w in carried if _digits(w)]
    extra = [x for x in extra if x not in carried]
    query = " ".join([asked] + carried + extra)
    why = (f"follow-up ({'; '.join(found)}): carried over "
           f"{', '.join(repr(w) for w in carried + extra) or 'nothing'} from the previous turn")
    if earlier:
        why += f"; the earlier value of the previous answer: {earlier}"
    if other:
        why += f"; names another document ({other}): not pinned to the previous one"
    elif docs:
        why += f"; retrieval pinned to document {focus} of the previous answer"
    return Rewrite(q, query, True, found, carried + extra, earlier, docs, why,
                   broader if broader != query else None)
