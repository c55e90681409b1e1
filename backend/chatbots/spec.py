"""What a chatbot is configured with, and the validation rules of seed 003 (each error names
its field):

- name (shown to users): 1–200 characters, unique
- slug (in URLs, `?bot=slug`): `^[a-z0-9-]+$`, at most 100 characters, unique
- system prompt: 10–10,000 characters (may stay empty in a draft; required to publish)
- temperature 0.0–2.0 where the provider allows it (seed 003; Anthropic 1.0:
  backend/llm/limits.py), max tokens 1–8192, context limit one of the chat's (3, 5, 10,
  15), provider and retrieval policy known ones
- min relevance 0.0–1.0 (0 = off), show sources and question URLs on/off
- collections: at least one; a new collection name `^[a-z0-9-]+$`, at most 255 characters
- build: URL (the crawl's SSRF guard decides), max pages 1–500, max depth 1–10
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from urllib.parse import urlsplit

from backend.chat.types import CONTEXT_LIMITS, MAX_OUTPUT_TOKENS
from backend.crawl.sources import MAX_DEPTH, MAX_PAGES
from backend.llm import PROVIDERS
from backend.llm.limits import temperature_error
from backend.retrieval import POLICIES

SLUG_RE = re.compile(r"^[a-z0-9-]+$")
PROMPT_MIN, PROMPT_MAX = 10, 10_000
MESSAGE_MAX = 2_000
STATUSES = ("draft", "published")


@dataclass
class BotConfig:
    """Every configurable field of a chatbot (what a version row stores)."""

    name: str
    slug: str
    description: str = ""
    system_prompt: str = ""
    welcome_message: str = ""
    fallback_message: str = ""
    collections: list[str] = field(default_factory=list)
    provider: str = "extractive"
    model: str = ""
    temperature: float = 0.3
    max_tokens: int = 1024
    context_limit: int = 5
    policy: str = "hybrid"
    profile_id: int | None = None  # the author profile it writes by (issue 26); 0: none
    min_relevance: float = 0.0  # decline below this source similarity (answers.py); 0 = off
    show_sources: bool = True  # replies list their sources (page, API, CLI)
    question_urls: bool = False  # fetch a URL in a question (off: public bots fetch nothing)

    def __post_init__(self):
        if self.profile_id == 0 and not isinstance(self.profile_id, bool):
            self.profile_id = None

    def to_dict(self) -> dict:
        return asdict(self)


CONFIG_FIELDS = tuple(f.name for f in fields(BotConfig))


@dataclass
class BuildOptions:
    url: str
    collection: str = ""  # empty: derived from the URL (F07)
    max_pages: int = 50
    max_depth: int = 3


def slugify(text: str, max_len: int = 100) -> str:
    """`Harbour Authority Bot` -> `harbour-authority-bot`; `https://www.Example.org/docs` ->
    `www-example-org-docs` (umlauts transliterated)."""
    text = (text or "").lower()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        text = text.replace(a, b)
    s = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return s[:max_len].strip("-")


def name_from_collections(collections) -> str:
    """The default name of a bot that answers from existing collections only (there is no
    URL to derive it from): "Chatbot for handbuch, samples" (at most three named)."""
    names = [c for c in collections if c]
    if not names:
        return ""
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return f"Chatbot for {', '.join(names[:3])}{more}"


def collection_from_url(url: str) -> str:
    """F07: the collection name of a URL: its host without `www.` and its path."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").removeprefix("www.")
    return slugify(f"{host} {parts.path}", 255) or "site"


def _text(value: str, lo: int, hi: int, what: str) -> str | None:
    n = len(value)
    if not lo <= n <= hi:
        return f"{what} must have between {lo} and {hi:,} characters (has {n:,})"
    return None


