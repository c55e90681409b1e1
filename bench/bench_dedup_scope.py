"""Cost of keeping deduplication inside the scope (issue 21, section 2): the store queries an
ingest makes per file to decide which stored content it may reuse
(`backend/ingest/dedup.py`: `readable_versions` + `own_source`), for the operator
(unrestricted) and for a restricted scope, on a store with `--documents` documents in
`--kbs` knowledge bases (rows written directly: no extraction, no embedding). Cases per
call: new content and source (the common case), content held by another knowledge base
(a private copy follows), content held within the scope (linked).

    python bench/bench_dedup_scope.py --documents 20000
"""
from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags)


def build(data: Path, documents: int, kbs: int):
    from backend.config import Settings
    from backend.services.container import Ragscope
    from backend.store import repo
    from backend.store.models import CollectionDocument, Document, DocumentVersion

    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        colls = [repo.get_or_create_collection(s, f"c{k}", knowledge_base=f"kb{k}")
                 for k in range(kbs)]
        for i in range(documents):
            sha = hashlib.sha256(f"doc {i}".encode()).hexdigest()
            d = Document(title=f"d{i}", filename=f"d{i}.txt", source_kind="upload",
                         source_uri=f"upload://d{i}.txt", file_type="txt", status="active")
            s.add(d)
            s.flush()
            s.add(DocumentVersion(document_id=d.id, number=1, sha256=sha, content_sha256=sha,
                                  filename=d.filename, status="indexed"))
            s.add(CollectionDocument(collection_id=colls[i % kbs].id, document_id=d.id))
            if i % 1000 == 999:
                s.flush()
    return rs


def timed(rs, scope, shas: list[str], uris: list[str]) -> list[float]:
    from backend.ingest.dedup import dedup_scope, own_source, readable_versions

    scope = dedup_scope(scope, "c0")
    out = []
    for sha, uri in zip(shas, uris):
        t0 = time.perf_counter()
        with rs.store.session() as s:
            readable_versions(s, sha, scope)
            own_source(s, uri, "c0", scope)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--documents", type=int, default=20000)
    ap.add_argument("--kbs", type=int, default=4)
    ap.add_argument("--calls", type=int, default=500)
    a = ap.parse_args()
    from backend.security.access import Scope

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rs = build(Path(tmp) / "var", a.documents, a.kbs)
        print(f"store with {a.documents:,} documents in {a.kbs} knowledge bases built in "
              f"{time.perf_counter() - t0:.1f} s")
        restricted = Scope.of(["c0"], ["c0"], ["kb0"], ["kb0"])
        n = a.calls
        cases = {
            "new content, new source": (
                [hashlib.sha256(f"fresh {i}".encode()).hexdigest() for i in range(n)],
                [f"upload://fresh{i}.txt" for i in range(n)]),
            "content and source of another kb": (
                [hashlib.sha256(f"doc {i * a.kbs + 1}".encode()).hexdigest() for i in range(n)],
                [f"upload://d{i * a.kbs + 1}.txt" for i in range(n)]),
            "content within the scope": (
                [hashlib.sha256(f"doc {i * a.kbs}".encode()).hexdigest() for i in range(n)],
                [f"upload://other{i}.txt" for i in range(n)]),
        }
        print("| case | scope | p50 ms | p95 ms |\n|---|---|---|---|")
        for case, (shas, uris) in cases.items():
            for label, scope in (("operator", None), ("restricted", restricted)):
                ms = sorted(timed(rs, scope, shas, uris))
                print(f"| {case} | {label} | {statistics.median(ms):.2f} | "
                      f"{ms[int(len(ms) * 0.95)]:.2f} |")
        rs.close()


if __name__ == "__main__":
    main()
