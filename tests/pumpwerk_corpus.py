"""Two small German documents in collection `netz` ("Pumpwerk nord", "Pumpwerk sued"): the
corpus of the generation-cache tests (tag vocabulary, chunk rows), which change them through
a second store and in plain SQL and check the next search."""
from __future__ import annotations

import pytest

from backend.ingest.records import IngestItem

DOC = ("# Pumpwerk {n}\n\nDie Druckerhöhungsanlage im Pumpwerk {n} wird jährlich gewartet.\n\n"
       "## Wartung\n\nDer Fachbetrieb prüft Ventile im Pumpwerk {n}.")


@pytest.fixture
def corpus(ingestor):
    """(rs, {file name: document id}) of the two documents, ingested into `netz`."""
    items = [IngestItem(f"{n}.md", data=DOC.format(n=n).encode(), source_uri=f"test://{n}")
             for n in ("nord", "sued")]
    outs = ingestor.ingest_many(items, collection="netz")
    return ingestor.rs, {o.filename: o.document_id for o in outs}
