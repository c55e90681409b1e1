"""KeywordIndex on tantivy (embedded, under `settings.keyword_dir`).

Every chunk's text is indexed twice, with a German and an English stemming analyzer, and
searched over both fields (boolean SHOULD, BM25 scores add up). Chunk languages are
detected per document and often wrong or mixed (English terms in German minutes), and the
query's language is unknown; with both fields any query word meets the same analyzer on
both sides, and a word both stemmers agree on weighs more than a stem-only match.

User text is never given to tantivy's query parser: it is run through the field's analyzer
and turned into term queries, so quotes, colons, brackets, `AND`/`NOT` etc. are just text."""
from __future__ import annotations

import functools
import logging
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

import tantivy

from backend.config import Settings
from backend.errors import BackendUnavailable, IndexMismatch
from backend.index.base import IndexedChunk, IndexFilter, IndexHit
from backend.index.tantivy_schema import (  # noqa: F401  (ANALYZER etc. are read from here)
    _TOK_DE,
    _TOK_EN,
    _TOK_PLAIN,
    ANALYZER,
    DEFAULT_BOOSTS,
    MEMBERSHIPS,
    META_FIELDS,
    STORED,
    TEXT_FIELDS,
    _analyzer,
    _build_schema,
)
from backend.index.tantivy_snippets import Snippets, within_one
from backend.index.writelock import IndexWriteLock

log = logging.getLogger(__name__)

TERM_SET_FROM = 64  # filter values from which one term set query is cheaper (measured)
FUZZY_MIN_LEN = 5
FUZZY_BOOST = 0.5
MAX_QUERY_TERMS = 256
SNIPPET_CHARS = 200
WRITER_HEAP = 64_000_000
LOCK_WAIT_S = 15.0


