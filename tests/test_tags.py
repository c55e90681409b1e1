"""Tags on documents (issue 26 item 5, docs/tags.md): normalisation and validation, the
service's ACL checks, suggestions, the `tags` and `categories` filters on every retrieval
policy (tantivy and Chroma), and tag routing with its trace stage."""
from __future__ import annotations

import pytest

from backend.errors import FilterError, NotFound, TagError
from backend.ingest.records import IngestItem
from backend.security import auth
from backend.security.access import Actor, Scope
from backend.retrieval import RetrievalParams, Retriever
from backend.services import tags
from backend.store import tags as store_tags

PUMP = ("# Pumpwerk {n}\n\nDie Druckerhöhungsanlage im Pumpwerk {n} wird jährlich gewartet; "
        "Messwerte stehen im Anhang.\n\n## Wartung\n\nDer Fachbetrieb prüft Ventile und "
        "Förderpumpen im Pumpwerk {n}.")
ROOT = Actor.system()


@pytest.fixture
def corpus(ingestor):
    items = [IngestItem(f"{n}.md", data=PUMP.format(n=n).encode(), source_uri=f"test://{n}")
             for n in ("nord", "sued", "ost")]
    outs = ingestor.ingest_many(items, collection="netz")
    return ingestor.rs, {o.filename: o.document_id for o in outs}


def _found(rs, policy="hybrid", q="Pumpwerk Wartung Förderpumpen", **params):
    res = Retriever(rs).retrieve(q, RetrievalParams(k=20, policy=policy, **params),
                                 scope=Scope.everything())
    return {h.filename for h in res.hits}, res


@pytest.mark.parametrize("raw, shown, key", [
    ("  Fernwärme  ", "Fernwärme", "fernwärme"),
    ("FERNWÄRME", "FERNWÄRME", "fernwärme"),
    ("action   items", "action items", "action items"),
    ("Straße", "Straße", "strasse"),
    ("c++/c#", "c++/c#", "c++/c#"),
])
def test_tags_are_trimmed_shown_as_entered_and_matched_case_folded(raw, shown, key):
    assert store_tags.normalise(raw) == (shown, key)


@pytest.mark.parametrize("raw, says", [
    ("", "must not be empty"), ("   ", "must not be empty"), ("x" * 51, "at most 50"),
    ("<b>", "contains"), ("a;b", "contains ';'"), ("-lead", "starts with"), (7, "must be text"),
])
def test_bad_tags_are_refused_naming_the_field_and_reason(raw, says):
    with pytest.raises(TagError) as e:
        store_tags.normalise(raw, "add")
    assert e.value.field == "add" and str(e.value).startswith("add: ") and says in str(e.value)


def test_add_remove_replace_keep_one_spelling_per_key(corpus):
    rs, docs = corpus
    d = docs["nord.md"]
    v = tags.add(rs, ROOT, d, ["Wasser", "wasser ", "Netz"])
    assert v.names == ["Netz", "Wasser"] and v.changed == ["Wasser", "Netz"]
    assert tags.add(rs, ROOT, d, ["WASSER"]).names == ["Netz", "Wasser"]  # kept as first entered
    assert tags.remove(rs, ROOT, d, ["NETZ", "unknown"]).names == ["Wasser"]
    assert tags.replace(rs, ROOT, d, ["Pumpen", "wasser"]).names == ["Pumpen", "Wasser"]
    with pytest.raises(TagError):
        tags.replace(rs, ROOT, d, ["ok", "<bad>"])
    assert tags.get(rs, ROOT, d).names == ["Pumpen", "Wasser"]  # a bad tag changed nothing
    with pytest.raises(TagError, match="at most 50"):
        tags.add(rs, ROOT, d, [f"t{i}" for i in range(49)])


def test_deleting_a_document_deletes_its_tags(corpus):
    from backend.ingest.service import Ingestor

    rs, docs = corpus
    tags.add(rs, ROOT, docs["ost.md"], ["weg"])
    Ingestor(rs).delete_document(docs["ost.md"])
    with rs.store.session() as s:
        assert store_tags.documents_with(s, ["weg"]) == set()


