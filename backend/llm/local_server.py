"""The child process that runs llama.cpp's OpenAI-compatible server (from the xllamacpp wheel)
for the `local` provider. `backend.llm.local.LocalServer` runs this file by its path (it
imports nothing of ragscope, so it works from any working directory) and stops it.

Protocol over its pipes: the parent writes one JSON line to stdin (model path, port, context
size, threads, alias, API key — the key never appears in argv or the environment); the child
loads the model, starts the server on 127.0.0.1 and prints one JSON line `{"url": ...}` to
stdout. It then waits for stdin to close — the parent stopping it, or the parent dying — and
shuts the server down. llama.cpp's log goes to stderr, which the parent keeps for error
messages. Running the server in a child keeps a native crash (or a model that eats all memory)
out of the dashboard's process."""
from __future__ import annotations

import json
import sys


def serve(config: dict) -> int:
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = config["model"]
    p.hostnames = ["127.0.0.1"]
    p.port = int(config.get("port") or 0)  # 0: the OS picks a free port
    p.n_ctx = int(config["n_ctx"])
    p.n_parallel = 1
    threads = int(config["threads"])
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.model_alias = {config["alias"]}
    p.api_keys = [config["api_key"]]
    p.ui = False  # no web UI: only the API
    try:
        server = xlc.Server(p)  # loads the model, then listens; raises RuntimeError on failure
    except RuntimeError as e:
        print(json.dumps({"error": str(e)}), flush=True)
        return 1
    print(json.dumps({"url": server.listening_address}), flush=True)
    sys.stdin.read()  # until the parent closes the pipe (or dies)
    del server  # stops the HTTP server and frees the model
    return 0


def main() -> int:
    line = sys.stdin.readline()
    if not line:
        return 2
    return serve(json.loads(line))


if __name__ == "__main__":
    raise SystemExit(main())
