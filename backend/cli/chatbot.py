"""Chatbot commands of `python -m backend` (`register(subparsers)`):

    chatbot create --url URL [--name N] [--slug S] [--collection C] [--use-collection C ...]
                   [--max-pages N] [--depth N] [--delay S] [--provider P] [--model M]
                   [--no-build] [--publish]     create, build (crawl + embed), generate fields
    chatbot list                                 bots with status, collections, build state
    chatbot ask SLUG QUESTION [--session UUID] [--json]
    chatbot build|resume|publish|unpublish SLUG
    chatbot stats SLUG [--json]                  the test page's statistics
    chatbot delete SLUG [--yes]                  delete it and its conversations; its
                                                 collections stay (asks unless --yes)

The CLI acts as the local administrator `cli` (whoever may run it may read the data dir);
roles are checked for dashboard users. Errors are RagscopeError subclasses, printed as one
line by the main CLI."""
from __future__ import annotations

import json
import sys

from backend.security.access import Actor
from backend.cli.crawl import crawl_progress_bar
from backend.config import Settings

CLI_ACTOR = Actor("cli", "admin")


def _service():
    from backend.chatbots.service import ChatbotService
    from backend.services.container import Ragscope

    return ChatbotService(Ragscope(Settings()))


def _build_report(svc, slug: str) -> int:
    p = svc.build_progress(slug)
    print(f"build {p.status}: {p.pages_done} pages crawled, {p.documents} documents, "
          f"{p.chunks_embedded} chunks embedded")
    if p.problem:
        print(f"problem: {p.problem}", file=sys.stderr)
    return 0 if p.status == "done" and p.chunks_embedded else 1


def _build(svc, slug: str, quiet: bool, resume: bool = False) -> int:
    bar, update = crawl_progress_bar(quiet)
    try:
        if resume:
            svc.resume_build(CLI_ACTOR, slug, background=False, on_progress=update)
        else:
            svc.start_build(CLI_ACTOR, slug, background=False, on_progress=update)
    finally:
        bar.close()
    return _build_report(svc, slug)


def cmd_create(a) -> int:
    svc = _service()
    crawl = {k: v for k, v in {"delay_s": a.delay, "concurrency": a.concurrency,
                               "render_js": a.render_js or None}.items() if v is not None}
    config = {k: v for k, v in {"provider": a.provider, "model": a.model}.items() if v}
    bot = svc.create(CLI_ACTOR, url=a.url or "", name=a.name or "", slug=a.slug or "",
                     collection=a.collection or "", collections=a.use_collection or [],
                     max_pages=a.max_pages, max_depth=a.depth, crawl_options=crawl, **config)
    print(f"chatbot '{bot.slug}' ({bot.name}) created as draft; collections: "
          f"{', '.join(bot.config.collections)}")
    rc = 0
    if a.url and not a.no_build:
        rc = _build(svc, bot.slug, a.quiet)
    if rc == 0 and svc.build_progress(bot.slug).chunks_embedded:
        bot = svc.fill_empty(CLI_ACTOR, bot.slug)
        for f in ("description", "system_prompt", "welcome_message", "fallback_message"):
            print(f"{f}: {getattr(bot.config, f)}")
        if a.publish:
            svc.publish(CLI_ACTOR, bot.slug)
            print(f"published: ask it with `python -m backend chatbot ask {bot.slug} …`")
    return rc


def cmd_list(a) -> int:
    svc = _service()
    bots = svc.list(CLI_ACTOR)
    if not bots:
        print("no chatbots")
    for b in bots:
        p = svc.build_progress(b.slug)
        print(f"{b.slug:<30} {b.status:<9} v{b.config_version:<3} {b.name}  "
              f"[{', '.join(b.config.collections)}] build {p.status}, "
              f"{p.chunks_embedded} chunks")
    return 0


def cmd_ask(a) -> int:
    svc = _service()
    ans = svc.ask(CLI_ACTOR, a.slug, a.question, session=a.session)
    if a.json:
        print(json.dumps({"answer": ans.text, "fallback": ans.fallback_used,
                          "session": ans.session, "sources": ans.sources}, default=str,
                         ensure_ascii=False, indent=2))
        return 0
    print(ans.text)
    for s in ans.sources:
        mark = "*" if s.get("cited") else " "
        print(f" {mark}[{s['n']}] {s.get('score', 0):.3f} {s.get('title', '')} "
              f"{s.get('source_uri', '')}", file=sys.stderr)
    print(f"session {ans.session}", file=sys.stderr)
    return 0


