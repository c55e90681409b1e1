"""Token counts where a provider reports none (the extractive answerer, an OpenAI-compatible
server without usage): counted with the local tokenizer (WordPiece for MiniLM) of the embedding
model, loaded from its local tokenizer.json with the light `tokenizers` library (transformers'
AutoTokenizer when there is no tokenizer.json). Approximate for other models' tokenizers, and marked as
counted locally wherever it is stored."""
from __future__ import annotations

import logging
import threading
from pathlib import Path

from backend.config import resolve_model_path

log = logging.getLogger(__name__)
_tokenizers: dict[str, object] = {}
_lock = threading.Lock()


def _tokenizer(model_name: str):
    with _lock:
        if model_name not in _tokenizers:
            tok = None
            try:
                path = Path(resolve_model_path(model_name))
                if (path / "tokenizer.json").is_file():
                    from tokenizers import Tokenizer

                    fast = Tokenizer.from_file(str(path / "tokenizer.json"))
                    fast.no_truncation()
                    fast.no_padding()
                    tok = lambda t: len(fast.encode(t, add_special_tokens=False).ids)  # noqa: E731
                else:
                    from transformers import AutoTokenizer

                    auto = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                    auto.model_max_length = 10**9  # counting only: no length warning
                    tok = lambda t: len(auto(t, add_special_tokens=False)["input_ids"])  # noqa: E731
            except Exception as e:  # noqa: BLE001 - fall back to an estimate, say so once
                log.warning("local tokenizer %s unavailable (%s); estimating 4 chars/token",
                            model_name, e)
            _tokenizers[model_name] = tok
        return _tokenizers[model_name]


def count_tokens(text: str, model_name: str = "all-MiniLM-L6-v2") -> int:
    if not text:
        return 0
    tok = _tokenizer(model_name)
    if tok is None:
        return max(1, (len(text) + 3) // 4)
    return tok(text)


def warm_up(model_name: str = "all-MiniLM-L6-v2") -> None:
    _tokenizer(model_name)
