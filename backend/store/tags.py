"""Tags on documents: normalisation, validation and the store functions (backend/store/
tag_models.py). A tag is shown as entered (trimmed, inner whitespace collapsed, NFC) and
matched case-folded, so "Fernwärme", " fernwärme " and "FERNWÄRME" are one tag."""
from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from typing import Iterable, Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from backend.errors import TagError
from backend.store.tag_models import DocumentTag

MAX_LENGTH = 50  # characters of one tag (the column's length)
MAX_PER_DOCUMENT = 50
# letters and digits of any script, then also space, - _ . / + & #
_ALLOWED = re.compile(r"^\w[\w .+/&#-]*$")
SOURCES = ("user", "suggestion")


def normalise(name: object, field: str = "tags") -> tuple[str, str]:
    """(display name, key) of one tag, or TagError naming `field` and the reason."""
    if not isinstance(name, str):
        raise TagError(f"{field}: a tag must be text, not {type(name).__name__}", field)
    shown = " ".join(unicodedata.normalize("NFC", name).split())
    if not shown:
        raise TagError(f"{field}: a tag must not be empty", field)
    if len(shown) > MAX_LENGTH:
        raise TagError(f"{field}: tag {shown[:20]!r}… is {len(shown)} characters long; at "
                       f"most {MAX_LENGTH} are allowed", field)
    if not _ALLOWED.match(shown):
        bad = sorted({c for c in shown if not re.match(r"[\w .+/&#-]", c)}) or [shown[0]]
        raise TagError(f"{field}: tag {shown!r} contains {''.join(bad)!r}; a tag starts with "
                       "a letter or digit and may contain letters, digits, spaces and "
                       "- _ . / + & #", field)
    return shown, shown.casefold()


def normalise_all(names: Iterable[object], field: str = "tags") -> dict[str, str]:
    """key -> display name of several tags (the first spelling of a key wins)."""
    if isinstance(names, str):
        names = [names]
    out: dict[str, str] = {}
    for n in names:
        shown, key = normalise(n, field)
        out.setdefault(key, shown)
    return out


def keys(names: Iterable[object], field: str = "tags") -> list[str]:
    return list(normalise_all(names, field))


def tags_of(s: Session, document_id: int) -> list[DocumentTag]:
    return list(s.scalars(select(DocumentTag).where(DocumentTag.document_id == document_id)
                          .order_by(DocumentTag.key)))


def names_by_document(s: Session, document_ids: Sequence[int]) -> dict[int, list[str]]:
    """document id -> its tag names (sorted by key); documents without tags are absent."""
    out: dict[int, list[str]] = defaultdict(list)
    ids = list(document_ids)
    for i in range(0, len(ids), 500):
        rows = s.execute(select(DocumentTag.document_id, DocumentTag.name)
                         .where(DocumentTag.document_id.in_(ids[i:i + 500]))
                         .order_by(DocumentTag.document_id, DocumentTag.key))
        for d, n in rows:
            out[d].append(n)
    return dict(out)


def add(s: Session, document_id: int, names: Iterable[object], *, by: str = "",
        source: str = "user", field: str = "tags") -> list[str]:
    """Add tags (already present keys are left as they are); returns the names added."""
    if source not in SOURCES:
        raise TagError(f"source: must be one of {SOURCES}, not {source!r}", "source")
    wanted = normalise_all(names, field)
    have = {t.key for t in tags_of(s, document_id)}
    new = {k: n for k, n in wanted.items() if k not in have}
    if len(have) + len(new) > MAX_PER_DOCUMENT:
        raise TagError(f"{field}: document {document_id} would have {len(have) + len(new)} "
                       f"tags; at most {MAX_PER_DOCUMENT} are allowed", field)
    for k, n in new.items():
        s.add(DocumentTag(document_id=document_id, name=n, key=k, source=source,
                          created_by=by[:100]))
    s.flush()
    return list(new.values())


def remove(s: Session, document_id: int, names: Iterable[object],
           field: str = "tags") -> list[str]:
    """Remove tags by any spelling; returns the stored names removed (unknown ones are no
    error: the document does not carry them either way)."""
    gone = set(keys(names, field))
    rows = [t for t in tags_of(s, document_id) if t.key in gone]
    for t in rows:
        s.delete(t)
    s.flush()
    return [t.name for t in rows]


def replace(s: Session, document_id: int, names: Iterable[object], *, by: str = "",
            field: str = "tags") -> list[str]:
    """The document's tags become exactly `names` (validated first: a bad one changes
    nothing); tags kept keep their spelling, source and author."""
    wanted = normalise_all(names, field)
    if len(wanted) > MAX_PER_DOCUMENT:
        raise TagError(f"{field}: {len(wanted)} tags; at most {MAX_PER_DOCUMENT} are allowed "
                       "on one document", field)
    s.execute(delete(DocumentTag).where(DocumentTag.document_id == document_id,
                                        DocumentTag.key.not_in(list(wanted) or [""])))
    add(s, document_id, list(wanted.values()), by=by, field=field)
    return [t.name for t in tags_of(s, document_id)]


def documents_with(s: Session, tag_keys: Sequence[str]) -> set[int]:
    """Documents carrying at least one of the (case-folded) keys."""
    if not tag_keys:
        return set()
    return set(s.scalars(select(DocumentTag.document_id)
                         .where(DocumentTag.key.in_(list(tag_keys))).distinct()))


def vocabulary(s: Session, document_ids: Iterable[int] | None = None) -> dict[str, dict]:
    """key -> {"name": a display spelling, "documents": [ids]} of every tag (on the given
    documents only, when named): what tag routing matches query words against."""
    q = select(DocumentTag.key, DocumentTag.name, DocumentTag.document_id)
    ids = None if document_ids is None else set(document_ids)
    out: dict[str, dict] = {}
    for key, name, doc in s.execute(q.order_by(DocumentTag.key, DocumentTag.id)):
        if ids is not None and doc not in ids:
            continue
        e = out.setdefault(key, {"name": name, "documents": []})
        e["documents"].append(doc)
    return out


def counts(s: Session, document_ids: Iterable[int] | None = None) -> list[tuple[str, int]]:
    """(name, documents) of every tag, most used first; on the given documents only."""
    q = select(DocumentTag.key, func.min(DocumentTag.name), func.count(DocumentTag.id))
    if document_ids is not None:
        q = q.where(DocumentTag.document_id.in_(list(document_ids)))
    rows = s.execute(q.group_by(DocumentTag.key))
    return sorted(((n, c) for _k, n, c in rows), key=lambda x: (-x[1], x[0].casefold()))
