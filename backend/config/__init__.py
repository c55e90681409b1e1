"""One settings registry. Every setting has a type, a default and help text
(`description`); the environment prefix is RAGSCOPE_ (e.g. RAGSCOPE_DATA_DIR).
`tests/test_docs.py` checks that every setting is documented in docs/settings.md.

`Settings` (settings.py) is made of one group per concern: indexing.py (data dir, store,
embedding, chunking, indexes), ingest.py (limits, OCR, classification, Git, crawl), chat.py
(chat, LLM providers), serving.py (API, MCP), analysis.py. Import from here:
`from backend.config import Settings`."""
from backend.config.indexing import DEFAULT_EMBEDDING_MODEL, resolve_model_path
from backend.config.settings import Settings

__all__ = ["DEFAULT_EMBEDDING_MODEL", "Settings", "resolve_model_path"]
