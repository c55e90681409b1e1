"""ragscope backend: store, ingestion, indexes, retrieval."""
import os

# On 2 cores numpy's OpenBLAS threads fight torch's threads; measured dense query
# latency tripled without this. Must be set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# torch's OpenMP threads spin while waiting; as soon as a third thread wants a core (the
# keyword search, another process) each forward pass stalls: measured 304 ms vs 39 ms per
# query embedding with PASSIVE on a loaded 2-core machine (docs/benchmarks.md).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")  # chromadb telemetry off
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

__version__ = "0.1.0"
