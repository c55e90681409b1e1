"""The scale-out stack on one machine: `python -m backend stack start|stop|status`
(docs/deployment.md, "The whole stack with one command").

Six parts, each its own process bound to 127.0.0.1, started in this order and stopped in the
reverse one: PostgreSQL (a cluster under the stack dir), a Chroma server (`chroma run`), the
OpenSearch node (backend/index/search_node), the API + MCP server (uvicorn with N workers,
MCP in the SDK's stateless mode), the dashboard (streamlit) and the crawl scheduler. Every
ragscope process gets its settings from the environment only: the same variables are written
to `<dir>/stack.env` for the user's CLI. `<dir>/stack.json` names each part's pid, port and
log, so `status` and `stop` work from any later process. A part that fails to start stops
the ones already running; the error names it and quotes its log."""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from backend.config import Settings
from backend.deploy.postgres import DATABASE, Postgres, postgres_can_enter
from backend.deploy.processes import StackError, alive, http_ok, tail, terminate_group
from backend.errors import ConfigError
from backend.index.search_node import SearchNode, build_dir, port_free

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("postgres", "chroma", "search", "api", "dashboard", "scheduler")
DEFAULT_PORTS = {"postgres": 5433, "chroma": 8100, "search": 9200, "api": 8000,
                 "dashboard": 8501}
START_TIMEOUT_S = {"postgres": 60.0, "chroma": 60.0, "search": 180.0, "api": 180.0,
                   "dashboard": 90.0, "scheduler": 30.0}
