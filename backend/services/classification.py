"""What the document page and the admin page "Document types" call for classification:
plain dataclasses out, checks in (whatever the page did: a document change needs the
editor role and write access to the document's collections, the registry the admin role),
Ingestor methods for every change that touches chunks or indexes
(backend/ingest/reprocess.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Iterable

from backend.security import auth
from backend.security.access import Actor
from backend.errors import ConfigError
from backend.ingest import doctypes
from backend.ingest.doctypes import TypeDef
from backend.ingest.profiles import PROFILES, get_profile
from backend.services.document_actions import require_writable_document
from backend.services.container import Ragscope
from backend.store import repo


@dataclass
class ClassificationView:
    """One version's classification as the document page shows it."""

    primary_type: str
    type_label: str
    secondary_types: list[str]
    traits: list[str]
    confidence: float | None
    method: str
    model: str | None
    reasoning: str
    signals: list[str]
    profile: str
    profile_label: str
    profile_source: str
    profile_params: dict
    chunking: dict
    title_source: str
    ocr_pages: dict = field(default_factory=dict)  # page -> confidence
    warnings: list[str] = field(default_factory=list)


def _ingestor(rs: Ragscope):
    from backend.ingest.service import Ingestor

    return Ingestor(rs)


def view(rs: Ragscope, version_id: int) -> ClassificationView:
    types = {t.name: t for t in doctypes.load(rs.store)}
    with rs.store.session() as s:
        v = repo.get_version(s, version_id)
        c = dict(v.classification or {})
        meta = dict(v.meta or {})
        primary = v.primary_type or v.document.doc_type or "generic_text"
        profile = v.processing_profile or "generic_text"
        doc_meta = dict(v.document.meta or {})
    p = get_profile(profile)
    title_source = "user" if doc_meta.get("title_source") == "user" \
        else (meta.get("title") or {}).get("source", "")
    return ClassificationView(
        primary_type=primary, type_label=types[primary].label if primary in types else primary,
        secondary_types=list(c.get("secondary_types", [])), traits=list(c.get("traits", [])),
        confidence=c.get("confidence"), method=c.get("method", "not classified yet"),
        model=c.get("model"), reasoning=c.get("reasoning_short", ""),
        signals=list(c.get("signals", [])), profile=profile, profile_label=p.label,
        profile_source=c.get("profile_source", "type"),
        profile_params=(meta.get("profile") or {}).get("params", p.params()),
        chunking=dict(meta.get("chunking") or {}), title_source=title_source,
        ocr_pages=dict((meta.get("ocr") or {}).get("pages") or {}),
        warnings=list(meta.get("warnings", [])))


def profile_names() -> list[str]:
    return list(PROFILES)


def profiles_table() -> list[dict]:
    return [{"profile": p.name, "label": p.label, "description": p.description,
             "parameters": json.dumps(p.params(), sort_keys=True)} for p in PROFILES.values()]


# ---- changes to one document (editor) -------------------------------------------------------


def set_title(rs: Ragscope, doc_id: int, title: str, actor: Actor | None) -> None:
    """A title of the editor's own; the actor must be allowed to change the document (its
    role and write access to every collection it is in: document_actions.require_writable_document)."""
    require_writable_document(rs, actor, int(doc_id), "edit_document")
    _ingestor(rs).set_title(int(doc_id), title)


def reset_title(rs: Ragscope, doc_id: int, actor: Actor | None) -> None:
    require_writable_document(rs, actor, int(doc_id), "edit_document")
    _ingestor(rs).reset_title(int(doc_id))


def set_profile(rs: Ragscope, doc_id: int, profile: str | None, actor: Actor | None) -> str:
    """Another profile for one document (None: its type's); re-chunks it. Returns a summary.
    The actor must be allowed to change the document, as for set_title."""
    require_writable_document(rs, actor, int(doc_id), "edit_document")
    return _ingestor(rs).set_profile(int(doc_id), profile).summary()


# ---- the registry (admin) -------------------------------------------------------------------


def types(rs: Ragscope) -> list[TypeDef]:
    return doctypes.load(rs.store)


def types_table(rs: Ragscope) -> list[dict]:
    return [{"name": t.name, "label": t.label, "category": t.category,
             "profile": t.default_profile, "priority": t.priority, "enabled": t.enabled,
             "built in": t.builtin, "signals": sum(len(v) for v in t.signals.values())}
            for t in types(rs)]


def save_type(rs: Ragscope, roles: Iterable[str] | str | None, *, name: str, label: str,
              category: str, description: str, prompt_hint: str, default_profile: str,
              priority: int, enabled: bool, signals_json: str) -> TypeDef:
    """Create or update a type from the form; the signals come as JSON text."""
    auth.require(roles, "settings")
    try:
        signals = json.loads(signals_json or "{}")
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}: the signals are not valid JSON ({e.msg}, line {e.lineno})")
    return doctypes.save(rs.store, TypeDef(name.strip(), label, category, description,
                                           prompt_hint, default_profile, int(priority),
                                           signals, bool(enabled), False))


def delete_type(rs: Ragscope, roles: Iterable[str] | str | None, name: str) -> None:
    auth.require(roles, "settings")
    doctypes.delete(rs.store, name)


def reclassify_all(rs: Ragscope, roles: Iterable[str] | str | None, *, dry_run: bool = False,
                   on_progress: Callable[[int, int, str], None] | None = None,
                   own_job: bool = True) -> str:
    """`reclassify --all` from the admin page; returns the summary line. `own_job=False`
    when the caller's job row records the run."""
    auth.require(roles, "reindex")
    rep = _ingestor(rs).reclassify(None, dry_run=dry_run, on_progress=on_progress,
                                   own_job=own_job)
    return ("would change: " if dry_run else "") + rep.summary()
