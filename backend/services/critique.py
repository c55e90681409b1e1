"""Critics and critique rounds for every front door (CLI `critique`, HTTP `/api/critique` and
`/api/critics`, the MCP tool `critique_answer`, the chat page and the Critics page).

Who may do what (the rule lives here, so it holds in every front door): anyone signed in
lists the critics; admins (the `settings` action) create and edit them. A stored answer is
critiqued by whoever may read it: the owner of its chat session (a dashboard user, an API
principal), the visitor of a chatbot conversation, an admin signed in to the dashboard or
the CLI operator; any other answer is "not found", as one that does not exist. Its sources
are re-read from the store within the caller's scope (a source outside it is checked as
unavailable). A given text (`--text`, a summary) is critiqued against the sources given."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from sqlalchemy import select

from backend.chat.critique import critics as store_critics
from backend.chat.critique import runs as store_runs
from backend.chat.critique.critics import CriticInfo, CritiqueInputError
from backend.chat.critique.rounds import Reviewer, Target, run_rounds
from backend.errors import NotFound
from backend.llm import PROVIDERS, default_model, make_provider
from backend.llm.base import Provider
from backend.security import access, auth
from backend.security.access import Actor, chat_user
from backend.store.chat_models import ChatMessage, ChatSession
from backend.store.models import Chunk

MAX_TEXT_CHARS = 100_000
MAX_SOURCES = 20
UNAVAILABLE = "(this source is not available to you any more)"

__all__ = ["CritiqueInputError", "create_critic", "critique_message", "critique_text",
           "list_critics", "load_sources_file", "recent_runs", "runs_of_messages",
           "update_critic"]


def _is_admin(actor: Actor) -> bool:
    return actor.kind in ("user", "system") and auth.has_role(actor.role, "admin")


def list_critics(rs, actor: Actor | None, *, active_only: bool = False) -> list[CriticInfo]:
    access.require(actor, "view")
    with rs.store.session() as s:
        return store_critics.list_critics(s, active_only=active_only)


def create_critic(rs, actor: Actor | None, **fields) -> CriticInfo:
    actor = access.require(actor, "settings")
    with rs.store.session() as s:
        return store_critics.create_critic(s, actor.username, **fields)


def update_critic(rs, actor: Actor | None, ref: int | str, **fields) -> CriticInfo:
    actor = access.require(actor, "settings")
    with rs.store.session() as s:
        return store_critics.update_critic(s, ref, actor.username, **fields)


def _reviewer(rs, actor: Actor, provider: str | None, answered_with: str = "",
              model: str = "", factory: Callable[[str], Provider] | None = None) -> Reviewer:
    """The provider asked: the given one, the setting, the answer's own, the chat default."""
    st = rs.settings
    name = provider or st.critique_provider or (
        answered_with if answered_with not in ("", "extractive") else st.chat_default_provider)
    if name not in PROVIDERS:
        raise CritiqueInputError("provider", f"unknown provider {name!r}; choose one of "
                                 + ", ".join(p for p in PROVIDERS if p != "extractive"))
    if name == "extractive":
        raise CritiqueInputError("provider", "the extractive answerer cannot critique or "
                                 "revise: choose an LLM provider (--provider, "
                                 "RAGSCOPE_CRITIQUE_PROVIDER)")
    use_model = model if name == answered_with and model else default_model(st, name)
    impl = (factory or (lambda n: make_provider(st, n)))(name)
    return Reviewer(impl, use_model, chat_user(actor))


def _rounds(rs, rounds: int | None) -> int:
    n = rs.settings.critique_max_rounds if rounds is None else rounds
    if not 0 <= int(n) <= 10:
        raise CritiqueInputError("rounds", f"rounds must be 0-10, not {n}")
    return int(n)


def _active(rs) -> list[CriticInfo]:
    with rs.store.session() as s:
        found = store_critics.list_critics(s, active_only=True)
    if not found:
        raise CritiqueInputError("critics", "no critic is active: switch one on on the "
                                 "Critics page or with the API")
    return found


def _may_read(actor: Actor, sess: ChatSession) -> bool:
    if _is_admin(actor):
        return True
    owner = actor.username if sess.chatbot_id is not None else chat_user(actor)
    return sess.user == owner


def _message_target(rs, actor: Actor, message_id: int) -> tuple[Target, ChatMessage]:
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        row = s.execute(select(ChatMessage, ChatSession)
                        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
                        .where(ChatMessage.id == int(message_id))).first()
        if row is None or row[0].role != "assistant" or not _may_read(actor, row[1]):
            raise NotFound(f"answer {message_id} does not exist, or is not one you may read")
        msg, sess = row
        question = s.scalar(select(ChatMessage.content).where(
            ChatMessage.session_id == sess.id, ChatMessage.role == "user",
            ChatMessage.id < msg.id).order_by(ChatMessage.id.desc()).limit(1)) or ""
        sources = _message_sources(s, msg.sources or [], scope, rs.settings.chat_source_chars)
        s.expunge(msg)
        target = Target(text=msg.content, question=question, sources=sources,
                        kind="reply" if sess.chatbot_id is not None else "answer",
                        message_id=msg.id, profile=sess.answer_profile or "markdown")
        target.style_rules = _profile_rules(rs, sess.profile_id, question)
        return target, msg


def _profile_rules(rs, profile_id: int | None, question: str) -> str | None:
    """The session's author profile as the stylist's rules, in the question's language (the
    prompt block the answer was written under); None without a profile."""
    from backend.chat.profiles import ProfileService
    from backend.ingest.language import detect_language

    author = ProfileService(rs).get(profile_id)
    return author.style_rules_text(detect_language(question) or "en") if author else None


