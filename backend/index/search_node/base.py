"""What a search node is and reports (the package's docstring tells how it is built and
run): where its Maven sources are, the engines, timeouts, the error and the status."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from backend.errors import RagscopeError

SOURCES = Path(__file__).resolve().parent
MAIN_CLASS = "ragscope.searchnode.SearchNode"
ENGINES = ("opensearch", "elasticsearch")
DEFAULT_HEAP = "512m"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0

# Checked with `mvn dependency:get` on 2026-12-01: the server jar and the HTTP transport
# module of Elasticsearch 8 are on Maven Central, its analysis module is not.
ELASTICSEARCH_MISSING = (
    "an Elasticsearch 8.x node cannot be assembled from Maven Central: the server jar "
    "(org.elasticsearch:elasticsearch:8.15.0) and the HTTP transport module "
    "(org.elasticsearch.plugin:transport-netty4:8.15.0) are there, but the analysis module "
    "with the stemmer, german_normalization, asciifolding and pattern-tokenizer factories the "
    "ragscope mapping needs (org.elasticsearch.plugin:analysis-common) is not published for "
    "any version (8.15.0, 8.19.0, 7.17.0 checked; no maven-metadata.xml). Use --engine "
    "opensearch, or run an Elasticsearch distribution (docs/elasticsearch.md)")


class SearchNodeError(RagscopeError):
    """The node could not be built, started or stopped; the message says why (and where
    the log is)."""


@dataclass
class NodeStatus:
    """What `status` reports; `running` False means nothing answers on the port."""

    port: int
    running: bool
    engine: str = ""
    version: str = ""
    url: str = ""
    pid: int | None = None
    ours: bool = False  # started by `search-node start` (False: some other server answers)
    home: str = ""
    build_seconds: float | None = None  # this start built the launcher (None: reused)
    start_seconds: float | None = None
    extra: dict = field(default_factory=dict)

    def line(self) -> str:
        if not self.running:
            return f"no search node on 127.0.0.1:{self.port}"
        who = f"pid {self.pid}" if self.ours else "not started by ragscope"
        out = f"{self.engine} {self.version} running at {self.url} ({who})"
        if self.start_seconds is not None:
            built = ("build reused" if self.build_seconds is None
                     else f"built in {self.build_seconds:.1f} s")
            out += f"; {built}, started in {self.start_seconds:.1f} s"
        return out
