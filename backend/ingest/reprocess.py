"""Classify stored versions again (`reclassify`), change a document's profile or title, and
re-section/re-chunk exactly the versions whose processing profile no longer matches how they
were cut. A collaborator of the Ingestor (backend/ingest/service.py).

Re-chunking an active version embeds its new chunks outside the index write lock; the store
rows (sections, chunks) and both indexes are then changed together under the lock, so a
reader or `check` never sees a half-changed version. A version keeps its chunks when its
recorded chunking (`meta.chunking`) already is what its profile gives now."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from sqlalchemy import select

from backend.errors import ConfigError, IngestError
from backend.ingest import doctypes
from backend.ingest.indexing import IndexWriter
from backend.ingest.pipeline import Context, cut, expected_chunking, stored_layout, text_from_store
from backend.ingest.profiles import PROFILES
from backend.ingest.records import chunk_id, write_sections
from backend.ingest.types import SectionNode
from backend.services.jobs import finish_job, start_job, update_job
from backend.store import repo
from backend.store.models import Chunk, DocumentVersion, Section
from backend.ingest.types import Text


@dataclass
class ReclassifyReport:
    versions: int = 0
    changed_type: list[tuple[int, str, str]] = field(default_factory=list)  # (doc, old, new)
    rechunked: int = 0
    retitled: int = 0
    failed: list[str] = field(default_factory=list)
    cancelled: bool = False

    def summary(self) -> str:
        return (f"{self.versions} version(s) classified: {len(self.changed_type)} changed type, "
                f"{self.rechunked} re-chunked, {self.retitled} retitled"
                + (f", {len(self.failed)} failed" if self.failed else "")
                + (" (cancelled)" if self.cancelled else ""))


class Reprocessor:
    """Reclassify, set profiles and titles, re-chunk: a collaborator of the Ingestor that
    receives the index writer it changes the indexes with."""

    def __init__(self, rs, index: IndexWriter):
        self.rs, self.store, self.settings, self.index = rs, rs.store, rs.settings, index

    # ---- reclassify ---------------------------------------------------------------------

    def reclassify(self, ref: int | str | None = None, *, dry_run: bool = False,
                   on_progress: Callable[[int, int, str], None] | None = None,
                   own_job: bool = True) -> ReclassifyReport:
        """Classify the active version of one document (`ref`) or of every document again
        (a job with progress and cancel), store the result, and re-chunk the versions whose
        profile changed. `dry_run`: report what would change, store nothing. `own_job=False`:
        the caller's job row records the run (the dashboard's background job, whose cancel
        stops it through `on_progress`), so none is written here."""
        with self.store.session() as s:
            if ref is not None:
                doc = repo.get_document(s, ref)
                ids = [doc.active_version_id] if doc.active_version_id else []
                if not ids:
                    raise IngestError(doc.filename, f"document {doc.id} has no active version "
                                      "to classify")
            else:
                ids = [v.id for v in repo.active_versions(s)]
        types = doctypes.load(self.store)
        rep = ReclassifyReport()
        job = start_job(self.store, "reclassify", total=len(ids),
                        params={"document": ref, "dry_run": dry_run}) if own_job else None
        try:
            for i, vid in enumerate(ids, 1):
                try:
                    self._reclassify_version(vid, types, rep, dry_run)
                except (IngestError, ConfigError) as e:
                    rep.failed.append(str(e))
                rep.versions += 1
                label = f"version {vid}"
                if job is not None and update_job(self.store, job, done=i, message=label):
                    rep.cancelled = True
                    break
                if on_progress:
                    on_progress(i, len(ids), label)
        except BaseException as e:
            if job is not None:
                finish_job(self.store, job, "failed", error=str(e))
            raise
        if job is not None:
            finish_job(self.store, job, "cancelled" if rep.cancelled else "done",
                       result={"versions": rep.versions, "changed": len(rep.changed_type),
                               "rechunked": rep.rechunked, "failed": len(rep.failed)})
        return rep

    def _subject(self, s, v: DocumentVersion) -> tuple[Text, Context, str]:
        """The stored version as the pipeline's input: its Text (layout from the meta, or
        from its stored sections for versions cut before profiles), the context, the name."""
        doc = v.document
        meta = dict(v.meta or {})
        rows = repo.sections_of(s, v.id)
        nodes = _nodes(rows)
        extracted = meta["extracted_title"] if "extracted_title" in meta else doc.title
        text = text_from_store(v.text or "", meta, extracted, fallback_sections=nodes)
        ctx = Context(source_kind=doc.source_kind, path=meta.get("path") or doc.source_uri,
                      versions=len(doc.versions),
                      profile_override=(doc.meta or {}).get("profile_override"),
                      title=(meta.get("title") or {}).get("text")
                      if (meta.get("title") or {}).get("source") == "given" else None,
                      title_locked=(doc.meta or {}).get("title_source") == "user")
        return text, ctx, v.filename or doc.filename

    def _reclassify_version(self, vid: int, types, rep: ReclassifyReport, dry_run: bool) -> None:
        with self.store.session() as s:
            v = s.get(DocumentVersion, vid)
            text, ctx, filename = self._subject(s, v)
            old_type, old_title = v.primary_type or v.document.doc_type, v.document.title
            doc_id = v.document_id
        p = cut(self.settings, self.store, text, filename, ctx)
        new_type = p.classification.primary_type
        if new_type != old_type:
            rep.changed_type.append((doc_id, old_type, new_type))
        with self.store.session() as s:
            v = s.get(DocumentVersion, vid)
            needs_cut = (v.meta or {}).get("chunking") != p.chunking
            retitle = not ctx.title_locked and p.title != old_title
        rep.retitled += int(retitle)
        if dry_run:
            rep.rechunked += int(needs_cut)
            return
        with self.store.session() as s:
            v = s.get(DocumentVersion, vid)
            v.primary_type, v.classification = new_type, p.classification.to_json()
            if v.is_active:
                v.document.doc_type = new_type
                if retitle:
                    v.document.title = p.title
        if needs_cut:
            self._recut(vid, p)
            rep.rechunked += 1
        elif retitle:
            self._refresh_keyword_entries(vid)

    # ---- profile and title changes ------------------------------------------------------

    def set_profile(self, ref: int | str, profile: str | None) -> ReclassifyReport:
        """Give a document another processing profile (None: back to its type's default) and
        re-chunk it if that changes its chunks."""
        if profile is not None and profile not in PROFILES:
            raise ConfigError(f"unknown processing profile '{profile}' (known: "
                              f"{', '.join(PROFILES)})")
        with self.store.session() as s:
            doc = repo.get_document(s, ref)
            meta = dict(doc.meta or {})
            if profile is None:
                meta.pop("profile_override", None)
            else:
                meta["profile_override"] = profile
            doc.meta = meta
            doc_id = doc.id
        return self.reclassify(doc_id)

    def set_title(self, ref: int | str, title: str) -> int:
        """A title given by a user: kept by later ingests and reclassification."""
        title = " ".join((title or "").split())
        if not title:
            raise ConfigError("the title must not be empty")
        if len(title) > 500:
            raise ConfigError(f"the title has {len(title)} characters; at most 500")
        with self.store.session() as s:
            doc = repo.get_document(s, ref)
            doc.title = title
            doc.meta = {**(doc.meta or {}), "title_source": "user"}
            doc_id, vid = doc.id, doc.active_version_id
        if vid:
            self._refresh_keyword_entries(vid)
        return doc_id

    def reset_title(self, ref: int | str) -> int:
        """Forget a user's title: the next reclassification chooses one again."""
        with self.store.session() as s:
            doc = repo.get_document(s, ref)
            doc.meta = {k: v for k, v in (doc.meta or {}).items() if k != "title_source"}
            doc_id = doc.id
        self.reclassify(doc_id)
        return doc_id

    # ---- re-chunking --------------------------------------------------------------------

    def rechunk_affected(self, on_progress: Callable[[int, int], None] | None = None, *,
                         publish: bool = True) -> int:
        """Re-section and re-chunk every stored version whose chunks were cut otherwise than
        its profile cuts now (settings, profile parameters); returns how many. `publish`:
        also swap the chunks of active versions in the indexes (reindex rebuilds them anyway)."""
        with self.store.session() as s:
            rows = s.execute(select(DocumentVersion.id, DocumentVersion.processing_profile,
                                    DocumentVersion.meta)
                             .where(DocumentVersion.status == "indexed")).all()
        todo = [vid for vid, prof, meta in rows
                if (meta or {}).get("chunking") != expected_chunking(self.settings, prof)]
        for i, vid in enumerate(todo, 1):
            with self.store.session() as s:
                v = s.get(DocumentVersion, vid)
                text, ctx, filename = self._subject(s, v)
                profile = v.processing_profile
            ctx.profile_override = profile or "generic_text"
            p = cut(self.settings, self.store, text, filename, ctx, refine=False)
            self._recut(vid, p, keep_classification=True, publish=publish)
            if on_progress:
                on_progress(i, len(todo))
        return len(todo)

    def _recut(self, vid: int, p, keep_classification: bool = False,
               publish: bool = True) -> None:
        """Replace a version's sections and chunks by the prepared ones; an active version's
        old chunks leave both indexes and the new ones enter (embedded before the lock)."""
        with self.store.session() as s:
            v = s.get(DocumentVersion, vid)
            doc = v.document
            sha, lang = v.sha256, v.language
            active = bool(v.is_active) and publish
            variant = p.profile.variant()
            new_chunks = [Chunk(id=chunk_id(sha, p.size, p.overlap, c.ordinal, variant),
                                version_id=vid, document_id=doc.id, ordinal=c.ordinal,
                                start=c.start, end=c.end, page=c.page, page_end=c.page_end,
                                text=c.text) for c in p.chunks]
            indexed = [self.index.indexed(c, doc, p.sections[spec.section].title, lang)
                       for c, spec in zip(new_chunks, p.chunks)] if active else []
            old_ids = [c.id for c in repo.chunks_of(s, vid)]
        embeddings = self.index.encode(indexed) if indexed else None
        with self.rs.index_lock.hold("re-chunk a version"):
            with self.store.session() as s:
                v = s.get(DocumentVersion, vid)
                s.query(Chunk).filter(Chunk.version_id == vid).delete()
                s.query(Section).filter(Section.version_id == vid).update({"parent_id": None})
                s.query(Section).filter(Section.version_id == vid).delete()
                s.flush()
                rows = write_sections(s, vid, p.sections)
                for c, spec in zip(new_chunks, p.chunks):
                    c.section_id = rows[spec.section].id
                s.add_all(new_chunks)
                v.processing_profile = p.profile.name
                if not keep_classification:
                    v.primary_type = p.classification.primary_type
                    v.classification = p.classification.to_json()
                v.meta = {**(v.meta or {}), **stored_layout(p.text), "chunking": p.chunking,
                          "profile": {"name": p.profile.name, "params": p.profile.params()}}
            if active:
                self.index.delete(old_ids)
                self.index.add(indexed, embeddings)
                self.index.record_counts()

    def _refresh_keyword_entries(self, vid: int) -> None:
        """Rewrite the keyword entries of an active version (its title is a BM25 field); the
        vectors do not depend on the title."""
        with self.store.session() as s:
            v = s.get(DocumentVersion, vid)
            if not v.is_active:
                return
            doc = v.document
            titles = {x.id: x.title for x in repo.sections_of(s, vid)}
            chunks = [self.index.indexed(c, doc, titles.get(c.section_id, ""), v.language)
                      for c in repo.chunks_of(s, vid)]
        if chunks:
            with self.rs.index_lock.hold("update keyword entries"):
                self.rs.keyword_index.delete([c.chunk_id for c in chunks])
                self.rs.keyword_index.add(chunks)


def _nodes(rows: list[Section]) -> list[SectionNode]:
    pos = {r.id: i for i, r in enumerate(rows)}
    return [SectionNode(kind=r.kind, level=r.level, title=r.title, start=r.start, end=r.end,
                        page_start=r.page_start, page_end=r.page_end,
                        parent=pos.get(r.parent_id), number=r.number) for r in rows]


