"""Chatbots and access groups: a bot is visible to those who may read every collection it
answers from (admins: every bot); creators may only give a bot collections they may read,
and build into collections they may write; outside the scope a bot or a collection is
unknown, exactly like one that does not exist. The bot page (`?bot=slug`) and its embedded
form (`&embed=true`) through AppTest."""
from __future__ import annotations

import pytest

from backend.security import acl, auth
from backend.security.access import Actor
from backend.security.auth import PermissionDenied
from backend.errors import InvalidChatbot, NotFound
from backend.ingest.service import Ingestor
from backend.ui import state as K
from tests.chatbot_site import bot_service
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    bare,
    components,
    errors,
    open_page,
    plain,
    shared_model,
)

SYSTEM = Actor.system("tests")
ERIKA = Actor("erika", "editor")  # member of g-ferry (write on kb-ferry)
OTTO = Actor("otto", "editor")  # member of no group but `everyone`
VERA = Actor("vera", "viewer")  # member of g-ferry-read
VICTOR = Actor("victor", "viewer")  # member of no group but `everyone`
ADMIN = Actor("ada", "admin")
FERRY_TEXT = (b"# Lindholm ferry\n\n## Tickets\n\nA single ferry ticket for adults costs 7.50 "
              b"euros. Children under 12 travel for 3.20 euros.\n\n## Timetable\n\nThe last "
              b"winter ferry leaves Nordhafen at 20:10.\n")


def restricted_store(rs) -> None:
    """ferry-notes in kb-ferry (erika writes, vera reads), board-notes in kb-board (erika
    writes); town-notes in the default knowledge base (everyone: all users)."""
    users = auth.UserStore(auth.AuthPaths.under(rs.settings.data_dir), bcrypt_rounds=4)
    for a in (ERIKA, OTTO, VERA, VICTOR, ADMIN):
        if users.get(a.username) is None:
            users.add(a.username, a.role, password=f"{a.username}-password-1")
    Ingestor(rs).ingest_bytes(FERRY_TEXT, "ferry.md", collection="ferry-notes")
    Ingestor(rs).ingest_bytes(b"# Town hall\n\nThe town hall opens at 08:00 on weekdays.\n",
                              "town.md", collection="town-notes")
    Ingestor(rs).ingest_bytes(b"# Board\n\nThe board meets on Mondays.\n", "board.md",
                              collection="board-notes")
    for kb, coll in (("kb-ferry", "ferry-notes"), ("kb-board", "board-notes")):
        acl.create_knowledge_base(rs, SYSTEM, kb)
        acl.assign_collection(rs, SYSTEM, coll, kb)
    for group, perm, member, kbs in (("g-ferry", "write", "erika", ("kb-ferry", "kb-board")),
                                     ("g-ferry-read", "read", "vera", ("kb-ferry",))):
        acl.create_group(rs, SYSTEM, group)
        for kb in kbs:
            acl.grant(rs, SYSTEM, group, kb, perm)
        acl.add_member(rs, SYSTEM, group, "user", member)


@pytest.fixture
def svc(make_rs):
    rs = make_rs()
    restricted_store(rs)
    return bot_service(rs)


def published_ferry_bot(svc):
    bot = svc.create(ERIKA, name="Ferry Bot", collections=["ferry-notes"],
                     system_prompt="Answer questions about the Lindholm ferry.",
                     welcome_message="Ask me about the ferry.",
                     fallback_message="The ferry notes do not say.")
    return svc.publish(ERIKA, bot.slug)