def _message_sources(s, sources: list[dict], scope, chars: int) -> list[dict]:
    ids = {src.get("document_id") for src in sources if src.get("document_id")}
    visible = access.visible_document_ids(s, scope, ids)
    chunk_ids = [src["chunk_id"] for src in sources
                 if src.get("chunk_id") and src.get("document_id") in visible]
    texts = dict(s.execute(select(Chunk.id, Chunk.text).where(Chunk.id.in_(chunk_ids))).all()
                 ) if chunk_ids else {}
    out = []
    for src in sources[:MAX_SOURCES]:
        text = texts.get(src.get("chunk_id"))
        out.append({"n": src["n"], "title": src.get("title") or "",
                    "section": src.get("breadcrumb") or "",
                    "text": (text or UNAVAILABLE)[:chars]})
    return out


def critique_message(rs, actor: Actor | None, message_id: int, *, rounds: int | None = None,
                     provider: str | None = None, style_rules: str | None = None,
                     progress=None, provider_factory=None) -> dict:
    """Critique a stored answer (chat or chatbot) and revise it up to `rounds` times; the
    stored run. `style_rules`: the stylist's rules; None: the session's author profile's
    rules (issue 26.2), else the format checker's active rules of its answer profile."""
    actor = access.require(actor, "view")
    n = _rounds(rs, rounds)
    target, msg = _message_target(rs, actor, message_id)
    reviewer = _reviewer(rs, actor, provider, msg.provider, msg.model, provider_factory)
    return run_rounds(rs.store, target, _active(rs), reviewer, max_rounds=n,
                      style_rules=style_rules or target.style_rules, progress=progress)


def critique_text(rs, actor: Actor | None, text: str, *, sources: list[dict] | None = None,
                  question: str = "", kind: str = "text", rounds: int | None = None,
                  provider: str | None = None, style_rules: str | None = None,
                  profile: str = "markdown", progress=None, provider_factory=None) -> dict:
    """Critique a given text (a summary, a draft) against the given numbered sources."""
    actor = access.require(actor, "view")
    text = (text or "").strip()
    if not text:
        raise CritiqueInputError("text", "the text to critique is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise CritiqueInputError("text", f"the text has {len(text)} characters; at most "
                                         f"{MAX_TEXT_CHARS} can be critiqued")
    n = _rounds(rs, rounds)
    target = Target(text=text, question=question or "", sources=normalise_sources(sources),
                    kind=kind, profile=profile)
    reviewer = _reviewer(rs, actor, provider, factory=provider_factory)
    return run_rounds(rs.store, target, _active(rs), reviewer, max_rounds=n,
                      style_rules=style_rules, progress=progress)


def normalise_sources(sources: list | None) -> list[dict]:
    """Strings or {"title", "text"} objects, numbered 1.. in order."""
    out = []
    for i, src in enumerate(sources or [], 1):
        if isinstance(src, str):
            src = {"text": src}
        if not isinstance(src, dict) or not str(src.get("text") or "").strip():
            raise CritiqueInputError("sources", f"source {i} needs a text (a string or an "
                                                "object with \"text\")")
        out.append({"n": i, "title": str(src.get("title") or f"source {i}"),
                    "section": str(src.get("section") or ""), "text": str(src["text"])})
    if len(out) > MAX_SOURCES:
        raise CritiqueInputError("sources", f"{len(out)} sources; at most {MAX_SOURCES}")
    return out


def load_sources_file(path: str | Path) -> list[dict]:
    """A JSON list of sources (strings or {"title", "text"}), or any other file as one
    source titled with its name. CritiqueInputError naming the file when it cannot be read."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CritiqueInputError("sources", f"{p}: cannot be read ({e})") from None
    if p.suffix.lower() != ".json":
        return [{"title": p.name, "text": raw}]
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise CritiqueInputError("sources", f"{p}: not valid JSON (line {e.lineno}: "
                                            f"{e.msg})") from None
    if not isinstance(data, list):
        raise CritiqueInputError("sources", f"{p}: expected a JSON list of sources")
    try:
        return normalise_sources(data)
    except CritiqueInputError as e:
        raise CritiqueInputError("sources", f"{p}: {e}") from None


def stale_after_s(settings) -> float:
    """How long one stored step of a run (a critique, a revision) may take at most: one LLM
    call with its retries, each allowed its connect and read timeout, plus a minute."""
    per_try = settings.llm_connect_timeout_s + settings.llm_timeout_s
    return per_try * (settings.llm_max_retries + 1) + 60.0


def runs_of_messages(rs, actor: Actor | None, message_ids: list[int]) -> dict[int, list[dict]]:
    """Each answer's critique runs, newest first, for the answers the caller may read."""
    if actor is None or not message_ids:
        return {}
    with rs.store.session() as s:
        rows = s.execute(select(ChatMessage.id, ChatSession)
                         .join(ChatSession, ChatSession.id == ChatMessage.session_id)
                         .where(ChatMessage.id.in_([int(i) for i in message_ids]))).all()
        mine = [mid for mid, sess in rows if _may_read(actor, sess)]
        return store_runs.runs_of_messages(s, mine, stale_after_s(rs.settings))


def recent_runs(rs, actor: Actor | None, *, limit: int = 50) -> list[dict]:
    """Newest runs first: an admin's view all, anyone else's their own."""
    actor = access.require(actor, "view")
    with rs.store.session() as s:
        return store_runs.recent_runs(s, limit=limit,
                                      user=None if _is_admin(actor) else chat_user(actor),
                                      stale_after_s=stale_after_s(rs.settings))
