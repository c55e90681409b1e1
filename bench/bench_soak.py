"""Soak bench: several processes on one data dir for minutes, then `check --full`.

    python bench/bench_soak.py                    # 10 minutes, print the result
    python bench/bench_soak.py --minutes 2        # a short run
    python bench/bench_soak.py --record           # also write the section in docs/benchmarks.md

What runs at the same time on one fresh data dir (after the sample corpus is ingested):
- a dashboard-like **reader** process: one long-lived `Ragscope`, hybrid retrieval of goldenset
  questions in a loop, and a staleness probe: for every file the ingesters report as ingested,
  it searches the vector index with the file's unique sentence until it finds it, and records
  how long after the ingest command returned that took;
- two **CLI ingest** loops (`--ingesters`): each round writes new Markdown files and runs
  `python -m backend ingest`, every third round changes an earlier file (a new version), every
  fifth round deletes an earlier document (`python -m backend delete`);
- a **scheduled crawl**: `python -m backend crawl-scheduler` with a source on a local site
  (127.0.0.1, allow-listed) whose pages change every minute, scheduled every minute (cron).
Afterwards: `python -m backend check --full` must report zero lost or unreadable entries, and
no process may have logged an error."""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DOC_SECTION = "Soak: several processes on one data dir (issue 10)"
WORDS = ("Pumpe Ventil Druck Leitung Wartung Prüfung Filter Behälter Messung Sensor Anlage "
         "Störung Schieber Hydrant Zähler Netz Speicher Reinigung Protokoll Abnahme valve "
         "pressure sensor outage inspection gateway retention backup").split()


# ---- the local site ----------------------------------------------------------------------


def _everything():
    """The scope of a bench: every collection (backend/security/access.py)."""
    from backend.security.access import Scope

    return Scope.everything()

