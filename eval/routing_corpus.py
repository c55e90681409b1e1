"""The sample corpus the routing set is asked over: data/samples/ (collection `samples`) plus
the second versions in data/samples_v2/ (the Werkausschuss minutes and the privacy policy),
so version questions have two versions to compare. Built once into a data dir and reused."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
SAMPLES_V2 = ROOT / "data" / "samples_v2"


def missing_documents(rs, filenames) -> list[str]:
    """The file names of `filenames` that no active document of the data dir has."""
    from sqlalchemy import select

    from backend.store.models import Document

    with rs.store.session() as s:
        have = set(s.scalars(select(Document.filename).where(Document.status == "active")))
    return sorted(set(filenames) - have)


def ingest_samples(rs) -> None:
    """Ingest the sample corpus and its second versions into `rs` (skips what is there)."""
    from backend.ingest.service import Ingestor

    ing = Ingestor(rs)
    outs = ing.ingest_paths([SAMPLES], collection="samples")
    bad = [o.error for o in outs if not o.ok]
    if bad:
        raise RuntimeError(f"ingesting {SAMPLES} failed: {bad}")
    for f in sorted(SAMPLES_V2.iterdir()):
        uri = str((SAMPLES / f.name).resolve())
        out = ing.ingest_bytes(f.read_bytes(), f.name, collection="samples", source_uri=uri,
                               source_kind="file")
        if not out.ok:
            raise RuntimeError(f"ingesting {f} failed: {out.error}")


if __name__ == "__main__":  # python -m eval.routing_corpus DATA_DIR
    import sys

    import backend  # noqa: F401
    from backend.config import Settings
    from backend.services.container import Ragscope

    r = Ragscope(Settings(data_dir=Path(sys.argv[1])))
    ingest_samples(r)
    r.close()
