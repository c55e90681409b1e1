"""A local search engine node for the keyword index: `python -m backend search-node
start|stop|status` (docs/elasticsearch.md, "A local OpenSearch node").

The node is OpenSearch 2.19 assembled from Maven Central jars by the Maven project in this
folder (pom.xml, src/: a `Node` subclass with the netty4 and analysis-common plugins on the
classpath). It lives here rather than in a top-level tools/ folder because the top level of
the repository is fixed (app.py, pages/, backend/, eval/, data/, tests/, ...), and it is
part of the keyword index's backend.

The Java build runs once: its output (classes + the jar classpath copied from ~/.m2) goes to
`<data_dir>/search-node/build` (or `search_node_build_dir`) with a stamp of the sources, and
later starts reuse it. Each node keeps its data and log under
`<data_dir>/search-node/<engine>-<port>/`, and a state file there names its pid, so `stop`
and `status` work from any later process."""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from backend.config import Settings
from backend.errors import ConfigError
from backend.index.search_node.base import (  # noqa: F401  (the package's names)
    DEFAULT_HEAP,
    ELASTICSEARCH_MISSING,
    ENGINES,
    MAIN_CLASS,
    SOURCES,
    START_TIMEOUT_S,
    STOP_TIMEOUT_S,
    NodeStatus,
    SearchNodeError,
)
from backend.index.search_node.build import (  # noqa: F401  (the package's names)
    _stamp,
    _tool,
    build,
    build_dir,
    classpath,
    source_hash,
)


# ---- processes and ports --------------------------------------------------------------
def port_free(port: int) -> bool:
    """Nothing listens on 127.0.0.1:port (connections in TIME_WAIT do not count: the node
    binds with SO_REUSEADDR, like this check)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    """The process exists, is no zombie, and is our launcher (guards against pid reuse)."""
    try:
        os.waitpid(pid, os.WNOHANG)  # reap it when this process started it
    except ChildProcessError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z" and MAIN_CLASS.encode() in cmdline


def http_json(url: str, timeout: float = 2.0) -> dict | None:
    """GET a JSON document; None when nothing (or nothing JSON) answers. A port nobody
    listens on yet can connect to the prober itself (TCP self-connect, when the port lies in
    the ephemeral range): the request comes back as the "status line", which is not an
    answer either (http.client.HTTPException)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return json.loads(resp.read())
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError):
        return None


def engine_of(info: dict) -> tuple[str, str]:
    """(engine, version) from the `GET /` document of Elasticsearch or OpenSearch."""
    version = info.get("version") or {}
    return version.get("distribution") or "elasticsearch", str(version.get("number") or "?")