def test_a_bot_is_visible_to_readers_of_all_its_collections(svc):
    bot = published_ferry_bot(svc)
    assert svc.open(VERA, bot.slug).published
    assert "7.50" in svc.ask(VERA, bot.slug, "How much is a ticket for adults?").text
    assert [b.slug for b in svc.list(VERA)] == ["ferry-bot"]
    assert [b.slug for b in svc.list(ADMIN)] == ["ferry-bot"]
    with pytest.raises(NotFound) as unknown:
        svc.open(VICTOR, "no-such-bot")
    for who in (VICTOR, OTTO):  # no access to ferry-notes: the bot does not exist for them
        assert svc.list(who) == [] and svc.page(who) == ([], 0)
        with pytest.raises(NotFound) as e:
            svc.open(who, bot.slug)
        assert str(e.value) == str(unknown.value).replace("no-such-bot", bot.slug)
        with pytest.raises(NotFound):
            svc.ask(who, bot.slug, "How much is a ticket for adults?")
    # a bot over two collections needs both: vera reads only one of them
    svc.update(ERIKA, bot.slug, collections=["ferry-notes", "board-notes"])
    assert svc.open(ERIKA, bot.slug).published and svc.list(VERA) == []
    with pytest.raises(NotFound):
        svc.ask(VERA, bot.slug, "When does the board meet?")


def test_editors_outside_the_scope_cannot_see_or_change_the_bot(svc):
    bot = published_ferry_bot(svc)
    for change in (lambda: svc.update(OTTO, bot.slug, description="mine"),
                   lambda: svc.publish(OTTO, bot.slug), lambda: svc.unpublish(OTTO, bot.slug),
                   lambda: svc.generate(OTTO, bot.slug, "name"),
                   lambda: svc.build_status(OTTO, bot.slug),
                   lambda: svc.delete(OTTO, bot.slug)):
        with pytest.raises(NotFound):
            change()
    assert svc.get(bot.slug).config.description == ""
    with pytest.raises(PermissionDenied):  # viewers never change a bot
        svc.update(VERA, bot.slug, description="mine")


def test_creators_only_use_collections_in_their_scope(svc):
    with pytest.raises(InvalidChatbot) as e:
        svc.create(OTTO, name="Copycat", collections=["ferry-notes"])
    assert e.value.errors == {"collections": "unknown collection(s): ferry-notes"}
    with pytest.raises(InvalidChatbot) as missing:
        svc.create(OTTO, name="Copycat", collections=["no-such-notes"])
    assert missing.value.errors["collections"] == "unknown collection(s): no-such-notes"
    assert svc.collection_names(OTTO) == ["town-notes"]
    assert svc.collection_names(ERIKA) == ["board-notes", "ferry-notes", "town-notes"]
    bot = svc.create(OTTO, name="Town Bot", collections=["town-notes"])
    with pytest.raises(InvalidChatbot) as e:  # nor may a change add one
        svc.update(OTTO, bot.slug, collections=["town-notes", "ferry-notes"])
    assert e.value.errors == {"collections": "unknown collection(s): ferry-notes"}


def test_the_build_collection_must_be_writable(make_rs):
    from tests.crawl_site_support import Site

    with Site() as site:
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        restricted_store(rs)
        svc = bot_service(rs)
        # otto joins the group that only reads kb-ferry: he may not crawl into it
        acl.add_member(rs, SYSTEM, "g-ferry-read", "user", "otto")
        with pytest.raises(InvalidChatbot) as e:
            svc.create(OTTO, url=site.base + "/", collection="ferry-notes")
        assert "may read but not change collection 'ferry-notes'" in e.value.errors["collection"]
        with pytest.raises(InvalidChatbot) as e:  # a new collection in a read-only kb
            svc.create(OTTO, url=site.base + "/", collection="ferry-web",
                       knowledge_base="kb-ferry")
        assert "may not add collections to knowledge base 'kb-ferry'" in \
            e.value.errors["collection"]
        bot = svc.create(ERIKA, url=site.base + "/", collection="ferry-web",
                         knowledge_base="kb-ferry")
        assert bot.config.collections == ["ferry-web"]
        assert "ferry-web" in {c.name for c in acl.collections(rs, svc.scope(VERA))}
        with pytest.raises(NotFound):  # an editor outside kb-ferry: no such bot
            svc.start_build(Actor("victor", "editor"), bot.slug)
        with pytest.raises(PermissionDenied, match="may read but not change"):  # read only
            svc.start_build(OTTO, bot.slug)


