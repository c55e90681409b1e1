"""Author profiles (issue 26, seed 000): stored style rules a chat session or a chatbot
writes by. `ProfileService(rs)` lists, creates, shows, updates and deletes them (the
dashboard page, the HTTP API and the CLI all call it); `profile_for_session(rs, session)`
is the profile a session writes by (the chat's prompt and format check, the stylist critic).

Changing a profile needs the `author_profiles` action (editor); reading needs `view`.
Deleting a profile in use sets the sessions' and chatbots' `profile_id` to None in the same
transaction — they fall back to no style rules — and the result says how many did.
The value and its rules: backend/chat/profile_rules.py."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import yaml
from sqlalchemy import func, select, update

from backend.chat.profile_rules import (  # noqa: F401  (re-exported: the profiles' names)
    FIELDS,
    AuthorProfile,
    InvalidProfile,
    format_args,
    validate,
)
from backend.errors import NotFound
from backend.security import access
from backend.security.access import Actor
from backend.store.chat_models import ChatSession
from backend.store.chatbot_models import Chatbot
from backend.store.models import utcnow
from backend.store.profile_models import AuthorProfileRow

YAML_MAX_BYTES = 64 * 1024

SAMPLES = (
    {"name": "Sachlich (Sie)", "description": "Deutsch, sachlich und formell, Anrede mit Sie.",
     "tone": "sachlich, präzise", "formality": "formal", "address": "sie",
     "max_sentence_words": 25, "forbidden_words": ["super", "toll", "mega"],
     "output_format": "markdown"},
    {"name": "Plain English", "description": "Short plain-text answers in everyday English.",
     "tone": "clear and friendly", "formality": "neutral", "address": "you",
     "max_sentence_words": 20, "forbidden_words": ["utilise", "leverage", "synergy"],
     "output_format": "plain"},
    {"name": "Locker (du)", "description": "Deutsch, locker und freundlich, Anrede mit du.",
     "tone": "freundlich, direkt", "formality": "informal", "address": "du",
     "output_format": "markdown"},
)


@dataclass(frozen=True)
class Deleted:
    """What deleting a profile did: the sessions and chatbots that wrote by it now write
    without a profile."""

    profile: AuthorProfile
    sessions: int
    chatbots: int

    def message(self) -> str:
        if not self.sessions and not self.chatbots:
            return f"Deleted author profile '{self.profile.name}' (it was not in use)."
        return (f"Deleted author profile '{self.profile.name}'; {self.sessions} chat "
                f"session(s) and {self.chatbots} chatbot(s) that used it now use no profile.")


def _utc(t: datetime | None) -> datetime | None:
    """SQLite returns naive timestamps; they were stored in UTC."""
    return t.replace(tzinfo=timezone.utc) if t is not None and t.tzinfo is None else t


def _profile(row: AuthorProfileRow) -> AuthorProfile:
    return AuthorProfile(row.id, row.name, row.description, row.tone, row.formality,
                         row.address, row.max_sentence_words, list(row.forbidden_words or []),
                         row.output_format, row.extra_rules, row.created_by, row.updated_by,
                         _utc(row.created_at), _utc(row.updated_at))


def _ref(value) -> int | str:
    """A profile is named by its id or its name ("3", 3 or "Plain English")."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value or "").strip()
    return int(text) if text.isdigit() else text


def check_profile_id(s, profile_id) -> int | None:
    """The id when such a profile exists (None stays None); InvalidProfile("profile_id")
    otherwise, so a session or chatbot never points at nothing."""
    if profile_id in (None, ""):
        return None
    if isinstance(profile_id, bool) or not str(profile_id).strip().isdigit():
        raise InvalidProfile("profile_id", f"must be a profile id, not {profile_id!r}")
    if s.get(AuthorProfileRow, int(profile_id)) is None:
        raise InvalidProfile("profile_id", f"no author profile with id {int(profile_id)}")
    return int(profile_id)


