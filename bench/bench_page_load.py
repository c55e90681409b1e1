"""Dashboard page load in a real browser (issue 23, "Fast pages"): how long a signed-in user
waits for a page's content when the page is opened directly (new tab, bookmark, citation
link: a new Streamlit session, signed in again by the re-login cookie) and when it is
opened from the sidebar (a page switch inside the session). Goal: direct load <= 1.5 s
median per page, in-app navigation <= 0.5 s.

The dashboard runs under `streamlit run app.py` on 127.0.0.1 (a free port) against a data
dir with data/samples ingested; Debian's chromium is driven by Playwright (never
`playwright install`). One browser context signs in as admin once; every direct load is a
new tab in that context (so it carries the re-login cookie) and is timed from `goto` until
the page's own content element is visible (not the grey skeleton, not the title alone).
Every direct load also records the HTTP responses >= 400 the browser saw.

    python bench/bench_page_load.py                    # N=5 per page, prints a table
    python bench/bench_page_load.py --data /tmp/pl     # reuse an ingested data dir
    python bench/bench_page_load.py --record "before"  # also write docs/benchmarks.md
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags first)
from tests.browser_support import (  # noqa: E402  (the browser tests' server and sign-in)
    CHROMIUM,
    CHROMIUM_ARGS,
    _settled,
    _signed_in,
    _wait_for_cookie,
    streamlit_app,
)

SECTION = "## Dashboard page load in the browser (issue 23)"
PASSWORD = "bench-page-load-pw-1"
GOAL_DIRECT_S, GOAL_NAV_S = 1.5, 0.5

# page -> (url path, sidebar title, how its content is found: (kind, value))
PAGES = {
    "home": ("", "Home", ("testid", "stMetric")),
    "chat": ("chat", "Chat", ("testid", "stChatInputTextArea")),
    "explorer": ("explorer", "Explorer", ("text", "Documents 1–")),
    "document": ("document", "Document", ("testid", "stDataFrame")),
    "structure": ("structure", "Structure", ("testid", "stDataFrame")),
    "analysis": ("analysis", "Analysis", ("testid", "stDataFrame")),
    "upload": ("upload", "Upload", ("testid", "stFileUploaderDropzone")),
    "query_debug": ("query_debug", "Query debug", ("label", "Query")),
    "evaluation": ("evaluation", "Evaluation", ("heading", "Evaluation")),
    "costs": ("costs", "Costs", ("heading", "Costs & tokens")),
    "admin_users": ("admin_users", "Users", ("testid", "stDataFrame")),
    "settings": ("settings", "Settings", ("heading", "Settings")),
}


def content(page, name: str):
    """The element that says the page has rendered its content."""
    kind, value = PAGES[name][2]
    main = page.get_by_test_id("stMain")
    if kind == "testid":  # the chat input sits below the main block, so: the whole page;
        # the first one shown (not one in a folded expander or another tab)
        return page.get_by_test_id(value).filter(visible=True).first
    if kind == "text":
        return main.get_by_text(value).first
    if kind == "label":
        return main.get_by_label(value, exact=True).first
    if kind == "heading":
        return main.get_by_role("heading", name=value).first
    return main.locator(value).first


def prepare(data: Path) -> None:
    """data/samples ingested into `data` (skipped when it holds a store already)."""
    if (data / "ragscope.db").exists() or any(data.glob("*.db")):
        return
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data))
    outs = Ingestor(rs).ingest_paths([ROOT / "data" / "samples"], collection="samples")
    rs.close()
    print(f"{sum(o.ok for o in outs)} sample documents ingested into {data}", file=sys.stderr)


def direct_load(context, url: str, name: str, errors: list[str]) -> float:
    """Seconds from opening the page's address in a new tab to its content being visible."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.on("response", lambda r: r.status >= 400 and errors.append(f"{r.status} {r.url}"))
    try:
        t = time.perf_counter()
        page.goto(f"{url}/{PAGES[name][0]}", wait_until="commit")
        content(page, name).wait_for(state="visible")
        seconds = time.perf_counter() - t
        _settled(page)  # the session's runs end before the tab is closed
        return seconds
    finally:
        page.close()


def navigate(page, name: str) -> float:
    """Seconds from clicking the page's sidebar link to its content being visible."""
    _, title, _ = PAGES[name]
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    target = (link.get_attribute("href") or "").split("?")[0].rstrip("/")
    t = time.perf_counter()
    link.click()
    page.wait_for_url(lambda u: u.split("?")[0].rstrip("/") == target)
    content(page, name).wait_for(state="visible")
    seconds = time.perf_counter() - t
    _settled(page)
    return seconds


