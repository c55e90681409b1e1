"""Dashboard page times (issue 4, "Measure"): server-side time to first render of every page
with the sample corpus, and the explorer over 10,000 documents, measured with Streamlit's
AppTest (the script run, no browser). Goal: every page <= 1.5 s.

Each figure is the median of --repeat runs; every run is a new AppTest session signed in
as admin, so the page renders for the first time in that session and st.cache_data starts
empty (AppTest gives each run a fresh cache). Two more figures: the first page run in the
process (opens the store; imports), and the sign-in gate of app.py (home through app.py
minus home run directly).

    python bench/bench_pages.py                  # sample corpus + 10,000 documents
    python bench/bench_pages.py --record         # also write the section in docs/benchmarks.md
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags first)
from backend.ui import state as K  # noqa: E402

SECTION = "## Dashboard page times (issue 4)"
DOC = ROOT / "docs" / "benchmarks.md"
APP = str(ROOT / "app.py")
PAGES = ["home", "explorer", "document", "structure", "upload", "admin_users", "settings"]
OTHER_PAGES = ["query_debug", "chat", "costs"]  # other sessions' pages, measured if present
GOAL_S = 1.5


def build_corpus(data: Path) -> int:
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data))
    outs = Ingestor(rs).ingest_paths([ROOT / "data" / "samples"], collection="samples")
    rs.close()
    return sum(o.ok for o in outs)


def build_many(data: Path, n: int) -> None:
    """n documents with one indexed version each, inserted directly through the store."""
    from backend.config import Settings
    from backend.services.container import Ragscope
    from backend.store import repo
    from backend.store.models import CollectionDocument, Document, DocumentVersion

    rs = Ragscope(Settings(data_dir=data))
    kinds = ["minutes", "manual", "policy", "report", "generic"]
    with rs.store.session() as s:
        colls = [repo.get_or_create_collection(s, f"collection {i}") for i in range(5)]
        s.add_all(colls)
        s.flush()
        for start in range(0, n, 2000):
            docs = [Document(title=f"Document {i:05d} about pumps" if i % 7 else f"Minutes {i}",
                             filename=f"doc{i:05d}.txt", source_kind="file" if i % 3 else "crawl",
                             source_uri=f"file:///bench/doc{i:05d}.txt", file_type="txt",
                             doc_type=kinds[i % 5], status="active")
                    for i in range(start, min(n, start + 2000))]
            s.add_all(docs)
            s.flush()
            vers = [DocumentVersion(document_id=d.id, number=1, sha256=f"{d.id:064x}",
                                    size_bytes=900, filename=d.filename, status="indexed",
                                    is_active=True, text=f"{d.title}. The intake pump number "
                                    f"{d.id} is inspected weekly. " * 8)
                    for d in docs]
            s.add_all(vers)
            s.flush()
            for d, v in zip(docs, vers):
                d.active_version_id = v.id
            s.add_all(CollectionDocument(collection_id=colls[d.id % 5].id, document_id=d.id)
                      for d in docs)
    rs.close()


def add_users(data: Path) -> None:
    from backend.security import auth

    auth.bootstrap(data, admin_password="bench-admin-password")


class Runner:
    def __init__(self, data: Path):
        from streamlit.components.v2.component_manager import BidiComponentManager

        os.environ["RAGSCOPE_DATA_DIR"] = str(data)
        self.components = BidiComponentManager()
        self.components.discover_and_register_components(start_file_watching=False)

    def session(self):
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(APP, default_timeout=120)
        at._bidi_component_manager = self.components  # else AppTest rescans every package
        at.session_state["authentication_status"] = True
        at.session_state["username"] = "admin"
        return at

    def first_run(self) -> float:
        """A new session's first run: app.py (sign-in gate, navigation) + the home page."""
        at = self.session()
        t = time.perf_counter()
        at.run()
        dt_ = time.perf_counter() - t
        assert not at.exception, at.exception
        return dt_

    def page(self, name: str, action=None, expect: str | None = None) -> float:
        """Seconds of the run that shows the page (or of the action's run, if given);
        `expect` must appear in the page's first caption afterwards (a sanity check)."""
        at = self.session()
        at.run()
        at.switch_page(f"pages/{name}.py")
        t = time.perf_counter()
        at.run()
        if action is not None:
            t = time.perf_counter()
            action(at)
        dt_ = time.perf_counter() - t
        assert not at.exception, (name, [e.value for e in at.exception])
        assert not [e.value for e in at.error if e.value.startswith("Access denied")]
        if expect is not None:
            assert expect in at.caption[0].value, (name, at.caption[0].value)
        return dt_


