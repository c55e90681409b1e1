"""Section breadcrumbs of retrieved versions are cached per data dir (backend/retrieval/
lookup.py SectionPathCache): reused while the indexes are unchanged, emptied by any index
write — so a deleted document's version id that SQLite hands to the next document never shows
the old document's sections."""
from __future__ import annotations

import contextlib

from backend.security.access import Scope
from backend.ingest.service import Ingestor
from backend.retrieval.engine import Retriever
from backend.retrieval.lookup import SectionPathCache
from backend.retrieval.types import RetrievalParams


def _search(rs, q):
    return Retriever(rs).retrieve(q, RetrievalParams(k=3), scope=Scope.everything()).hits


def test_breadcrumbs_follow_the_document_after_delete_and_reingest(rs, tmp_path):
    a = tmp_path / "pumpen.md"
    a.write_text("# Pumpwerk Nord\n\n## Wartung der Pumpen\n\nDie Pumpen im Pumpwerk Nord "
                 "werden jedes Frühjahr gewartet.\n")
    assert Ingestor(rs).ingest_paths([a])[0].ok
    [hit, *_] = _search(rs, "Wartung der Pumpen Pumpwerk Nord")
    assert hit.section_title == "Wartung der Pumpen"
    assert hit.section_path[-1] == "Wartung der Pumpen"
    version = hit.version_id
    Ingestor(rs).delete_document(hit.document_id)
    b = tmp_path / "netz.md"
    b.write_text("# Netzleitstelle\n\n## Schichtplan der Leitstelle\n\nDie Netzleitstelle "
                 "ist rund um die Uhr im Schichtbetrieb besetzt.\n")
    assert Ingestor(rs).ingest_paths([b])[0].ok
    [hit, *_] = _search(rs, "Schichtplan der Netzleitstelle")
    assert hit.section_title == "Schichtplan der Leitstelle", (version, hit.version_id)
    assert "Wartung der Pumpen" not in hit.section_path


def test_cache_reads_the_store_once_per_generation(rs, tmp_path):
    a = tmp_path / "pumpen.md"
    a.write_text("# Pumpwerk Nord\n\n## Wartung\n\nDie Pumpen werden jedes Frühjahr "
                 "gewartet.\n\n## Betrieb\n\nDer Betrieb läuft rund um die Uhr.\n")
    assert Ingestor(rs).ingest_paths([a])[0].ok
    [hit, *_] = _search(rs, "Pumpen Frühjahr gewartet")
    gen = ["g1"]
    opened = []

    @contextlib.contextmanager
    def session():
        opened.append(1)
        with rs.store.session() as s:
            yield s

    cache = SectionPathCache(lambda: gen[0])
    first = cache.paths(session, {hit.version_id}, {hit.section_id})
    again = cache.paths(session, {hit.version_id}, {hit.section_id})
    assert first == again and first[hit.section_id][1] == "Wartung" and len(opened) == 1
    gen[0] = "g2"  # an index write happened: read again
    assert cache.paths(session, {hit.version_id}, {hit.section_id}) == first
    assert len(opened) == 2
    assert cache.paths(session, {hit.version_id}, set()) == {}
