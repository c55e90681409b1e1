"""Document classification end to end: types, traits and profiles of ingested documents,
the type registry in the database (edits change the result), `reclassify` as a job that
re-chunks only documents whose profile changed, editable titles, per-document profiles, and
the optional LLM refinement."""
from __future__ import annotations

import shutil

import pytest

from backend.security.access import Scope
from backend.errors import ConfigError
from backend.ingest import doctypes
from backend.ingest.classify import Subject, better_title
from backend.services.jobs import recent_jobs
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo
from backend.store.models import DocumentVersion
from tests.conftest import SAMPLES

FILES = ("pressemitteilung_wasserpreis_2025.txt", "incident_report_INC-2024-031.docx",
         "annual_report_2023.pdf", "protokoll_werkausschuss_2024-03-12.txt")


@pytest.fixture(scope="module")
def template(tmp_path_factory, shared_embedder):
    """The four files ingested once per module; every test gets a copy of the data dir."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    data = tmp_path_factory.mktemp("classify") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_paths([SAMPLES / f for f in FILES], collection="s")
    rs.close()
    assert all(o.ok for o in outs), [o.error for o in outs]
    return data, {o.filename: o for o in outs}


@pytest.fixture
def corpus(template, tmp_path):
    shutil.copytree(template[0], tmp_path / "var")
    return template[1]


@pytest.fixture
def ingestor(corpus, make_rs):
    """An ingestor on this test's copy of the corpus (data dir tmp_path/var)."""
    from backend.ingest.service import Ingestor

    return Ingestor(make_rs())


def _version(ingestor, doc_id):
    with ingestor.store.session() as s:
        d = repo.get_document(s, doc_id)
        v = s.get(DocumentVersion, d.active_version_id)
        chunks = [c.id for c in repo.chunks_of(s, v.id)]
        return {"title": d.title, "doc_type": d.doc_type, "type": v.primary_type,
                "profile": v.processing_profile, "c": dict(v.classification or {}),
                "meta": dict(v.meta or {}), "chunks": chunks}


def _consistent(ingestor):
    with ingestor.store.session() as s:
        expected = repo.active_chunk_ids(s)
    assert ingestor.rs.vector_index.ids() == expected == ingestor.rs.keyword_index.ids()


def test_the_issues_examples_are_classified_and_titled(ingestor, corpus):
    press = _version(ingestor, corpus[FILES[0]].document_id)
    assert press["type"] == "press_release" and press["title"].startswith(
        "Stadtwerke Birkenau passen Wasserpreis")  # not "PRESSEMITTEILUNG"
    assert _version(ingestor, corpus[FILES[1]].document_id)["type"] == "incident_report"
    annual = _version(ingestor, corpus[FILES[2]].document_id)
    assert annual["type"] == "financial_report" and annual["doc_type"] == "financial_report"
    minutes = _version(ingestor, corpus[FILES[3]].document_id)
    assert minutes["type"] == "meeting_minutes" and minutes["profile"] == "meeting_structured"
    c = minutes["c"]
    assert "has_agenda" in c["traits"] and 0.5 <= c["confidence"] <= 1
    assert c["signals"] and c["reasoning_short"].startswith("Meeting minutes:")
    assert minutes["meta"]["profile"]["name"] == "meeting_structured"
    assert minutes["meta"]["profile"]["params"]["whole_section_factor"] == 1.5


def test_registry_is_seeded_and_validated(ingestor):
    types = {t.name: t for t in doctypes.load(ingestor.store)}
    assert {"meeting_minutes", "policy", "contract", "source_code_file", "pdf_scanned",
            "scientific_paper", "api_reference", "runbook_or_ops_doc"} <= set(types)
    bad = types["policy"]
    with pytest.raises(ConfigError, match="policy: signal 'title' has a bad pattern"):
        doctypes.save(ingestor.store, doctypes.TypeDef(**{**bad.__dict__,
                                                          "signals": {"title": ["(unclosed"]}}))
    with pytest.raises(ConfigError, match="unknown processing profile 'fancy'"):
        doctypes.save(ingestor.store, doctypes.TypeDef(**{**bad.__dict__,
                                                          "default_profile": "fancy"}))
    with pytest.raises(ConfigError, match="built in; disable it"):
        doctypes.delete(ingestor.store, "policy")
    assert len(doctypes.load(ingestor.store)) == len(types)  # nothing half-saved


def test_a_new_registry_type_wins_after_reclassify(ingestor, corpus):
    doctypes.save(ingestor.store, doctypes.TypeDef(
        "tariff_notice", "Tariff notice", "communication", "Price changes.", "Prices change.",
        "generic_text", 90, {"title": ["(?i)wasserpreis"], "names": ["(?i)wasserpreis"],
                             "text": ["(?i)arbeitspreis"]},
        enabled=True, builtin=False))
    rep = ingestor.reclassify(None)
    doc = corpus[FILES[0]].document_id
    assert (doc, "press_release", "tariff_notice") in rep.changed_type
    assert _version(ingestor, doc)["doc_type"] == "tariff_notice"
    res = Retriever(ingestor.rs).retrieve("Wasserpreis", RetrievalParams(
        doc_types=["tariff_notice"], k=5), scope=Scope.everything())
    assert {h.document_id for h in res.hits} == {doc}


