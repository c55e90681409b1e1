"""Fusion on hand-made rankings."""
import pytest

from backend.retrieval import fusion


def test_rrf_matches_hand_computed_values():
    r = fusion.rrf({"v": [("a", 0.9), ("b", 0.8)], "k": [("b", 12.0), ("c", 3.0)]}, k=60)
    assert r["a"] == pytest.approx(1 / 61)
    assert r["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert r["c"] == pytest.approx(1 / 62)
    assert [i for i, _ in fusion.ranked(r)] == ["b", "a", "c"]


def test_rrf_weights_and_k():
    r = fusion.rrf({"v": [("a", 1.0)], "k": [("b", 1.0)]}, k=0, weights={"v": 0.25, "k": 0.75})
    assert r == {"a": 0.25, "b": 0.75}
    with pytest.raises(ValueError):
        fusion.rrf({}, k=-1)


def test_weighted_is_a_convex_combination_of_normalised_scores():
    rankings = {"v": [("a", 0.8), ("b", 0.4)], "k": [("b", 10.0), ("c", 5.0)]}
    r = fusion.weighted(rankings, {"v": 0.3, "k": 0.7}, normalise="max")
    assert r["a"] == pytest.approx(0.3 * 1.0)
    assert r["b"] == pytest.approx(0.3 * 0.5 + 0.7 * 1.0)
    assert r["c"] == pytest.approx(0.7 * 0.5)
    mm = fusion.weighted(rankings, {"v": 1, "k": 1}, normalise="minmax")
    assert mm["a"] == pytest.approx(0.5) and mm["c"] == pytest.approx(0.0)
    assert mm["b"] == pytest.approx(0.5)


def test_normalisers_handle_degenerate_lists():
    assert fusion.minmax([]) == {}
    assert fusion.minmax([("a", 3.0), ("b", 3.0)]) == {"a": 1.0, "b": 1.0}
    assert fusion.max_norm([("a", 0.0)]) == {"a": 0.0}
    with pytest.raises(ValueError):
        fusion.weighted({"v": [("a", 1.0)]}, {"v": 1.0}, normalise="zscore")


def test_ranked_breaks_ties_by_id():
    assert fusion.ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]
