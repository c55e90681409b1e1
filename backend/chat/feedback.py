"""Feedback on answers, in the store: a thumbs up or down with an optional note, one per
answer (a chat message, which keeps the answer's sources and trace id) and rater; and the
rated answers with their question, for the Evaluation page. Who may rate or read what is
decided by the caller (backend/services/feedback.py); this module only reads and writes."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, aliased

from backend.chat.types import ChatInputError
from backend.store.chat_models import ChatMessage, ChatSession
from backend.store.chatbot_models import Chatbot
from backend.store.feedback_models import AnswerFeedback
from backend.store.models import utcnow

RATINGS = {"up": 1, "down": -1}
NAMES = {v: k for k, v in RATINGS.items()}
NOTE_MAX_CHARS = 2000


@dataclass
class Feedback:
    message_id: int
    rating: str  # up | down
    note: str
    user: str
    created_at: datetime
    updated_at: datetime

    def to_dict(self) -> dict:
        return {"message_id": self.message_id, "rating": self.rating, "note": self.note,
                "user": self.user, "created_at": _utc(self.created_at).isoformat(),
                "updated_at": _utc(self.updated_at).isoformat()}


@dataclass
class RatedAnswer:
    """A rated answer as the Evaluation page lists it: the rating, the question asked
    before it, the answer, its sources and trace, the conversation it belongs to."""

    feedback: Feedback
    question: str
    answer: str
    trace_id: str | None
    session_uuid: str
    session_title: str
    owner: str
    chatbot: str | None  # the bot's slug for a published chatbot's conversation
    provider: str
    model: str
    answered_at: datetime
    sources: list[dict] = field(default_factory=list)

    @property
    def cited(self) -> list[dict]:
        return [s for s in self.sources if s.get("cited") and s.get("document_id")]


def parse(rating: str | None, note: str | None) -> tuple[int | None, str]:
    """The stored value of `rating` ("up", "down"; None or "" removes the rating) and the
    note, trimmed; ChatInputError naming the field otherwise."""
    note = (note or "").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise ChatInputError(f"note: {len(note):,} characters; at most {NOTE_MAX_CHARS:,}")
    if rating in (None, ""):
        return None, note
    if rating not in RATINGS:
        raise ChatInputError(f"rating: must be 'up' or 'down', not {rating!r}")
    return RATINGS[rating], note


def _info(row: AnswerFeedback) -> Feedback:
    return Feedback(row.message_id, NAMES[row.rating], row.note, row.user, row.created_at,
                    row.updated_at)


def put(s: Session, message_id: int, user: str, rating: int | None, note: str
        ) -> Feedback | None:
    """Set (or with `rating` None remove) `user`'s rating of the message."""
    row = s.scalar(select(AnswerFeedback).where(AnswerFeedback.message_id == message_id,
                                                AnswerFeedback.user == user))
    if rating is None:
        if row is not None:
            s.delete(row)
        return None
    now = utcnow()
    if row is None:
        row = AnswerFeedback(message_id=message_id, user=user, created_at=now)
        s.add(row)
    row.rating, row.note, row.updated_at = rating, note, now
    s.flush()
    return _info(row)


def of_messages(s: Session, message_ids: list[int], user: str) -> dict[int, Feedback]:
    """`user`'s ratings of these messages, by message id."""
    if not message_ids:
        return {}
    rows = s.scalars(select(AnswerFeedback).where(AnswerFeedback.message_id.in_(message_ids),
                                                  AnswerFeedback.user == user))
    return {r.message_id: _info(r) for r in rows}


def _bounds(since: date | None, until: date | None):
    lo = datetime.combine(since, time.min, tzinfo=timezone.utc) if since else None
    hi = datetime.combine(until + timedelta(days=1), time.min, tzinfo=timezone.utc) \
        if until else None
    return lo, hi


def rated(s: Session, *, rater: str | None = None, rating: str | None = None,
          text: str = "", who: str = "", since: date | None = None,
          until: date | None = None, limit: int = 200) -> list[RatedAnswer]:
    """Rated answers, newest rating first. `rater`: only that rater's ratings (None: all);
    `rating`: up or down; `text`: in the question, answer or note (case-insensitive);
    `who`: in the rater's name; `since`/`until`: UTC days of the rating, inclusive."""
    asked = aliased(ChatMessage)
    question = (select(asked.content).where(asked.session_id == ChatMessage.session_id,
                                            asked.role == "user", asked.id < ChatMessage.id)
                .order_by(asked.id.desc()).limit(1).correlate(ChatMessage).scalar_subquery())
    q = (select(AnswerFeedback, ChatMessage, ChatSession, Chatbot.slug, question)
         .join(ChatMessage, ChatMessage.id == AnswerFeedback.message_id)
         .join(ChatSession, ChatSession.id == ChatMessage.session_id)
         .outerjoin(Chatbot, Chatbot.id == ChatSession.chatbot_id)
         .order_by(AnswerFeedback.updated_at.desc(), AnswerFeedback.id.desc()).limit(limit))
    if rater is not None:
        q = q.where(AnswerFeedback.user == rater)
    if rating:
        q = q.where(AnswerFeedback.rating == parse(rating, "")[0])
    if who.strip():
        q = q.where(func.lower(AnswerFeedback.user).contains(who.strip().lower(),
                                                             autoescape=True))
    if text.strip():
        t = text.strip().lower()
        q = q.where(or_(func.lower(ChatMessage.content).contains(t, autoescape=True),
                        func.lower(AnswerFeedback.note).contains(t, autoescape=True),
                        func.lower(question).contains(t, autoescape=True)))
    lo, hi = _bounds(since, until)
    if lo is not None:
        q = q.where(AnswerFeedback.updated_at >= lo)
    if hi is not None:
        q = q.where(AnswerFeedback.updated_at < hi)
    return [RatedAnswer(_info(fb), asked_q or "", m.content, m.trace_id, sess.uuid, sess.title,
                        sess.user or "", slug, m.provider, m.model, _utc(m.created_at),
                        [dict(x) for x in (m.sources or [])])
            for fb, m, sess, slug, asked_q in s.execute(q)]


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)  # SQLite drops the zone