# ---- the node -------------------------------------------------------------------------
class SearchNode:
    """One node on 127.0.0.1:`port`; `start`, `stop`, `status` are idempotent."""

    def __init__(self, settings: Settings, port: int = 9200, engine: str = "opensearch"):
        if engine not in ENGINES:
            raise ConfigError(f"--engine {engine!r}: one of {', '.join(ENGINES)}")
        if engine == "elasticsearch":
            raise ConfigError(ELASTICSEARCH_MISSING)
        if not 1 <= port <= 65535:
            raise ConfigError(f"--port {port}: not a TCP port")
        self.settings, self.port, self.engine = settings, port, engine
        self.home = Path(settings.data_dir) / "search-node" / f"{engine}-{port}"
        self.state_file = self.home / "node.json"
        self.log_file = self.home / "logs" / "node.log"
        self.url = f"http://127.0.0.1:{port}"

    def _state(self) -> dict:
        return _stamp(self.state_file)

    def node_settings(self, transport_port: int, cluster: "ClusterSpec | None" = None) -> dict:
        """The node's settings (passed as key=value arguments to the launcher)."""
        s = {
            "path.home": self.home, "path.data": self.home / "data",
            "path.logs": self.home / "logs", "network.host": "127.0.0.1",
            "http.port": self.port, "transport.port": transport_port,
            "cluster.name": "ragscope", "node.name": f"ragscope-{self.port}",
            "bootstrap.memory_lock": "false",
            # a full shared disk must not turn the indexes read-only under the tests
            "cluster.routing.allocation.disk.threshold_enabled": "false",
        }
        if cluster is None:
            s["discovery.type"] = "single-node"
        else:
            s.update(cluster.settings())
        return {k: str(v) for k, v in s.items()}

    def start(self, heap: str = DEFAULT_HEAP, timeout: float = START_TIMEOUT_S,
              transport_port: int | None = None,
              cluster: "ClusterSpec | None" = None) -> NodeStatus:
        """Build (once), start, wait until the cluster is at least yellow."""
        current = self.status()
        if current.running:
            if not current.ours:
                raise SearchNodeError(f"port {self.port} is taken: {current.line()}")
            return current
        started = time.monotonic()
        proc, build_seconds = self.spawn(heap, transport_port, cluster)
        self.wait_healthy(proc, timeout, nodes=len(cluster.node_names) if cluster else 1)
        status = self.status()
        status.build_seconds, status.start_seconds = build_seconds, time.monotonic() - started
        return status

    def spawn(self, heap: str = DEFAULT_HEAP, transport_port: int | None = None,
              cluster: "ClusterSpec | None" = None) -> tuple[subprocess.Popen, float | None]:
        """Start the JVM without waiting for it: (process, build seconds or None)."""
        if not port_free(self.port):
            raise SearchNodeError(f"port {self.port} on 127.0.0.1 is in use by another process")
        cp, build_seconds = build(self.settings)
        if transport_port is None:
            transport_port = self.port + 100 if self.port + 100 <= 65535 and port_free(
                self.port + 100) else free_port()
        elif not port_free(transport_port):
            raise SearchNodeError(f"transport port {transport_port} on 127.0.0.1 is in use")
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        (self.home / "data").mkdir(parents=True, exist_ok=True)
        cmd = [_tool("java", "Java 17"), f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseSerialGC",
               "-Djava.awt.headless=true", "-Dfile.encoding=UTF-8",
               "-Dlog4j.shutdownHookEnabled=false", "-Dlog4j2.disable.jmx=true",
               "-Dio.netty.noUnsafe=true", "-Dio.netty.recycler.maxCapacityPerThread=0",
               "-cp", cp, MAIN_CLASS,
               *(f"{k}={v}" for k, v in self.node_settings(transport_port, cluster).items())]
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.state_file.write_text(json.dumps({
            "pid": proc.pid, "port": self.port, "transport_port": transport_port,
            "engine": self.engine, "heap": heap, "started_at": time.time(),
            "cluster": list(cluster.node_names) if cluster else None}))
        return proc, build_seconds

    def wait_healthy(self, proc: subprocess.Popen, timeout: float = START_TIMEOUT_S,
                     nodes: int = 1) -> None:
        """Until the cluster is yellow or green with `nodes` nodes; stops the process and
        raises (naming the log) when it exits or the time is up."""
        try:
            self._wait_healthy(proc, timeout, nodes)
        except BaseException:
            self._terminate(proc.pid)
            raise

    def _wait_healthy(self, proc: subprocess.Popen, timeout: float, nodes: int) -> None:
        deadline = time.monotonic() + timeout
        health = (f"{self.url}/_cluster/health?wait_for_status=yellow&wait_for_nodes=ge({nodes})"
                  "&timeout=1s")
        while True:
            if proc.poll() is not None:
                raise SearchNodeError(f"the search node exited with {proc.returncode} while "
                                      f"starting; see {self.log_file}:\n{self._log_tail()}")
            answer = http_json(health, timeout=3)
            if (answer and answer.get("status") in ("yellow", "green")
                    and not answer.get("timed_out")):
                return
            if time.monotonic() > deadline:
                raise SearchNodeError(f"the search node did not become healthy within "
                                      f"{timeout:.0f} s; see {self.log_file}:\n{self._log_tail()}")
            time.sleep(0.3)

    def _log_tail(self, lines: int = 12) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Stop the node started here; True when one was running."""
        pid = self._state().get("pid")
        running = bool(pid) and _alive(pid)
        if running:
            self._terminate(pid, timeout)
        self.state_file.unlink(missing_ok=True)
        return running

    @staticmethod
    def _terminate(pid: int, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM (the launcher's shutdown hook closes the node), SIGKILL after `timeout`."""
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not _alive(pid):
                    return
                time.sleep(0.2)
        raise SearchNodeError(f"search node pid {pid} did not stop")

    def status(self) -> NodeStatus:
        """Whether our node (or any server) answers on the port, and which engine."""
        state = self._state()
        pid = state.get("pid")
        ours = bool(pid) and _alive(pid)
        if not ours and state:
            self.state_file.unlink(missing_ok=True)  # stale: the process is gone
        info = http_json(f"{self.url}/", timeout=3)
        if info is None or "version" not in info:
            return NodeStatus(self.port, False, pid=pid if ours else None, ours=ours,
                              home=str(self.home))
        engine, version = engine_of(info)
        return NodeStatus(self.port, True, engine, version, self.url, pid if ours else None,
                          ours, str(self.home), extra={"cluster_name": info.get("cluster_name")})