def test_changing_a_types_profile_rechunks_only_its_documents(ingestor, corpus):
    before = {o.document_id: _version(ingestor, o.document_id)["chunks"] for o in corpus.values()}
    t = {x.name: x for x in doctypes.load(ingestor.store)}["press_release"]
    doctypes.save(ingestor.store, doctypes.TypeDef(**{**t.__dict__,
                                                      "default_profile": "ocr_resilient"}))
    progress = []
    rep = ingestor.reclassify(None, on_progress=lambda d, n, label: progress.append((d, n)))
    assert rep.rechunked == 1 and progress[-1] == (4, 4)
    press = corpus[FILES[0]].document_id
    after = {d: _version(ingestor, d)["chunks"] for d in before}
    assert after[press] != before[press]
    assert all(after[d] == before[d] for d in before if d != press)
    assert _version(ingestor, press)["profile"] == "ocr_resilient"
    assert recent_jobs(ingestor.store, 1)[0].kind == "reclassify"
    _consistent(ingestor)
    assert ingestor.reclassify(None).rechunked == 0  # nothing left to do


def test_dry_run_changes_nothing(ingestor, corpus):
    t = {x.name: x for x in doctypes.load(ingestor.store)}["meeting_minutes"]
    doctypes.save(ingestor.store, doctypes.TypeDef(**{**t.__dict__, "enabled": False}))
    doc = corpus[FILES[3]].document_id
    rep = ingestor.reclassify(doc, dry_run=True)
    assert rep.changed_type and rep.changed_type[0][1] == "meeting_minutes"
    assert _version(ingestor, doc)["type"] == "meeting_minutes"


def test_a_users_title_is_kept_and_searchable(ingestor, corpus):
    doc = corpus[FILES[1]].document_id
    ingestor.set_title(doc, "Zebrafink Störungsanalyse Februar")
    ingestor.reclassify(None)
    assert _version(ingestor, doc)["title"] == "Zebrafink Störungsanalyse Februar"
    hits = Retriever(ingestor.rs).retrieve("Zebrafink", RetrievalParams(
        policy="lexical_only", k=5), scope=Scope.everything()).hits
    assert hits and hits[0].document_id == doc  # the keyword index has the new title
    with pytest.raises(ConfigError, match="must not be empty"):
        ingestor.set_title(doc, "   ")
    ingestor.reset_title(doc)
    assert _version(ingestor, doc)["title"].startswith("Post-Incident Report")


def test_a_documents_own_profile(ingestor, corpus):
    doc = corpus[FILES[2]].document_id
    before = _version(ingestor, doc)
    ingestor.set_profile(doc, "ocr_resilient")
    after = _version(ingestor, doc)
    assert after["profile"] == "ocr_resilient" and after["c"]["profile_source"] == "override"
    assert after["chunks"] != before["chunks"]
    _consistent(ingestor)
    ingestor.set_profile(doc, None)
    assert _version(ingestor, doc)["chunks"] == before["chunks"]  # ids are stable again
    with pytest.raises(ConfigError, match="unknown processing profile"):
        ingestor.set_profile(doc, "nope")


def test_reindex_rechunks_after_a_profile_changes(ingestor, corpus, monkeypatch):
    from backend.ingest import profiles

    old = profiles.PROFILES["meeting_structured"]
    monkeypatch.setitem(profiles.PROFILES, "meeting_structured",
                        profiles.Profile(**{**old.__dict__, "whole_section_factor": 3.0}))
    res = ingestor.reindex()
    assert res["rechunked"] == 1  # only the minutes use that profile
    _consistent(ingestor)


def test_titles():
    def title(text, extracted=None, filename="x.txt"):
        return better_title(Subject(filename, text, []), extracted)

    assert title("PRESSEMITTEILUNG\n\nNeue Preise ab Januar\n\nText folgt.") == (
        "Neue Preise ab Januar", "text")
    assert title("Some text.", "Microsoft Word - bericht.docx", "bericht_2024.docx") == (
        "Bericht 2024", "file name")
    assert title("Body", "Jahresbericht 2024") == ("Jahresbericht 2024", "metadata")


class _FakeProvider:
    name, local, default_model = "ollama", True, "tiny"

    def __init__(self, answer):
        self.answer = answer

    def stream(self, request):
        from backend.llm.base import StreamEnd, TextDelta

        assert "meeting_minutes" in request.messages[0].content  # the registry is in the prompt
        yield TextDelta(self.answer)
        yield StreamEnd("tiny")


