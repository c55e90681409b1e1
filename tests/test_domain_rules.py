"""Domain rules in config/domain/*.yaml (issue 26, item 7): loading with errors that name
file, line and field; reloading without a restart; a bad edit keeping the last good rules;
query repair and synonyms before retrieval (trace stage `domain_rules`); the router's cue
words read from intents.yaml."""
from __future__ import annotations

import os
import shutil

import pytest

from backend.analysis import extractors
from backend.answer.intents import explain
from backend.config import domain_rules
from backend.config.domain_schema import EXTRACTOR_NAMES
from backend.retrieval import Retriever
from backend.retrieval.domain_query import apply
from backend.security.access import Scope


@pytest.fixture
def rules_dir(tmp_path, monkeypatch):
    """A copy of the shipped rules, read without the reload delay, as the process's rules."""
    d = tmp_path / "domain"
    shutil.copytree(domain_rules.DEFAULT_DIR, d)
    monkeypatch.setattr(domain_rules, "RELOAD_CHECK_S", 0.0)
    domain_rules.configure(d)
    yield d
    domain_rules.configure(None)


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    st = path.stat()  # a new mtime even within the file system's time resolution
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_the_shipped_rules_load_and_name_every_extractor():
    rules = domain_rules.load(domain_rules.DEFAULT_DIR)
    assert set(rules.intents.extract_cues) == set(EXTRACTOR_NAMES)
    assert set(EXTRACTOR_NAMES) == set(extractors.EXTRACTORS)  # the schema's copy is current
    assert rules.counts()["repairs"] > 0 and rules.counts()["synonym_groups"] > 0


def test_a_yaml_syntax_error_names_file_and_line(rules_dir):
    f = rules_dir / "search_repair.yaml"
    lines = f.read_text(encoding="utf-8").splitlines()
    n = next(i for i, x in enumerate(lines) if "Wasserpreiss" in x)
    lines[n] = "  - {wrong: Wasserpreiss, right: [Wasserpreis}"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(domain_rules.DomainConfigError) as e:
        domain_rules.load(rules_dir)
    assert e.value.file == "search_repair.yaml" and e.value.line == n + 1
    assert f"search_repair.yaml, line {n + 1}: not valid YAML" in str(e.value)


@pytest.mark.parametrize("file,old,new,field,reason", [
    ("search_repair.yaml", "{wrong: Datenschuz, right: Datenschutz}",
     "{wrong: Datenschuz, right: ''}", "repairs.4.right", "not a word"),
    ("search_repair.yaml", "{wrong: gatway, right: gateway}",
     "{wrong: gatway, right: gateway, weight: 2}", "repairs.10.weight", "Extra inputs"),
    ("intents.yaml", "  risks:\n", "  risk_list:\n", "extract_cues", "unknown extractor"),
    ("intents.yaml", "    - 'Fristen'\n", "    - 'Fristen('\n", "extract_cues.deadlines.0",
     "not a valid regular expression"),
    ("vocabulary.yaml", "max_added: 8", "max_added: 80", "max_added", "less than or equal"),
    ("domains.yaml", "    types: [policy, contract]", "    types: []",
     "document_kinds.policy.types", "at least 1 item"),
])
def test_a_bad_field_names_file_line_and_field(rules_dir, file, old, new, field, reason):
    f = rules_dir / file
    _edit(f, old, new)
    with pytest.raises(domain_rules.DomainConfigError) as e:
        domain_rules.load(rules_dir)
    err = e.value
    assert err.file == file and err.field == field and reason in err.reason
    lines = f.read_text(encoding="utf-8").splitlines()
    # the line named is the line of the field (or of the mapping that holds it)
    assert err.line is not None and 1 <= err.line <= len(lines)
    if field.startswith(("repairs.", "extract_cues.")):
        assert new.strip().split(",")[0] in lines[err.line - 1]
    assert f"{file}, line {err.line}, field {field}: " in str(err)


