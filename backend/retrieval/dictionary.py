"""German–English word translations from the Ding dictionary (Debian package `trans-de-en`,
/usr/share/trans/de-en, GPL-2+; read at run time, never copied into this repository).

Used for cross-language questions: the keyword query gets the question's words in the other
language (backend/retrieval/engine.py) and the extractive answerer counts a translated word as
a match of the question's word (backend/answer/evidence/crosslingual.py).

Format (one entry per line, `#` comments):

    Umsatz {m}; Absatz {m} | Umsätze {pl} :: turnover; sales; revenue | turnovers
    DE-part :: EN-part; each side split by " | " into parallel sub-entries (singular | plural,
    phrase | phrase), each sub-entry by "; " into synonyms; {gender}, [domain], (gloss) and
    <alternative spelling> are annotations; English verbs are written "to find".

One-word terms are kept (a translation of a single question word is what the keyword
query and the overlap features can use), and English two-word terms whose German side is one
word ("false alarm" :: "Fehlalarm", "assembly point" :: "Sammelplatz"): an English noun phrase
is a German compound, which no word-by-word translation finds (`phrase_words`). A line that
does not have the form above is skipped and counted (`Dictionary.bad_lines`), never an error:
the file is outside our control.

Parsed once per process, lazily, on the first cross-language question (`get()`); the load
time and size are recorded on the object and reported by `python -m backend status`."""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import AbstractSet, Callable, Sequence

from backend.retrieval.stopwords import STOP_WORDS

DEFAULT_PATH = Path("/usr/share/trans/de-en")
MAX_PER_WORD = 3  # translations kept per word in a query (the first ones: the common senses)
_NOTES = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|<[^>]*>")
_WORD = re.compile(r"^[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß-]*[A-Za-zÄÖÜäöüß]$")


@dataclass
class Dictionary:
    path: str
    # word -> translations; lists while parsing, tuples once loaded (`_seal`)
    de_en: dict[str, Sequence[str]] = field(default_factory=dict)
    en_de: dict[str, Sequence[str]] = field(default_factory=dict)
    lines: int = 0
    bad_lines: int = 0
    load_s: float = 0.0
    # every one-word form of the verb entries, both languages, case-folded ("gelten",
    # "gilt", "gegolten", "take", "took", "taken"): `is_verb_form`
    verbs: AbstractSet[str] = field(default_factory=set)
    # English two-word term ("false alarm", case-folded) -> its one-word German translations
    en_phrases: dict[str, Sequence[str]] = field(default_factory=dict)

    def translate(self, word: str, source: str) -> list[str]:
        """The word's one-word translations into the other language, in dictionary order
        (`source`: "de" or "en"); [] when unknown."""
        table = self.de_en if source == "de" else self.en_de if source == "en" else {}
        return list(table.get(word.casefold(), ()))

    @property
    def pairs(self) -> int:
        return sum(len(v) for v in self.de_en.values())


def _words(side: str) -> list[tuple[list[str], list[str]]]:
    """Per sub-entry ("|"), its one-word synonyms and its two-word ones."""
    out = []
    for sub in side.split("|"):
        one, two = [], []
        for s in _NOTES.sub(" ", sub).split(";"):
            s = " ".join(s.split())
            if s.startswith("to "):  # English verbs: "to find"
                s = s[3:]
            if _WORD.match(s):
                one.append(s)
            elif s.count(" ") == 1 and all(map(_WORD.match, s.split(" "))):
                two.append(s)
        out.append((one, two))
    return out


def parse_entry(line: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]] | None:
    """The (German, English) one-word pairs of one dictionary line, and its (German word,
    English two-word term) pairs ("Fehlalarm {m} | Fehlalarme {pl} :: false alarm | false
    alarms" → (Fehlalarm, false alarm), (Fehlalarme, false alarms)); None for a line that is
    not an entry (no " :: ", unequal sub-entry counts); empty lists for a comment or empty
    line."""
    line = line.strip()
    if not line or line.startswith("#"):
        return [], []
    if line.count("::") != 1:
        return None
    de, en = line.split("::")
    de_subs, en_subs = _words(de), _words(en)
    if len(de_subs) != len(en_subs):
        return None
    pairs = [(d, e) for (ds, _), (es, _) in zip(de_subs, en_subs) for d in ds for e in es]
    phrases = [(d, e) for (ds, _), (_, es) in zip(de_subs, en_subs) for d in ds for e in es]
    return pairs, phrases


_VERB_TAG = re.compile(r"\{v[itr]*\}")  # {v}, {vi}, {vt}, {vr}: the entry is a verb
# the pronouns, prepositions and placeholders of a verb entry's forms ("er/sie gilt",
# "to go", "to impose sth. on sb.", "sich beziehen auf")
_FORM_WORDS = frozenset({"ich", "du", "er", "sie", "es", "wir", "ihr", "man", "sich", "to", "i",
                         "he", "she", "it", "we", "you", "they", "sth.", "sb.", "sb.'s", "etw.",
                         "jdm.", "jdn.", "jds.", "jd.", "on", "for", "with", "at", "in", "about",
                         "of", "up", "out", "off", "auf", "an", "für", "mit", "von", "zu", "über",
                         "um", "aus", "bei"})


