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


@pytest.mark.parametrize("model,de,en", [
    ("all-MiniLM-L6-v2", 0.3, 0.7),
    ("multilingual-e5-small", 0.9, 0.9),
    ("/models/my-own-sentence-model", 0.3, 0.7),  # not listed: the MiniLM row
])
def test_default_vector_weight_depends_on_the_embedding_model(model, de, en):
    """The fusion weights shown in the trace come from the embedding model's row: the
    multilingual model gets most of the weight in both languages (docs/retrieval.md)."""
    from types import SimpleNamespace

    from backend.retrieval.engine import Retriever
    from backend.retrieval.query import parse_query
    from backend.retrieval.types import RetrievalParams

    r = Retriever(SimpleNamespace(embedder=SimpleNamespace(model_name=model)))
    for question, w in (("Welche Portnummer verwendet das Gateway?", de),
                        ("Which port does the gateway use?", en)):
        assert r._weights(parse_query(question), RetrievalParams()) == \
            pytest.approx({"vector": w, "keyword": 1 - w})
    assert r._weights(parse_query("Which port does the gateway use?"),
                      RetrievalParams(vector_weight=0.5))["vector"] == 0.5
