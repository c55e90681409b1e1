"""Tokens, cost and latency of chat answers, for the costs page and CSV export: one row per
answer (with its session, user, model and collections), aggregated by day and by a dimension
(model, user, session, collection). An answer searching several collections counts towards
each of them with an equal share of its tokens and cost."""
from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from datetime import date, datetime, time, timedelta, timezone

import pandas as pd
from sqlalchemy import select

from backend.store.chat_models import ChatMessage, ChatSession

DIMENSIONS = ("model", "user", "session", "collection")
NO_COLLECTION = "(all collections)"


@dataclass
class UsageRow:
    created_at: datetime
    session_uuid: str
    session_title: str
    user: str
    provider: str
    model: str
    collections: str  # comma-separated; "" = all collections
    tokens_input: int
    tokens_output: int
    cost_usd: float  # 0 for local models and unknown prices
    cost_label: str  # local | priced | unknown
    latency_ms: float | None
    first_token_ms: float | None
    fallback: bool


def _bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    lo = datetime.combine(start, time.min, tzinfo=timezone.utc) if start else None
    hi = datetime.combine(end + timedelta(days=1), time.min, tzinfo=timezone.utc) if end else None
    return lo, hi


def usage_rows(rs, *, start: date | None = None, end: date | None = None,
               user: str | None = None) -> list[UsageRow]:
    """Every answer between start and end (inclusive, UTC days), oldest first; only one
    user's sessions when `user` is given."""
    lo, hi = _bounds(start, end)
    q = (select(ChatMessage, ChatSession.uuid, ChatSession.title, ChatSession.user)
         .join(ChatSession, ChatSession.id == ChatMessage.session_id)
         .where(ChatMessage.role == "assistant").order_by(ChatMessage.created_at))
    if lo is not None:
        q = q.where(ChatMessage.created_at >= lo)
    if hi is not None:
        q = q.where(ChatMessage.created_at < hi)
    if user is not None:
        q = q.where(ChatSession.user == user)
    with rs.store.session() as s:
        return [UsageRow(
            created_at=_utc(m.created_at), session_uuid=uuid, session_title=title,
            user=owner or "(none)", provider=m.provider, model=m.model,
            collections=",".join(m.collections or []), tokens_input=m.tokens_input or 0,
            tokens_output=m.tokens_output or 0, cost_usd=float(m.cost_usd or 0.0),
            cost_label=m.cost_label, latency_ms=m.latency_ms, first_token_ms=m.first_token_ms,
            fallback=bool(m.fallback)) for m, uuid, title, owner in s.execute(q)]


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)  # SQLite drops the zone


def frame(rows: list[UsageRow]) -> pd.DataFrame:
    cols = list(UsageRow.__dataclass_fields__)
    df = pd.DataFrame([asdict(r) for r in rows], columns=cols)
    df["day"] = pd.to_datetime(df["created_at"], utc=True).dt.date if len(df) else []
    df["session"] = [f"{t[:40]} ({u[:8]})" for t, u in zip(df["session_title"],
                                                             df["session_uuid"])]
    df["tokens"] = df["tokens_input"] + df["tokens_output"]
    return df


def by_dimension(df: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Per day and value of the dimension: tokens in/out, cost, answers."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"dimension must be one of {DIMENSIONS}")
    cols = ["day", dimension, "tokens_input", "tokens_output", "tokens", "cost_usd", "answers"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    d = df.assign(answers=1.0)
    if dimension == "collection":
        d = d.assign(collection=d["collections"].map(
            lambda c: c.split(",") if c else [NO_COLLECTION]))
        share = 1.0 / d["collection"].map(len)
        d = d.assign(**{k: d[k] * share for k in ("tokens_input", "tokens_output", "tokens",
                                                  "cost_usd", "answers")})
        d = d.explode("collection")
    out = d.groupby(["day", dimension], as_index=False)[cols[2:]].sum()
    return out.sort_values(["day", dimension]).reset_index(drop=True)


def expensive_sessions(df: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    cols = ["session_title", "session_uuid", "user", "answers", "tokens_input",
            "tokens_output", "cost_usd", "last_answer"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    g = df.groupby(["session_uuid", "session_title", "user"], as_index=False).agg(
        answers=("model", "size"), tokens_input=("tokens_input", "sum"),
        tokens_output=("tokens_output", "sum"), cost_usd=("cost_usd", "sum"),
        last_answer=("created_at", "max"))
    g = g.sort_values(["cost_usd", "tokens_input", "tokens_output"], ascending=False)
    return g[cols].head(n).reset_index(drop=True)


def totals(df: pd.DataFrame) -> dict:
    return {"answers": int(len(df)), "tokens_input": int(df["tokens_input"].sum()),
            "tokens_output": int(df["tokens_output"].sum()),
            "cost_usd": float(df["cost_usd"].sum()),
            "unknown_prices": int((df["cost_label"] == "unknown").sum()),
            "fallbacks": int(df["fallback"].sum())}


def _cell(value):
    """Spreadsheet formula injection: text starting with = + - @ is quoted."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def to_csv(rows: list[UsageRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    fields = list(UsageRow.__dataclass_fields__)
    w.writerow(fields)
    for r in rows:
        w.writerow([getattr(r, f).isoformat() if f == "created_at" else _cell(getattr(r, f))
                    for f in fields])
    return buf.getvalue()