def _site(pages: int, period_s: float) -> ThreadingHTTPServer:
    started = time.time()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):  # quiet
            pass

        def do_GET(self):
            m = re.fullmatch(r"/(?:p(\d+)\.html)?", self.path)
            if self.path == "/robots.txt":
                body, ctype = b"User-agent: *\nAllow: /\n", "text/plain"
            elif m:
                n = int(m.group(1) or 0)
                rev = int((time.time() - started) // period_s) if n % 3 == 0 else 0
                links = "".join(f'<a href="/p{i}.html">Seite {i}</a> ' for i in range(pages))
                rng = random.Random(n * 1000 + rev)
                text = " ".join(rng.choice(WORDS) for _ in range(120))
                body = (f"<html><head><title>Seite {n}</title></head><body><h1>Seite {n}</h1>"
                        f"<p>Revision {rev}. {text}.</p><nav>{links}</nav></body></html>").encode()
                ctype = "text/html; charset=utf-8"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---- roles (run as subprocesses of this script) ------------------------------------------

def role_reader(data: Path, work: Path, stop: Path) -> None:
    import backend  # noqa: F401
    import yaml

    from backend.config import Settings
    from backend.retrieval import Retriever
    from backend.services.container import Ragscope
    from backend.store.models import Chunk

    rs = Ragscope(Settings(data_dir=data))
    retriever = Retriever(rs)
    questions = [q["question"] for q in yaml.safe_load(
        (ROOT / "eval" / "goldenset_sample.yaml").read_text(encoding="utf-8"))["queries"]]
    lat, errors, stale, found = [], [], [], set()
    probes_path = work / "probes.jsonl"
    pending: dict[str, float] = {}
    read = 0
    last_probe = 0.0
    grace_until = None  # after STOP: only probe what is still pending, for up to 60 s
    while True:
        if stop.exists():
            grace_until = grace_until or time.monotonic() + 60
            if time.monotonic() > grace_until or (not pending and read and (
                    work / "ingesters.done").exists()):
                break
            time.sleep(0.2)
        else:
            q = random.choice(questions)
            t = time.perf_counter()
            try:
                retriever.retrieve(q, scope=_everything())
                lat.append((time.perf_counter() - t) * 1000)
            except Exception as e:  # recorded, the soak goes on
                errors.append(f"retrieve: {type(e).__name__}: {e}")
            if time.monotonic() - last_probe < 0.25:
                continue
        last_probe = time.monotonic()
        if probes_path.exists():
            lines = probes_path.read_text(encoding="utf-8").splitlines()
            for line in lines[read:]:
                p = json.loads(line)
                pending[p["phrase"]] = p["t"]
            read = len(lines)
        for phrase, t0 in list(pending.items()):
            try:  # the chunk holding the phrase (the store is fresh), found by its own vector?
                with rs.store.session() as s:
                    ids = [c.id for c in s.query(Chunk).filter(Chunk.text.contains(phrase))]
                vecs = rs.vector_index.get_embeddings(ids)
                hits = {h.chunk_id for cid, v in vecs.items() for h in rs.vector_index.search(v, 3)}
                if ids and set(ids) & hits:
                    stale.append(max(0.0, time.time() - t0))
                    found.add(phrase)
                    del pending[phrase]
            except Exception as e:
                errors.append(f"probe: {type(e).__name__}: {e}")
    out = {"queries": len(lat), "errors": errors[:20], "error_count": len(errors),
           "latency_ms": lat, "staleness_s": stale, "not_found": sorted(pending),
           "vector_reopens": getattr(rs.vector_index._source, "reopens", None)}
    (work / "reader.json").write_text(json.dumps(out), encoding="utf-8")


def role_ingester(data: Path, work: Path, stop: Path, tag: str) -> None:
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data)}
    rng = random.Random(tag)
    folder = work / f"in-{tag}"
    folder.mkdir()
    rounds, files, failures, errors, changed, deleted, secs = 0, 0, 0, [], 0, 0, []
    written: list[Path] = []
    while not stop.exists():
        rounds += 1
        batch = folder / f"r{rounds:04d}"
        batch.mkdir()
        phrases = []
        for i in range(5):
            phrase = f"Kennung {tag}-{rounds}-{i}-{rng.randrange(1 << 30)} meldet {rng.choice(WORDS)}."
            body = " ".join(rng.choice(WORDS) for _ in range(150))
            f = batch / f"{tag}_{rounds}_{i}.md"
            f.write_text(f"# Bericht {tag} {rounds} {i}\n\n{phrase}\n\n{body}\n", encoding="utf-8")
            written.append(f)
            phrases.append(phrase)
        targets = [batch]
        if rounds % 3 == 0 and len(written) > 10:  # a new version of an earlier file
            old = rng.choice(written[:-5])
            old.write_text(old.read_text(encoding="utf-8") + f"\nNachtrag {rounds}.\n",
                           encoding="utf-8")
            targets.append(old)
            changed += 1
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "backend", "ingest", *map(str, targets), "-q",
                            "--collection", f"soak-{tag}"], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        secs.append(time.perf_counter() - t)
        files += len(targets) + 4
        if r.returncode != 0:
            failures += 1
            errors.append(r.stderr.strip().splitlines()[-1:] or [f"exit {r.returncode}"])
        else:
            with open(work / "probes.jsonl", "a", encoding="utf-8") as fh:
                for p in phrases:
                    fh.write(json.dumps({"phrase": p, "t": time.time()}) + "\n")
        if rounds % 5 == 0 and len(written) > 15:
            victim = written.pop(rng.randrange(0, len(written) - 10))
            d = subprocess.run([sys.executable, "-m", "backend", "delete", victim.name],
                               cwd=ROOT, env=env, capture_output=True, text=True)
            if d.returncode == 0:
                deleted += 1
            else:
                errors.append(d.stderr.strip().splitlines()[-1:])
    out = {"rounds": rounds, "files": files, "failed_rounds": failures, "errors": errors[:20],
           "changed": changed, "deleted": deleted, "round_s": secs}
    (work / f"ingester-{tag}.json").write_text(json.dumps(out), encoding="utf-8")