# ---- the bot page (AppTest) ------------------------------------------------------------------



@pytest.fixture
def two_bots(bare, shared_embedder):
    """In the pages' data dir: ferry-bot over ferry-notes (default knowledge base: every
    user reads it) and board-bot over board-notes (kb-board: the editor's group only),
    both published."""
    from backend.config import Settings
    from backend.services.container import Ragscope
    from pages._chatbot_common import _bots

    data = bare[0]
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    ing = Ingestor(rs)
    ing.ingest_bytes(FERRY_TEXT, "ferry.md", collection="ferry-notes")
    ing.ingest_bytes(b"# Board\n\nThe board meets on Mondays at 18:00.\n", "board.md",
                     collection="board-notes")
    acl.create_knowledge_base(rs, SYSTEM, "kb-board")
    acl.assign_collection(rs, SYSTEM, "board-notes", "kb-board")
    acl.create_group(rs, SYSTEM, "g-board")
    acl.grant(rs, SYSTEM, "g-board", "kb-board", "write")
    acl.add_member(rs, SYSTEM, "g-board", "user", "editor")
    svc = bot_service(rs)
    editor = Actor("editor", "editor")
    for name, coll in (("Ferry Bot", "ferry-notes"), ("Board Bot", "board-notes")):
        bot = svc.create(editor, name=name, collections=[coll],
                         system_prompt=f"Answer questions from the {coll}.",
                         welcome_message=f"Welcome to the {name}!",
                         fallback_message="The notes do not say.")
        svc.publish(editor, bot.slug)
    rs.close()
    yield data
    _bots.clear()


def _texts(at) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def test_viewers_see_only_bots_of_collections_they_read(app, two_bots):
    viewer = open_page(app(two_bots, "viewer"), "chatbot")
    assert viewer.selectbox[0].options == ["— choose —", "ferry-bot"]
    board = app(two_bots, "viewer")
    board.query_params["bot"] = "board-bot"
    board = open_page(board, "chatbot")
    assert errors(board) == ["There is no published chatbot board-bot."]
    assert "Welcome to the Board Bot" not in _texts(board)
    editor = app(two_bots, "editor")
    editor.query_params["bot"] = "board-bot"
    editor = open_page(editor, "chatbot")
    assert editor.title[0].value == "Board Bot" and not errors(editor)


def test_embedded_page_has_no_dashboard_chrome(app, two_bots, monkeypatch):
    import streamlit as st

    positions = []  # where app.py puts the navigation menu, run by run
    navigation = st.navigation

    def spy(*args, **kw):
        positions.append(kw.get("position", "sidebar"))
        return navigation(*args, **kw)

    monkeypatch.setattr(st, "navigation", spy)
    full = app(two_bots, "viewer")
    full.query_params["bot"] = "ferry-bot"
    full = open_page(full, "chatbot")
    assert full.title[0].value == "Ferry Bot" and set(positions) == {"sidebar"}

    positions.clear()
    at = app(two_bots, "viewer")
    at.context = {"is_embedded": True}  # `?bot=ferry-bot&embed=true`
    at.query_params["bot"] = "ferry-bot"
    at = open_page(at, "chatbot")
    assert set(positions) == {"hidden"}  # no menu
    assert not at.title and at.subheader[0].value == "Ferry Bot"  # a small header only
    assert not at.sidebar.caption and not at.sidebar.button  # no "Signed in as", no sign-out
    assert "Welcome to the Ferry Bot!" in _texts(at)
    at.chat_input(key=K.BOT_CHAT_INPUT).set_value("How much is a ticket for adults?").run()
    assert not at.exception and "7.50" in _texts(at)
    assert at.expander[0].label == "Sources" and at.dataframe[0].value["cited"].any()
    assert set(positions) == {"hidden"}
