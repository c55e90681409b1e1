"""The Generate buttons (F05): name, description, system prompt, welcome and fallback message
built from the crawled content (backend/chatbots/site_context.py). With a configured chat
provider (the bot's provider is not `extractive`) the LLM writes the text from the site's
title, headings, key terms and sample sections; otherwise — or when the provider fails —
a deterministic generator fills templates with the same facts, so the text still names the
site and its actual topics."""
from __future__ import annotations

from dataclasses import dataclass

from backend.security.access import Actor
from backend.chatbots.site_context import SiteContext, site_context
from backend.errors import ChatbotError, InvalidChatbot, ProviderUnavailable

FIELDS = ("name", "description", "system_prompt", "welcome_message", "fallback_message")
LIMITS = {"name": 200, "description": 2000, "system_prompt": 10_000,
          "welcome_message": 2000, "fallback_message": 2000}


@dataclass
class GeneratedField:
    field: str
    text: str
    method: str  # "content" (deterministic) or "llm:<provider>"
    note: str | None = None


def _join(items: list[str], word: str) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def deterministic(field: str, ctx: SiteContext) -> str:
    """Template text with the site's title, topics and page titles (German or English, as
    the site is)."""
    de = ctx.language == "de"
    topics = ctx.terms[:4] or ctx.page_titles[:3]
    t3 = _join(topics[:3], "und" if de else "and")
    t4 = _join(topics, "und" if de else "and")
    pages = _join(ctx.page_titles[:6] or ctx.headings[:6], "und" if de else "and")
    examples = _join([f"„{h}“" if de else f'"{h}"' for h in (ctx.page_titles or ctx.headings)[:2]],
                     "oder" if de else "or")
    site, url = ctx.title, ctx.url
    if field == "name":
        return f"{site} Assistent" if de else f"{site} Assistant"
    if field == "description":
        return (f"Beantwortet Fragen zu {site} ({t4}) aus {ctx.pages} Seiten von {ctx.host}."
                if de else
                f"Answers questions about {site} ({t4}) from {ctx.pages} pages of {ctx.host}.")
    if field == "system_prompt":
        if de:
            return (f"Du bist der Assistent von {site} ({url}). Du beantwortest Fragen der "
                    f"Besucher zu {t4} ausschließlich anhand der Seiten von {ctx.host} in "
                    f"deiner Wissensbasis, darunter {pages}. Gib Zahlen, Zeiten, Daten und "
                    "Preise genau so wieder, wie die Seiten sie nennen, und nenne die Seite, "
                    "aus der sie stammen. Wenn die Seiten eine Frage nicht beantworten, sag das "
                    f"offen und verweise auf {url}, statt zu raten. Antworte kurz, freundlich "
                    "und in der Sprache der Frage.")
        return (f"You are the assistant of {site} ({url}). You answer visitors' questions "
                f"about {t4} using only the pages of {ctx.host} in your knowledge base, among "
                f"them {pages}. Quote figures, times, dates and prices exactly as the pages "
                "give them and name the page they come from. If the pages do not answer a "
                f"question, say so plainly and point to {url} instead of guessing. Answer "
                "briefly, politely and in the language of the question.")
    if field == "welcome_message":
        if de:
            return (f"Willkommen bei {site}! Ich beantworte Ihre Fragen zu {t3}. Fragen Sie "
                    f"mich zum Beispiel nach {examples}.")
        return (f"Welcome to {site}! I can answer your questions about {t3}. Ask me, for "
                f"example, about {examples}.")
    if field == "fallback_message":
        if de:
            return (f"Dazu habe ich auf den Seiten von {site} leider nichts gefunden. Ich "
                    f"helfe gern bei Fragen zu {t3} – oder schauen Sie direkt auf {url}.")
        return (f"Sorry, I could not find that in the pages of {site}. I can help with "
                f"questions about {t3} — or have a look at {url}.")
    raise InvalidChatbot({"field": f"unknown field {field!r}; choose one of {', '.join(FIELDS)}"})


