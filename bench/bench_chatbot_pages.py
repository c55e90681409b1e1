"""Chatbot pages over a large collection (seed 003 NF04, issue 16): server-side time of the
builder's steps and the bot page when the bot's collection holds N crawled pages (default
5,000), measured with Streamlit's AppTest (script run, no browser). Goal: <= 1.5 s each.

The pages are inserted directly through the store (document, indexed version, two sections,
two chunks each) with a finished crawl run of N pages as the bot's build, so what is measured
is the pages' own reads (build progress and chunk counts, the Generate context, the bot
list), not crawling or embedding. Each figure is the median of --repeat new sessions.

    python bench/bench_chatbot_pages.py [--pages 5000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags first)
from backend.ui import state as K  # noqa: E402
from bench.bench_pages import Runner as PagesRunner  # noqa: E402
from bench.bench_pages import add_users  # noqa: E402


class Runner(PagesRunner):
    def session(self):
        at = super().session()
        at.session_state[K.AUTH_BEGAN] = time.time()  # a session that began now
        return at

TOPICS = ["ferry timetable", "season tickets", "car deck", "harbour berths", "island walks",
          "bicycle transport", "winter service", "group fares", "accessibility", "lost property"]


def build(data: Path, n: int) -> None:
    from backend.security.access import Actor
    from backend.chatbots.service import ChatbotService
    from backend.config import Settings
    from backend.crawl import runs
    from backend.services.container import Ragscope
    from backend.store.chatbot_models import Chatbot
    from backend.store.crawl_models import CrawlSource
    from backend.store.models import (Chunk, Collection, CollectionDocument, Document,
                                      DocumentVersion, Section)

    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        coll = Collection(name="big-site")
        s.add(coll)
        s.flush()
        for start in range(0, n, 1000):
            docs = []
            for i in range(start, min(n, start + 1000)):
                topic = TOPICS[i % len(TOPICS)]
                docs.append(Document(
                    title=f"{topic.capitalize()} {i} | Lindholm Ferry Service",
                    filename=f"page{i}.html", source_kind="crawl", file_type="html",
                    source_uri=f"https://ferry.example.org/p/{i}", status="active"))
            s.add_all(docs)
            s.flush()
            vers = []
            for d in docs:
                text = (f"{d.title}. The Lindholm ferry page {d.id} explains "
                        f"{TOPICS[d.id % len(TOPICS)]} for visitors of Nordhafen harbour. " * 6)
                vers.append(DocumentVersion(document_id=d.id, number=1, sha256=f"{d.id:064x}",
                                            size_bytes=len(text), filename=d.filename,
                                            status="indexed", is_active=True, text=text,
                                            language="en"))
            s.add_all(vers)
            s.flush()
            for d, v in zip(docs, vers):
                d.active_version_id = v.id
                half = len(v.text) // 2
                secs = [Section(version_id=v.id, ordinal=k, level=1, kind="section",
                                title=t, start=a, end=b)
                        for k, (t, a, b) in enumerate([(d.title.split(" | ")[0], 0, half),
                                                       ("Details", half, len(v.text))])]
                s.add_all(secs)
                s.add_all(Chunk(id=f"{v.id:032x}{k:032x}", version_id=v.id, document_id=d.id,
                                ordinal=k, start=a, end=b, text=v.text[a:b])
                          for k, (a, b) in enumerate([(0, half), (half, len(v.text))]))
                s.add(CollectionDocument(collection_id=coll.id, document_id=d.id))
        src = CrawlSource(name="ferry-example-org-big-site", start_url="https://ferry.example.org/",
                          collection="big-site", max_pages=500)
        s.add(src)
        s.flush()
        source_id = src.id
    admin = Actor("admin", "admin")
    bots = ChatbotService(rs)
    bots.create(admin, name="Big Ferry Bot", slug="big", collections=["big-site"])
    run_id = runs.new_run(rs.store, source_id, "manual", [], n)
    with rs.store.session() as s:
        from backend.store.crawl_models import CrawlRun

        run = s.get(CrawlRun, run_id)
        run.counters, run.status = {"pages": n, "new": n}, "done"
        bot = s.query(Chatbot).filter_by(slug="big").one()
        bot.crawl_source_id, bot.crawl_run_id = source_id, run_id
    for f in ("system_prompt", "welcome_message", "fallback_message"):
        bots.update(admin, "big", **{f: bots.generate(admin, "big", f).text})
    bots.publish(admin, "big")
    rs.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    data = Path(tempfile.mkdtemp(prefix="bench_chatbot_")) / "var"
    t = time.perf_counter()
    build(data, args.pages)
    add_users(data)
    print(f"{args.pages} pages inserted in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    r = Runner(data)
    r.first_run()

    def builder(step: int | None, action=None):
        def go(at):
            if step is not None:
                at.session_state[K.BOTS_SLUG], at.session_state[K.BOTS_STEP] = "big", step
                at.query_params["bot"] = "big"
                at.run()
            if action is not None:
                action(at)
        return go

    def generate(at):
        builder(3)(at)
        t0 = time.perf_counter()
        at.button(key=f"{K.BOTS_GENERATE}.system_prompt").click().run()
        assert "Lindholm Ferry Service" in at.text_area(
            key=K.bots_field("big", at.session_state[K.BOTS_NONCE], "system_prompt")).value
        return time.perf_counter() - t0

    scenarios = [
        ("builder, step 1 (new chatbot form)", "chatbot_builder", None),
        ("builder, step 2 (build progress, chunk counts)", "chatbot_builder", builder(2)),
        ("builder, step 3 (configuration)", "chatbot_builder", builder(3)),
        ("builder, step 5 (publish summary)", "chatbot_builder", builder(5)),
        ("chatbots page (list of published bots)", "chatbot", None),
        ("chatbot page ?bot=big (welcome, empty conversation)", "chatbot",
         lambda at: (at.query_params.__setitem__("bot", "big"), at.run())),
    ]
    rows = []
    for what, page, action in scenarios:
        secs = statistics.median(r.page(page, action) for _ in range(args.repeat))
        rows.append((what, secs))
    gen = []
    for _ in range(args.repeat):
        at = r.session()
        at.run()
        at.switch_page("pages/chatbot_builder.py")
        at.run()
        gen.append(generate(at))
    rows.append(("builder, step 3: Generate system prompt (site context)", statistics.median(gen)))
    load = os.getloadavg()[0]
    print(f"\n{args.pages:,} crawled pages in the bot's collection; nproc {os.cpu_count()}, "
          f"load {load:.1f}; median of {args.repeat}\n")
    print("| page | seconds |\n|---|---:|")
    for what, secs in rows:
        print(f"| {what} | {secs:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