class ProfileService:
    def __init__(self, rs):
        self.rs = rs
        self.store = rs.store

    def list(self) -> list[AuthorProfile]:
        with self.store.session() as s:
            return [_profile(r) for r in s.scalars(
                select(AuthorProfileRow).order_by(func.lower(AuthorProfileRow.name)))]

    def _row(self, s, ref) -> AuthorProfileRow:
        key = _ref(ref)
        row = (s.get(AuthorProfileRow, key) if isinstance(key, int) else s.scalar(
            select(AuthorProfileRow).where(func.lower(AuthorProfileRow.name) == key.lower())))
        if row is None:
            raise NotFound(f"author profile {ref!r} does not exist")
        return row

    def show(self, ref) -> AuthorProfile:
        """By id or name; NotFound otherwise."""
        with self.store.session() as s:
            return _profile(self._row(s, ref))

    def get(self, profile_id: int | None) -> AuthorProfile | None:
        """None for None or an id that no longer exists (never raises)."""
        if profile_id is None:
            return None
        with self.store.session() as s:
            row = s.get(AuthorProfileRow, int(profile_id))
            return _profile(row) if row is not None else None

    def _unique(self, s, name: str, own_id: int | None) -> None:
        q = select(AuthorProfileRow.id).where(func.lower(AuthorProfileRow.name) == name.lower())
        other = s.scalar(q)
        if other is not None and other != own_id:
            raise InvalidProfile("name", f"an author profile named '{name}' already exists")

    def create(self, actor: Actor | None, **values) -> AuthorProfile:
        actor = access.require(actor, "author_profiles")
        clean = validate(values)
        with self.store.session() as s:
            self._unique(s, clean["name"], None)
            now = utcnow()
            row = AuthorProfileRow(**clean, created_by=actor.username,
                                   updated_by=actor.username, created_at=now, updated_at=now)
            s.add(row)
            s.flush()
            return _profile(row)

    def update(self, actor: Actor | None, ref, **changes) -> AuthorProfile:
        """Changes only the given fields; the whole result is validated again."""
        actor = access.require(actor, "author_profiles")
        with self.store.session() as s:
            row = self._row(s, ref)
            current = {f: getattr(row, f) for f in FIELDS}
            clean = validate({**current, **changes})
            self._unique(s, clean["name"], row.id)
            for k, v in clean.items():
                setattr(row, k, v)
            row.updated_by, row.updated_at = actor.username, utcnow()
            s.flush()
            return _profile(row)

    def delete(self, actor: Actor | None, ref) -> Deleted:
        actor = access.require(actor, "author_profiles")
        with self.store.session() as s:
            row = self._row(s, ref)
            profile = _profile(row)
            sessions = s.execute(update(ChatSession).where(ChatSession.profile_id == row.id)
                                 .values(profile_id=None)).rowcount
            bots = s.execute(update(Chatbot).where(Chatbot.profile_id == row.id)
                             .values(profile_id=None)).rowcount
            s.delete(row)
        return Deleted(profile, sessions or 0, bots or 0)

    def usage(self, ref) -> tuple[int, int]:
        """(chat sessions, chatbots) that write by the profile now."""
        with self.store.session() as s:
            pid = self._row(s, ref).id
            return (s.scalar(select(func.count()).where(ChatSession.profile_id == pid)) or 0,
                    s.scalar(select(func.count()).where(Chatbot.profile_id == pid)) or 0)

    def ensure_samples(self, actor: Actor | None = None) -> list[AuthorProfile]:
        """The sample profiles that are missing (by name); existing ones are left alone."""
        actor = actor or Actor.system("samples")
        have = {p.name.lower() for p in self.list()}
        return [self.create(actor, **spec) for spec in SAMPLES if spec["name"].lower() not in have]


def load_yaml(path: str | Path) -> dict:
    """A profile's fields from a YAML file (a mapping); errors name the file."""
    p = Path(path)
    try:
        if p.stat().st_size > YAML_MAX_BYTES:
            raise InvalidProfile("file", f"{p}: larger than {YAML_MAX_BYTES // 1024} KiB")
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise InvalidProfile("file", f"{p}: cannot be read ({e.strerror or e})") from e
    except UnicodeDecodeError as e:
        raise InvalidProfile("file", f"{p}: not UTF-8 text") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise InvalidProfile("file", f"{p}: not valid YAML{where}") from e
    if not isinstance(data, dict):
        raise InvalidProfile("file", f"{p}: must hold a mapping of profile fields "
                                     f"({', '.join(FIELDS)})")
    return data


def profile_for_session(rs, session) -> AuthorProfile | None:
    """The author profile a chat session writes by, or None. `session`: a SessionInfo, its
    SessionSettings, or a session's UUID."""
    if isinstance(session, str):
        with rs.store.session() as s:
            row = s.scalar(select(ChatSession).where(ChatSession.uuid == session))
            if row is None:
                raise NotFound(f"chat session {session} does not exist (any more)")
            profile_id = row.profile_id
    else:
        profile_id = getattr(getattr(session, "settings", session), "profile_id", None)
    return ProfileService(rs).get(profile_id)


def apply_session_format(rs, settings, text: str) -> tuple[str, dict]:
    """`format_check.apply_profile` for a session's settings: its answer profile plus the
    rules of its author profile (plain-text output, sentence length, forbidden words); the
    check names the author profile it applied."""
    from backend.chat.format_check import apply_profile

    author = ProfileService(rs).get(getattr(settings, "profile_id", None))
    text, fmt = apply_profile(text, *format_args(settings.answer_profile, author))
    if author is not None:
        fmt["author_profile"] = {"id": author.id, "name": author.name}
    return text, fmt


def profile_errors(s, profile_id, errors: dict[str, str]) -> None:
    """`check_profile_id` for a field-error dict (the chatbot's validation): a bot never
    points at an author profile that does not exist."""
    if "profile_id" not in errors:
        try:
            check_profile_id(s, profile_id)
        except InvalidProfile as e:
            errors["profile_id"] = str(e).split(": ", 1)[-1]
