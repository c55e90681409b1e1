"""`search` and `ask` through a running ragscope process (issue 15, "instant CLI").

A `python -m backend api` process (also the one `up` starts beside the dashboard) has the
embedding model, the indexes and the store open. When it runs, the CLI's `search` and `ask`
hand their arguments to it instead of loading the model themselves, and print what it sends
back exactly as they print a local result.

- Discovery: the serving process writes `run/api.json` into the data dir (0600, in the 0700
  data dir: readable by exactly those who can read the database anyway) with its pid, URL and
  a random secret, and removes it when it stops. The CLI uses it when the pid is alive and
  the server answers; otherwise (or with `--local`) it works in-process as before.
- Authority: the secret stands for the operator who runs both processes. The server accepts
  it only from loopback clients and compares it in constant time; `--as USER` is resolved
  by the server exactly as the CLI resolves it (the user's role and access groups). The
  routes (backend/api/routes_local.py) are not in the OpenAPI spec and answer 404 without a
  secret configured.
- One code path: `calls.search_result` and `calls.ask_events` are what both sides run — the
  CLI in-process, or the server on the CLI's behalf — so the output cannot drift apart.
- Halves: the client (backend/cli/bridge.py: find the process, send, read the reply), the
  server (backend/api/local_bridge.py: announce, accept; backend/api/routes_local.py: the
  routes). Both import this package, neither imports the other: `api` never imports `cli`.
  `protocol` is what travels (run file, header, argument names), `calls` what runs.
"""
