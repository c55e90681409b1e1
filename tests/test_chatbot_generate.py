"""Generate buttons: the fields come from the crawled site (its title, headings and topic
terms) — deterministically without a chat provider, through the LLM with one (the prompt
carries the site's content), back to the deterministic text when the provider fails; and
a clear error when the collections hold nothing yet."""
from __future__ import annotations

import pytest

from backend.chatbots.generate import FIELDS
from backend.errors import ChatbotError, InvalidChatbot, ProviderUnavailable
from backend.llm.base import StreamEnd, TextDelta
from tests.chatbot_site import EDITOR, QUICK, bot_service, build_ferry_site
from tests.crawl_site_support import Site


class FakeLLM:
    name, local = "openai", False

    def __init__(self, reply: str | None):
        self.reply, self.requests = reply, []

    def stream(self, request):
        self.requests.append(request)
        if self.reply is None:
            raise ProviderUnavailable("openai cannot be reached")
        yield TextDelta(self.reply)
        yield StreamEnd(model="fake")


@pytest.fixture
def built(make_rs):
    with Site() as site:
        build_ferry_site(site)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        llm = FakeLLM("Ahoy! Ask me about Lindholm crossings.")
        svc = bot_service(rs, provider_factory=lambda name: llm)
        bot = svc.create(EDITOR, url=site.base + "/", crawl_options=QUICK)
        svc.start_build(EDITOR, bot.slug, background=False)
        yield svc, bot, llm, site


def test_deterministic_fields_name_the_site_and_its_topics(built):
    svc, bot, _llm, site = built
    ctx = svc.site_context(bot.slug)
    assert ctx.title == "Lindholm Ferry Service" and ctx.pages == 4
    assert {"Ferry timetable", "Tickets and fares"} <= set(ctx.page_titles)
    low_terms = {t.lower() for t in ctx.terms}
    assert low_terms & {"ticket", "tickets", "timetable", "crossing", "nordhafen", "vehicle"}
    out = {f: svc.generate(EDITOR, bot.slug, f) for f in FIELDS}
    assert all(g.method == "content" and g.note is None for g in out.values())
    assert out["name"].text == "Lindholm Ferry Service Assistant"
    prompt = out["system_prompt"].text
    assert "Lindholm Ferry Service" in prompt and site.base in prompt
    assert "Ferry timetable" in prompt and "Tickets and fares" in prompt
    assert any(t in prompt for t in ctx.terms[:4])
    welcome, fallback = out["welcome_message"].text, out["fallback_message"].text
    assert "Lindholm Ferry Service" in welcome and any(t in welcome for t in ctx.terms[:3])
    assert "could not find" in fallback and site.base in fallback
    # the generated texts are valid: saving them and publishing works
    saved = svc.update(EDITOR, bot.slug, **{f: g.text for f, g in out.items()})
    assert svc.publish(EDITOR, saved.slug).published


def test_llm_writes_from_the_site_content_and_falls_back(built):
    svc, bot, llm, _site = built
    svc.update(EDITOR, bot.slug, provider="openai")
    g = svc.generate(EDITOR, bot.slug, "welcome_message")
    assert g.method == "llm:openai" and g.text == "Ahoy! Ask me about Lindholm crossings."
    sent = llm.requests[-1].messages[-1].content
    assert "Lindholm Ferry Service" in sent and "Winter timetable" in sent
    assert "welcome message" in sent
    llm.reply = None  # the provider fails: the deterministic text, with the reason
    g = svc.generate(EDITOR, bot.slug, "system_prompt")
    assert g.method == "content" and "cannot be reached" in g.note
    assert "Lindholm Ferry Service" in g.text


def test_generate_needs_content_and_a_known_field(make_rs):
    rs = make_rs()
    with rs.store.session() as s:
        from backend.store import repo
        repo.get_or_create_collection(s, "empty-notes")  # default knowledge base
    svc = bot_service(rs)
    bot = svc.create(EDITOR, name="Notes bot", collections=["empty-notes"])
    with pytest.raises(ChatbotError, match=r"nothing to generate from.*empty-notes.*build"):
        svc.generate(EDITOR, bot.slug, "system_prompt")
    with pytest.raises(InvalidChatbot) as e:
        svc.generate(EDITOR, bot.slug, "colour")
    assert "unknown field" in e.value.errors["field"]