@dataclass(frozen=True)
class ClusterSpec:
    """Several nodes on loopback forming one cluster: every node knows all transport ports
    and the names of the nodes that may become cluster manager at bootstrap."""

    name: str
    transport_ports: tuple[int, ...]
    node_names: tuple[str, ...]

    def settings(self) -> dict:
        return {"cluster.name": self.name,
                "discovery.seed_hosts": ",".join(f"127.0.0.1:{p}" for p in self.transport_ports),
                "cluster.initial_cluster_manager_nodes": ",".join(self.node_names)}


class SearchCluster:
    """`nodes` nodes on 127.0.0.1 ports port … port+nodes-1 (transport port + 100 each)
    forming one cluster. Indexes keep OpenSearch's default of one replica, so with two
    nodes each holds every chunk and either can answer alone."""

    def __init__(self, settings: Settings, port: int = 9200, nodes: int = 2):
        if nodes < 2:
            raise ConfigError(f"--nodes {nodes}: a cluster has at least 2 nodes")
        self.nodes = [SearchNode(settings, port + i) for i in range(nodes)]
        self.spec = ClusterSpec("ragscope", tuple(n.port + 100 for n in self.nodes),
                                tuple(f"ragscope-{n.port}" for n in self.nodes))

    @property
    def url(self) -> str:
        """The value for RAGSCOPE_OPENSEARCH_URL: every node, comma-separated."""
        return ",".join(n.url for n in self.nodes)

    def start(self, heap: str = DEFAULT_HEAP, timeout: float = START_TIMEOUT_S) -> list[NodeStatus]:
        """Start the nodes that are not running, then wait until all have joined."""
        started = time.monotonic()
        procs = [(node, *node.spawn(heap, node.port + 100, self.spec))
                 for node in self.nodes if not node.status().running]
        for node, proc, _ in procs:
            node.wait_healthy(proc, timeout, nodes=len(self.nodes))
        out = self.status()
        for st in out:
            st.start_seconds = time.monotonic() - started if procs else None
        return out

    def start_node(self, index: int, heap: str = DEFAULT_HEAP,
                   timeout: float = START_TIMEOUT_S) -> NodeStatus:
        """(Re)start one node; it rejoins the cluster with the data it kept."""
        node = self.nodes[index]
        proc, _ = node.spawn(heap, node.port + 100, self.spec)
        node.wait_healthy(proc, timeout, nodes=len(self.nodes))
        return node.status()

    def stop(self) -> bool:
        return any([node.stop() for node in self.nodes])

    def status(self) -> list[NodeStatus]:
        return [node.status() for node in self.nodes]