class TantivyKeywordIndex:
    """BM25 over chunk texts (German + English stemming), plus title, section title and
    file name fields for exact-match boosts."""

    name = "tantivy"
    analyzer = ANALYZER
    defers_highlights = True  # search(defer_highlights=True): snippets when asked for

    def __init__(self, settings: Settings, *, field_boosts: dict[str, float] | None = None,
                 lock: IndexWriteLock | None = None):
        self.settings = settings
        # Every write holds the data dir's index write lock (threads and processes); tantivy's
        # own lock file stays as a second line of defence.
        self._write_lock = lock or IndexWriteLock.for_dir(settings.data_dir,
                                                          settings.index_lock_timeout_s)
        self.path = Path(settings.keyword_dir)
        self.field_boosts = {**DEFAULT_BOOSTS, **(field_boosts or {})}
        self.schema = _build_schema()
        self._index_analyzers = {
            _TOK_DE: _analyzer("german"),
            _TOK_EN: _analyzer("english"),
            _TOK_PLAIN: _analyzer(None),
        }
        self._query_analyzers = {  # (with stop words removed, all words)
            "text_de": (_analyzer("german", stopwords=True), self._index_analyzers[_TOK_DE]),
            "text_en": (_analyzer("english", stopwords=True), self._index_analyzers[_TOK_EN]),
        }
        self._plain = self._index_analyzers[_TOK_PLAIN]
        self._open_lock = threading.Lock()
        self._index: tantivy.Index | None = None
        self._mismatch: str | None = None
        self._closed = False
        self._open()

    def close(self) -> None:
        """Drop the index handle: tantivy has no close(); its memory maps and reader threads
        go with the last reference (searchers are short-lived). Closing twice is harmless;
        any use afterwards raises BackendUnavailable. tantivy's writer lock file is released
        after every batch (`_write`), the data dir's lock after every hold."""
        with self._open_lock:
            self._closed = True
            self._index = None

    # ---- opening -----------------------------------------------------------------
    def _open(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        except ValueError as exc:  # "An index exists but the schema does not match."
            self._index, self._mismatch = None, str(exc)
            log.warning("keyword index at %s does not match %s: %s", self.path, ANALYZER, exc)
            return
        # Custom tokenizers live in the Index object, not on disk: register on every open.
        for name, analyzer in self._index_analyzers.items():
            index.register_tokenizer(name, analyzer)
        index.config_reader("commit", 0)
        self._index, self._mismatch = index, None

    def _ix(self) -> tantivy.Index:
        index = self._index
        if self._closed:
            raise BackendUnavailable(f"{self!r} was closed")
        if index is None:
            raise IndexMismatch(
                f"keyword index at {self.path} was built differently ({self._mismatch}); run reindex"
            )
        return index

    def _writer(self, index: tantivy.Index) -> tantivy.IndexWriter:
        """A writer for one batch. Another process may hold tantivy's lock: wait a while."""
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                return index.writer(heap_size=WRITER_HEAP, num_threads=1)
            except ValueError as exc:
                if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                    raise BackendUnavailable(f"keyword index at {self.path} is locked: {exc}") from exc
                time.sleep(0.2)

    def _write(self, ops: Iterable[tuple[str, Any]]) -> None:
        """Apply (op, arg) pairs in one commit; ops: "delete" chunk_id, "add" Document,
        "clear" None."""
        with self._write_lock.hold("write the keyword index"):
            index = self._ix()
            writer = self._writer(index)
            self._write_lock.mark_written()
            try:
                for op, arg in ops:
                    if op == "delete":
                        writer.delete_documents_by_term("chunk_id", arg)
                    elif op == "add":
                        writer.add_document(arg)
                    elif op == "clear":
                        writer.delete_all_documents()
                writer.commit()
            except BaseException:
                writer.rollback()
                raise
            finally:
                writer.wait_merging_threads()  # also releases the writer's lock file
            index.reload()

    # ---- KeywordIndex: writing ---------------------------------------------------
    def add(self, chunks: Sequence[IndexedChunk]) -> None:
        if not chunks:
            return
        self._write(op for c in chunks for op in (("delete", c.chunk_id), ("add", self._doc(c))))

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self._write(("delete", cid) for cid in dict.fromkeys(chunk_ids))

    def reset(self) -> None:
        if self._index is None and not self._closed:  # built with another schema: start afresh
            with self._write_lock.hold("reset the keyword index"), self._open_lock:
                self._write_lock.mark_written()
                shutil.rmtree(self.path, ignore_errors=True)
                self._open()
            self._ix()
            return
        self._write([("clear", None)])

    @staticmethod
    def _doc(c: IndexedChunk) -> tantivy.Document:
        fields: dict[str, Any] = {
            "chunk_id": c.chunk_id,
            "document_id": int(c.document_id),
            "version_id": int(c.version_id),
            "doc_type": c.doc_type or "",
            "language": c.language or "",
            "text_de": c.text,
            "text_en": c.text,
        }
        for name in META_FIELDS:
            value = getattr(c, name)
            if value:
                fields[name] = value
        tokens = c.membership_tokens
        if tokens:
            fields[MEMBERSHIPS] = tokens
        return tantivy.Document(**fields)

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """tantivy cannot change a field in place: each chunk is written again from its
        stored fields with the new tokens (one commit); ids not in the index are skipped."""
        if not tokens:
            return
        with self._write_lock.hold("update keyword memberships"):
            docs = self._stored(list(tokens))
            ops: list[tuple[str, Any]] = []
            for cid, fields in docs.items():
                fields = {k: v for k, v in fields.items() if k != MEMBERSHIPS}
                toks = sorted(set(tokens[cid]))
                if toks:
                    fields[MEMBERSHIPS] = toks
                fields["text_en"] = fields.get("text_de", "")
                ops += [("delete", cid), ("add", tantivy.Document(**fields))]
            if ops:
                self._write(ops)

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        return {cid: set(f.get(MEMBERSHIPS) or []) for cid, f in
                self._stored(chunk_ids).items()}

    def _stored(self, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored fields of the given chunks: single values unwrapped, memberships a list."""
        ids = list(dict.fromkeys(chunk_ids))
        searcher = self._ix().searcher()
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), 1024):
            part = ids[start:start + 1024]
            q = tantivy.Query.term_set_query(self.schema, "chunk_id", part)
            for _score, addr in searcher.search(q, limit=len(part), count=False).hits:
                d = searcher.doc(addr).to_dict()
                fields = {k: v[0] for k, v in d.items() if v and k != MEMBERSHIPS}
                fields[MEMBERSHIPS] = list(d.get(MEMBERSHIPS) or [])
                out[fields["chunk_id"]] = fields
        return out

    # ---- KeywordIndex: reading ---------------------------------------------------
    def count(self) -> int:
        return int(self._ix().searcher().num_docs)

    def ids(self) -> set[str]:
        searcher = self._ix().searcher()
        n = searcher.num_docs
        if n == 0:
            return set()
        hits = searcher.search(tantivy.Query.all_query(), limit=n, count=False).hits
        return {searcher.doc(addr)["chunk_id"][0] for _, addr in hits}

    def texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Stored text of the given chunks (missing ids are left out)."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        searcher = self._ix().searcher()
        out: dict[str, str] = {}
        for start in range(0, len(ids), 1024):
            part = ids[start:start + 1024]
            q = tantivy.Query.term_set_query(self.schema, "chunk_id", part)
            for _score, addr in searcher.search(q, limit=len(part), count=False).hits:
                doc = searcher.doc(addr)
                out[doc.get_first("chunk_id")] = doc.get_first("text_de") or ""
        return out

    def search(
        self, query: str, k: int, flt: IndexFilter | None = None, *, fuzzy: bool = False,
        highlight_limit: int | None = None, highlight_skip: Collection[str] = (),
        defer_highlights: bool = False,
    ) -> list[IndexHit]:
        filters = self._filter_queries(flt) if k > 0 else None
        built = self._query(query, filters, fuzzy) if filters is not None else None
        if built is None:
            return []
        final, text_query = built
        searcher = self._ix().searcher()
        hits = searcher.search(final, limit=k, count=False).hits
        if not hits:
            return []
        snippets = Snippets(searcher, text_query, self.schema, TEXT_FIELDS, SNIPPET_CHARS,
                            (lambda text: self._fuzzy_highlight(searcher, query, text))
                            if fuzzy else None)
        out: list[IndexHit] = []
        for rank, (score, addr) in enumerate(hits, start=1):
            doc = searcher.doc(addr)
            hit = IndexHit(chunk_id=doc.get_first("chunk_id"), score=float(score), rank=rank)
            out.append(hit)
            if (highlight_limit is not None and rank > highlight_limit) \
                    or hit.chunk_id in highlight_skip:
                continue
            text = doc.get_first("text_de") or ""
            if defer_highlights:
                hit.pending = functools.partial(snippets.of, text)
            else:
                hit.highlights = snippets.of(text)
        return out

    def match_counter(self, flt: IndexFilter | None = None) -> Callable[[str], int]:
        """word -> how many chunks within `flt` match it, counted without scoring or reading
        a stored field; the filter is built once (the dictionary's common-word test runs
        about 24 times per question)."""
        filters = self._filter_queries(flt)
        searcher = self._ix().searcher()

        def count(query: str) -> int:
            built = self._query(query, filters, False) if filters is not None else None
            return 0 if built is None else int(searcher.search(built[0], limit=1,
                                                                count=True).count)
        return count

    # ---- query building ----------------------------------------------------------
    def _query(self, query: str, filters: list[tantivy.Query], fuzzy: bool):
        """(the query with `filters`, the text query alone), or None: nothing can match."""
        text_query = self._text_query(query, fuzzy=fuzzy) if query and query.strip() else None
        if text_query is None:
            return None
        if not filters:
            return text_query, text_query
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, text_query)]
            + [(tantivy.Occur.Must, tantivy.Query.const_score_query(f, 0.0)) for f in filters]
        ), text_query

    def analyze(self, text: str, field: str = "text_de") -> list[str]:
        """Query terms of `text` for a field (stop words dropped unless nothing is left)."""
        if field in self._query_analyzers:
            without_stop, full = self._query_analyzers[field]
            terms = without_stop.analyze(text) or full.analyze(text)
        else:
            terms = self._plain.analyze(text)
        return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]

    def _text_query(self, text: str, *, fuzzy: bool) -> tantivy.Query | None:
        Q, should = tantivy.Query, tantivy.Occur.Should
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for field in TEXT_FIELDS:
            boost = self.field_boosts.get(field, 1.0)
            for term in self.analyze(text, field):
                clauses.append((should, _boosted(Q.term_query(self.schema, field, term), boost)))
                if fuzzy and len(term) >= FUZZY_MIN_LEN:
                    fq = Q.fuzzy_term_query(self.schema, field, term, 1, True, False)
                    clauses.append((should, _boosted(fq, FUZZY_BOOST * boost)))
        plain = self.analyze(text, "plain")
        for field in META_FIELDS:
            boost = self.field_boosts.get(field, 0.0)
            if boost > 0:
                clauses += [(should, _boosted(Q.term_query(self.schema, field, t), boost)) for t in plain]
        return Q.boolean_query(clauses) if clauses else None

    def _filter_queries(self, flt: IndexFilter | None) -> list[tantivy.Query] | None:
        """Filter clauses; None when a filter list is empty (nothing can match)."""
        if flt is None:
            return []
        out: list[tantivy.Query] = []
        groups = flt.membership_groups()
        if groups is None:
            return None
        out += [self._any_of(MEMBERSHIPS, toks) for toks in groups]
        if flt.document_ids is not None:
            ids = sorted({int(i) for i in flt.document_ids})
            if not ids:
                return None
            out.append(self._any_of("document_id", ids))
        if flt.doc_types is not None:
            types = sorted({str(t) for t in flt.doc_types})
            if not types:
                return None
            out.append(self._any_of("doc_type", types))
        return out

    def _any_of(self, field: str, values: Sequence) -> tantivy.Query:
        """Matches a document with any of `values` in `field`. A term set costs 0.15 ms per
        search whatever its size; up to TERM_SET_FROM values, term queries cost less (1 value
        0.003 ms, 64 values 0.06 ms including building them; docs/benchmarks.md)."""
        Q = tantivy.Query
        if len(values) >= TERM_SET_FROM:
            return Q.term_set_query(self.schema, field, list(values))
        if len(values) == 1:
            return Q.term_query(self.schema, field, values[0])
        return Q.boolean_query([(tantivy.Occur.Should, Q.term_query(self.schema, field, v))
                                for v in values])

    def _fuzzy_highlight(self, searcher: tantivy.Searcher, query: str, text: str) -> str:
        """Tantivy's snippets ignore fuzzy clauses: find the text's own terms within edit
        distance 1 of a query term and highlight those."""
        Q, should = tantivy.Query, tantivy.Occur.Should
        clauses = []
        for field in TEXT_FIELDS:
            wanted = [t for t in self.analyze(query, field) if len(t) >= FUZZY_MIN_LEN]
            own = set(self._query_analyzers[field][1].analyze(text))
            clauses += [(should, Q.term_query(self.schema, field, t))
                        for t in own if any(within_one(t, w) for w in wanted)]
        if not clauses:
            return ""
        snippets = Snippets(searcher, Q.boolean_query(clauses), self.schema, TEXT_FIELDS,
                            SNIPPET_CHARS)
        return (snippets.of(text) or [""])[0]

    def __repr__(self) -> str:
        return f"TantivyKeywordIndex({str(self.path)!r}, analyzer={ANALYZER!r})"


def _boosted(q: tantivy.Query, boost: float) -> tantivy.Query:
    return q if boost == 1.0 else tantivy.Query.boost_query(q, boost)