def test_viewers_may_read_but_not_change_and_outsiders_get_not_found(corpus):
    from backend.security import acl

    rs, docs = corpus
    d = docs["nord.md"]
    tags.add(rs, ROOT, d, ["Wasser"])
    acl.create_knowledge_base(rs, ROOT, "kb-netz")
    acl.assign_collection(rs, ROOT, "netz", "kb-netz")
    acl.create_group(rs, ROOT, "g-netz")
    acl.grant(rs, ROOT, "g-netz", "kb-netz", "read")
    users = auth.UserStore(auth.AuthPaths.under(rs.settings.data_dir), bcrypt_rounds=4)
    for name, role in (("vera", "viewer"), ("eddie", "editor")):
        users.add(name, role, password="tags-password-1")
        acl.add_member(rs, ROOT, "g-netz", "user", name)
    viewer = Actor("vera", "viewer")
    assert tags.get(rs, viewer, d).names == ["Wasser"]
    with pytest.raises(auth.PermissionDenied):
        tags.add(rs, viewer, d, ["x"])
    with pytest.raises(auth.PermissionDenied):  # an editor with read access only
        tags.add(rs, Actor("eddie", "editor"), d, ["x"])
    stranger = Actor("otto", "editor")
    for call in (lambda: tags.get(rs, stranger, d), lambda: tags.add(rs, stranger, d, ["x"])):
        with pytest.raises(NotFound, match=f"document {d} not found"):
            call()


def test_suggestions_come_from_type_and_traits_and_one_click_accepts_them(ingestor):
    from pathlib import Path

    samples = Path(__file__).resolve().parent.parent / "data" / "samples"
    (out,) = ingestor.ingest_paths([samples / "protokoll_werkausschuss_2024-03-12.txt"],
                                   collection="board")
    rs = ingestor.rs
    v = tags.get(rs, ROOT, out.document_id)
    assert "Meeting minutes" in v.suggestions and "agenda" in v.suggestions
    assert v.tags == []
    v = tags.accept_suggestions(rs, ROOT, out.document_id)
    assert v.suggestions == [] and "Meeting minutes" in v.names
    assert {t.source for t in v.tags} == {"suggestion"}


@pytest.mark.parametrize("policy", ["semantic_only", "lexical_only", "hybrid",
                                    "document_first"])
def test_tag_filter_excludes_untagged_documents_on_every_policy(corpus, policy):
    rs, docs = corpus
    assert _found(rs, policy)[0] == {"nord.md", "sued.md", "ost.md"}
    tags.add(rs, ROOT, docs["nord.md"], ["Druck"])
    tags.add(rs, ROOT, docs["sued.md"], ["Ventile"])
    assert _found(rs, policy, tags=["DRUCK"])[0] == {"nord.md"}
    assert _found(rs, policy, tags=["druck", "ventile"])[0] == {"nord.md", "sued.md"}
    got, res = _found(rs, policy, tags=["nirgends"])
    assert got == set() and "no document matches the filters" in res.warnings
    tags.remove(rs, ROOT, docs["nord.md"], ["druck"])  # current at once: no reindex
    assert _found(rs, policy, tags=["druck"])[0] == set()


def test_tag_filter_and_collection_filter_combine(corpus, ingestor):
    rs, docs = corpus
    ingestor.ingest_many([IngestItem("west.md", data=PUMP.format(n="west").encode(),
                                     source_uri="test://west")], collection="andere")
    west = next(iter(_found(rs, collections=["andere"])[1].hits)).document_id
    tags.add(rs, ROOT, west, ["Druck"])
    tags.add(rs, ROOT, docs["nord.md"], ["Druck"])
    assert _found(rs, tags=["druck"], collections=["netz"])[0] == {"nord.md"}
    assert _found(rs, tags=["druck"])[0] == {"nord.md", "west.md"}


