"""One ONNX Runtime session over an ONNX export: what the encoder (onnx_encoder.py) runs
per worker thread and the exporter (onnx_export.py) runs to verify a new export against
torch. Below both, so that neither imports the other's module for it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

# Each text runs alone: int8 dynamic quantisation scales over the whole input of a run, so
# texts run together would change each other's vectors (onnx_encoder.py's docstring).
MICRO_BATCH = 1


@dataclass(frozen=True)
class OnnxExport:
    folder: Path
    model: Path
    tokenizer: Path
    max_seq_length: int
    do_lower_case: bool
    manifest: dict


class Runner:
    """One ONNX Runtime session and its own tokenizer (tokenizers' objects are not shared
    across threads here)."""

    def __init__(self, export: OnnxExport, threads: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Idle worker threads spin by default; on a shared 2-core machine that steals the
        # core another process (or the keyword search) needs — as OMP_WAIT_POLICY=PASSIVE.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(export.model), opts,
                                            providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.dimension = int(self.session.get_outputs()[0].shape[-1])
        tok = Tokenizer.from_file(str(export.tokenizer))
        tok.enable_truncation(max_length=export.max_seq_length)
        pad = tok.token_to_id("[PAD]")
        tok.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
        self.tokenizer = tok
        self.lower = export.do_lower_case

    def run(self, texts: Sequence[str], micro_batch: int) -> np.ndarray:
        texts = [t.lower() for t in texts] if self.lower else list(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), micro_batch):
            idx = order[start:start + micro_batch]
            batch = [texts[i] for i in idx]
            # one text (a query): encode() — encode_batch() hands even one text to the
            # tokenizers' thread pool, 1.9 ms of CPU per query in the API process against 0.05
            enc = ([self.tokenizer.encode(batch[0])] if len(batch) == 1
                   else self.tokenizer.encode_batch(batch))
            feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
            vecs = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            out[idx] = vecs
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out