def verb_forms(line: str) -> set[str]:
    """The one-word forms of a verb entry, both sides ("gelten {vi} | geltend | gegolten |
    es gilt :: to be valid | …" → gelten, geltend, gegolten, gilt); empty for other lines.
    Forms joined with "/" ("er/sie", "hat/hatte") are pronouns and auxiliaries."""
    if "::" not in line or not _VERB_TAG.search(line.split("::")[0].split("|")[0]):
        return set()
    out: set[str] = set()
    for side in line.split("::")[:2]:
        for sub in side.split("|"):
            for syn in _NOTES.sub(" ", sub).split(";"):
                ws = [w for w in syn.split() if "/" not in w and w.casefold() not in _FORM_WORDS]
                if len(ws) == 1 and _WORD.match(ws[0]):
                    out.add(ws[0].casefold())
    return out


def is_verb_form(d: Dictionary | None, word: str) -> bool:
    """Whether a word as written in a question is a form of a verb: a lower-case word
    ("take", "fasste", "gelten") among the verb entries' forms. Capitalised words are
    German nouns ("Treffen") or names; without a dictionary, nothing is."""
    return d is not None and word[:1].islower() and word.casefold() in d.verbs


def is_phrasing_verb(d: Dictionary | None, word: str) -> bool:
    """A verb form that is no noun: not also the translation of a German noun (German nouns
    are capitalised: "test" → "Test", "take" → "Ansicht" are nouns too; "impose",
    "simulated", "gelten", "fasste" are not)."""
    return is_verb_form(d, word) and not any(
        t[:1].isupper() for t in d.en_de.get(word.casefold(), ()))


def load(path: str | Path) -> Dictionary:
    """Parse the file into both directions (words case-folded as keys, translations as
    written, each once, in file order)."""
    t0 = time.perf_counter()
    d = Dictionary(str(path))
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            d.lines += 1
            got = parse_entry(line)
            if got is None:
                d.bad_lines += 1
                continue
            for de, en in got[0]:
                _add(d.de_en, de, en)
                _add(d.en_de, en, de)
            for de, en in got[1]:
                _add(d.en_phrases, en, de)
            if "{v" in line:
                d.verbs |= verb_forms(line)
    _seal(d)
    d.load_s = round(time.perf_counter() - t0, 2)
    return d


def _seal(d: Dictionary) -> None:
    """Tuples and a frozenset instead of ~280k lists: the garbage collector stops tracking
    tables of strings and tuples of strings after one pass, so the full collections a
    long-running server makes every few hundred requests no longer walk the dictionary
    (0.24 s each with the lists: periodic 0.3-0.7 s stalls of the API under load)."""
    d.de_en = {k: tuple(v) for k, v in d.de_en.items()}
    d.en_de = {k: tuple(v) for k, v in d.en_de.items()}
    d.en_phrases = {k: tuple(v) for k, v in d.en_phrases.items()}
    d.verbs = frozenset(d.verbs)


def _add(table: dict[str, list[str]], key: str, value: str) -> None:
    got = table.setdefault(key.casefold(), [])
    if value not in got and value.casefold() != key.casefold():
        got.append(value)


_lock = threading.Lock()
_loaded: dict[str, Dictionary] = {}


def get(path: str | Path | None) -> Dictionary | None:
    """The parsed dictionary at `path`, parsed on the first call in this process; None when
    the file is not there (the feature is then off; `status` says why)."""
    if not path:
        return None
    key = str(path)
    if key in _loaded:
        return _loaded[key]
    if not Path(key).is_file():
        return None
    with _lock:
        if key not in _loaded:
            _loaded[key] = load(key)
    return _loaded[key]


def status(path: str | Path | None) -> dict:
    """For `python -m backend status`: is the dictionary there, and (if this process loaded
    it) its size and load time."""
    if not path or not Path(str(path)).is_file():
        return {"enabled": False, "path": str(path or ""),
                "note": "cross-language dictionary off: no file at "
                        f"{path or '(not set)'}; install it with `apt-get install trans-de-en` "
                        "or set RAGSCOPE_DICTIONARY_PATH"}
    d = _loaded.get(str(path))
    out = {"enabled": True, "path": str(path), "loaded": d is not None}
    if d is not None:
        out.update(words_de=len(d.de_en), words_en=len(d.en_de), pairs=d.pairs,
                   bad_lines=d.bad_lines, load_s=d.load_s)
    return out


TEXT_WORD = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß-]+")  # a word in running text
COMPOUND_PART = 4  # letters of the last part of a German compound looked up on its own


