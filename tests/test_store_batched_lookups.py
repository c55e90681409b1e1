"""Store lookups that retrieval makes in one query instead of one per item give what the
per-item lookups gave: collection ids by name (ordered as asked, unknown names reported
with the known ones)."""
from __future__ import annotations

import pytest

from backend.errors import NotFound
from backend.store import Store, repo


@pytest.fixture
def store(db_url):
    st = Store(db_url)
    with st.session() as s:
        for name in ("ops", "hr", "finance"):
            repo.get_or_create_collection(s, name)
    return st


def test_collection_ids_in_one_query_match_the_one_by_one_lookups(store):
    with store.session() as s:
        one_by_one = {n: repo.find_collection(s, n).id for n in ("ops", "hr", "finance")}
        assert repo.collection_ids(s, ["finance", "ops"]) == [one_by_one["finance"],
                                                               one_by_one["ops"]]
        assert repo.collection_ids_by_name(s, ["hr", "nope", "hr"]) == {"hr": one_by_one["hr"]}
        assert repo.collection_ids_by_name(s, []) == {} and repo.collection_ids(s, []) == []


def test_an_unknown_collection_is_named_with_the_known_ones(store):
    with store.session() as s, pytest.raises(NotFound) as e:
        repo.collection_ids(s, ["ops", "opps"])
    assert "opps" in str(e.value) and "finance, hr, ops" in str(e.value)


def test_collections_by_name_tell_which_hold_documents(store):
    from backend.store.models import Document

    with store.session() as s:
        doc = Document(title="Pumpen", filename="pumpen.md", doc_type="note", file_type="md",
                       source_uri="upload://pumpen.md")
        s.add(doc)
        s.flush()
        repo.link(s, repo.get_collection(s, "ops"), doc.id)
    with store.session() as s:
        found = repo.collections_by_name(s, ["ops", "hr", "nope"])
        assert set(found) == {"ops", "hr"}
        assert found["ops"] == (repo.find_collection(s, "ops").id, True)
        assert found["hr"] == (repo.find_collection(s, "hr").id, False)
        assert repo.collections_have_documents(s, [found["ops"][0]])
        assert not repo.collections_have_documents(s, [found["hr"][0]])


def test_section_paths_of_the_hits_match_those_of_all_sections(sample_rs):
    from sqlalchemy import select

    from backend.retrieval import lookup
    from backend.store.models import Chunk

    with sample_rs.store.session() as s:
        rows = s.execute(select(Chunk.version_id, Chunk.section_id)
                         .where(Chunk.section_id.is_not(None))).all()
        versions = {v for v, _ in rows}
        wanted = {sid for _, sid in rows[::3]}
        every = lookup.section_paths(s, versions)
        only = lookup.section_paths(s, versions, wanted)
    assert wanted and set(only) == wanted
    assert only == {sid: every[sid] for sid in wanted}
    assert any(path for path, *_ in only.values())  # breadcrumbs are there
