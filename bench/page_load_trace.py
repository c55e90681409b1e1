"""Where a direct page load's time goes (issue 23, "Fast pages"): for each page, one timeline
of a signed-in direct load in Debian chromium, from `goto` until the page's content element
(bench/bench_page_load.py's) is visible:

- `ws first` / `ws last`: the first and the last WebSocket frame the server sent before the
  content was visible (the script run's deltas: the server's part ends at `ws last`);
- `visible`: the content element is visible (the browser's part is `visible - ws last`);
- the JavaScript chunks the page loaded beyond Streamlit's entry bundle, with their
  sizes and when they finished loading (the lazily loaded element chunks: data grid,
  plotly, syntax highlighter, ...);
- `long tasks`: the main thread's tasks over 50 ms (parsing and running those chunks,
  rendering), summed.

    python bench/page_load_trace.py --data DIR [--pages document,analysis] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags first)
from bench.bench_page_load import PAGES, PASSWORD, content, prepare  # noqa: E402
from tests.browser_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    _settled,
    _signed_in,
    _wait_for_cookie,
    streamlit_app,
)

# registered before any page script: the main thread's long tasks, kept in the page
LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver(l => l.getEntries().forEach(e => window.__longTasks.push(
    [e.startTime, e.duration]))).observe({type: 'longtask', buffered: true});
"""
RESOURCES = """() => performance.getEntriesByType('resource')
    .filter(e => e.name.endsWith('.js') || e.name.endsWith('.css'))
    .map(e => [e.name.split('/').pop(), e.startTime, e.responseEnd, e.decodedBodySize])"""


def timeline(context, url: str, name: str, profile: bool = False) -> dict:
    """One direct load of `name`: frame, chunk and long-task times in ms since `goto`;
    `profile`: also the main thread's JavaScript CPU profile until the content is visible."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    cdp = context.new_cdp_session(page) if profile else None
    if cdp:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
        cdp.send("Profiler.start")
    frames: list[tuple[float, int]] = []
    opened: list[float] = []
    t0 = time.perf_counter()

    def on_ws(ws) -> None:
        opened.append((time.perf_counter() - t0) * 1000)
        ws.on("framereceived", lambda payload: frames.append(
            ((time.perf_counter() - t0) * 1000, len(payload))))

    page.on("websocket", on_ws)
    try:
        t0 = time.perf_counter()
        page.goto(f"{url}/{PAGES[name][0]}", wait_until="commit")
        content(page, name).wait_for(state="visible")
        visible = (time.perf_counter() - t0) * 1000
        hot = top_functions(cdp.send("Profiler.stop")["profile"]) if cdp else []
        # performance.now() is counted from the navigation's start, about `goto`
        chunks = page.evaluate(RESOURCES)
        tasks = page.evaluate("() => window.__longTasks")
        nav = page.evaluate("() => { const n = performance.getEntriesByType('navigation')[0];"
                            " return [n.responseEnd, n.domContentLoadedEventEnd]; }")
        _settled(page)
        before = [f for f in frames if f[0] <= visible]
        return {"visible": visible,
                "ws_first": before[0][0] if before else None,
                "ws_last": before[-1][0] if before else None,
                "ws_frames": len(before), "ws_bytes": sum(f[1] for f in before),
                "chunks": [c for c in chunks if c[2] <= visible],
                "html": nav[0], "dcl": nav[1], "ws_open": opened[0] if opened else None,
                "long_before_ws": sum(d for s, d in tasks if before and s < before[0][0]),
                "long_after_ws": sum(d for s, d in tasks if before and before[-1][0] <= s <= visible),
                "long_ms": sum(d for s, d in tasks if s <= visible),
                "long_n": sum(1 for s, _ in tasks if s <= visible), "hot": hot}
    finally:
        page.close()


def top_functions(profile: dict, n: int = 15) -> list[tuple[str, float]]:
    """The functions with the most self time (ms) in a CDP CPU profile."""
    by_id = {node["id"]: node for node in profile["nodes"]}
    ms: Counter = Counter()
    stamps = profile.get("timeDeltas", [])
    for sample, delta in zip(profile.get("samples", []), stamps[1:] + [0]):
        frame = by_id[sample]["callFrame"]
        where = frame["url"].split("/")[-1]
        ms[f"{frame['functionName'] or '(anonymous)'} {where}:{frame['lineNumber']}"] += \
            delta / 1000
    return ms.most_common(n)


def show(name: str, runs: list[dict]) -> None:
    med = lambda k: statistics.median(r[k] for r in runs if r[k] is not None)  # noqa: E731
    print(f"\n## {name}: visible {med('visible'):.0f} ms; ws first {med('ws_first'):.0f}, "
          f"last {med('ws_last'):.0f} ms ({med('ws_frames'):.0f} frames, "
          f"{med('ws_bytes') / 1024:.0f} KiB); long tasks {med('long_ms'):.0f} ms "
          f"({med('long_n'):.0f}): before the first frame {med('long_before_ws'):.0f}, "
          f"after the last {med('long_after_ws'):.0f}; html {med('html'):.0f}, "
          f"DOMContentLoaded {med('dcl'):.0f}, ws open {med('ws_open'):.0f} ms")
    last = runs[-1]
    lazy = [c for c in last["chunks"] if not c[0].startswith("index.")]
    print(f"   {len(last['chunks'])} js/css files before visible "
          f"({sum(c[3] for c in last['chunks']) / 1024:.0f} KiB decoded); lazily loaded:")
    for file, start, end, size in sorted(lazy, key=lambda c: -c[3])[:12]:
        print(f"   {file:48} {size / 1024:7.0f} KiB  {start:6.0f}-{end:6.0f} ms")
    for fn, ms in last["hot"]:
        print(f"   self {ms:7.0f} ms  {fn[:100]}")


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path)
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true",
                    help="the last load's JavaScript CPU profile: functions by self time")
    args = ap.parse_args(argv)
    data = args.data or Path(tempfile.mkdtemp(prefix="page_load_trace_")) / "var"
    data.mkdir(parents=True, exist_ok=True)
    prepare(data)
    names = [n for n in args.pages.split(",") if n]
    with streamlit_app(data, PASSWORD, "page_load_trace.log") as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(LONG_TASKS)
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(url)
        _settled(page)
        _signed_in(page, "admin", PASSWORD)
        _wait_for_cookie(page, "admin", timeout=60)
        page.close()
        for name in names:
            timeline(context, url, name)  # warm-up: the server's first import of the page
            show(name, [timeline(context, url, name, profile=args.profile and i == args.repeat - 1)
                        for i in range(args.repeat)])
        context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