def p95(values: list[float]) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def measure(url: str, names: list[str], repeat: int) -> tuple[list[tuple], list[str]]:
    from playwright.sync_api import sync_playwright

    rows, errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.set_default_timeout(120_000)
            page.goto(url)
            _settled(page)
            _signed_in(page, "admin", PASSWORD)
            _wait_for_cookie(page, "admin", timeout=60)
            page.close()
            for name in names:  # one warm-up load each (first import of the page's modules)
                direct_load(context, url, name, [])
            for name in names:
                direct = [direct_load(context, url, name, errors) for _ in range(repeat)]
                nav_page = context.new_page()
                nav_page.set_default_timeout(120_000)
                other = "explorer" if name == "home" else "home"
                nav = []
                for _ in range(repeat):
                    nav_page.goto(f"{url}/{PAGES[other][0]}")
                    content(nav_page, other).wait_for(state="visible")
                    _settled(nav_page)
                    nav.append(navigate(nav_page, name))
                nav_page.close()
                rows.append((name, statistics.median(direct), p95(direct),
                             statistics.median(nav), p95(nav)))
                print(f"{name:12} direct {rows[-1][1]:.2f} / {rows[-1][2]:.2f} s   "
                      f"nav {rows[-1][3]:.2f} / {rows[-1][4]:.2f} s", file=sys.stderr)
        finally:
            context.close()
            browser.close()
    return rows, errors


def report(label: str, rows: list[tuple], errors: list[str], repeat: int,
           load: tuple[str, str], note: str = "") -> str:
    import streamlit

    lines = [f"### {label}", "",
             f"- Date: {dt.date.today().isoformat()}; {os.cpu_count()} cores; load average "
             f"{load[0]} before, {load[1]} after the run (`uptime`"
             f"{'; ' + note if note else ''}); Python {sys.version.split()[0]}, Streamlit "
             f"{streamlit.__version__}, Debian chromium.",
             f"- `python bench/bench_page_load.py`: N={repeat} per page, signed in as admin, "
             f"sample corpus; seconds until the page's content element is visible.",
             f"- HTTP responses >= 400 during the {repeat * len(rows)} direct loads: "
             f"{len(errors)}" + (f" ({failures(errors)})" if errors else ""),
             "", "| page | direct median | direct p95 | sidebar median | sidebar p95 |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {n} | {a:.2f} | {b:.2f} | {c:.2f} | {d:.2f} |" for n, a, b, c, d in rows]
    return "\n".join(lines) + "\n"


def failures(errors: list[str]) -> str:
    """'404 …/_stcore/health × 55, …': failed responses by status and the address's end."""
    ends = Counter(f"{e.split()[0]} …/{'/'.join(e.split('/')[-2:])}" for e in errors)
    return ", ".join(f"`{k}` × {n}" for k, n in sorted(ends.items()))


def load_average() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.split(
        "load average:")[-1].strip().split(",")[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="loads per page and mode")
    ap.add_argument("--data", type=Path, help="data dir (samples ingested into it if empty)")
    ap.add_argument("--pages", default=",".join(PAGES), help="comma-separated page names")
    ap.add_argument("--record", metavar="LABEL",
                    help=f"append the table under '{SECTION[3:]}' in docs/benchmarks.md")
    ap.add_argument("--machine-note", default="",
                    help="what else ran on the machine, for the record (e.g. 'nothing else ran')")
    args = ap.parse_args(argv)
    data = args.data or Path(tempfile.mkdtemp(prefix="bench_page_load_")) / "var"
    data.mkdir(parents=True, exist_ok=True)
    prepare(data)
    names = [n for n in args.pages.split(",") if n]
    before = load_average()
    with streamlit_app(data, PASSWORD, "bench_page_load.log") as url:
        rows, errors = measure(url, names, args.repeat)
    text = report(args.record or "run", rows, errors, args.repeat, (before, load_average()),
                  args.machine_note)
    print(text)
    if args.record:
        record(text)
    return 0


def record(text: str) -> None:
    """Add one run's table under the section (runs accumulate: before, after, spread)."""
    doc = ROOT / "docs" / "benchmarks.md"
    body = doc.read_text(encoding="utf-8")
    if SECTION not in body:
        body = body.rstrip("\n") + f"\n\n{SECTION}\n\n"
    start = body.index(SECTION)
    nxt = body.find("\n## ", start + len(SECTION))
    end = nxt + 1 if nxt >= 0 else len(body)
    body = body[:end].rstrip("\n") + "\n\n" + text + ("\n" + body[end:] if nxt >= 0 else "")
    doc.write_text(body, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