# uvicorn's log with the worker's pid on every line: which worker served a request
UVICORN_LOG_CONFIG = {
    "version": 1, "disable_existing_loggers": False,
    "formatters": {
        "default": {"()": "uvicorn.logging.DefaultFormatter", "use_colors": False,
                    "fmt": "%(asctime)s [%(process)d] %(levelprefix)s %(message)s"},
        "access": {"()": "uvicorn.logging.AccessFormatter", "use_colors": False,
                   "fmt": '%(asctime)s [%(process)d] %(levelprefix)s %(client_addr)s - '
                          '"%(request_line)s" %(status_code)s'}},
    "handlers": {
        "default": {"formatter": "default", "class": "logging.StreamHandler",
                    "stream": "ext://sys.stderr"},
        "access": {"formatter": "access", "class": "logging.StreamHandler",
                   "stream": "ext://sys.stdout"}},
    "loggers": {
        "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"level": "INFO"},
        "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False}},
}


@dataclass
class PartStatus:
    name: str
    pid: int | None
    port: int | None
    running: bool
    healthy: bool
    log: str
    detail: str = ""

    def line(self) -> str:
        where = f"127.0.0.1:{self.port}" if self.port else "-"
        state = "healthy" if self.healthy else "running, not healthy" if self.running \
            else "not running"
        return (f"{self.name:<10} pid {self.pid or '-':<8} {where:<16} {state}"
                + (f" ({self.detail})" if self.detail else ""))


@dataclass
class Stack:
    """The stack in `dir`; `ports` per part, `workers` API worker processes."""

    dir: Path
    ports: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PORTS))
    workers: int = 2
    build: Path | None = None  # the search node's build dir (default: the caller's)

    def __post_init__(self):
        self.dir = Path(self.dir).resolve()
        if self.workers < 1:
            raise ConfigError(f"--api-workers {self.workers}: at least 1")
        self.state_file = self.dir / "stack.json"
        self.env_file = self.dir / "stack.env"
        self.logs = self.dir / "logs"
        self.data_dir = self.dir / "data"

    # ---- configuration ---------------------------------------------------------------
    def env(self) -> dict[str, str]:
        """The settings every ragscope process of the stack runs with (also stack.env)."""
        p = self.ports
        return {
            "RAGSCOPE_DATA_DIR": str(self.data_dir),
            "RAGSCOPE_DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{p['postgres']}"
                                     f"/{DATABASE}",
            "RAGSCOPE_CHROMA_URL": f"http://127.0.0.1:{p['chroma']}",
            "RAGSCOPE_KEYWORD_BACKEND": "opensearch",
            "RAGSCOPE_OPENSEARCH_URL": f"http://127.0.0.1:{p['search']}",
            "RAGSCOPE_SEARCH_NODE_BUILD_DIR": str(self.build or build_dir(Settings())),
            "RAGSCOPE_API_HOST": "127.0.0.1",
            "RAGSCOPE_API_PORT": str(p["api"]),
            "RAGSCOPE_MCP_STATELESS": "true",
        }

    def settings(self) -> Settings:
        return Settings(data_dir=self.data_dir, search_node_build_dir=self.env()[
            "RAGSCOPE_SEARCH_NODE_BUILD_DIR"])

    def process_env(self) -> dict[str, str]:
        return {**os.environ, **self.env(), "PYTHONUNBUFFERED": "1",
                "ANONYMIZED_TELEMETRY": "False"}

    def write_env_file(self) -> None:
        lines = ["# python -m backend stack: `source` this to point the CLI at the stack"]
        lines += [f"export {k}={shlex.quote(v)}" for k, v in self.env().items()]
        self.env_file.write_text("\n".join(lines) + "\n")

    def state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def _save(self, state: dict) -> None:
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        tmp.replace(self.state_file)

    # ---- start -------------------------------------------------------------------------
    def start(self, echo=print) -> list[PartStatus]:
        """Start every part in order and wait until each is healthy; on a failure stop
        the parts already started and raise naming the part, the reason and its log."""
        if any(st.running for st in self.status()):
            raise StackError(f"the stack in {self.dir} is already running "
                             "(python -m backend stack status / stop)")
        taken = [f"{n} port {p}" for n, p in self.ports.items() if not port_free(p)]
        if taken:
            raise StackError("127.0.0.1 ports in use: " + ", ".join(taken))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        self.data_dir.mkdir(exist_ok=True)
        self.write_env_file()
        state = {"ports": self.ports, "workers": self.workers, "parts": {}}
        self._save(state)
        for name in PARTS:
            started = time.monotonic()
            try:
                state["parts"][name] = getattr(self, f"_start_{name}")()
                self._save(state)
                self._wait(name, state["parts"][name])
            except BaseException as exc:  # also Ctrl-C: nothing half-started stays up
                self._save(state)
                stopped = self.stop()
                raise StackError(
                    f"the stack's {name} failed to start: {exc}\n"
                    f"{name}'s log {self._log(name)}, last lines:\n{tail(self._log(name))}\n"
                    f"stopped again: {', '.join(stopped) or 'nothing'}") from exc
            echo(f"{name} up in {time.monotonic() - started:.1f} s")
        return self.status()

    def _log(self, name: str) -> Path:
        if name == "search":
            return SearchNode(self.settings(), self.ports["search"]).log_file
        return self.logs / f"{name}.log"

    def _spawn(self, name: str, cmd: list[str]) -> dict:
        with open(self._log(name), "ab") as log:
            offset = log.tell()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=self.process_env(),
                                    cwd=ROOT, start_new_session=True)
        return {"pid": proc.pid, "port": self.ports.get(name), "started_at": time.time(),
                "log_offset": offset}

    def _wait(self, name: str, part: dict) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S[name]
        while True:
            st = self._part_status(name, part)
            if st.healthy:
                return
            if not st.running:
                raise StackError("its process exited")
            if time.monotonic() > deadline:
                raise StackError(f"not healthy within {START_TIMEOUT_S[name]:.0f} s"
                                 + (f" ({st.detail})" if st.detail else ""))
            time.sleep(0.5)

    def pg_home(self) -> Path:
        """`DIR/pg`; as root, when the postgres user cannot enter DIR (the data dir, and so
        the default DIR under it, is 0700), a folder of this stack in postgres's home."""
        home = self.dir / "pg"
        if os.geteuid() != 0 or postgres_can_enter(self.dir.parent):
            return home
        import pwd

        tag = hashlib.sha256(str(self.dir).encode()).hexdigest()[:12]
        return Path(pwd.getpwnam("postgres").pw_dir) / "ragscope-stack" / tag

    def _start_postgres(self) -> dict:
        pg = Postgres(self.pg_home(), self.ports["postgres"], self._log("postgres"))
        pg.start()
        return {"pid": pg.pid(), "port": self.ports["postgres"], "pgdata": str(pg.data),
                "started_at": time.time()}

    def _start_chroma(self) -> dict:
        chroma = shutil.which("chroma", path=f"{Path(sys.executable).parent}{os.pathsep}"
                                             f"{os.environ.get('PATH', '')}")
        if not chroma:
            raise StackError("the `chroma` command (chromadb package) is not on PATH")
        return self._spawn("chroma", [chroma, "run", "--host", "127.0.0.1", "--port",
                                      str(self.ports["chroma"]), "--path",
                                      str(self.dir / "chroma")])

    def _start_search(self) -> dict:
        node = SearchNode(self.settings(), self.ports["search"])
        st = node.start(timeout=START_TIMEOUT_S["search"])
        return {"pid": st.pid, "port": self.ports["search"], "started_at": time.time()}

    def _start_api(self) -> dict:
        log_config = self.dir / "uvicorn-log.json"
        log_config.write_text(json.dumps(UVICORN_LOG_CONFIG))
        return self._spawn("api", [
            sys.executable, "-m", "uvicorn", "--factory", "backend.api.cli:worker_app",
            "--host", "127.0.0.1", "--port", str(self.ports["api"]),
            "--workers", str(self.workers), "--log-config", str(log_config),
            "--no-server-header", "--no-proxy-headers", "--timeout-graceful-shutdown", "10"])

    def _start_dashboard(self) -> dict:
        return self._spawn("dashboard", dashboard_command(
            "127.0.0.1", self.ports["dashboard"], self.settings()))

    def _start_scheduler(self) -> dict:
        return self._spawn("scheduler", [sys.executable, "-m", "backend", "crawl-scheduler"])

    # ---- status ------------------------------------------------------------------------
    def status(self) -> list[PartStatus]:
        parts = self.state().get("parts", {})
        return [self._part_status(n, parts[n]) for n in PARTS if n in parts]

    def _part_status(self, name: str, part: dict) -> PartStatus:
        pid, port = part.get("pid"), part.get("port")
        running = bool(pid) and alive(pid)
        healthy, detail = (self._healthy(name, part) if running else (False, ""))
        return PartStatus(name, pid, port, running, healthy, str(self._log(name)), detail)

    def _healthy(self, name: str, part: dict) -> tuple[bool, str]:
        port = part.get("port")
        if name == "postgres":
            return Postgres.answers(port)
        if name == "chroma":
            return http_ok(f"http://127.0.0.1:{port}/api/v2/heartbeat")
        if name == "search":
            st = SearchNode(self.settings(), port).status()
            return st.running, f"{st.engine} {st.version}" if st.running else ""
        if name == "api":  # answering, and every worker through its start-up
            ok, detail = http_ok(f"http://127.0.0.1:{port}/api/health")
            ready = len(api_workers_ready(self._log("api"), part.get("log_offset", 0)))
            want = self.state().get("workers", self.workers)
            workers = f"{ready}/{want} workers"
            return ok and ready >= want, workers if ok else f"{workers}; {detail}"
        if name == "dashboard":
            return http_ok(f"http://127.0.0.1:{port}/_stcore/health")
        return True, ""  # the scheduler: no port, its process runs

    # ---- stop --------------------------------------------------------------------------
    def stop(self) -> list[str]:
        """Stop every part started here, in reverse order; the names of those that ran."""
        state = self.state()
        parts = state.get("parts", {})
        stopped = []
        for name in reversed(PARTS):
            part = parts.get(name)
            if not part:
                continue
            if name == "postgres":
                was = Postgres(Path(part["pgdata"]).parent, part["port"],
                               self._log("postgres")).stop()
            elif name == "search":
                was = SearchNode(self.settings(), part["port"]).stop()
            else:
                was = terminate_group(part.get("pid"))
            if was:
                stopped.append(name)
            parts.pop(name)
            self._save(state)
        return stopped


# ---- probes --------------------------------------------------------------------------
def api_workers_ready(log: Path, offset: int = 0) -> set[int]:
    """Pids of the live uvicorn workers whose start-up completed, from the stack's api.log
    after `offset` (where this start began writing)."""
    pids = set()
    try:
        with open(log, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return pids
    for line in text.splitlines():
        if "Application startup complete" in line and "[" in line:
            pid = line.split("[", 1)[1].split("]", 1)[0]
            if pid.isdigit() and alive(int(pid)):
                pids.add(int(pid))
    return pids


def status_json(parts: list[PartStatus]) -> str:
    return json.dumps([asdict(p) for p in parts])


def dashboard_command(address: str, port: int, settings: Settings | None = None) -> list[str]:
    """`streamlit run app.py` (app.py declares the `st.App` that puts the upload gate in
    front of Streamlit) with Streamlit's upload limit set to the ingestion limit. Here, below
    the CLI, because both `up` (backend/cli/up.py) and the stack start the dashboard."""
    from backend.security.upload_gate import upload_limit_mb

    return [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.maxUploadSize", str(upload_limit_mb(settings or Settings()))]
