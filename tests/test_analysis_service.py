"""The analysis service on a real store (SQLite in tmp_path, embedded indexes): the artifacts
cache and its invalidation, version comparison of the Werkausschuss minutes, summaries with
sources, the optional LLM pass (a scripted provider), clear errors for bad input, the CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backend.security.access import Scope
from backend.analysis import artifacts
from backend.analysis.extractors import EXTRACTORS
from backend.analysis.service import analyze_document, find_section, load_source, resolve
from backend.errors import AnalysisError, NotFound, ProviderUnavailable
from backend.llm.base import StreamEnd, TextDelta
from tests.conftest import ROOT, SAMPLES

V2 = ROOT / "data" / "samples_v2"
MINUTES = "protokoll_werkausschuss_2024-03-12.txt"

EVERYTHING = Scope.everything()


@pytest.fixture
def minutes(ingestor):
    """The Werkausschuss minutes as version 1 and their corrected version as version 2."""
    uri = str((SAMPLES / MINUTES).resolve())
    v1 = ingestor.ingest_bytes((SAMPLES / MINUTES).read_bytes(), MINUTES, source_uri=uri)
    v2 = ingestor.ingest_bytes((V2 / MINUTES).read_bytes(), MINUTES, source_uri=uri)
    assert v1.ok and v2.status == "new_version"
    return v2.document_id


def test_results_are_cached_and_recomputed_when_the_rules_change(rs, minutes, monkeypatch):
    first = analyze_document(rs, minutes, scope=EVERYTHING)
    assert not any(r.cached for r in first.results.values())
    assert artifacts.count(rs.store) == len(EXTRACTORS)
    calls = []
    spec = EXTRACTORS["decisions"]
    monkeypatch.setitem(EXTRACTORS, "decisions", spec.__class__(
        spec.name, spec.version, spec.label, spec.description, spec.fields,
        lambda src: calls.append(1) or spec.fn(src)))
    again = analyze_document(rs, minutes, scope=EVERYTHING)
    assert all(r.cached for r in again.results.values()) and calls == []
    assert [i.text for i in again.items("decisions")] == [i.text for i in first.items("decisions")]
    bumped = spec.__class__(spec.name, spec.version + "-next", spec.label, spec.description,
                            spec.fields, lambda src: calls.append(1) or spec.fn(src))
    monkeypatch.setitem(EXTRACTORS, "decisions", bumped)
    third = analyze_document(rs, minutes, what="decisions", scope=EVERYTHING)
    assert calls == [1] and not third.results["decisions"].cached
    assert artifacts.purge_stale(rs.store) == 0  # the new version's row is current
    monkeypatch.setitem(EXTRACTORS, "decisions", spec)
    assert artifacts.purge_stale(rs.store) == 1  # ... and stale once the rules are back


def test_deleting_a_document_deletes_its_artifacts(rs, ingestor, minutes):
    analyze_document(rs, minutes, version=1, scope=EVERYTHING)
    analyze_document(rs, minutes, version=2, scope=EVERYTHING)
    assert artifacts.count(rs.store) == 2 * len(EXTRACTORS)
    ingestor.delete_document(minutes)
    assert artifacts.count(rs.store) == 0  # ON DELETE CASCADE from document_versions


def test_reindex_drops_analyses_of_retired_rules(rs, ingestor, minutes, monkeypatch):
    analyze_document(rs, minutes, scope=EVERYTHING)
    spec = EXTRACTORS["risks"]
    monkeypatch.setitem(EXTRACTORS, "risks", spec.__class__(
        spec.name, "999", spec.label, spec.description, spec.fields, spec.fn))
    result = ingestor.reindex()
    assert result["stale_analyses"] == 1
    assert artifacts.count(rs.store) == len(EXTRACTORS) - 1


def test_resectioning_recomputes_the_analysis(rs, ingestor):
    """A new processing profile re-sections a version (backend/ingest/reprocess.py): the
    cached result of the old section tree is not served; items name the new sections."""
    text = ("Betriebsanweisung Pumpwerk\n\n1 Einleitung\n\nDer Betreiber muss die Anlage "
            "jährlich prüfen lassen.\n\n2 Betrieb\n\nDie Prüfung ist bis zum 1. Juni 2031 "
            "abzuschließen.\n")
    out = ingestor.ingest_bytes(text.encode(), "pumpwerk.txt")
    assert out.ok
    # numbered headings on (its title "Betriebsanweisung Pumpwerk" makes it an ops document,
    # whose profile reads no numbered headings): the starting point of this test
    ingestor.set_profile(out.document_id, "generic_text")
    before = analyze_document(rs, out.document_id, what="deadlines", scope=EVERYTHING)
    assert [i.section for i in before.items("deadlines")] == ["2 Betrieb"]
    assert analyze_document(rs, out.document_id, what="deadlines", scope=EVERYTHING).results["deadlines"].cached
    ingestor.set_profile(out.document_id, "web_structured")  # numbered lines: no headings
    after = analyze_document(rs, out.document_id, what="deadlines", scope=EVERYTHING)
    assert not after.results["deadlines"].cached
    (item,) = after.items("deadlines")
    assert item.section != "2 Betrieb" and item.section_path == []
    with rs.store.session() as s:
        from backend.store.models import Section

        assert s.get(Section, item.section_id) is not None


def test_section_filter_and_resolution(rs, minutes):
    res = analyze_document(rs, minutes, section="TOP 3", scope=EVERYTHING)
    assert [i.fields["vote"] for i in res.items("decisions")] == [
        {"yes": 4, "no": 1, "abstain": 1}]
    src = load_source(rs, resolve(rs, minutes, scope=EVERYTHING))
    assert find_section(src, "anlage 3").label == "Anlage 3: Aufgabenliste"
    with pytest.raises(AnalysisError, match="no section 'TOP 9'"):
        find_section(src, "TOP 9")
    with pytest.raises(AnalysisError, match="ambiguous"):
        find_section(src, "TOP")


def test_compare_versions_of_the_minutes(rs, minutes):
    from backend.analysis.compare import compare_versions

    c = compare_versions(rs, minutes, scope=EVERYTHING)
    assert (c.document_a.version_number, c.document_b.version_number) == (1, 2)
    by_label = {s.label: s for s in c.sections}
    top3 = by_label["TOP 3: Wasserpreise ab 1. Januar 2025"]
    assert top3.status == "changed"
    assert [(o.a, o.b) for o in top3.ops if o.op != "equal"] == [
        ("5", "4"), ("0 Enthaltungen.", "1 Enthaltung.")]
    assert by_label["Anlage 3: Aufgabenliste"].status == "added"
    assert by_label["TOP 1: Eröffnung und Feststellung der Beschlussfähigkeit"].status == "unchanged"
    changed = {(i.extractor, i.status) for i in c.items}
    assert ("decisions", "changed") in changed and ("meeting_actions", "added") in changed
    vote = next(i for i in c.items if i.extractor == "decisions" and "2024/17" in i.b.text)
    assert vote.a.fields["vote"]["yes"] == 5 and vote.b.fields["vote"]["yes"] == 4


def test_compare_pairs_renumbered_sections_by_content(rs, ingestor):
    """Version 2 inserts "TOP 3: IT-Sicherheit" and renumbers every later item: each old
    item is paired with its renumbered self (not the new TOP 3 with the old TOP 3), the new
    item alone is added, nothing is removed."""
    import re

    from backend.analysis.compare import compare_versions

    v1 = (SAMPLES / MINUTES).read_text(encoding="utf-8")
    renumbered = re.sub(r"^TOP (\d+):", lambda m: f"TOP {int(m[1]) + (int(m[1]) >= 3)}:", v1,
                        flags=re.M)
    at = renumbered.index("TOP 4: Wasserpreise", renumbered.index("TOP 2: Genehmigung") + 200)
    new = ("TOP 3: IT-Sicherheit\n\nHerr Brandt berichtet über die Umstellung der Fernwirktechnik "
           "auf verschlüsselte Verbindungen und die Schulung der Bereitschaftsdienste.\n\n")
    v2 = renumbered[:at] + new + renumbered[at:]
    uri = "upload://renumbered_minutes.txt"
    a = ingestor.ingest_bytes(v1.encode(), "renumbered_minutes.txt", source_uri=uri)
    b = ingestor.ingest_bytes(v2.encode(), "renumbered_minutes.txt", source_uri=uri)
    assert a.ok and b.status == "new_version"
    c = compare_versions(rs, b.document_id, scope=EVERYTHING)
    by_b = {s.label_b: s for s in c.sections if s.label_b}
    assert by_b["TOP 3: IT-Sicherheit"].status == "added"
    assert by_b["TOP 3: IT-Sicherheit"].label_a is None
    assert by_b["TOP 7: Verschiedenes"].label_a == "TOP 6: Verschiedenes"
    assert by_b["TOP 4: Wasserpreise ab 1. Januar 2025"].label_a == \
        "TOP 3: Wasserpreise ab 1. Januar 2025"
    for s in c.sections:  # only the heading's number differs
        if s.label_a and s.label_b and s.label_a.startswith("TOP"):
            assert [(o.a, o.b) for o in s.ops if o.op != "equal"] in ([], [(
                s.label_a.split(":")[0].split()[1] + ":", s.label_b.split(":")[0].split()[1]
                + ":")]), (s.label_a, s.label_b, s.ops)
    assert c.counts()["removed"] == 0 and c.counts()["added"] == 1, c.counts()
    assert by_b["TOP 7: Verschiedenes"].heading == \
        "TOP 7: Verschiedenes (was TOP 6: Verschiedenes)"  # what the page and CLI show


def test_summaries_link_every_sentence_to_its_source(rs, minutes):
    from backend.analysis.summaries import summarize_document, summarize_section

    src = load_source(rs, resolve(rs, minutes, scope=EVERYTHING))
    for length, n in (("short", 3), ("long", 15)):
        s = summarize_document(rs, minutes, length=length, scope=EVERYTHING)
        assert s.method == "extractive" and 0 < len(s.sentences) <= n
        for x in s.sentences:
            assert " ".join(src.text[x.start:x.end].split()) == x.text and x.section
    sec = summarize_section(rs, minutes, "TOP 4", length="short", scope=EVERYTHING)
    top4 = find_section(src, "TOP 4")
    assert sec.scope == top4.label and all(top4.start <= x.start < top4.end for x in sec.sentences)
    assert summarize_document(rs, minutes, length="short", scope=EVERYTHING).cached


class Scripted:
    """A provider that answers from a list (and records the prompts), or fails."""

    name = "scripted"
    local = True
    default_model = "m"

    def __init__(self, answers=(), fail=False):
        self.answers, self.fail, self.prompts = list(answers), fail, []

    def stream(self, request):
        self.prompts.append(request.messages[-1].content)
        if self.fail:
            raise ProviderUnavailable("scripted provider is down")
        yield TextDelta(self.answers.pop(0) if self.answers else "{}")
        yield StreamEnd("m")


def _use(monkeypatch, provider):
    import backend.llm.factory as f

    monkeypatch.setattr(f, "make_provider", lambda settings, name: provider)


def test_llm_refines_but_never_replaces(rs, minutes, monkeypatch):
    rules = analyze_document(rs, minutes, version=1, what="meeting_actions", llm="off", scope=EVERYTHING)
    assert rules.items("meeting_actions") == []
    answer = json.dumps({"add": [
        {"sentence": "Herr Wagner fragte nach einer sozialen Staffelung der Preise.",
         "owner": "Stefan Wagner"},
        {"sentence": "Herr Wagner will write a letter."}]})  # not in the text: refused
    _use(monkeypatch, Scripted([answer] * 20))
    res = analyze_document(rs, minutes, version=1, what="meeting_actions", llm="ollama", scope=EVERYTHING)
    items = res.items("meeting_actions")
    assert [(i.origin, i.fields.get("owner")) for i in items] == [("llm", "Stefan Wagner")]
    src = load_source(rs, resolve(rs, minutes, 1, scope=EVERYTHING))
    assert src.text[items[0].start:items[0].end].startswith("Herr Wagner fragte")
    assert res.results["meeting_actions"].refined_by.startswith("scripted/")
    again = analyze_document(rs, minutes, version=1, what="meeting_actions", llm="off", scope=EVERYTHING)
    assert again.items("meeting_actions") == []  # the rules-only result is cached apart


def test_llm_failure_keeps_the_rule_results(rs, minutes, monkeypatch):
    _use(monkeypatch, Scripted(fail=True))
    res = analyze_document(rs, minutes, what="decisions", llm="ollama", use_cache=False, scope=EVERYTHING)
    assert len(res.items("decisions")) == 4 and any("skipped" in w for w in res.warnings)
    from backend.analysis.summaries import summarize_document

    s = summarize_document(rs, minutes, llm="ollama", use_cache=False, scope=EVERYTHING)
    assert s.method == "extractive" and "LLM summary failed" in s.warnings[0] and s.sentences


def test_llm_summary_cites_its_sources(rs, minutes, monkeypatch):
    from backend.analysis.summaries import summarize_document

    _use(monkeypatch, Scripted(["Der Ausschuss empfahl einen Arbeitspreis von 2,69 EUR [1]. "
                                "Die Bauleistungen gingen an die Hartmann Bau GmbH."]))
    s = summarize_document(rs, minutes, length="short", llm="ollama", use_cache=False, scope=EVERYTHING)
    assert s.method.startswith("llm:scripted/") and len(s.sentences) == 2
    assert all(x.section_id is not None and x.start is not None for x in s.sentences)
    assert "Hartmann" in load_source(rs, resolve(rs, minutes, scope=EVERYTHING)).text[
        s.sentences[1].start:s.sentences[1].end]  # uncited: linked to its closest source


def test_bad_input_gets_a_clear_error(rs, ingestor, make_rs):
    failed = ingestor.ingest_bytes(b"", "leer.txt")
    assert not failed.ok
    with pytest.raises(AnalysisError, match=r"leer\.txt.*cannot be analysed.*failed"):
        analyze_document(rs, failed.document_id, scope=EVERYTHING)
    with pytest.raises(NotFound):
        analyze_document(rs, "no-such-document.pdf", scope=EVERYTHING)
    ok = ingestor.ingest_bytes(b"Ein Satz ohne Datum und ohne Gliederung, aber mit Text.\n" * 300,
                               "plain.txt")
    res = analyze_document(rs, ok.document_id, scope=EVERYTHING)
    assert res.items("deadlines") == [] and res.document.sections >= 1
    small = make_rs(analysis_max_chars=10_000)
    with pytest.raises(AnalysisError, match=r"plain\.txt.*RAGSCOPE_ANALYSIS_MAX_CHARS.*section"):
        analyze_document(small, ok.document_id, scope=EVERYTHING)
    with pytest.raises(AnalysisError, match="over the analysis limit"):
        from backend.analysis.summaries import summarize_document

        summarize_document(small, ok.document_id, scope=EVERYTHING)


def _cli(env, *args):
    return subprocess.run([sys.executable, "-m", "backend", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


def test_cli_commands(rs, minutes, tmp_path):
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(rs.settings.data_dir)}
    r = _cli(env, "analyze", MINUTES, "--what", "decisions,actions", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data["results"]) == {"decisions", "meeting_actions"}
    assert data["document"]["version_number"] == 2
    assert len(data["results"]["meeting_actions"]["items"]) == 5
    r = _cli(env, "analyze", MINUTES, "--version", "1", "--what", "deadlines", "--csv")
    assert r.returncode == 0 and r.stdout.splitlines()[0].startswith("extractor,due,dates")
    assert len(r.stdout.splitlines()) == 4
    r = _cli(env, "summarize", MINUTES, "--section", "TOP 3", "--length", "short")
    assert r.returncode == 0 and "[1] TOP 3: Wasserpreise ab 1. Januar 2025" in r.stdout
    r = _cli(env, "compare", MINUTES, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["counts"]["added"] == 1
    r = _cli(env, "analyze", MINUTES, "--what", "nonsense")
    assert r.returncode == 2 and r.stderr.startswith("error: unknown extractor nonsense")
    r = _cli(env, "summarize", MINUTES, "--section", "TOP 42")
    assert r.returncode == 2 and "no section 'TOP 42'" in r.stderr and len(r.stderr.splitlines()) == 1
