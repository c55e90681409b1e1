"""Stored critique runs read back as plain dicts (the CLI's --json, the HTTP API, the MCP tool
and the pages show the same shape): a run with its rounds, each round's critiques and the
revision that answered them.

A run is written `running` first and given its end status when its rounds end, also when they
raise. Only a process that dies outright (killed, the dashboard server restarted) leaves it
`running`; a reader that is told how long one step may take (`stale_after_s`, from the LLM
timeouts: services/critique.py) shows such a run as `interrupted` once nothing was stored for
longer than that, instead of "running" forever."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from backend.store.critic_models import ContentCritique, CritiqueRun


def _iso(dt) -> str | None:
    if dt is None:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).isoformat()


def critique_dict(c: ContentCritique) -> dict:
    return {"critic": c.critic_name, "critic_id": c.critic_id, "type": c.critic_type,
            "rating": c.rating, "score": c.rating, "threshold": c.threshold,
            "passed": c.passed, "issues": list(c.issues or []),
            "suggestions": list(c.suggestions or []), "summary": c.summary,
            "deterministic": c.deterministic, "error": c.error, "raw": c.raw,
            "duration_ms": c.duration_ms}


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _last_activity(run: CritiqueRun) -> datetime:
    stamps = [run.created_at] + [c.created_at for c in run.critiques] \
        + [r.created_at for r in run.revisions]
    return max(_aware(t) for t in stamps if t is not None)


def _status(run: CritiqueRun, stale_after_s: float | None) -> tuple[str, str]:
    if run.status != "running" or stale_after_s is None or run.created_at is None:
        return run.status, run.error
    idle = (datetime.now(timezone.utc) - _last_activity(run)).total_seconds()
    if idle <= stale_after_s:
        return run.status, run.error
    return "interrupted", (f"nothing was stored for {idle / 60:.0f} min (a step may take "
                           f"{stale_after_s:.0f} s): the process running it stopped before it "
                           "finished (was the server restarted?)")


def run_dict(run: CritiqueRun, stale_after_s: float | None = None) -> dict:
    """The run, its rounds in order: {"round", "critiques", "all_passed", "revision"}."""
    revisions = {r.round: r for r in run.revisions}
    rounds = []
    for n in sorted({c.round for c in run.critiques}):
        crits = [critique_dict(c) for c in run.critiques if c.round == n]
        rev = revisions.get(n)
        rounds.append({"round": n, "critiques": crits,
                       "all_passed": all(c["passed"] for c in crits),
                       "revision": rev.text if rev else None,
                       "revision_ms": rev.duration_ms if rev else None})
    status, error = _status(run, stale_after_s)
    return {"id": run.id, "message_id": run.message_id, "kind": run.kind,
            "text_hash": run.text_hash, "status": status, "rounds": run.rounds,
            "max_rounds": run.max_rounds, "provider": run.provider, "model": run.model,
            "user": run.user, "original_text": run.original_text,
            "final_text": run.final_text, "sources": list(run.sources or []),
            "error": error, "duration_ms": run.duration_ms,
            "created_at": _iso(run.created_at), "critique_rounds": rounds}


def _loaded(q):
    return q.options(selectinload(CritiqueRun.critiques), selectinload(CritiqueRun.revisions))


def get_run(s: Session, run_id: int, stale_after_s: float | None = None) -> dict | None:
    row = s.scalar(_loaded(select(CritiqueRun).where(CritiqueRun.id == int(run_id))))
    return run_dict(row, stale_after_s) if row else None


def runs_of_messages(s: Session, message_ids: list[int],
                     stale_after_s: float | None = None) -> dict[int, list[dict]]:
    """Each message's runs, newest first."""
    if not message_ids:
        return {}
    rows = s.scalars(_loaded(select(CritiqueRun).where(CritiqueRun.message_id.in_(
        [int(i) for i in message_ids])).order_by(CritiqueRun.id.desc())))
    out: dict[int, list[dict]] = {}
    for r in rows:
        out.setdefault(r.message_id, []).append(run_dict(r, stale_after_s))
    return out


def recent_runs(s: Session, *, limit: int = 50, user: str | None = None,
                stale_after_s: float | None = None) -> list[dict]:
    q = select(CritiqueRun).order_by(CritiqueRun.id.desc()).limit(max(1, min(limit, 500)))
    if user is not None:
        q = q.where(CritiqueRun.user == user)
    return [run_dict(r, stale_after_s) for r in s.scalars(_loaded(q))]