def test_an_edit_is_used_without_restart_and_a_bad_one_keeps_the_last_good(rules_dir):
    assert apply("Wie hoch ist der Wasserpreiss?").repaired == [
        {"wrong": "Wasserpreiss", "right": "Wasserpreis"}]
    f = rules_dir / "search_repair.yaml"
    _edit(f, "repairs:\n", "repairs:\n  - {wrong: Stromtarf, right: Stromtarif}\n")
    assert apply("Stromtarf 2025").text == "Stromtarif 2025"  # reloaded
    _edit(f, "{wrong: Stromtarf, right: Stromtarif}", "{wrong: Stromtarf, right: Stromtarf}")
    d = apply("Stromtarf 2025")
    assert d.text == "Stromtarif 2025"  # the last good rules stay in use
    assert "search_repair.yaml, line 9" in d.error["message"]
    assert "changes nothing" in d.error["message"]
    st = domain_rules.status()
    assert not st["ok"] and st["error"]["file"] == "search_repair.yaml"
    assert st["error"]["field"] == "repairs.0"
    _edit(f, "{wrong: Stromtarf, right: Stromtarf}", "{wrong: Stromtarf, right: Stromtarif2}")
    assert apply("Stromtarf").text == "Stromtarif2" and domain_rules.status()["ok"]


def test_a_change_is_seen_after_the_reload_interval_only(rules_dir, monkeypatch):
    monkeypatch.setattr(domain_rules, "RELOAD_CHECK_S", 60.0)
    apply("x")  # loaded now
    _edit(rules_dir / "search_repair.yaml", "repairs:\n", "repairs:\n  - {wrong: abcx, right: abc}\n")
    assert apply("abcx").text == "abcx"  # not looked at within the interval
    monkeypatch.setattr(domain_rules, "RELOAD_CHECK_S", 0.0)
    assert apply("abcx").text == "abc"


def test_repair_is_whole_word_and_spares_quotes_and_protected_words(rules_dir):
    _edit(rules_dir / "search_repair.yaml", "protected: [", "protected: [Gatway Pro, ")
    d = apply('gatway failvoer: "gatway" und Gatway Pro, nicht gatways')
    assert d.text == 'gateway failover: "gatway" und Gatway Pro, nicht gatways'
    assert [r["wrong"] for r in d.repaired] == ["gatway", "failvoer"]


def test_synonyms_widen_the_keyword_query_at_most_max_added(rules_dir):
    d = apply("Was kostet Fernwärme?")
    assert d.expanded == {"Fernwärme": ["Fernwaerme", "district heating"]}
    _edit(rules_dir / "vocabulary.yaml", "max_added: 8", "max_added: 1")
    assert apply("Fernwärme und Datenschutz").added == ["Fernwaerme"]
    assert apply("district heating and Fernwärme").expanded == {
        "district heating": ["Fernwaerme"]}  # words already in the question are not added


def test_the_router_reads_its_cue_words_from_intents_yaml(rules_dir):
    q = "Welche Knackpunkte gibt es?"
    assert explain(q)[0] is None
    _edit(rules_dir / "intents.yaml", "    - 'Risiken'\n", "    - 'Risiken'\n    - 'Knackpunkte'\n")
    intent, why = explain(q)
    assert intent is not None and intent.extractors == ("risks",) and "Knackpunkte" in why


def test_retrieval_searches_the_repaired_question_and_traces_the_rules(sample_rs, rules_dir):
    res = Retriever(sample_rs).retrieve("Wie funktioniert das gatway failvoer?",
                                        scope=Scope.everything())
    stage = res.trace.stage("domain_rules")
    assert stage.params["repaired"] == [{"wrong": "gatway", "right": "gateway"},
                                        {"wrong": "failvoer", "right": "failover"}]
    assert res.trace.stage("query").params["normalised"] == "Wie funktioniert das gateway failover?"
    assert res.hits and res.hits[0].filename == "runbook_gateway_failover.md"


def test_a_synonym_finds_the_document_written_in_the_other_words(sample_rs, rules_dir):
    """"district heating" finds the German Merkblatt Fernwärme through its synonym group;
    with the group deleted from vocabulary.yaml (reloaded, no restart) it does not."""
    q = "district heating connection"
    res = Retriever(sample_rs).retrieve(q, scope=Scope.everything())
    assert res.trace.stage("domain_rules").params["added"] == ["Fernwärme", "Fernwaerme"]
    assert "keyword_search_translated" in [s.name for s in res.trace.stages]
    assert "merkblatt_fernwaerme.pdf" in [h.filename for h in res.hits[:5]]
    f = rules_dir / "vocabulary.yaml"
    _edit(f, "  - words: [Fernwärme, Fernwaerme, district heating]\n", "")
    _edit(f, "    note: the Merkblatt Fernwärme's subject, asked in both spellings and in English\n", "")
    res = Retriever(sample_rs).retrieve(q, scope=Scope.everything())
    assert domain_rules.status()["ok"]
    assert res.trace.stage("domain_rules").params["added"] == []
    assert "merkblatt_fernwaerme.pdf" not in [h.filename for h in res.hits[:5]]
