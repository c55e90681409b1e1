"""ChatbotService: the one entry point of the wizard page, the bot page, the CLI (and the
`/api/chatbots/*` routes to come): configuration with version history, build (build.py),
field generation (generate.py) and answering through the chat's answer path.

    svc = ChatbotService(rs)                       # or ChatbotService(rs, crawl=console.service)
    bot = svc.create(actor, url="https://example.org", max_pages=50)
    svc.start_build(actor, bot.slug); svc.build_progress(bot.slug)
    svc.update(actor, bot.slug, system_prompt=svc.generate(actor, bot.slug, "system_prompt").text)
    svc.publish(actor, bot.slug); svc.ask(viewer, bot.slug, "Wann ...?")

Every changing action takes the acting `Actor` and checks `chatbot_edit` (editor) itself;
asking a published bot needs `view`, asking a draft (the wizard's test chat) `chatbot_edit`.
Who sees which bot and which collections a creator may use: visibility.py (a bot is
visible to those who may read every collection it answers from)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import func, select, update

from backend.security import access
from backend.security.access import Actor, Scope
from backend.chat.service import Answered, ChatService
from backend.chat.types import ChatInputError, Delta, Fallback, Retrieved
from backend.chat.profiles import profile_errors
from backend.chatbots.asking import AskMixin, BotAnswer
from backend.chatbots.build import BuildMixin
from backend.chatbots.generate import GenerateMixin
from backend.chatbots.spec import (
    CONFIG_FIELDS,
    BotConfig,
    BuildOptions,
    collection_from_url,
    name_from_collections,
    slugify,
    validate_build,
    validate_config,
)
from backend.chatbots.removal import RemovalMixin
from backend.chatbots.stats import StatsMixin
from backend.chatbots.visibility import VisibilityMixin
from backend.crawl.service import CrawlService
from backend.crawl.sources import SourceSpec, default_name
from backend.errors import ChatbotError, InvalidChatbot, NotFound
from backend.services.container import Ragscope
from backend.store import repo
from backend.store.chat_models import ChatMessage, ChatSession
from backend.store.chatbot_models import Chatbot, ChatbotCollection, ChatbotVersion
from backend.store.models import Collection, utcnow

CRAWL_OPTIONS = ("delay_s", "concurrency", "respect_robots", "use_sitemap",
                 "include_subdomains", "render_js")


@dataclass
class BotInfo:
    id: int
    config: BotConfig
    status: str
    source_url: str
    crawl_source_id: int | None
    crawl_run_id: int | None
    config_version: int
    created_by: str
    updated_by: str
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None

    @property
    def slug(self) -> str:
        return self.config.slug

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def published(self) -> bool:
        return self.status == "published"


@dataclass
class VersionInfo:
    version: int
    config: dict
    change: str
    changed_by: str
    created_at: datetime


class ChatbotService(VisibilityMixin, BuildMixin, GenerateMixin, AskMixin, RemovalMixin,
                     StatsMixin):
    def __init__(self, rs: Ragscope, *, crawl: CrawlService | None = None,
                 chat: ChatService | None = None, provider_factory=None):
        """`crawl`: the process's crawl service (the dashboard's console), so a build started
        by one page run is the same background thread the next run reads; `provider_factory`
        (tests) replaces the LLM providers of the chat and of field generation."""
        self.rs = rs
        self.store = rs.store
        self.crawl = crawl or CrawlService(rs)
        self.chat = chat or ChatService(rs, provider_factory=provider_factory)
        self.provider_factory = provider_factory

    # ---- reading ------------------------------------------------------------------------

    def get(self, slug: str) -> BotInfo:
        """Any bot, unchecked (the service's own use); callers acting for someone use
        `open(actor, slug)` (visibility.py)."""
        with self.store.session() as s:
            return self._info(s, self._row(s, slug))

    def versions(self, slug: str) -> list[VersionInfo]:
        with self.store.session() as s:
            bot = self._row(s, slug)
            return [VersionInfo(v.version, dict(v.config), v.change, v.changed_by, v.created_at)
                    for v in s.scalars(select(ChatbotVersion).where(
                        ChatbotVersion.chatbot_id == bot.id).order_by(ChatbotVersion.version))]

    @staticmethod
    def _row(s, slug: str) -> Chatbot:
        bot = s.scalar(select(Chatbot).where(Chatbot.slug == str(slug).strip()))
        if bot is None:
            raise NotFound(f"chatbot '{slug}' does not exist")
        return bot

    @staticmethod
    def _collections(s, bot_id: int) -> list[str]:
        return list(s.scalars(
            select(Collection.name).join(ChatbotCollection,
                                         ChatbotCollection.collection_id == Collection.id)
            .where(ChatbotCollection.chatbot_id == bot_id).order_by(ChatbotCollection.position)))

    def _info(self, s, bot: Chatbot) -> BotInfo:
        cfg = BotConfig(**{f: getattr(bot, f) for f in CONFIG_FIELDS if f != "collections"},
                        collections=self._collections(s, bot.id))
        return BotInfo(bot.id, cfg, bot.status, bot.source_url, bot.crawl_source_id,
                       bot.crawl_run_id, bot.config_version, bot.created_by, bot.updated_by,
                       bot.created_at, bot.updated_at, bot.published_at)

    # ---- creating and changing ----------------------------------------------------------

    def create(self, actor: Actor | None, *, name: str = "", slug: str = "", url: str = "",
               collection: str = "", collections: list[str] | tuple = (), max_pages: int = 50,
               max_depth: int = 3, crawl_options: dict | None = None,
               knowledge_base: str = "", **config) -> BotInfo:
        """A draft bot. With `url`: a crawl source for it (collection from the URL unless
        given, F07); its collection is created now (empty) so the bot references it. With
        `collections`: existing collections (several, F10) the actor may read. A new build
        collection goes into `knowledge_base` (default: RAGSCOPE_DEFAULT_KNOWLEDGE_BASE),
        which the actor must be allowed to write. Raises InvalidChatbot with every field's
        error; nothing is stored then."""
        actor = access.require(actor, "chatbot_edit")
        unknown = set(config) - set(CONFIG_FIELDS)
        if unknown:
            raise InvalidChatbot({k: "unknown field" for k in sorted(unknown)})
        url, name, slug = url.strip(), " ".join(name.split()), slug.strip()
        errors: dict[str, str] = {}
        opts = None
        if url:
            opts = BuildOptions(url, collection.strip() or collection_from_url(url),
                                max_pages, max_depth)
            errors.update(validate_build(opts, self.crawl.guard))
            host = (urlsplit(url).hostname or "").removeprefix("www.")
            slug = slug or slugify(name or f"bot {host}")
            name = name or f"Chatbot for {host}"
        else:  # existing collections only: the name from them unless given
            name = name or name_from_collections(collections)
            slug = slug or slugify(name)
        wanted = ([opts.collection] if opts else []) + [c for c in collections if c]
        wanted = list(dict.fromkeys(wanted))
        cfg = BotConfig(name=name, slug=slug, collections=wanted, **config)
        errors = {**validate_config(cfg), **errors}
        if not wanted:
            errors["collections"] = "enter a URL to crawl or choose at least one collection"
        with self.store.session() as s:
            self._check_unique(s, cfg, None, errors)
            profile_errors(s, cfg.profile_id, errors)
            missing = self._unknown_collections(s, actor, [c for c in collections if c])
            if missing:
                errors.setdefault("collections", f"unknown collection(s): {', '.join(missing)}")
            if errors:
                raise InvalidChatbot(errors)
        if opts:
            self._build_collection(actor, opts.collection, knowledge_base.strip())
        source_id = self._source(opts, crawl_options or {}) if opts else None
        with self.store.session() as s:
            now = utcnow()
            bot = Chatbot(**{f: getattr(cfg, f) for f in CONFIG_FIELDS if f != "collections"},
                          status="draft", source_url=url, crawl_source_id=source_id,
                          created_by=actor.username, updated_by=actor.username,
                          created_at=now, updated_at=now, config_version=1)
            s.add(bot)
            s.flush()
            self._link(s, bot.id, cfg.collections)
            self._version(s, bot, actor, "created")
            return self._info(s, bot)

    def _source(self, opts: BuildOptions, crawl_options: dict) -> int:
        extra = {k: v for k, v in crawl_options.items() if k in CRAWL_OPTIONS}
        sources = self.crawl.sources
        src = sources.find(opts.url, opts.collection)
        if src is None:
            src = sources.create(SourceSpec(
                name=default_name(opts.url, opts.collection), start_url=opts.url,
                collection=opts.collection, max_pages=opts.max_pages,
                max_depth=opts.max_depth, **extra))
        else:
            src = sources.update(src.id, max_pages=opts.max_pages, max_depth=opts.max_depth,
                                 **extra)
        return src.id

    @staticmethod
    def _check_unique(s, cfg: BotConfig, bot_id: int | None, errors: dict[str, str]) -> None:
        def taken(q) -> bool:
            if bot_id is not None:
                q = q.where(Chatbot.id != bot_id)
            return s.scalar(q) is not None

        if cfg.name and taken(select(Chatbot.id).where(
                func.lower(Chatbot.name) == cfg.name.lower())):
            errors.setdefault("name", f"a chatbot named '{cfg.name}' already exists")
        if cfg.slug and taken(select(Chatbot.id).where(Chatbot.slug == cfg.slug)):
            errors.setdefault("slug", f"a chatbot with the slug '{cfg.slug}' already exists")

    @staticmethod
    def _link(s, bot_id: int, names: list[str]) -> None:
        s.execute(ChatbotCollection.__table__.delete().where(
            ChatbotCollection.chatbot_id == bot_id))
        for pos, name in enumerate(names):
            c = repo.get_or_create_collection(s, name)
            s.add(ChatbotCollection(chatbot_id=bot_id, collection_id=c.id, position=pos))
        s.flush()

    def _version(self, s, bot: Chatbot, actor: Actor, change: str) -> None:
        cfg = self._info(s, bot).config.to_dict()
        s.add(ChatbotVersion(chatbot_id=bot.id, version=bot.config_version,
                             config={**cfg, "status": bot.status}, change=change[:500],
                             changed_by=actor.username))

    def update(self, actor: Actor | None, slug: str, /, **changes) -> BotInfo:
        """Change configuration fields; each change that alters something stores a new
        version. Collections must exist and be readable by the actor (the build's
        collection exists from creation on)."""
        actor = access.require(actor, "chatbot_edit")
        self._editable(actor, slug)
        unknown = set(changes) - set(CONFIG_FIELDS)
        if unknown:
            raise InvalidChatbot({k: "unknown field" for k in sorted(unknown)})
        if "name" in changes:
            changes["name"] = " ".join(str(changes["name"]).split())
        with self.store.session() as s:
            bot = self._row(s, slug)
            old = self._info(s, bot).config
            cfg = BotConfig(**{**old.to_dict(), **changes})
            cfg.collections = list(dict.fromkeys(c.strip() for c in cfg.collections if c.strip()))
            errors = validate_config(cfg, publishing=bot.status == "published")
            self._check_unique(s, cfg, bot.id, errors)
            profile_errors(s, cfg.profile_id, errors)
            missing = self._unknown_collections(s, actor, cfg.collections)
            if missing:
                errors.setdefault("collections", f"unknown collection(s): {', '.join(missing)}")
            if errors:
                raise InvalidChatbot(errors)
            changed = [f for f in CONFIG_FIELDS if getattr(cfg, f) != getattr(old, f)]
            if not changed:
                return self._info(s, bot)
            for f in changed:
                if f != "collections":
                    setattr(bot, f, getattr(cfg, f))
            if "collections" in changed:
                self._link(s, bot.id, cfg.collections)
            bot.config_version += 1
            bot.updated_by, bot.updated_at = actor.username, utcnow()
            self._version(s, bot, actor, "changed " + ", ".join(changed))
            return self._info(s, bot)

    def publish(self, actor: Actor | None, slug: str) -> BotInfo:
        """Needs a valid system prompt, welcome and fallback message and indexed content in
        the bot's collections."""
        actor = access.require(actor, "chatbot_edit")
        self._editable(actor, slug)
        with self.store.session() as s:
            bot = self._row(s, slug)
            info = self._info(s, bot)
            errors = validate_config(info.config, publishing=True)
            if not errors.get("collections") and not self._chunk_count(s, bot.id):
                errors["collections"] = ("the bot's collections hold no indexed page yet; "
                                         "build it (crawl) or choose a collection with content")
            if errors:
                raise InvalidChatbot(errors)
            return self._set_status(s, bot, actor, "published")

    def unpublish(self, actor: Actor | None, slug: str) -> BotInfo:
        """Back to draft; the configuration is kept."""
        actor = access.require(actor, "chatbot_edit")
        self._editable(actor, slug)
        with self.store.session() as s:
            return self._set_status(s, self._row(s, slug), actor, "draft")

    def _set_status(self, s, bot: Chatbot, actor: Actor, status: str) -> BotInfo:
        if bot.status != status:
            bot.status = status
            bot.published_at = utcnow() if status == "published" else bot.published_at
            bot.config_version += 1
            bot.updated_by, bot.updated_at = actor.username, utcnow()
            self._version(s, bot, actor, "published" if status == "published" else "unpublished")
        return self._info(s, bot)



__all__ = ["BotAnswer", "BotInfo", "ChatInputError", "ChatbotService", "VersionInfo"]
