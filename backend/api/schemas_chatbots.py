"""Request and response models of the chatbot routes (backend/api/routes_chatbots.py).
The limits mirror backend/chatbots/spec.py; what needs the store or the crawl guard (slug
and name unique, URL allowed, collections known and in your scope) is checked by the
service, and its errors name the field as these do."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from backend.api.schemas import Page, Policy, Strict
from backend.chat.types import CONTEXT_LIMITS, MAX_OUTPUT_TOKENS
from backend.chatbots.generate import FIELDS
from backend.chatbots.spec import MESSAGE_MAX, PROMPT_MAX
from backend.crawl.sources import MAX_DEPTH, MAX_PAGES
from backend.llm import PROVIDERS
from backend.llm.limits import TEMPERATURE_CAP

Provider = Literal[PROVIDERS]
GeneratedField = Literal[FIELDS]
Collections = list[str] | None
SLUG_PATTERN = r"^[a-z0-9-]+$"
TEMPERATURE_DOC = "0.0–2.0 where the provider allows it (anthropic: at most 1.0; 422 naming it)"
MIN_RELEVANCE_DOC = ("0.0–1.0; when no source's similarity to the question reaches it the "
                     "bot answers with its fallback message (0: off)")


def _collections(description: str):
    return Field(None, max_length=50, description=description)


class CrawlOptions(Strict):
    """How the build crawls the site (defaults: those of a crawl source)."""

    delay_s: float = Field(1.0, ge=0, le=60, description="pause between requests (seconds)")
    concurrency: int = Field(2, ge=1, le=16)
    respect_robots: bool = True
    use_sitemap: bool = True
    include_subdomains: bool = False
    render_js: bool = Field(False, description="run each page's JavaScript in Chromium "
                                               "before extraction (every request guarded)")


class ChatbotCreate(Strict):
    url: str = Field("", max_length=2000,
                     description="the site to crawl into the bot's collection (http/https; "
                                 "the crawl's SSRF guard applies)")
    name: str = Field("", max_length=200, description="empty: derived from the URL")
    slug: str = Field("", max_length=100, description="`^[a-z0-9-]+$`; empty: from the name")
    collection: str = Field("", max_length=255,
                            description="the build's collection; empty: derived from the URL")
    knowledge_base: str = Field("", max_length=200,
                                description="where a new build collection goes (you need "
                                            "write on it); empty: the default one")
    collections: Collections = _collections("existing collections (that you may read) the "
                                            "bot also answers from")
    max_pages: int = Field(50, ge=1, le=MAX_PAGES)
    max_depth: int = Field(3, ge=1, le=MAX_DEPTH)
    crawl: CrawlOptions | None = None
    build: bool = Field(True, description="with a URL: start the build (crawl + embedding) "
                                          "at once, as the wizard does")
    description: str = Field("", max_length=MESSAGE_MAX)
    system_prompt: str = Field("", max_length=PROMPT_MAX)
    welcome_message: str = Field("", max_length=MESSAGE_MAX)
    fallback_message: str = Field("", max_length=MESSAGE_MAX,
                                  description="shown when the pages hold no evidence")
    provider: Provider = "extractive"
    model: str = Field("", max_length=200)
    temperature: float = Field(0.3, ge=0.0, le=TEMPERATURE_CAP, description=TEMPERATURE_DOC)
    max_tokens: int = Field(1024, ge=1, le=MAX_OUTPUT_TOKENS)
    context_limit: Literal[CONTEXT_LIMITS] = 5
    policy: Policy = "hybrid"
    profile_id: int | None = Field(None, ge=1, description="the author profile (style "
                                                            "rules) it writes by; /api/profiles")
    min_relevance: float = Field(0.0, ge=0.0, le=1.0, description=MIN_RELEVANCE_DOC)
    show_sources: bool = Field(True, description="replies list their sources")
    question_urls: bool = Field(False, description="fetch a URL in a question (off: the "
                                                   "bot fetches nothing a visitor names)")


class ChatbotUpdate(Strict):
    """Only the fields sent are changed; each change that alters something is a new
    configuration version."""

    name: str | None = Field(None, max_length=200)
    slug: str | None = Field(None, max_length=100)
    collections: Collections = _collections("the collections it answers from (replaces them)")
    description: str | None = Field(None, max_length=MESSAGE_MAX)
    system_prompt: str | None = Field(None, max_length=PROMPT_MAX)
    welcome_message: str | None = Field(None, max_length=MESSAGE_MAX)
    fallback_message: str | None = Field(None, max_length=MESSAGE_MAX)
    provider: Provider | None = None
    model: str | None = Field(None, max_length=200)
    temperature: float | None = Field(None, ge=0.0, le=TEMPERATURE_CAP,
                                      description=TEMPERATURE_DOC)
    max_tokens: int | None = Field(None, ge=1, le=MAX_OUTPUT_TOKENS)
    context_limit: Literal[CONTEXT_LIMITS] | None = None
    policy: Policy | None = None
    profile_id: int | None = Field(None, ge=0, description="the author profile it writes by; "
                                                            "0: none")
    min_relevance: float | None = Field(None, ge=0.0, le=1.0, description=MIN_RELEVANCE_DOC)
    show_sources: bool | None = None
    question_urls: bool | None = None


class GenerateRequest(Strict):
    field: GeneratedField = Field(..., description="the field to write from the crawled "
                                                   "content")
    save: bool = Field(False, description="store the text as the field's value (a new "
                                          "configuration version)")


class BotAskRequest(Strict):
    question: str = Field(..., min_length=1, max_length=100_000)
    session: str | None = Field(None, max_length=36,
                                description="continue this conversation with the bot")


class BuildOut(BaseModel):
    status: Literal["none", "queued", "running", "cancelled", "interrupted", "failed",
                    "done"]
    run_id: int | None
    pages_done: int
    pages_total: int
    current_url: str
    documents: int
    chunks_embedded: int
    eta_s: float | None
    errors: int
    problem: str | None = Field(description="why the build gave no content, in words")
    error: str | None
    progress: float
    resumable: bool


class ChatbotOut(BaseModel):
    slug: str
    name: str
    description: str
    status: Literal["draft", "published"]
    system_prompt: str
    welcome_message: str
    fallback_message: str
    collections: list[str]
    provider: str
    model: str
    temperature: float
    max_tokens: int
    context_limit: int
    policy: str
    profile_id: int | None = None
    min_relevance: float
    show_sources: bool
    question_urls: bool
    source_url: str
    config_version: int
    created_by: str
    updated_by: str
    created_at: datetime | None
    updated_at: datetime | None
    published_at: datetime | None
    links: dict[str, str]


class ChatbotStatsOut(BaseModel):
    """The admin test page's statistics, from the bot's stored conversations."""

    documents: int
    chunks: int
    conversations: int
    messages: int = Field(description="questions and answers")
    answers: int
    fallbacks: int = Field(description="answers that were the bot's fallback message")
    fallback_rate: float | None = Field(description="fallbacks / answers (null: no answer)")
    avg_response_ms: float | None = Field(description="mean time from question to stored "
                                                      "answer (null: no answer)")
    last_answer_at: datetime | None


class ChatbotDeleted(BaseModel):
    slug: str
    name: str
    conversations: int = Field(description="conversations deleted with the bot")
    messages: int
    versions: int
    collections_kept: list[str] = Field(description="its collections, which stay")
    build_cancelled: bool


class ChatbotCreated(ChatbotOut):
    build: BuildOut | None = Field(description="the build started with the bot (null: "
                                               "no URL, or `build` false)")


class ChatbotList(Page):
    items: list[ChatbotOut]


class GeneratedOut(BaseModel):
    field: str
    text: str
    method: str = Field(description='"content" (from the crawled pages) or "llm:<provider>"')
    note: str | None
    saved: bool


class BotSourceOut(BaseModel):
    n: int
    chunk_id: str | None
    document_id: int | None
    title: str
    filename: str
    version: int | None
    breadcrumb: str
    section_path: list[str]
    page: int | None
    score: float = Field(description="the passage's retrieval score (0–1)")
    source_uri: str
    cited: bool
    links: dict[str, str] = Field(default_factory=dict)
    passage: str | None = Field(None, description="the cited chunk's text")
    quote: str | None = Field(None, description="the passage's sentence that supports the "
                                                "answer (None: not cited)")
    quote_offsets: list[int] | None = Field(
        None, description="[start, end) of the quote in the document version's text")
    section: dict | None = Field(None, description="the chunk's section: id, title, path")
    file_type: str = ""
    preview_url: str | None = Field(None, description="PDFs: the page as PNG with the quote "
                                                      "highlighted (same bearer token)")


class BotAnswerOut(BaseModel):
    text: str
    fallback_used: bool = Field(description="the pages held no evidence: `text` is the "
                                            "bot's fallback message")
    session: str
    message_id: int
    notice: str | None
    citations: dict
    sources: list[BotSourceOut] = Field(description="empty when the bot hides its sources "
                                              "(`show_sources` false)")
    sources_hidden: bool = False
    confidence: dict | None = Field(None, description="the confidence hint: level (high, "
                                    "medium, low), p_unanswerable, passages, documents and "
                                    "the sentence shown (backend/answer/confidence.py)")
    related: list[dict] = Field(default_factory=list, description="a declined answer: the "
                                "closest passages, shown as 'possibly related'")