@pytest.mark.parametrize("answer, expect, warned", [
    ('{"primary_type": "technical_report", "secondary_types": ["policy"], "confidence": 0.8,'
     ' "reasoning_short": "a report"}', "technical_report", False),
    ("I think it is a report.", "incident_report", True),
    ('{"primary_type": "unicorn"}', "incident_report", True),
])
def test_llm_refinement(make_rs, monkeypatch, answer, expect, warned):
    from backend.ingest.service import Ingestor
    from backend.llm import factory

    monkeypatch.setattr(factory, "make_provider", lambda settings, name: _FakeProvider(answer))
    ing = Ingestor(make_rs(classify_llm_provider="ollama"))
    out = ing.ingest_paths([SAMPLES / FILES[1]])[0]
    v = _version(ing, out.document_id)
    assert v["type"] == expect
    assert v["c"]["method"] == ("heuristic" if warned else "heuristic+llm")
    assert any("LLM classification (ollama) not used" in w for w in out.warnings) == warned


def test_traits_from_text_and_structure():
    from backend.ingest.classify import traits_of
    from backend.ingest.types import SectionNode, Span

    def traits(text, kinds=(), spans=(), meta=None, versions=1):
        secs = [SectionNode("document", 0, "", 0, len(text), None, None, None)] + [
            SectionNode(k, 1, k, 0, 1, None, None, 0) for k in kinds]
        return set(traits_of(Subject("x.txt", text, secs, spans=list(spans), meta=meta or {},
                                     versions=versions)))

    assert "has_tables" in traits("a | b | c\n1 | 2 | 3\n4 | 5 | 6\n")
    assert "has_code_blocks" in traits("x", spans=[Span(0, 1, "code")])
    assert "has_references" in traits("Text [1] and [2] and [3].\n\nReferences\n\n[1] A.")
    assert "has_agenda" in traits("Tagesordnung\n1. Begrüßung")
    assert "has_action_items" in traits("Action items:\n- A-24-07 check\n- A-24-08 send")
    assert "has_deadlines" in traits("Der Bericht ist bis zum 15. Mai vorzulegen.")
    assert "has_api_endpoints" in traits("GET /api/v1/meters lists, POST /api/v1/readings stores")
    assert "has_config_keys" in traits("Set `gateway.max_connections` and LUMEN_LOG_LEVEL.")
    assert {"is_ocr", "ocr_low_confidence"} <= traits(
        "x", meta={"ocr": {"pages": {"1": 40.0}, "low_confidence_pages": [1]}})
    de = "Die Pumpe läuft im Wechselbetrieb und wird täglich von der Leitwarte überwacht. " * 4
    en = "The pump runs in alternating mode and is monitored daily by the control room. " * 4
    assert "is_multilingual" in traits("\n\n".join([de, en, de, en, de, en]))
    assert "is_multilingual" not in traits("\n\n".join([de] * 6))
    assert "is_versioned" in traits("Version 2.1, Stand März") and \
        "is_versioned" in traits("plain", versions=2)
    assert not traits("Ein ganz einfacher Text ohne Besonderheiten.")


def test_cli_reclassify_doc_types_title_and_profile(ingestor, corpus, monkeypatch, capsys):
    from backend.cli import main as cli

    monkeypatch.setattr("backend.cli.common._ingestor", lambda: ingestor)
    monkeypatch.setattr("backend.cli.common._rs", lambda: ingestor.rs)
    monkeypatch.setattr(ingestor.rs, "close", lambda: None)
    assert cli.main(["reclassify", "-q"]) == 2
    assert "name a document or give --all" in capsys.readouterr().err
    t = {x.name: x for x in doctypes.load(ingestor.store)}["press_release"]
    doctypes.save(ingestor.store, doctypes.TypeDef(**{**t.__dict__, "enabled": False}))
    assert cli.main(["reclassify", "--all", "--dry-run", "-q"]) == 0
    out = capsys.readouterr().out
    press = corpus[FILES[0]].document_id
    assert f"document {press}: press_release -> " in out and out.rstrip().split("\n")[-1] \
        .startswith("would change: ")
    assert _version(ingestor, press)["type"] == "press_release"  # a dry run changes nothing
    assert cli.main(["reclassify", str(press), "-q"]) == 0
    assert _version(ingestor, press)["type"] != "press_release"
    assert cli.main(["doc-types"]) == 0
    listing = capsys.readouterr().out
    assert "press_release" in listing and "meeting_structured" in listing
    assert cli.main(["set-title", str(press), "Wasserpreis 2025"]) == 0
    assert _version(ingestor, press)["title"] == "Wasserpreis 2025"
    assert cli.main(["set-profile", str(press), "policy_legal"]) == 0
    assert _version(ingestor, press)["profile"] == "policy_legal"
    assert cli.main(["set-profile", str(press), "--default"]) == 0
    assert cli.main(["set-title", "no such document", "x"]) == 2
    assert "not found" in capsys.readouterr().err
