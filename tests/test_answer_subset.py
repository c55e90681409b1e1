"""The answer benchmark's subset and generation figures (issue 22, item 7): `--sample N --seed
S` picks the same stratified questions every time and for every provider, and a run reports
first token, tokens/s and the chat's per-sentence support check of generated answers."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from eval.answer_set import load_answer_goldenset
from eval.answer_subset import allocate, sample_goldenset, stratified_sample, stratum
from eval.answers import Answer, QuestionResult, aggregate, score
from eval.goldenset import GoldensetError
from eval.unseen_bench import doc_language
from eval.unseen_set import load_unseen_for_tuning

SAMPLE = Path(__file__).resolve().parent.parent / "eval" / "answers_sample.yaml"


@pytest.fixture(scope="module")
def tune():
    return load_unseen_for_tuning("tune").questions


def test_the_subset_is_the_same_every_time_and_differs_by_seed(tune):
    ids = lambda qs: [q.id for q in qs]  # noqa: E731
    first = stratified_sample(tune, 40, seed=7, doc_language=doc_language)
    assert ids(first) == ids(stratified_sample(list(tune), 40, 7, doc_language))
    assert ids(first) == ids(stratified_sample(list(reversed(tune)), 40, 7, doc_language)
                             )[::-1], "the choice does not depend on the file order"
    assert ids(first) != ids(stratified_sample(tune, 40, seed=8, doc_language=doc_language))
    assert len(first) == 40
    order = {q.id: i for i, q in enumerate(tune)}
    assert [order[i] for i in ids(first)] == sorted(order[i] for i in ids(first))


def test_every_language_pair_near_misses_and_follow_ups_are_in_a_small_subset(tune):
    all_strata = Counter(stratum(q, doc_language) for q in tune)
    picked = Counter(stratum(q, doc_language) for q in stratified_sample(tune, 40, 3,
                                                                        doc_language))
    assert set(picked) == set(all_strata), set(all_strata) - set(picked)
    for pair in ("de_de", "en_en", "de_en", "en_de"):
        assert picked[f"answerable:{pair}"] >= 1, pair
    assert any(k.startswith("unanswerable:") for k in picked)
    assert any(k.startswith("followup:answerable:") for k in picked)
    total = sum(all_strata.values())
    for k, n in all_strata.items():  # proportional, within the one-per-stratum rounding
        assert abs(picked[k] - 40 * n / total) <= 2, (k, picked[k], n)


def test_allocation_shares_by_size_with_one_each_and_never_more_than_there_are():
    take = allocate({"big": 30, "mid": 9, "one": 1}, 10)
    assert sum(take.values()) == 10 and take["one"] == 1 and take["big"] > take["mid"] >= 1
    assert allocate({"a": 2, "b": 1}, 50) == {"a": 2, "b": 1}
    assert sum(allocate({"a": 5, "b": 5, "c": 5}, 2).values()) == 2


def test_the_sample_benchmark_subset_keeps_its_split_and_names_itself():
    gs = load_answer_goldenset(SAMPLE)
    sub = sample_goldenset(gs, "test", 12, seed=1)
    assert sub.name == "answers_sample[sample 12 seed 1]" and len(sub.questions) == 12
    assert {q.split for q in sub.questions} == {"test"}
    assert {q.type for q in sub.questions} == {"answerable", "unanswerable", "inventory"}
    with pytest.raises(GoldensetError, match="at least 1"):
        stratified_sample(gs.questions, 0)


def _result(q, text, provider, support=None, first=None, tokens=None, latency=0.0):
    a = Answer(text, [], {1: "Der Standardwert beträgt 512."}, latency_ms=latency,
               first_token_ms=first, retrieval_ms=50.0, provider=provider,
               tokens_output=tokens, support=support, tokens_input=900)
    return QuestionResult(q, a, score(q, a))


def test_a_run_reports_speed_and_flagged_sentences_of_generated_answers_only():
    q = next(x for x in load_answer_goldenset(SAMPLE).questions if x.id == "a001")
    ok = {"sentence": "Der Standardwert beträgt 512.", "supported": True}
    bad = {"sentence": "Er gilt seit 2019.", "supported": False}
    local = [
        _result(q, "Der Standardwert beträgt 512 [1]. Er gilt seit 2019 [1].", "local",
                [ok, bad], first=12_000.0, tokens=21, latency=14_050.0),
        _result(q, "Der Standardwert beträgt 512 [1].", "local", [ok], first=8_000.0,
                tokens=11, latency=9_050.0),
        _result(q, "Dazu habe ich nichts gefunden.", "extractive", first=2.0, tokens=8,
                latency=60.0),  # the evidence gate's decline: no model asked
    ]
    m = aggregate(local)
    assert m["generated"] == 2 and m["support_checked"] == 2
    assert m["unsupported_share"] == round(1 / 3, 4)
    assert m["answers_with_unsupported"] == 1 and m["answers_with_unsupported_share"] == 0.5
    assert m["model_first_token_p50_ms"] == 10_000.0 and m["model_first_token_max_ms"] == 12_000
    assert m["tokens_per_s_p50"] == 10.0  # (21-1)/2 s and (11-1)/1 s
    assert m["tokens_input_p50"] == 900
    assert local[0].metrics["unsupported_sentences"] == 1.0
    extractive = aggregate([_result(q, "Der Standardwert beträgt **512**. [1]", "extractive",
                                    first=3.0, tokens=9, latency=80.0)])
    assert extractive["generated"] == 0 and extractive["support_checked"] == 0
    assert "tokens_per_s_p50" not in extractive and "unsupported_share" not in extractive
