"""Critics in the store (table `critics`, migration 0025): list, get, create, update and the
seeding of the defaults (backend/chat/critique/defaults.py), plus rendering an LLM critic's
prompt. Who may change critics is decided by the caller (backend/services/critique.py)."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.chat.critique.defaults import DEFAULT_CRITICS, FEEDBACK_FORMAT
from backend.errors import NotFound, RagscopeError
from backend.store.critic_models import CRITIC_TYPES, Critic

PLACEHOLDERS = ("answer", "sources", "question", "rubric", "style_rules")
MAX_PROMPT_CHARS = 20_000
EDITABLE = ("name", "type", "prompt", "rubric", "threshold", "active", "position")


class CritiqueInputError(RagscopeError):
    """A critic's field or a critique request is not acceptable; `field` names it."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class CriticInfo:
    id: int
    name: str
    type: str
    prompt: str
    rubric: str
    threshold: float
    active: bool
    position: int

    @property
    def deterministic(self) -> bool:
        return self.type == "format"

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "type": self.type, "prompt": self.prompt,
                "rubric": self.rubric, "threshold": self.threshold, "active": self.active,
                "position": self.position, "deterministic": self.deterministic}


def _info(c: Critic) -> CriticInfo:
    return CriticInfo(c.id, c.name, c.type, c.prompt, c.rubric, float(c.threshold),
                      bool(c.active), c.position)


def seed_defaults(s: Session) -> int:
    """Add the default critics whose names are not there yet (the migration does it for a
    new database; this for a store whose critics table an admin emptied by mistake)."""
    have = set(s.scalars(select(Critic.name)))
    added = 0
    for d in DEFAULT_CRITICS:
        if d["name"] not in have:
            s.add(Critic(**d))
            added += 1
    s.flush()
    return added


def list_critics(s: Session, *, active_only: bool = False) -> list[CriticInfo]:
    q = select(Critic).order_by(Critic.position, Critic.id)
    if active_only:
        q = q.where(Critic.active.is_(True))
    return [_info(c) for c in s.scalars(q)]


def get_critic(s: Session, ref: int | str) -> Critic:
    """By id or name; NotFound naming the critic when there is none."""
    if isinstance(ref, int) or str(ref).isdigit():
        row = s.get(Critic, int(ref))
    else:
        row = s.scalar(select(Critic).where(func.lower(Critic.name) == str(ref).lower()))
    if row is None:
        raise NotFound(f"no critic {ref!r}")
    return row


def _validated(fields: dict) -> dict:
    out = {}
    for key, value in fields.items():
        if key not in EDITABLE:
            raise CritiqueInputError(key, f"{key!r} is not a critic field; fields: "
                                      f"{', '.join(EDITABLE)}")
        if value is None:
            continue
        if key == "name":
            value = " ".join(str(value).split())
            if not value or len(value) > 100:
                raise CritiqueInputError("name", "a critic's name needs 1-100 characters")
        elif key == "type" and value not in CRITIC_TYPES:
            raise CritiqueInputError("type", f"type must be one of {', '.join(CRITIC_TYPES)}, "
                                         f"not {value!r}")
        elif key in ("prompt", "rubric") and len(str(value)) > MAX_PROMPT_CHARS:
            raise CritiqueInputError(key, f"{key} is longer than {MAX_PROMPT_CHARS} characters")
        elif key == "threshold":
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise CritiqueInputError("threshold", f"threshold must be a number 0-10, not "
                                                  f"{value!r}") from None
            if not 0 <= value <= 10:
                raise CritiqueInputError("threshold", f"threshold must be 0-10, not {value:g}")
        elif key == "active":
            value = bool(value)
        elif key == "position":
            value = int(value)
        out[key] = value
    return out


def _check_prompt(kind: str, prompt: str) -> None:
    if kind != "format" and "{answer}" not in (prompt or ""):
        raise CritiqueInputError("prompt", "an LLM critic's prompt must contain {answer} (where "
                                       "the text to check goes); placeholders: "
                                       + ", ".join("{%s}" % p for p in PLACEHOLDERS))


def create_critic(s: Session, by: str, **fields) -> CriticInfo:
    values = _validated(fields)
    for need in ("name", "type"):
        if need not in values:
            raise CritiqueInputError(need, f"a new critic needs a {need}")
    _check_prompt(values["type"], values.get("prompt", ""))
    if s.scalar(select(Critic.id).where(func.lower(Critic.name) == values["name"].lower())):
        raise CritiqueInputError("name", f"a critic named {values['name']!r} exists")
    row = Critic(updated_by=by, **values)
    s.add(row)
    s.flush()
    return _info(row)


def update_critic(s: Session, ref: int | str, by: str, **fields) -> CriticInfo:
    row = get_critic(s, ref)
    values = _validated(fields)
    _check_prompt(values.get("type", row.type), values.get("prompt", row.prompt))
    new_name = values.get("name")
    if new_name and new_name.lower() != row.name.lower() and s.scalar(
            select(Critic.id).where(func.lower(Critic.name) == new_name.lower())):
        raise CritiqueInputError("name", f"a critic named {new_name!r} exists")
    for key, value in values.items():
        setattr(row, key, value)
    row.updated_by = by
    s.flush()
    return _info(row)


def render_prompt(critic: CriticInfo, **values: str) -> str:
    """The critic's prompt with its placeholders filled (only the known ones: other braces,
    e.g. JSON in an admin's prompt, stay as written) and the reply format appended."""
    text = critic.prompt
    values = {"rubric": critic.rubric, **values}
    for key in PLACEHOLDERS:
        text = text.replace("{%s}" % key, values.get(key, "") or "(none)")
    return f"{text.rstrip()}\n\n{FEEDBACK_FORMAT}"
