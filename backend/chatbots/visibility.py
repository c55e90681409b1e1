"""Who sees which chatbot, and which collections a creator may give it (issue 13's scope
applied to bots; docs/chatbots.md "Access").

The rule: a bot is visible to an actor who may read **every** collection it answers from
(admins and the CLI operator: every bot). Viewers see published bots only; editors also
drafts. A bot outside the actor's scope is unknown: the same NotFound, with the same
message, as a slug that does not exist, so slugs, names and collections do not leak.

Creating or changing a bot: each existing collection it answers from must be readable by
the editor (one outside the scope is reported as an unknown collection); the collection
its build crawls into must be writable (a new one is created in a knowledge base the editor
may write, as for a crawl: backend/security/acl.py `writable_collection`). Building, cancelling and
resuming need write on the build's collection."""
from __future__ import annotations

from sqlalchemy import func, select

from backend.security import access, auth
from backend.security.access import Actor, Scope
from backend.errors import InvalidChatbot, NotFound
from backend.store.chatbot_models import Chatbot, ChatbotCollection
from backend.store.models import Collection


def visible_clause(scope: Scope):
    """SQL condition on Chatbot: no collection of the bot lies outside `scope` (None when
    the scope is unrestricted)."""
    if scope.readable is None:
        return None
    outside = (select(ChatbotCollection.chatbot_id)
               .join(Collection, Collection.id == ChatbotCollection.collection_id)
               .where(Collection.name.not_in(sorted(scope.readable))))
    return Chatbot.id.not_in(outside)


def not_found(slug: str) -> NotFound:
    return NotFound(f"chatbot '{slug}' does not exist")


class VisibilityMixin:
    """Scope methods of ChatbotService (self.rs, self.store, self.get, self._info)."""

    def scope(self, actor: Actor | None) -> Scope:
        return access.scope_of(self.rs, actor)

    def open(self, actor: Actor | None, slug: str, *, published_only: bool = False):
        """The bot as `actor` may see it: needs the viewer role; NotFound when it does not
        exist, lies outside the actor's scope, or is a draft and `published_only`. A draft
        needs `chatbot_edit` (PermissionDenied for viewers)."""
        actor = access.require(actor, "view")
        try:
            bot = self.get(slug)
        except NotFound:
            raise not_found(slug) from None
        scope = self.scope(actor)
        if not all(scope.can_read(c) for c in bot.config.collections):
            raise not_found(slug)
        if not bot.published:
            if published_only:  # editors hear why; to others a draft does not exist
                raise (NotFound(f"chatbot '{slug}' is not published; editors test drafts "
                                "with test-ask (the builder's test chat)")
                       if actor.can("chatbot_edit") else not_found(slug))
            access.require(actor, "chatbot_edit")
        return bot

    def view(self, actor: Actor | None, slug: str):
        """The bot as a page or the API shows it: editors any bot in their scope, viewers
        published ones only (a draft is not found)."""
        actor = access.require(actor, "view")
        return self.open(actor, slug, published_only=not actor.can("chatbot_edit"))

    def _editable(self, actor: Actor | None, slug: str):
        """The bot, for a change by `actor` (chatbot_edit, and the bot in its scope)."""
        access.require(actor, "chatbot_edit")
        return self.open(actor, slug)

    def _require_build_writable(self, actor: Actor, slug: str) -> None:
        """Building crawls into the bot's build collection: the actor must write it."""
        source_id = self._build_run(slug)[1]
        if source_id is None:
            return
        collection = self.crawl.sources.get(source_id).collection
        if not self.scope(actor).can_write(collection):
            raise auth.PermissionDenied(f"{actor.username} may read but not change "
                                        f"collection '{collection}', which the build of "
                                        f"chatbot '{slug}' crawls into")

    def page(self, actor: Actor | None, *, published_only: bool = False, offset: int = 0,
             limit: int | None = None) -> tuple[list, int]:
        """The bots `actor` may see (viewers: published ones only), by name, and how many
        there are."""
        actor = access.require(actor, "view")
        published_only = published_only or not actor.can("chatbot_edit")
        cond = [c for c in (visible_clause(self.scope(actor)),) if c is not None]
        if published_only:
            cond.append(Chatbot.status == "published")
        with self.store.session() as s:
            total = s.scalar(select(func.count(Chatbot.id)).where(*cond)) or 0
            q = select(Chatbot).where(*cond).order_by(Chatbot.name, Chatbot.id).offset(offset)
            if limit is not None:
                q = q.limit(limit)
            return [self._info(s, b) for b in s.scalars(q)], total

    def list(self, actor: Actor | None, *, published_only: bool = False) -> list:
        return self.page(actor, published_only=published_only)[0]

    def collection_names(self, actor: Actor | None) -> list[str]:
        """The collections `actor` may give a bot (those it may read)."""
        from backend.store import repo

        scope = self.scope(actor)
        with self.store.session() as s:
            return sorted(c.name for c, _ in repo.list_collections(s) if scope.can_read(c.name))

    def _unknown_collections(self, s, actor: Actor, names) -> list[str]:
        """Those of `names` that do not exist or lie outside the actor's scope (the same)."""
        scope = self.scope(actor)
        existing = set(s.scalars(select(Collection.name).where(
            Collection.name.in_(list(names)))))
        return [c for c in names if c not in existing or not scope.can_read(c)]

    def _build_collection(self, actor: Actor, name: str, knowledge_base: str | None) -> None:
        """Check (and create when new) the collection a build crawls into; a refusal is
        the `collection` field's error."""
        from backend.security.acl import writable_collection

        try:
            writable_collection(self.rs, actor, name, knowledge_base or None,
                                action="chatbot_edit", strict=False)
        except NotFound as e:
            if "knowledge base" in str(e):
                raise InvalidChatbot({"knowledge_base": str(e)}) from None
            raise InvalidChatbot({"collection": f"collection name '{name}' is not "
                                                "available; choose another name"}) from None
        except auth.PermissionDenied as e:
            raise InvalidChatbot({"collection": f"{e}; choose another collection name"}) \
                from None