def test_an_invalid_tag_filter_names_the_field():
    with pytest.raises(TagError) as e:
        RetrievalParams(tags=["a;b"])
    assert e.value.field == "tags"


def test_categories_filter_maps_to_document_types(corpus):
    rs, docs = corpus
    from backend.store.models import Document

    with rs.store.session() as s:
        s.get(Document, docs["ost.md"]).doc_type = "meeting_minutes"  # category operations
    assert _found(rs, categories=["Operations"])[0] == {"ost.md"}
    assert "ost.md" not in _found(rs, categories=["legal"])[0]
    with pytest.raises(FilterError) as e:
        _found(rs, categories=["nonsense"])
    assert e.value.field == "categories" and "operations" in str(e.value)


def test_tag_routing_boosts_tagged_documents_and_traces_the_stage(corpus):
    rs, docs = corpus
    q = "Pumpwerk Wartung Förderpumpen Hochdruck"
    base = _found(rs, q=q, tag_routing=False)[1]
    last = base.hits[-1].filename
    d = docs[last]
    tags.add(rs, ROOT, d, ["Hochdruck"])
    res = _found(rs, q=q)[1]
    assert res.hits[0].filename == last  # routed to the top
    st = res.trace.stage("tags")
    assert st.params["matched_tags"] == ["Hochdruck"] and st.params["documents"] == [d]
    assert res.hits[0].boost > 0
    off = _found(rs, q=q, tag_routing=False)[1]
    assert off.trace.stage("tags") is None and off.hits[0].filename == base.hits[0].filename


def test_tag_routing_matches_whole_words_and_prefixes():
    voc = {"protokoll": {"name": "Protokoll", "documents": [1]},
           "api": {"name": "API", "documents": [2]},
           "action items": {"name": "action items", "documents": [3]}}
    from backend.retrieval.tag_routing import match

    assert set(match(voc, "Welche Protokolle gibt es?")) == {"protokoll"}
    assert set(match(voc, "rapid growth")) == set()  # "api" inside a word does not match
    assert set(match(voc, "Which API calls and action items?")) == {"api", "action items"}
    assert set(match(voc, "items of action")) == set()


def test_tag_routing_never_names_documents_outside_the_scope(corpus):
    rs, docs = corpus
    tags.add(rs, ROOT, docs["nord.md"], ["Hochdruck"])
    res = Retriever(rs).retrieve("Hochdruck Pumpwerk", RetrievalParams(),
                                 scope=Scope.of(["other"]))
    assert res.trace.stage("tags") is None and res.hits == []


@pytest.mark.integration
def test_tag_filter_excludes_untagged_documents_on_opensearch(make_rs, opensearch_url, tmp_path):
    """The same prefilter on the OpenSearch keyword backend (the shared engine DSL's
    document-id `terms` filter): only the tagged document's chunks come back."""
    import uuid

    from backend.ingest.service import Ingestor

    rs = make_rs(keyword_backend="opensearch", opensearch_url=opensearch_url,
                 opensearch_index_prefix=f"ragscope-test-{uuid.uuid4().hex[:10]}")
    items = [IngestItem(f"{n}.md", data=PUMP.format(n=n).encode(), source_uri=f"test://{n}")
             for n in ("nord", "sued")]
    docs = {o.filename: o.document_id for o in Ingestor(rs).ingest_many(items, collection="netz")}
    try:
        assert _found(rs, "lexical_only")[0] == {"nord.md", "sued.md"}
        tags.add(rs, ROOT, docs["sued.md"], ["Ventile"])
        got, res = _found(rs, "lexical_only", tags=["ventile"])
        assert got == {"sued.md"} and res.trace.stage("keyword_search").params["index"]
        assert _found(rs, "hybrid", tags=["VENTILE"])[0] == {"sued.md"}
    finally:
        rs.keyword_index.drop() if hasattr(rs.keyword_index, "drop") else rs.keyword_index.reset()