def cmd_stats(a) -> int:
    st = _service().stats(CLI_ACTOR, a.slug)
    if a.json:
        print(json.dumps(st.to_dict(), default=str, indent=2))
        return 0
    rate = "-" if st.fallback_rate is None else f"{st.fallback_rate:.0%}"
    avg = "-" if st.avg_response_ms is None else f"{st.avg_response_ms / 1000:.2f} s"
    print(f"documents {st.documents}, chunks {st.chunks}; conversations {st.conversations}, "
          f"messages {st.messages}, answers {st.answers}; average response time {avg}; "
          f"fallback rate {rate} ({st.fallbacks} of {st.answers})")
    return 0


def cmd_delete(a) -> int:
    svc = _service()
    if not a.yes:
        st = svc.stats(CLI_ACTOR, a.slug)  # NotFound before asking
        if not sys.stdin.isatty():
            print(f"not deleted: confirm deleting chatbot '{a.slug}' and its "
                  f"{st.conversations} conversation(s) with --yes", file=sys.stderr)
            return 1
        reply = input(f"Delete chatbot '{a.slug}' and its {st.conversations} "
                      "conversation(s)? Its collections stay. [y/N] ")
        if reply.strip().lower() not in ("y", "yes"):
            print("not deleted")
            return 1
    d = svc.delete(CLI_ACTOR, a.slug)
    print(f"chatbot '{d.slug}' deleted with {d.conversations} conversation(s) and "
          f"{d.messages} message(s); collections kept: {', '.join(d.collections_kept)}")
    return 0


def cmd_simple(a) -> int:
    svc = _service()
    if a.action in ("build", "resume"):
        return _build(svc, a.slug, a.quiet, resume=a.action == "resume")
    bot = getattr(svc, a.action)(CLI_ACTOR, a.slug)
    print(f"chatbot '{bot.slug}' is {bot.status} (version {bot.config_version})")
    return 0


def register(sub) -> None:
    x = sub.add_parser("chatbot", help="chatbots: create from a URL, list, ask, build, publish")
    cs = x.add_subparsers(dest="chatbot_cmd", required=True)
    c = cs.add_parser("create", help="create a chatbot, crawl its URL and generate its texts")
    c.add_argument("--url", help="site to crawl into the bot's collection")
    c.add_argument("--name", help="display name (default: 'Chatbot for HOST')")
    c.add_argument("--slug", help="^[a-z0-9-]+$ (default: from the name or host)")
    c.add_argument("--collection", help="collection to crawl into (default: from the URL)")
    c.add_argument("--use-collection", action="append", metavar="C",
                   help="an existing collection the bot also answers from (repeatable)")
    c.add_argument("--max-pages", type=int, default=50)
    c.add_argument("--depth", type=int, default=3)
    c.add_argument("--delay", type=float, help="seconds between requests (default 1)")
    c.add_argument("--concurrency", type=int)
    c.add_argument("--render-js", action="store_true",
                   help="run the pages' JavaScript in Chromium before extraction")
    c.add_argument("--provider", help="chat provider (default extractive)")
    c.add_argument("--model")
    c.add_argument("--no-build", action="store_true", help="create only; build later")
    c.add_argument("--publish", action="store_true", help="publish when the build has content")
    c.add_argument("-q", "--quiet", action="store_true")
    c.set_defaults(fn=cmd_create)
    c = cs.add_parser("list", help="chatbots with status, collections and build state")
    c.set_defaults(fn=cmd_list)
    c = cs.add_parser("ask", help="ask a chatbot (its collections and settings)")
    c.add_argument("slug")
    c.add_argument("question")
    c.add_argument("--session", help="continue a conversation of this bot")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_ask)
    c = cs.add_parser("stats", help="conversations, messages, response time, fallback rate")
    c.add_argument("slug")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_stats)
    c = cs.add_parser("delete", help="delete a chatbot and its conversations (collections "
                                     "stay)")
    c.add_argument("slug")
    c.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    c.set_defaults(fn=cmd_delete)
    for action, text in (("build", "crawl the bot's URL again"),
                         ("resume", "resume a cancelled or interrupted build"),
                         ("publish", "publish (needs prompt, messages and content)"),
                         ("unpublish", "back to draft; the configuration stays")):
        c = cs.add_parser(action, help=text)
        c.add_argument("slug")
        c.add_argument("-q", "--quiet", action="store_true")
        c.set_defaults(fn=cmd_simple, action=action)


__all__ = ["register"]