def validate_config(cfg: BotConfig, *, publishing: bool = False) -> dict[str, str]:
    """Field -> message for every rule the configuration breaks (empty when valid). A draft
    may leave the prompt and messages empty; publishing needs them."""
    e: dict[str, str] = {}
    if not cfg.name.strip():
        e["name"] = "name must not be empty"
    elif len(cfg.name) > 200:
        e["name"] = "name may have at most 200 characters"
    if not cfg.slug:
        e["slug"] = "slug must not be empty"
    elif len(cfg.slug) > 100:
        e["slug"] = "slug may have at most 100 characters"
    elif not SLUG_RE.match(cfg.slug):
        e["slug"] = "slug may only contain lower-case letters, digits and hyphens"
    if cfg.system_prompt or publishing:
        if msg := _text(cfg.system_prompt, PROMPT_MIN, PROMPT_MAX, "system prompt"):
            e["system_prompt"] = msg
    for key, what in (("welcome_message", "welcome message"),
                      ("fallback_message", "fallback message")):
        value = getattr(cfg, key)
        if len(value) > MESSAGE_MAX:
            e[key] = f"{what} may have at most {MESSAGE_MAX:,} characters"
        elif publishing and not value.strip():
            e[key] = f"{what} must not be empty to publish"
    if len(cfg.description) > MESSAGE_MAX:
        e["description"] = f"description may have at most {MESSAGE_MAX:,} characters"
    if not cfg.collections:
        e["collections"] = "choose at least one collection"
    if cfg.provider not in PROVIDERS:
        e["provider"] = f"unknown provider {cfg.provider!r}; choose one of {', '.join(PROVIDERS)}"
    if len(cfg.model) > 200:
        e["model"] = "model may have at most 200 characters"
    if msg := temperature_error(cfg.provider, cfg.temperature):
        e["temperature"] = msg
    if isinstance(cfg.min_relevance, bool) or not isinstance(cfg.min_relevance, (int, float)) \
            or not 0.0 <= cfg.min_relevance <= 1.0:
        e["min_relevance"] = "min relevance must be between 0.0 and 1.0"
    for key in ("show_sources", "question_urls"):
        if not isinstance(getattr(cfg, key), bool):
            e[key] = f"{key.replace('_', ' ')} must be true or false"
    if not isinstance(cfg.max_tokens, int) or not 1 <= cfg.max_tokens <= MAX_OUTPUT_TOKENS:
        e["max_tokens"] = f"max tokens must be between 1 and {MAX_OUTPUT_TOKENS}"
    if cfg.context_limit not in CONTEXT_LIMITS:
        e["context_limit"] = f"context limit must be one of {', '.join(map(str, CONTEXT_LIMITS))}"
    if cfg.policy not in POLICIES:
        e["policy"] = f"unknown retrieval policy {cfg.policy!r}"
    if cfg.profile_id is not None and (isinstance(cfg.profile_id, bool) or
                                       not isinstance(cfg.profile_id, int) or cfg.profile_id < 1):
        e["profile_id"] = f"must be an author profile id, not {cfg.profile_id!r}"
    return e


def validate_new_collection(name: str) -> str | None:
    if not name:
        return "collection name must not be empty"
    if len(name) > 255:
        return "collection name may have at most 255 characters"
    if not SLUG_RE.match(name):
        return "collection name may only contain lower-case letters, digits and hyphens"
    return None


def validate_build(opts: BuildOptions, guard) -> dict[str, str]:
    """URL (SSRF guard, after DNS resolution), pages 1–500, depth 1–10, collection name."""
    from backend.errors import UrlRefused

    e: dict[str, str] = {}
    url = opts.url.strip()
    if not url:
        e["url"] = "enter the URL of the site to crawl"
    elif urlsplit(url).scheme not in ("http", "https"):
        e["url"] = "invalid URL: it must start with http:// or https://"
    else:
        try:
            guard.check(url)
        except UrlRefused as err:
            e["url"] = f"invalid or unreachable URL: {err.reason}"
    if not isinstance(opts.max_pages, int) or not 1 <= opts.max_pages <= MAX_PAGES:
        e["max_pages"] = f"at most {MAX_PAGES} pages allowed (1–{MAX_PAGES})"
    if not isinstance(opts.max_depth, int) or not 1 <= opts.max_depth <= MAX_DEPTH:
        e["max_depth"] = f"maximum depth is {MAX_DEPTH} (1–{MAX_DEPTH})"
    if msg := validate_new_collection(opts.collection):
        e["collection"] = msg
    return e