# ---- the run ------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def run(minutes: float, ingesters: int, keep: Path | None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="ragscope-soak-")) if keep is None else keep
    data = work / "var"
    stop = work / "STOP"
    site = _site(pages=15, period_s=60)
    port = site.server_port
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data),
           "RAGSCOPE_CRAWL_ALLOWED_HOSTS": f"127.0.0.1:{port}"}
    t0 = time.time()
    r = subprocess.run([sys.executable, "-m", "backend", "ingest", str(ROOT / "data" / "samples"),
                        "--collection", "samples", "-q"], cwd=ROOT, env=env, capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"ingesting the samples failed: {r.stderr}")

    os.environ.update(env)
    import backend  # noqa: F401
    from backend.config import Settings
    from backend.crawl.guard import UrlGuard
    from backend.crawl.sources import SourceRepo, SourceSpec
    from backend.store import Store

    settings = Settings()
    store = Store(settings.db_url)
    SourceRepo(store, UrlGuard(settings.crawl_allowed_hosts)).create(SourceSpec(
        name="soak-site", start_url=f"http://127.0.0.1:{port}/", collection="soak-web",
        max_pages=15, max_depth=2, delay_s=0.0, concurrency=2, schedule_kind="cron",
        schedule_value="* * * * *"))

    me = [sys.executable, str(Path(__file__).resolve())]
    procs = {"reader": subprocess.Popen(me + ["--role", "reader", str(data), str(work)],
                                        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True),
             "crawl-scheduler": subprocess.Popen(
                 [sys.executable, "-m", "backend", "crawl-scheduler"], cwd=ROOT, env=env,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)}
    for i in range(ingesters):
        procs[f"ingester-{i}"] = subprocess.Popen(
            me + ["--role", "ingester", str(data), str(work), f"i{i}"], cwd=ROOT, env=env,
            stderr=subprocess.PIPE, text=True)
    print(f"soak: {minutes:g} min on {data} (site on port {port})", file=sys.stderr)
    deadline = time.time() + minutes * 60
    while time.time() < deadline:
        time.sleep(5)
        dead = [n for n, p in procs.items() if p.poll() is not None]
        if dead:
            print(f"soak: {dead} ended early", file=sys.stderr)
            break
    stop.write_text("stop")
    stderr: dict[str, str] = {}
    order = [n for n in procs if n.startswith("ingester")] + ["crawl-scheduler", "reader"]
    for name in order:
        p = procs[name]
        if name == "crawl-scheduler":
            p.send_signal(signal.SIGTERM)
        if name == "reader":
            (work / "ingesters.done").write_text("done")
        try:
            _, err = p.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        stderr[name] = err or ""
    site.shutdown()
    soak_s = time.time() - t0

    with store.session() as s:
        from sqlalchemy import text
        runs = s.execute(text("SELECT status, count(*) FROM crawl_runs GROUP BY status")).all()
    store.dispose()
    t = time.perf_counter()
    check = subprocess.run([sys.executable, "-m", "backend", "check", "--full", "-q"], cwd=ROOT,
                           env=env, capture_output=True, text=True)
    check_s = time.perf_counter() - t
    status = json.loads(subprocess.run([sys.executable, "-m", "backend", "status"], cwd=ROOT,
                                       env=env, capture_output=True, text=True).stdout)
    reader = json.loads((work / "reader.json").read_text())
    ingest = [json.loads((work / f"ingester-i{i}.json").read_text()) for i in range(ingesters)]
    error_lines = {n: [ln for ln in e.splitlines() if re.search(r"Traceback|ERROR|Error", ln)]
                   for n, e in stderr.items()}
    result = {"minutes": minutes, "soak_s": soak_s, "reader": reader, "ingesters": ingest,
              "crawl_runs": {k: v for k, v in runs}, "check_rc": check.returncode,
              "check_out": check.stdout.strip(), "check_s": check_s,
              "counts": status.get("counts", {}), "stderr_errors": error_lines,
              "work": str(work)}
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return result


def env_info() -> dict:
    import platform

    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d"), "nproc": os.cpu_count(),
            "python": platform.python_version(),
            "load": " ".join(f"{x:.1f}" for x in os.getloadavg())}


