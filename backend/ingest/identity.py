"""Which document a file from a new source belongs to (docs/ingestion.md, "Identity").

A document is identified by its source (path, upload name, URL, repository path). A file from
a source ragscope has not seen becomes a new version of an existing document instead of a
document of its own when, in the same collection, a document has the same file name
(`version_match=name`, the default), and with `name_and_content` also when the texts are
similar (containment of word 5-grams >= `version_match_similarity`). Files of one folder tree
(a walked or watched folder) are told apart by their path and never joined by name with a
document from the same tree: `2024-01/protokoll.txt` and `2024-02/protokoll.txt` stay two
documents. Either way can be forced per call: `Identity.new_document()` never matches by
name, `Identity.version_of(doc)` makes the file a version of that document whatever its name."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

from sqlalchemy import func, select

from backend.store.models import Collection, CollectionDocument, Document

_WORD = re.compile(r"\w+")
SHINGLE = 5
MAX_SHINGLES = 20_000


@dataclass(frozen=True)
class Identity:
    mode: str = "auto"  # auto | new_document | version_of
    document: int | str | None = None  # with version_of: id, title or file name
    tree: str | None = None  # the folder the file was found in: its documents are not matched

    def within(self, tree) -> "Identity":
        return replace(self, tree=str(tree)) if tree is not None else self

    @classmethod
    def new_document(cls) -> "Identity":
        return cls("new_document")

    @classmethod
    def version_of(cls, document: int | str) -> "Identity":
        return cls("version_of", document)


AUTO = Identity()


def same_name(s, filename: str, collection: str, source_uri: str,
              tree: str | None = None) -> Document | None:
    """The document in `collection` with this file name (case-insensitive) from another
    source, not from the folder tree `tree`: the active one first, then the newest."""
    q = (select(Document)
         .join(CollectionDocument, CollectionDocument.document_id == Document.id)
         .join(Collection, Collection.id == CollectionDocument.collection_id)
         .where(Collection.name == collection,
                func.lower(Document.filename) == filename.lower(),
                Document.source_uri != source_uri)
         .order_by((Document.status == "active").desc(), Document.updated_at.desc(),
                   Document.id.desc()))
    if tree:
        q = q.where(~Document.source_uri.startswith(tree.rstrip("/") + "/", autoescape=True))
    return s.scalars(q).first()


def shingles(text: str) -> set[int]:
    words = _WORD.findall(text.lower())
    if len(words) < SHINGLE:
        return {_h(" ".join(words))} if words else set()
    out = set()
    for i in range(len(words) - SHINGLE + 1):
        out.add(_h(" ".join(words[i:i + SHINGLE])))
        if len(out) >= MAX_SHINGLES:
            break
    return out


def _h(s: str) -> int:
    return int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big")


def similarity(a: str, b: str) -> float:
    """Share of the smaller text's word 5-grams found in the other (0..1)."""
    sa, sb = shingles(a), shingles(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


def confirm_name_match(store, settings, doc_id: int, version_id: int, text: str, *,
                       filename: str, source_uri: str, source_kind: str, meta: dict | None,
                       collection: str | None, status: str,
                       doc_filename: str) -> tuple[int, str, str]:
    """A version put under a document with the same name: with version_match=name it stays
    there; with name_and_content it moves to a document of its own when the texts are not
    similar enough. Returns (document id, status, note for the user)."""
    from pathlib import Path

    from backend.store import repo
    from backend.store.models import DocumentVersion

    with store.session() as s:
        doc = s.get(Document, doc_id)
        number = s.get(DocumentVersion, version_id).number
        active = s.get(DocumentVersion, doc.active_version_id) if doc.active_version_id else None
        if settings.version_match == "name" or active is None:
            return doc_id, status, (
                f"became version {number} of document {doc_id}: same file name "
                f"'{doc_filename}' in collection '{collection}' (RAGSCOPE_VERSION_MATCH; "
                "ingesting it as a new document keeps it apart: --as-new-document, or the "
                "upload's identity choice)")
        sim = similarity(text, active.text or "")
        threshold = settings.version_match_similarity
        if sim >= threshold:
            return doc_id, status, (f"became version {number} of document {doc_id}: same file "
                                    f"name and {sim:.0%} of the text in common")
        new = Document(title=Path(filename).stem, filename=filename, source_kind=source_kind,
                       source_uri=source_uri, file_type=Path(filename).suffix.lower().lstrip("."),
                       status="pending", meta=meta or {})
        s.add(new)
        s.flush()
        v = s.get(DocumentVersion, version_id)
        v.document_id, v.number = new.id, 1
        if collection:
            repo.link(s, repo.get_or_create_collection(s, collection), new.id)
        return new.id, "new", (
            f"not a version of document {doc_id} despite the same file name: only {sim:.0%} of "
            f"the text in common (RAGSCOPE_VERSION_MATCH_SIMILARITY={threshold:g})")
