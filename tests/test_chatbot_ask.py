"""Asking a chatbot: the chat's answer path on the bot's collections only, with sources and
scores; the bot's fallback message when the documents hold no evidence; conversations of
the bot (kept out of the chat page's list); who may ask; the CLI end to end."""
from __future__ import annotations

import argparse

import pytest

from backend.security.auth import PermissionDenied
from backend.chat.service import ChatService
from backend.cli import chatbot as cli_chatbot
from backend.ingest.service import Ingestor
from tests.chatbot_site import EDITOR, QUICK, VIEWER, bot_service, build_ferry_site
from tests.crawl_site_support import Site

FALLBACK = "Sorry, the ferry pages do not say. Call the Nordhafen ticket office."


def test_ask_uses_the_bots_collections_and_its_fallback(make_rs):
    with Site() as site:
        build_ferry_site(site)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        Ingestor(rs).ingest_bytes(
            b"Pizza Margherita at the Tokyo harbour food market costs 1200 yen. The market "
            b"sells single tickets for the harbour cruise too.",
            "market.txt", collection="tokyo-market")
        svc = bot_service(rs)
        bot = svc.create(EDITOR, url=site.base + "/", name="Ferry Bot", crawl_options=QUICK,
                         fallback_message=FALLBACK)
        svc.start_build(EDITOR, bot.slug, background=False)

        ans = svc.ask(EDITOR, bot.slug, "How much is a single ticket for adults?")
        assert "7.50" in ans.text and not ans.fallback_used
        cited = [s for s in ans.sources if s["cited"]]
        assert cited and cited[0]["source_uri"] == site.base + "/tickets"
        assert all(s["source_uri"].startswith(site.base) for s in ans.sources)
        assert all(0 < s["score"] <= 1 for s in ans.sources)

        nothing = svc.ask(EDITOR, bot.slug, "What does pizza cost at the Tokyo market?",
                          session=ans.session)
        assert nothing.fallback_used and nothing.text == FALLBACK
        assert nothing.session == ans.session  # the conversation goes on
        msgs = svc.conversation(EDITOR, bot.slug, ans.session)
        assert [m.role for m in msgs] == ["user", "assistant"] * 2
        assert msgs[-1].content == FALLBACK  # stored as shown
        assert ChatService(rs).list_sessions(EDITOR.username) == []  # not in the chat page

        with pytest.raises(PermissionDenied):  # viewers only ask published bots
            svc.ask(VIEWER, bot.slug, "When does the ferry leave?")
        for f in ("system_prompt", "welcome_message"):
            svc.update(EDITOR, bot.slug, **{f: svc.generate(EDITOR, bot.slug, f).text})
        svc.publish(EDITOR, bot.slug)
        v = svc.ask(VIEWER, bot.slug, "When does the last winter ferry leave Nordhafen?")
        assert "20:10" in v.text and v.session != ans.session
        other = svc.ask(VIEWER, bot.slug, "How many cars fit on the car deck?",
                        session=ans.session)  # another user's conversation is not reused
        assert other.session not in (ans.session,) and "24" in other.text
        draft = svc.unpublish(EDITOR, bot.slug)
        assert draft.status == "draft" and draft.config.fallback_message == FALLBACK
        with pytest.raises(PermissionDenied):
            svc.ask(VIEWER, bot.slug, "When does the ferry leave?")


def test_cli_create_list_ask(make_rs, monkeypatch, capsys):
    with Site() as site:
        build_ferry_site(site)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        svc = bot_service(rs)
        monkeypatch.setattr(cli_chatbot, "_service", lambda: svc)
        parser = argparse.ArgumentParser()
        cli_chatbot.register(parser.add_subparsers(dest="cmd"))
        run = lambda *argv: (lambda a: a.fn(a))(parser.parse_args(list(argv)))
        assert run("chatbot", "create", "--url", site.base + "/", "--slug", "ferry",
                   "--delay", "0", "--concurrency", "1", "--publish", "-q") == 0
        out = capsys.readouterr().out
        assert "4 pages crawled" in out and "Lindholm Ferry Service" in out
        assert "published" in out
        assert run("chatbot", "list") == 0
        assert "ferry" in capsys.readouterr().out
        assert run("chatbot", "ask", "ferry", "How much is a bicycle ticket?") == 0
        out = capsys.readouterr()
        assert "2 euros" in out.out and site.base + "/tickets" in out.err
        from backend.errors import InvalidChatbot

        with pytest.raises(InvalidChatbot, match="already exists"):
            run("chatbot", "create", "--url", site.base + "/", "--slug", "ferry")
