"""What the home and settings pages and `python -m backend status` show about the system:
counts and collections within the caller's scope, index metadata and recent jobs for an
unrestricted scope, and the settings with their secrets masked."""
from __future__ import annotations

from dataclasses import dataclass

from backend.security import access
from backend.security.access import Scope
from backend.services.container import Ragscope
from backend.services.jobs import recent_jobs
from backend.store import repo


@dataclass
class SystemStatus:
    counts: dict[str, int]
    collections: list[tuple[str, int]]
    index_meta: dict[str, dict | None]
    jobs: list[dict]
    keyword_backend: str
    vector_backend: str


def system_status(rs: Ragscope, jobs: int = 10, *, scope: Scope) -> SystemStatus:
    """Counts and collections of what the scope may read. Index metadata (whose chunk
    counts cover every collection) and jobs (whose messages name files) are shown to an
    unrestricted scope only."""
    with rs.store.session() as s:
        counts = access.scoped_counts(s, scope)
        colls = [(c.name, n) for c, n in repo.list_collections(s) if scope.can_read(c.name)]
        meta = {}
        for name in ("vector", "keyword"):
            m = repo.get_index_meta(s, name) if scope.unrestricted else None
            meta[name] = None if m is None else {
                "backend": m.backend, "chunks": m.chunk_count, "params": dict(m.params or {}),
                "built_at": m.built_at, "updated_at": m.updated_at}
    job_rows = [{"id": j.id, "kind": j.kind, "status": j.status, "progress": round(j.progress, 3),
                 "done": j.done, "failed": j.failed, "total": j.total, "message": j.message,
                 "error": j.error, "created_at": j.created_at, "finished_at": j.finished_at}
                for j in (recent_jobs(rs.store, jobs) if scope.unrestricted else [])]
    kw = (meta["keyword"] or {}).get("backend") or rs.settings.keyword_backend
    vec = (meta["vector"] or {}).get("backend") or ("chroma-http" if rs.settings.chroma_url
                                                    else "chroma")
    return SystemStatus(counts, colls, meta, job_rows, kw, vec)


def settings_table(rs: Ragscope) -> list[dict]:
    """Every setting with its value (secrets masked) and help text."""
    out = []
    for name, info in type(rs.settings).model_fields.items():
        value = getattr(rs.settings, name)
        if value and any(w in name for w in ("password", "api_key", "secret")):
            value = "••••••"
        elif value and name.endswith("_url"):
            value = _hide_url_password(str(value))
        out.append({"setting": name, "value": "" if value is None else str(value),
                    "help": info.description or ""})
    return out


def _hide_url_password(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