def sample_rows(data: Path, repeat: int) -> list[tuple[str, str, float]]:
    t = time.perf_counter()
    n_docs = build_corpus(data)
    add_users(data)
    print(f"sample corpus: {n_docs} documents ingested in {time.perf_counter() - t:.0f} s",
          file=sys.stderr)
    r = Runner(data)
    rows = [("sample corpus", "first page run in the process (cold)", r.first_run())]
    gate = median(r.first_run, repeat) - median(lambda: r.page("home"), repeat)
    rows.append(("sample corpus", "sign-in gate and navigation (app.py)", max(0.0, gate)))
    for name in PAGES:
        rows.append(("sample corpus", name, median(lambda: r.page(name), repeat)))
    for name in OTHER_PAGES:
        if (ROOT / "pages" / f"{name}.py").exists():
            try:
                rows.append(("sample corpus", name, median(lambda: r.page(name), repeat)))
            except Exception as e:  # not this benchmark's page: report it, go on
                print(f"{name}: could not be measured ({e!r:.200})", file=sys.stderr)
    return rows


def median(fn, repeat: int) -> float:
    return statistics.median(fn() for _ in range(repeat))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--documents", type=int, default=10_000, help="explorer corpus size")
    ap.add_argument("--no-samples", action="store_true",
                    help="skip the sample corpus (its ingestion takes a minute or two)")
    ap.add_argument("--record", action="store_true",
                    help=f"write the section '{SECTION[3:]}' in docs/benchmarks.md")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench_pages_"))
    rows: list[tuple[str, str, float]] = []
    try:
        if not args.no_samples:
            rows += sample_rows(tmp / "samples", args.repeat)

        t = time.perf_counter()
        many = tmp / "many"
        build_many(many, args.documents)
        add_users(many)
        print(f"{args.documents} documents inserted in {time.perf_counter() - t:.0f} s",
              file=sys.stderr)
        r = Runner(many)
        r.first_run()
        label = f"{args.documents:,} documents"
        last = -(-args.documents // 25)
        scenarios = [  # (what, page, action after the first render or None, caption check)
            ("home", "home", None, None),
            ("explorer, page 1", "explorer", None, f"of {args.documents}"),
            (f"explorer, page {last} (pagination)", "explorer",
             lambda at: at.pagination(key=K.EXPLORER_PAGER).set_value(last).run(),
             f"page {last} of {last}"),
            ("explorer, title filter", "explorer",
             lambda at: at.text_input(key=K.EXPLORER_SEARCH).input("minutes").run(), "of "),
            ("explorer, text filter (LIKE over active texts)", "explorer",
             lambda at: at.text_input(key=K.EXPLORER_SEARCH_TEXT).input(
                 f"pump number {args.documents // 2} ").run(), "of 1 ·"),
            ("explorer, collection + type filter", "explorer",
             lambda at: (at.multiselect(key=K.EXPLORER_COLLECTIONS).select("collection 3"),
                         at.multiselect(key=K.EXPLORER_DOC_TYPES).select("policy"), at.run()),
             "of "),
            ("document (newest)", "document", None, None),
        ]
        for what, name, action, expect in scenarios:
            rows.append((label, what, median(lambda: r.page(name, action, expect), args.repeat)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    width = max(len(p) for _, p, _ in rows)
    print(f"{'data':<18} {'page':<{width}}  {'seconds':>8}")
    for data, page, sec in rows:
        flag = "" if sec <= GOAL_S else "  over goal"
        print(f"{data:<18} {page:<{width}}  {sec:8.3f}{flag}")
    if args.record:
        record(section(rows, args.repeat))
    return 0


def section(rows, repeat: int) -> str:
    import streamlit

    lines = [SECTION, "",
             f"- Date: {dt.date.today().isoformat()}; machine: {os.cpu_count()} cores (`nproc`), "
             f"load average {os.getloadavg()[0]:.1f} at the end of the run; "
             f"Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}.",
             "- `python bench/bench_pages.py`: server-side time to first render, measured with "
             "`streamlit.testing.v1.AppTest` (script run only, no browser or network); median "
             f"of {repeat} new sessions signed in as admin, `st.cache_data` empty in each.",
             f"- Goal: every page <= {GOAL_S} s.", "",
             "| data | page | seconds |", "|---|---|---:|"]
    lines += [f"| {d} | {p} | {s:.3f} |" for d, p, s in rows]
    return "\n".join(lines) + "\n"


def record(text: str) -> None:
    """Replace this benchmark's section in docs/benchmarks.md (other sections untouched)."""
    doc = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    lines = doc.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.rstrip() == SECTION), None)
    if start is None:
        new = doc.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        new = "".join(lines[:start]) + text + ("\n" + "".join(lines[end:]) if end < len(lines)
                                               else "")
    DOC.write_text(new, encoding="utf-8")
    print(f"wrote {SECTION[3:]} to {DOC}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