INSTRUCTIONS = {
    "name": "a short display name for the chatbot (at most 6 words)",
    "description": "a one-sentence description of what the chatbot answers",
    "system_prompt": ("the chatbot's system prompt (80-200 words): whose assistant it is, which "
                      "topics it answers, that it answers only from the site's pages, quotes "
                      "figures exactly, says when the pages do not answer and points to the "
                      "site's URL"),
    "welcome_message": "the welcome message shown when a visitor opens the chat (1-2 sentences)",
    "fallback_message": ("the message shown when the pages hold no answer to a question "
                         "(1-2 sentences, polite, names the topics it can help with)"),
}


def llm_messages(field: str, ctx: SiteContext, current: dict) -> tuple[str, str]:
    lang = "German" if ctx.language == "de" else "English"
    system = ("You write configuration texts for a website chatbot. Reply with the text "
              "only: no quotes, no preface, no markdown headings.")
    samples = "\n".join(f"- {t}: {x}" for t, x in ctx.samples)
    known = "\n".join(f"{k}: {v}" for k, v in current.items() if v and k != field)
    user = (f"Website: {ctx.title} ({ctx.url}), {ctx.pages} pages crawled.\n"
            f"Page titles: {', '.join(ctx.page_titles)}\n"
            f"Headings: {', '.join(ctx.headings)}\n"
            f"Key terms: {', '.join(ctx.terms)}\n"
            f"Sample sections:\n{samples}\n"
            + (f"Already configured:\n{known}\n" if known else "")
            + f"\nWrite {INSTRUCTIONS[field]}, in {lang}.")
    return system, user


class GenerateMixin:
    """Field generation of ChatbotService (self.store, self.rs, self.provider_factory)."""

    def site_context(self, slug: str) -> SiteContext:
        with self.store.session() as s:
            bot = self._row(s, slug)
            ctx = site_context(s, bot.id, bot.source_url)
            names = self._collections(s, bot.id)
        if ctx is None:
            which = ", ".join(names) or "none"
            raise ChatbotError(
                f"nothing to generate from: the bot's collections ({which}) hold no indexed "
                "page yet; run the build (crawl) first or choose a collection with content")
        return ctx

    def generate(self, actor: Actor | None, slug: str, field: str) -> GeneratedField:
        """Text for one field from the crawled content; nothing is stored (the wizard
        shows it in the field, `update` saves it)."""
        self._editable(actor, slug)
        if field not in FIELDS:
            raise InvalidChatbot({"field": f"unknown field {field!r}; choose one of "
                                           f"{', '.join(FIELDS)}"})
        ctx = self.site_context(slug)
        bot = self.get(slug)
        note = None
        if bot.config.provider != "extractive":
            try:
                text = self._llm_text(bot, field, ctx)
                if text:
                    return GeneratedField(field, text[:LIMITS[field]],
                                          f"llm:{bot.config.provider}")
                note = f"{bot.config.provider} returned no text"
            except ProviderUnavailable as e:
                note = str(e)
            note = f"{note}; generated from the site's content instead"
        return GeneratedField(field, deterministic(field, ctx)[:LIMITS[field]], "content", note)

    def _llm_text(self, bot, field: str, ctx: SiteContext) -> str:
        from backend.llm import default_model, make_provider
        from backend.llm.base import GenerationRequest, Message, TextDelta

        cfg = bot.config
        provider = (self.provider_factory(cfg.provider) if self.provider_factory
                    else make_provider(self.rs.settings, cfg.provider))
        current = {f: getattr(cfg, f) for f in FIELDS}
        system, user = llm_messages(field, ctx, current)
        req = GenerationRequest(model=cfg.model or default_model(self.rs.settings, cfg.provider),
                                system=system, messages=[Message("user", user)],
                                temperature=cfg.temperature, max_tokens=600)
        parts = [ev.text for ev in provider.stream(req) if isinstance(ev, TextDelta)]
        text = "".join(parts).strip().strip('"“”„').strip()
        if field == "name":
            text = text.splitlines()[0].strip().strip('"“”„*#').strip() if text else ""
        return text

    def fill_empty(self, actor: Actor | None, slug: str):
        """Generate every empty text field and save them (one version); the CLI's
        `chatbot create` uses it after the build."""
        bot = self.get(slug)
        changes = {f: self.generate(actor, slug, f).text
                   for f in ("description", "system_prompt", "welcome_message",
                             "fallback_message") if not getattr(bot.config, f).strip()}
        return self.update(actor, slug, **changes) if changes else bot
