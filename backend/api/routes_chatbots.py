"""Chatbots (issue 16): list, read, create (with its build), change, generate a field,
build status / start / cancel / resume, test-ask a draft, ask a published bot, publish and
unpublish, statistics, delete. Parse, call ChatbotService (backend/chatbots/), serialise; nothing else.

Scopes: reading and asking published bots needs `read`; everything an editor does in the
wizard needs `write`. A bot whose collections you may not all read is unknown (404, as a
slug that does not exist); so is a draft for a read-only token."""
from __future__ import annotations

import threading
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request

from backend.security.access import Actor
from backend.api import serialise_chatbots as out
from backend.api.deps import known_query, needs
from backend.api.errors import CHATBOT_RESPONSES
from backend.api.schemas_chatbots import (
    SLUG_PATTERN,
    BotAnswerOut,
    BotAskRequest,
    BuildOut,
    ChatbotCreate,
    ChatbotCreated,
    ChatbotDeleted,
    ChatbotList,
    ChatbotOut,
    ChatbotStatsOut,
    ChatbotUpdate,
    GeneratedOut,
    GenerateRequest,
)
from backend.chatbots.service import ChatbotService

router = APIRouter(prefix="/api/chatbots", tags=["chatbots"], responses=CHATBOT_RESPONSES,
                   dependencies=[Depends(known_query)])
Slug = Annotated[str, Path(min_length=1, max_length=100, pattern=SLUG_PATTERN,
                           description="the bot's slug")]
_lock = threading.Lock()


def bots(request: Request) -> ChatbotService:
    """One ChatbotService per app (its crawl service owns the build threads)."""
    state = request.app.state
    with _lock:
        if getattr(state, "bots", None) is None:
            state.bots = ChatbotService(state.rs, provider_factory=state.provider_factory)
    return state.bots


Bots = Annotated[ChatbotService, Depends(bots)]


@router.get("", response_model=ChatbotList, summary="Chatbots you may use")
def list_chatbots(svc: Bots, actor: Actor = Depends(needs("read")),
                  offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
                  limit: Annotated[int, Query(ge=1, le=200)] = 50,
                  published: Annotated[bool, Query(description="published bots only")] = False):
    """By name. Read-only tokens: published bots whose collections they may all read;
    write tokens also drafts."""
    rows, total = svc.page(actor, published_only=published, offset=offset, limit=limit)
    return out.bot_page(rows, total, offset, limit)


@router.post("", response_model=ChatbotCreated, status_code=201,
             summary="Create a chatbot (write scope)")
def create_chatbot(body: ChatbotCreate, svc: Bots, actor: Actor = Depends(needs("write"))):
    """A draft bot. With `url`: its collection (derived from the URL unless given) and, with
    `build` (default), the build — crawl and embedding — starts at once; follow it at
    `GET /api/chatbots/{slug}/build`. Without: `collections` it answers from. Every
    invalid field is named (422)."""
    kw = body.model_dump(exclude={"crawl", "build", "collections"})
    bot = svc.create(actor, collections=body.collections or [],
                     crawl_options=body.crawl.model_dump() if body.crawl else None, **kw)
    build = None
    if bot.source_url and body.build:
        svc.start_build(actor, bot.slug)
        build = out.build(svc.build_status(actor, bot.slug))
    return {**out.bot(bot), "build": build}


@router.get("/{slug}", response_model=ChatbotOut, summary="One chatbot")
def get_chatbot(slug: Slug, svc: Bots, actor: Actor = Depends(needs("read"))):
    return out.bot(svc.view(actor, slug))


@router.patch("/{slug}", response_model=ChatbotOut, summary="Change a chatbot (write scope)")
def update_chatbot(slug: Slug, body: ChatbotUpdate, svc: Bots,
                   actor: Actor = Depends(needs("write"))):
    """Only the fields sent change; a change is stored as a new configuration version."""
    return out.bot(svc.update(actor, slug, **body.model_dump(exclude_unset=True,
                                                             exclude_none=True)))


