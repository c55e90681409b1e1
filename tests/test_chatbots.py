"""The chatbot entity: created from a URL or from existing collections, validated per seed
003 (errors name the field), stored with references to collections and a version per
change, role checks."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from backend.security.auth import PermissionDenied
from backend.chatbots.spec import collection_from_url
from backend.errors import InvalidChatbot, NotFound
from backend.store import repo
from backend.store.chatbot_models import ChatbotCollection
from backend.store.models import Collection
from tests.chatbot_site import EDITOR, QUICK, VIEWER, bot_service
from tests.crawl_site_support import Site


@pytest.fixture
def site():
    with Site() as s:
        yield s


@pytest.fixture
def svc(make_rs, site):
    return bot_service(make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}"))


def test_create_from_url_derives_collection_name_and_slug(svc, site):
    bot = svc.create(EDITOR, url=site.base + "/", crawl_options=QUICK)
    assert bot.status == "draft" and bot.config.collections == ["127-0-0-1"]
    assert bot.slug == "bot-127-0-0-1" and bot.name == "Chatbot for 127.0.0.1"
    assert bot.created_by == EDITOR.username and bot.crawl_source_id is not None
    assert collection_from_url("https://www.Example.org/Docs/") == "example-org-docs"
    # a reference to the collection row, not a copy of anything
    with svc.store.session() as s:
        assert s.scalar(select(func.count()).select_from(ChatbotCollection)) == 1
        assert s.scalar(select(Collection.name)) == "127-0-0-1"


def test_bad_input_names_the_field(svc, site):
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, url="not a url", name="Bot", slug="Bad Slug!", max_pages=501,
                   max_depth=11, collection="Mixed_Case", temperature=2.5,
                   system_prompt="short")
    err = e.value.errors
    assert "http" in err["url"]
    assert "lower-case" in err["slug"] and "lower-case" in err["collection"]
    assert "500" in err["max_pages"] and "10" in err["max_depth"]
    assert "between 10 and 10,000" in err["system_prompt"]
    assert "temperature" in err
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, url="http://10.0.0.7/intranet", name="Intranet bot")
    assert "private" in e.value.errors["url"] or "RAGSCOPE_CRAWL_ALLOWED_HOSTS" in e.value.errors["url"]
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, name="Nothing")
    assert "collection" in e.value.errors["collections"]
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, name="Ghost", collections=["no-such-collection"])
    assert "no-such-collection" in e.value.errors["collections"]
    assert svc.list(EDITOR) == []  # nothing stored


def test_duplicate_name_and_slug_refused(svc, site):
    svc.create(EDITOR, url=site.base + "/", name="Ferry Helper", crawl_options=QUICK)
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, url=site.base + "/", name="ferry helper", slug="other",
                   crawl_options=QUICK)
    assert "already exists" in e.value.errors["name"]
    with pytest.raises(InvalidChatbot) as e:
        svc.create(EDITOR, url=site.base + "/", name="Second", slug="ferry-helper")
    assert "already exists" in e.value.errors["slug"]
    assert [b.slug for b in svc.list(EDITOR)] == ["ferry-helper"]


def test_updates_store_versions_and_several_collections(svc, site):
    bot = svc.create(EDITOR, url=site.base + "/", name="Ferry Helper", crawl_options=QUICK)
    with svc.store.session() as s:  # in the default knowledge base, as the editor's
        repo.get_or_create_collection(s, "harbour-rules")
    bot = svc.update(EDITOR, bot.slug, collections=["127-0-0-1", "harbour-rules"],
                     system_prompt="Answer questions about the Lindholm ferry.",
                     temperature=0.2)
    assert bot.config.collections == ["127-0-0-1", "harbour-rules"]
    assert bot.config_version == 2
    same = svc.update(EDITOR, bot.slug, temperature=0.2)  # nothing changed: no version
    assert same.config_version == 2
    with pytest.raises(InvalidChatbot) as e:
        svc.update(EDITOR, bot.slug, context_limit=7)
    assert "context limit" in e.value.errors["context_limit"]
    versions = svc.versions(bot.slug)
    assert [v.version for v in versions] == [1, 2]
    assert versions[0].config["temperature"] == 0.3 and versions[1].config["temperature"] == 0.2
    assert "system_prompt" in versions[1].change and versions[1].changed_by == "erika"


def test_roles_and_publish_rules(svc, site):
    with pytest.raises(PermissionDenied):
        svc.create(VIEWER, url=site.base + "/", crawl_options=QUICK)
    with pytest.raises(PermissionDenied):
        svc.create(None, url=site.base + "/", crawl_options=QUICK)
    bot = svc.create(EDITOR, url=site.base + "/", crawl_options=QUICK)
    with pytest.raises(PermissionDenied):
        svc.update(VIEWER, bot.slug, description="x")
    with pytest.raises(PermissionDenied):  # viewers may only ask published bots
        svc.ask(VIEWER, bot.slug, "When does the ferry leave?")
    with pytest.raises(InvalidChatbot) as e:  # no prompt, messages or content yet
        svc.publish(EDITOR, bot.slug)
    assert {"system_prompt", "welcome_message", "fallback_message"} <= set(e.value.errors)
    with pytest.raises(NotFound):
        svc.get("no-such-bot")


def test_create_from_existing_collections_derives_the_name(svc):
    """No URL and no name: the name comes from the collections (was: "name must not be
    empty" under a field that says it is derived)."""
    with svc.store.session() as s:
        for name in ("harbour-rules", "timetables"):
            repo.get_or_create_collection(s, name)
    bot = svc.create(EDITOR, collections=["harbour-rules", "timetables"])
    assert bot.name == "Chatbot for harbour-rules, timetables"
    assert bot.slug == "chatbot-for-harbour-rules-timetables"
    assert bot.config.collections == ["harbour-rules", "timetables"] and not bot.source_url
    with pytest.raises(InvalidChatbot) as e:  # neither a URL nor a collection
        svc.create(EDITOR)
    assert e.value.errors["collections"] == "enter a URL to crawl or choose at least one collection"
