"""The reports of `check` and `check --repair` (backend/ingest/consistency.py): what differs
between the store and both indexes, which documents it affects, and what a repair did."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from backend.store import repo



@dataclass
class CheckReport:
    """Differences between the store and the indexes; every list empty means consistent."""

    stuck_versions: list[int] = field(default_factory=list)
    vector_orphans: list[str] = field(default_factory=list)
    vector_missing: list[str] = field(default_factory=list)
    vector_unreadable: list[str] = field(default_factory=list)
    vector_unretrievable: list[str] = field(default_factory=list)
    keyword_orphans: list[str] = field(default_factory=list)
    keyword_missing: list[str] = field(default_factory=list)
    keyword_unreadable: list[str] = field(default_factory=list)
    memberships_stale: list[str] = field(default_factory=list)  # in either index
    errors: list[str] = field(default_factory=list)  # an index that cannot be read at all
    # of those, the indexes that could not be reached (a server down: BackendUnavailable);
    # the others answered but are broken (a corrupted segment), and a repair rebuilds them
    unreachable: list[str] = field(default_factory=list)
    active_chunks: int = 0
    read_back: int = 0
    full: bool = False
    # per problem field of chunks of the store: the documents they belong to
    # ({"id", "title", "filename", "chunks"}), so a user can tell what search cannot find
    documents: dict[str, list[dict]] = field(default_factory=dict)

    PROBLEM_FIELDS = ("stuck_versions", "vector_orphans", "vector_missing", "vector_unreadable",
                      "vector_unretrievable", "keyword_orphans", "keyword_missing",
                      "keyword_unreadable", "memberships_stale", "errors")

    def problems(self) -> dict[str, list]:
        return {k: getattr(self, k) for k in self.PROBLEM_FIELDS if getattr(self, k)}

    @property
    def ok(self) -> bool:
        return not self.problems()

    @property
    def vector_damage(self) -> set[str]:
        return set(self.vector_missing) | set(self.vector_unreadable) | set(self.vector_unretrievable)

    @property
    def keyword_damage(self) -> set[str]:
        return set(self.keyword_missing) | set(self.keyword_unreadable)

    def summary(self) -> str:
        scope = "all" if self.full else "a sample of"
        return (f"{self.active_chunks} active chunks; read back {scope} {self.read_back} "
                "from both indexes")

    def to_dict(self) -> dict:
        return asdict(self)

    DOCUMENT_FIELDS = ("vector_missing", "vector_unreadable", "vector_unretrievable",
                       "keyword_missing", "keyword_unreadable", "memberships_stale")

    def name_documents(self, store) -> None:
        """Fill `documents`: which documents the damaged chunks of each field belong to."""
        wanted = {f: getattr(self, f) for f in self.DOCUMENT_FIELDS if getattr(self, f)}
        self.documents = {f: affected_documents(store, ids) for f, ids in wanted.items()}



def affected_documents(store, chunk_ids) -> list[dict]:
    """The documents of these chunks (id, title, file name, how many of the chunks), most
    affected first; chunks no longer in the store are left out."""
    from backend.store.models import Document

    with store.session() as s:
        per_doc: dict[int, int] = {}
        for c in repo.chunks_by_ids(s, list(chunk_ids)).values():
            per_doc[c.document_id] = per_doc.get(c.document_id, 0) + 1
        rows = []
        for doc_id, n in sorted(per_doc.items(), key=lambda kv: (-kv[1], kv[0])):
            doc = s.get(Document, doc_id)
            rows.append({"id": doc_id, "title": doc.title if doc else "",
                         "filename": doc.filename if doc else "", "chunks": n})
    return rows



@dataclass
class RepairReport:
    found: CheckReport
    after: CheckReport
    interrupted_versions: int = 0
    orphans_removed: int = 0
    vectors_readded: int = 0
    keyword_readded: int = 0
    memberships_synced: int = 0
    vector_index_rebuilt: bool = False
    keyword_index_rebuilt: bool = False
    not_reached: list[str] = field(default_factory=list)  # repairs an index was down for

    @property
    def repaired_anything(self) -> bool:
        return bool(self.interrupted_versions or self.orphans_removed or self.vectors_readded
                    or self.keyword_readded or self.memberships_synced
                    or self.vector_index_rebuilt or self.keyword_index_rebuilt)

    def summary(self) -> str:
        waiting = ("; could not repair now: " + "; ".join(self.not_reached)
                   + " (run `check --repair` again when it is reachable)"
                   if self.not_reached else "")
        if not self.repaired_anything:
            return "nothing to repair" + waiting
        parts = []
        if self.interrupted_versions:
            parts.append(f"marked {self.interrupted_versions} interrupted version(s) failed "
                         "(ingest those files again)")
        if self.orphans_removed:
            parts.append(f"removed {self.orphans_removed} orphaned index entries")
        if self.vector_index_rebuilt:
            parts.append(f"rebuilt the vector index ({self.vectors_readded} vectors)")
        elif self.vectors_readded:
            parts.append(f"re-added {self.vectors_readded} vector(s)")
        if self.keyword_index_rebuilt:
            parts.append(f"rebuilt the keyword index ({self.keyword_readded} entries)")
        elif self.keyword_readded:
            parts.append(f"re-added {self.keyword_readded} keyword entr(y/ies)")
        if self.memberships_synced:
            parts.append(f"rewrote the collection memberships of {self.memberships_synced} "
                         "chunk(s)")
        return "repaired: " + "; ".join(parts) + waiting

    def to_dict(self) -> dict:
        return {"found": self.found.to_dict(), "after": self.after.to_dict(),
                "interrupted_versions": self.interrupted_versions,
                "orphans_removed": self.orphans_removed, "vectors_readded": self.vectors_readded,
                "keyword_readded": self.keyword_readded,
                "memberships_synced": self.memberships_synced,
                "vector_index_rebuilt": self.vector_index_rebuilt,
                "keyword_index_rebuilt": self.keyword_index_rebuilt,
                "not_reached": list(self.not_reached)}