@router.delete("/{slug}", response_model=ChatbotDeleted,
               summary="Delete a chatbot; its collections stay (write scope)")
def delete_chatbot(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Deletes the bot, its configuration versions and its conversations (with their
    messages and ratings); its collections, their documents and the crawl source stay.
    A running build is cancelled first. 404 for a bot you cannot see."""
    return svc.delete(actor, slug).to_dict()


@router.get("/{slug}/stats", response_model=ChatbotStatsOut,
            summary="The test page's statistics (write scope)")
def chatbot_stats(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Documents, chunks, conversations, messages, answers, fallback rate and average
    response time, from the bot's stored conversations."""
    return svc.stats(actor, slug).to_dict()


@router.post("/{slug}/generate", response_model=GeneratedOut,
             summary="Generate a field from the crawled content (write scope)")
def generate_field(slug: Slug, body: GenerateRequest, svc: Bots,
                   actor: Actor = Depends(needs("write"))):
    """Name, description, system prompt, welcome or fallback message written from the
    bot's pages (by its LLM provider, or deterministically with `extractive`). Stored only
    with `save`."""
    g = svc.generate(actor, slug, body.field)
    if body.save:
        svc.update(actor, slug, **{body.field: g.text})
    return out.generated(g, body.save)


@router.get("/{slug}/build", response_model=BuildOut, summary="Build progress (write scope)")
def build_status(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Pages crawled, chunks embedded, ETA, and why a finished build gave no content."""
    return out.build(svc.build_status(actor, slug))


@router.post("/{slug}/build", response_model=BuildOut, status_code=202,
             summary="Start the build again (write scope)")
def start_build(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Crawl the bot's URL again (changed pages become new versions); 409 while a build
    runs."""
    svc.start_build(actor, slug)
    return out.build(svc.build_status(actor, slug))


@router.post("/{slug}/build/cancel", response_model=BuildOut,
             summary="Cancel the running build (write scope)")
def cancel_build(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Requests in flight finish; the pages so far stay; resume continues."""
    svc.cancel_build(actor, slug)
    return out.build(svc.build_status(actor, slug))


@router.post("/{slug}/build/resume", response_model=BuildOut, status_code=202,
             summary="Resume a cancelled or interrupted build (write scope)")
def resume_build(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    svc.resume_build(actor, slug)
    return out.build(svc.build_status(actor, slug))


@router.post("/{slug}/test-ask", response_model=BotAnswerOut,
             summary="Ask a draft or published bot, as the wizard's test chat (write scope)")
def test_ask(slug: Slug, body: BotAskRequest, svc: Bots,
             actor: Actor = Depends(needs("write"))):
    """The answer path the published bot uses (its collections, prompt and settings):
    the answer, its citations and the sources with their retrieval scores; the bot's
    fallback message when the pages hold no evidence."""
    return out.answer(svc.ask(actor, slug, body.question, session=body.session))


@router.post("/{slug}/ask", response_model=BotAnswerOut, summary="Ask a published bot")
def ask(slug: Slug, body: BotAskRequest, svc: Bots, actor: Actor = Depends(needs("read"))):
    """Answered from the bot's collections only; `session` continues your conversation
    with it. A draft is not found (use test-ask)."""
    return out.answer(svc.ask(actor, slug, body.question, session=body.session,
                              published_only=True))


@router.post("/{slug}/publish", response_model=ChatbotOut,
             summary="Publish (write scope)")
def publish(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    """Needs a system prompt, welcome and fallback message and indexed pages (422 naming
    each missing field)."""
    return out.bot(svc.publish(actor, slug))


@router.post("/{slug}/unpublish", response_model=ChatbotOut,
             summary="Unpublish; the configuration is kept (write scope)")
def unpublish(slug: Slug, svc: Bots, actor: Actor = Depends(needs("write"))):
    return out.bot(svc.unpublish(actor, slug))