_ENDINGS = {"de": ("en", "er", "es", "em", "e", "n", "s"), "en": ("es", "s", "ed", "d")}


def _as_written_or_stem(d: Dictionary, word: str, source: str) -> list[str]:
    """Translations of `word` as written, else of the first stem of its inflected form that
    is an entry."""
    found = d.translate(word, source)
    for end in _ENDINGS.get(source, ()):
        if found:
            return found
        if word.endswith(end) and len(word) - len(end) >= COMPOUND_PART:
            found = d.translate(word[:-len(end)], source)
    return found


def lookup(d: Dictionary, word: str, source: str) -> list[str]:
    """Translations of `word` from `source`; of its stem when the inflected form is not an
    entry ("genehmigte" → "genehmigt", "approved" → "approve"); for a German compound the
    dictionary lacks, of its longest last part it has ("Speichervolumen" → "Volumen")."""
    found = _as_written_or_stem(d, word, source)
    if found or source != "de" or len(word) < 2 * COMPOUND_PART:
        return found
    for i in range(3, len(word) - COMPOUND_PART + 1):
        found = d.translate(word[i:], source)
        if found:
            return found
    return []


def phrase_words(d: Dictionary, text: str, source: str) -> dict[str, list[str]]:
    """The English two-word terms of `text` the dictionary has, with their one-word German
    translations, in the order asked ("Where is the assembly point …" → {"assembly point":
    ["Sammelplatz", "Sammelpunkt"]}); a plural as its singular entry too ("false alarms").
    Words are adjacent in the text (no punctuation between them). Only from English."""
    if source != "en" or not d.en_phrases:
        return {}
    out: dict[str, list[str]] = {}
    seen: set[str] = set()  # terms as looked up (case-folded), each once
    for chunk in re.split(r"[^\w\s'-]+", text):
        ws = TEXT_WORD.findall(chunk)
        for a, b in zip(ws, ws[1:]):
            key = f"{a} {b}".casefold()
            found = d.en_phrases.get(key)
            if not found and len(b) > 3 and b.casefold().endswith("s"):
                found = d.en_phrases.get(key[:-1])
            if found and key not in seen:
                seen.add(key)
                out[f"{a} {b}"] = list(found)
    return out


def knows(d: Dictionary, word: str) -> bool:
    """Whether `word` is an entry of either side, as written or by a stem of its inflected
    form (no compound parts): a word the dictionary does not know is most likely a name
    ("Talblick", "Hollerbach") or a coined compound ("Waldfreibad")."""
    return any(_as_written_or_stem(d, word, source) for source in ("de", "en"))


def translations(d: Dictionary, words: list[str], source: str, stop: frozenset[str], *,
                 per_word: int, keep: Callable[[str], bool] | None = None,
                 limit: int | None = None) -> dict[str, list[str]]:
    """word -> up to `per_word` translations (not common words, `keep(t)` true), at most
    `limit` in all."""
    out: dict[str, list[str]] = {}
    total = 0
    for w in words:
        if w.casefold() in stop:
            continue
        got: list[str] = []
        for t in lookup(d, w, source):
            if len(got) >= per_word or (limit is not None and total >= limit):
                break
            if t.casefold() in stop or len(t) < 3 or t in got or (keep and not keep(t)):
                continue
            got.append(t)
            total += 1
        if got:
            out[w] = got
    return out


MAX_QUERY_WORDS = 12  # translations added to one keyword query
QUERY_PER_WORD = 2  # per question word: the first ones the searched documents contain
MAX_COMMON_SHARE = 0.2  # a translation in more chunks than this share is too common to help


def query_words(d: Dictionary, text: str, language: str,
                share: Callable[[str], float] | None = None) -> dict[str, list[str]]:
    """Question word -> its translations into the other language for the keyword query:
    common words excluded (stop words of both languages; a translation in more than
    MAX_COMMON_SHARE of the searched chunks), at most QUERY_PER_WORD per word that the searched
    documents contain (`share(word)`: its share of the chunks; without it, all), at most
    MAX_QUERY_WORDS in all. An English question's two-word terms come first, keyed by the
    term ("assembly point" → Sammelplatz), then its single words."""
    if language not in ("de", "en"):
        return {}
    words = list(dict.fromkeys(w for w in TEXT_WORD.findall(text) if len(w) >= 3))

    def keep(t: str) -> bool:
        return share is None or 0.0 < share(t) <= MAX_COMMON_SHARE

    out: dict[str, list[str]] = {}
    for phrase, ts in phrase_words(d, text, language).items():  # first: they name the thing
        got = [t for t in dict.fromkeys(ts) if len(t) >= 3 and keep(t)][:QUERY_PER_WORD]
        if got:
            out[phrase] = got
    left = MAX_QUERY_WORDS - sum(map(len, out.values()))
    return out | translations(d, words, language, STOP_WORDS, per_word=QUERY_PER_WORD,
                              keep=keep, limit=left)
