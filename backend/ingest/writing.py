"""Writing a version's rows (stages of the Ingestor, backend/ingest/service.py): the prepared
text, classification, sections and chunks of a version, committed with status "indexing"
before any index is touched; and the failed version that records a file rejected before
extraction. Receives the index writer (for the entries the chunks become) and the links."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from backend.security.access import Scope
from backend.errors import IngestError, PathRefused
from backend.ingest.dedup import dedup_scope, own_source, readable_versions, version_key
from backend.ingest.identity import Identity, same_name
from backend.ingest.indexing import IndexWriter, Links
from backend.ingest.language import detect_language
from backend.ingest.paths import FoundFile, open_file
from backend.ingest.pipeline import Prepared, stored_layout
from backend.ingest.records import (IngestOutcome, _Pending, chunk_id, sha256_bytes,
                                    write_sections)
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion


# Files are matched to a same-named document by name; web pages (index.html on every site)
# and repository files (README.md in every folder) are identified by their URL or path only.
NAME_MATCH_KINDS = ("file", "upload", "sync")


class VersionWriter:
    def __init__(self, rs, index: IndexWriter, links: Links):
        self.rs, self.store, self.settings = rs, rs.store, rs.settings
        self.index, self.links = index, links

    def write(self, out: IngestOutcome, sha: str, p: Prepared) -> _Pending:
        """Write text, classification, sections and chunks with status "indexing" (committed).
        `sha`: the version's key (backend/ingest/dedup.py), which chunk ids are made of."""
        doc_id, version_id = out.document_id, out.version_id
        text, nodes, specs = p.text, p.sections, p.chunks
        variant = p.profile.variant()
        lang = detect_language(text.text[:20000])
        c = p.classification
        with self.store.session() as s:
            doc = s.get(Document, doc_id)
            version = s.get(DocumentVersion, version_id)
            version.text = text.text
            version.page_count = p.raw.page_count if p.raw else text.metadata.get("page_count")
            version.language = lang
            version.meta = {**(version.meta or {}), **text.metadata,
                            "pages": [[pg.number, pg.start, pg.end] for pg in text.pages],
                            **stored_layout(text), "chunking": p.chunking,
                            "profile": {"name": p.profile.name, "params": p.profile.params()},
                            "title": {"text": p.title, "source": p.title_source}}
            version.primary_type, version.processing_profile = c.primary_type, p.profile.name
            version.classification = c.to_json()
            version.status = "indexing"
            if not (doc.meta or {}).get("title_source") == "user":
                doc.title = p.title or doc.title
            doc.doc_type = c.primary_type
            section_rows = write_sections(s, version_id, nodes)
            chunk_rows = [
                Chunk(id=chunk_id(sha, p.size, p.overlap, x.ordinal, variant),
                      version_id=version_id, document_id=doc_id,
                      section_id=section_rows[x.section].id, ordinal=x.ordinal, start=x.start,
                      end=x.end, page=x.page, page_end=x.page_end, text=x.text)
                for x in specs
            ]
            s.add_all(chunk_rows)
            old_active = doc.active_version_id if doc.active_version_id != version_id else None
            indexed = [self.index.indexed(ch, doc, nodes[spec.section].title, lang)
                       for ch, spec in zip(chunk_rows, specs)]
        out.chunks = len(indexed)
        return _Pending(out, old_active, indexed)

    def record_failure(self, filename: str, source_uri: str, source_kind: str,
                        collection: str | None, err: IngestError, *, data: bytes | None,
                        path: FoundFile | None = None,
                        scope: Scope | None = None) -> IngestOutcome:
        """A file rejected before extraction is still recorded as a failed version (reusing
        one with the same bytes only when the scope may read it: backend/ingest/dedup.py)."""
        collection = collection or self.settings.default_collection
        if data is not None:
            sha = sha256_bytes(data)
            size = len(data)
        else:  # too large to read whole: hash it streaming
            h = hashlib.sha256()
            try:
                with open_file(path) as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                    size = os.fstat(f.fileno()).st_size
            except (OSError, PathRefused):  # gone or swapped meanwhile: report, keep going
                return IngestOutcome(filename, "failed", error=str(err))
            sha = h.hexdigest()
        scope = dedup_scope(scope, collection)
        with self.store.session() as s:
            readable, held = readable_versions(s, sha, scope)
            source_uri = own_source(s, source_uri, collection, scope)
            # every rejected file keeps a record and message of its own: only this source's
            # failed record is reused (three different empty files are three failed
            # documents), and a stored version of other content is never marked failed
            v = next((x for x in readable
                      if x.status == "failed" and x.document.source_uri == source_uri), None)
            if v is None:
                doc = repo.document_by_source(s, source_uri)
                if doc is None:
                    doc = Document(title=Path(filename).stem, filename=filename,
                                   source_kind=source_kind, source_uri=source_uri,
                                   file_type=Path(filename).suffix.lower().lstrip("."),
                                   status="failed")
                    s.add(doc)
                    s.flush()
                v = DocumentVersion(document_id=doc.id, number=repo.next_version_number(s, doc.id),
                                    sha256=version_key(s, sha, doc.id, held),
                                    content_sha256=sha, size_bytes=size, filename=filename)
                s.add(v)
            v.status, v.error = "failed", str(err)
            s.flush()
            linked: list[int] = []
            self.links.link(s, collection, v.document, linked)
            out = IngestOutcome(filename, "failed", v.document_id, v.id, error=str(err))
        self.links.linked(linked, defer=self.links.waiting is not None)
        return out

    def pending_version(self, s, existing: DocumentVersion | None, sha: str, held, size: int, *,
                        filename: str, source_uri: str, source_kind: str,
                        collection: str | None, meta: dict | None, identity: Identity):
        """The document a stored file belongs to and its new version (status pending): an
        earlier failed or interrupted version of the same bytes again, else a new version of
        the document `identity` names, of the same source, or of a same-named document
        (backend/ingest/identity.py), else of a new document. Returns (document, version,
        note for the outcome, id of a document matched by name)."""
        doc = repo.document_by_source(s, source_uri)
        note, matched = None, None
        if existing is not None:  # failed or interrupted earlier: try again in place
            version = existing
            doc = existing.document
            repo.delete_version_content(s, version.id)
            version.status, version.error = "pending", None
        else:
            if identity.mode == "version_of":
                doc = repo.get_document(s, identity.document)
                note = f"made a version of document {doc.id} ({doc.filename}) as asked"
            elif doc is None and identity.mode == "auto" and collection \
                    and source_kind in NAME_MATCH_KINDS \
                    and self.settings.version_match != "off":
                doc = same_name(s, filename, collection, source_uri, identity.tree)
                matched = doc.id if doc is not None else None
            if doc is None:
                doc = Document(title=Path(filename).stem, filename=filename,
                               source_kind=source_kind, source_uri=source_uri,
                               file_type=Path(filename).suffix.lower().lstrip("."),
                               status="pending", meta=meta or {})
                s.add(doc)
                s.flush()
            elif meta and doc.source_uri == source_uri:  # a new version: what
                # the caller knows now about the source
                doc.meta = {**(doc.meta or {}), **meta}
            version = DocumentVersion(
                document_id=doc.id, number=repo.next_version_number(s, doc.id),
                sha256=version_key(s, sha, doc.id, held), content_sha256=sha,
                size_bytes=size, filename=filename, status="pending")
            s.add(version)
            s.flush()
        return doc, version, note, matched