def markdown(res: dict, e: dict, cmd: str) -> str:
    r = res["reader"]
    ing = res["ingesters"]
    lat, st = r["latency_ms"], r["staleness_s"]
    errs = sum(len(v) for v in res["stderr_errors"].values()) + r["error_count"] + sum(
        i["failed_rounds"] for i in ing)
    ok = res["check_rc"] == 0 and errs == 0 and not r["not_found"]
    return f"""## {DOC_SECTION}

Measured {e['date']} on {e['nproc']} cores, Python {e['python']}; load average at the end
{e['load']} (the machine was shared with other work). Reproduce: `{cmd}`.

**Method.** `bench/bench_soak.py`: on one fresh data dir (sample corpus ingested first), for
{res['minutes']:g} minutes at the same time: a dashboard-like reader process (one long-lived
`Ragscope`, hybrid retrieval of goldenset questions in a loop, plus a staleness probe that
searches the vector index for every newly ingested file's unique sentence until it finds it),
{len(ing)} CLI ingest loops (`python -m backend ingest` of 5 new files per round, a changed
earlier file every third round, `python -m backend delete` every fifth), and
`python -m backend crawl-scheduler` crawling a local 15-page site every minute (a third of
its pages change every minute). Then `python -m backend check --full`.

| what | result |
|---|---|
| reader: hybrid queries | {r['queries']} (p50 {pct(lat, 50):.0f} ms, p95 {pct(lat, 95):.0f} ms), errors {r['error_count']} |
| reader: new files seen by the vector search after the ingest command returned | {len(st)} found, p50 {pct(st, 50):.1f} s, p95 {pct(st, 95):.1f} s, max {max(st) if st else float('nan'):.1f} s; never found: {len(r['not_found'])} |
| reader: vector index reopened (another process committed) | {r['vector_reopens']} times |
| CLI ingest rounds | {sum(i['rounds'] for i in ing)} ({sum(i['files'] for i in ing)} files, {sum(i['changed'] for i in ing)} changed, {sum(i['deleted'] for i in ing)} deleted), failed rounds {sum(i['failed_rounds'] for i in ing)}, round p50 {pct([x for i in ing for x in i['round_s']], 50):.1f} s |
| scheduled crawl runs | {', '.join(f'{k}: {v}' for k, v in res['crawl_runs'].items()) or 'none'} |
| store at the end | {res['counts'].get('documents')} documents, {res['counts'].get('active_chunks')} active chunks |
| errors logged by any process | {sum(len(v) for v in res['stderr_errors'].values())} |
| `check --full` ({res['check_s']:.0f} s) | exit {res['check_rc']}: {res['check_out'].splitlines()[-1] if res['check_out'] else ''} |

Result: **{'zero lost or unreadable entries, zero errors' if ok else 'PROBLEMS — see above'}**.
"""


def record(md_text: str, path: Path) -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pat = re.compile(rf"^## {re.escape(DOC_SECTION)}\n.*?(?=^## |\Z)", re.M | re.S)
    body = md_text.rstrip() + "\n"
    new = pat.sub(lambda _: body + "\n", old, count=1) if pat.search(old) else \
        old.rstrip() + "\n\n" + body
    path.write_text(new.rstrip() + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--ingesters", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="work in this (new) folder and keep it")
    ap.add_argument("--record", action="store_true", help="write the section in docs/benchmarks.md")
    ap.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.role:
        kind, data, work, *rest = a.role
        stop = Path(work) / "STOP"
        if kind == "reader":
            role_reader(Path(data), Path(work), stop)
        else:
            role_ingester(Path(data), Path(work), stop, rest[0])
        return 0
    if a.keep:
        a.keep.mkdir(parents=True)
    res = run(a.minutes, a.ingesters, a.keep)
    cmd = f"python bench/bench_soak.py --minutes {a.minutes:g} --ingesters {a.ingesters}"
    text = markdown(res, env_info(), cmd)
    print(text)
    print(json.dumps({k: v for k, v in res.items() if k not in ("reader", "ingesters")},
                     indent=1, default=str), file=sys.stderr)
    if a.record:
        record(text, ROOT / "docs" / "benchmarks.md")
    r = res["reader"]
    bad = res["check_rc"] != 0 or r["error_count"] or r["not_found"] or any(
        i["failed_rounds"] for i in res["ingesters"]) or any(res["stderr_errors"].values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
