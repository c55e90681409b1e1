"""What the analysis page, the CLI, the HTTP API, the MCP tools and the chat call.
Functions take the Ragscope service and plain arguments and return the dataclasses of
backend/analysis/types.py (no Streamlit, no printing). Results are read from and written to
the artifacts cache; nothing here changes documents, so no role is needed beyond reading.

ACL: every public function takes the reader's `scope` (backend/security/access.py). A document
outside it is reported exactly like a missing one (NotFound), before anything is read or
computed; the cache is keyed by version, so a cached result is only served after that
check."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import date
from typing import Iterable

from backend.security.access import Scope
from backend.analysis import artifacts
from backend.analysis.extractors import EXTRACTORS, NAMES
from backend.analysis.source import SectionRef, Source, source_from_rows
from backend.analysis.types import DocumentAnalysis, DocumentRef, ExtractorResult, Item
from backend.errors import AnalysisError, ConfigError, NotFound
from backend.store import repo
from backend.store.models import Document, DocumentVersion


@dataclass(frozen=True)
class Target:
    """A resolved document version."""

    document_id: int
    version_id: int
    version_number: int
    title: str
    filename: str
    doc_type: str
    language: str
    chars: int
    pages: int | None


def _document(s, doc: int | str, scope: Scope) -> Document:
    """By id, or by exact title / file name / source URI, among the documents `scope` may
    read; NotFound (the same for a missing and an invisible one) otherwise."""
    from sqlalchemy import or_, select

    from backend.security import access

    ref = str(doc).strip()
    if isinstance(doc, int) or ref.isdigit():
        return access.require_document(s, scope, int(ref))
    d = s.scalar(access.visible_documents(select(Document).where(or_(
        Document.title == ref, Document.filename == ref, Document.source_uri == ref)),
        scope).order_by(Document.id).limit(1))
    if d is None:
        raise NotFound(f"document '{ref}' not found")
    return d


def resolve(rs, doc: int | str, version: int | None = None, *, scope: Scope) -> Target:
    """A document by id, title or file name (among those `scope` may read), and one of its
    versions by number (default: the active version, else the newest indexed one). Errors
    name the document and why. The version's text is not loaded (its length is counted by
    the database)."""
    from sqlalchemy import func, select

    with rs.store.session() as s:
        d: Document = _document(s, doc, scope)
        versions = s.execute(
            select(DocumentVersion.id, DocumentVersion.number, DocumentVersion.status,
                   DocumentVersion.error, DocumentVersion.language, DocumentVersion.page_count,
                   func.length(DocumentVersion.text))
            .where(DocumentVersion.document_id == d.id).order_by(DocumentVersion.number)).all()
        if version is not None:
            v = next((x for x in versions if x.number == int(version)), None)
            if v is None:
                raise NotFound(f"document {d.id} ({d.filename}) has no version {version}; "
                               f"it has {', '.join(str(x.number) for x in versions) or 'none'}")
        else:
            v = next((x for x in versions if x.id == d.active_version_id), None) or next(
                (x for x in reversed(versions) if x.status == "indexed"), None) or (
                versions[-1] if versions else None)
        if v is None or v.status != "indexed":
            why = (f"version {v.number} is {v.status}" + (f": {v.error}" if v.error else "")
                   if v is not None else "it has no indexed version")
            raise AnalysisError(f"document {d.id} ({d.filename or d.title}) cannot be analysed: "
                                f"{why}")
        return Target(d.id, v.id, v.number, d.title or d.filename, d.filename, d.doc_type,
                      v.language or "", int(v[6] or 0), v.page_count)


def load_source(rs, t: Target, span: tuple[int, int] | None = None) -> Source:
    """The version's text and section tree from the store."""
    with rs.store.session() as s:
        v: DocumentVersion = repo.get_version(s, t.version_id)
        text = v.text or ""
        pages = (v.meta or {}).get("pages") or []
        rows = [dict(id=x.id, parent_id=x.parent_id, level=x.level, kind=x.kind, title=x.title,
                     number=x.number, start=x.start, end=x.end, page_start=x.page_start,
                     page_end=x.page_end) for x in repo.sections_of(s, t.version_id)]
        sha = v.sha256
    src = source_from_rows(text, rows, pages=pages, title=t.title, filename=t.filename,
                           doc_type=t.doc_type, language=t.language, document_id=t.document_id,
                           version_id=t.version_id, version_number=t.version_number, sha256=sha)
    if span is not None:
        src.span = span
    return src


def document_ref(t: Target, src: Source | None = None, sections: int | None = None) -> DocumentRef:
    d: date | None = src.doc_date if src is not None else None
    return DocumentRef(t.document_id, t.version_id, t.version_number, t.title, t.filename,
                       t.doc_type, t.language, d.isoformat() if d else None,
                       len(src.sections) if src is not None else (sections or 0), t.pages,
                       t.chars)


def find_section(src: Source, ref: int | str) -> SectionRef:
    """A section by store id (an int), number ("2", "TOP 3", "2.2", "§ 7"), label or path
    ("2 Installation > 2.2 Konfiguration"), case-insensitive; a unique prefix is enough."""
    secs = [x for x in src.sections if x.label]
    if isinstance(ref, int) or (isinstance(ref, str) and ref.strip().isdigit()):
        # an int is a store id; a string of digits is a section number first ("2" is
        # chapter 2), a store id only when no section has that number
        numbered = [x for x in secs if isinstance(ref, str) and x.number == ref.strip()]
        hit = numbered or [x for x in secs if x.id == int(ref)]
        if len(hit) == 1:
            return hit[0]
    want = " ".join(str(ref).split()).lower()
    if not want:
        raise AnalysisError("no section given")
    parts = [p.strip() for p in want.replace("›", ">").split(">") if p.strip()]
    tries = [
        lambda x: (x.number or "").lower() == want,
        lambda x: x.label.lower() == want,
        lambda x: " > ".join(x.path).lower() == " > ".join(parts),
        lambda x: x.label.lower().startswith(want),
        lambda x: len(parts) > 1 and all(any(p in q.lower() for q in x.path) for p in parts)
        and parts[-1] in x.label.lower(),
        lambda x: want in x.label.lower(),
    ]
    for test in tries:
        hit = [x for x in secs if test(x)]
        if len(hit) == 1:
            return hit[0]
        if len(hit) > 1:
            raise AnalysisError(f"section {ref!r} is ambiguous in {src.filename or src.title}: "
                                + "; ".join(x.label for x in hit[:8]))
    raise AnalysisError(f"no section {ref!r} in {src.filename or src.title}; sections: "
                        + "; ".join(x.label for x in secs[:12]) + (" …" if len(secs) > 12 else ""))


# ---- extraction ----------------------------------------------------------------------


def _names(what: Iterable[str] | str | None) -> list[str]:
    if what is None or what == "" or what == "all":
        return list(NAMES)
    if isinstance(what, str):
        what = [w.strip() for w in what.split(",") if w.strip()]
    aliases = {"actions": "meeting_actions", "config": "config_keys", "api": "api_surface",
               "notes": "operational_notes", "steps": "setup_steps"}
    names = [aliases.get(w, w) for w in what]
    bad = [n for n in names if n not in EXTRACTORS]
    if bad:
        raise ConfigError(f"unknown extractor {', '.join(bad)}; choose from {', '.join(NAMES)}")
    return list(dict.fromkeys(names))


def llm_choice(rs, override: str | None = None):
    """(provider, model label) of the analysis LLM, or None when it is off."""
    name = override if override is not None else rs.settings.analysis_llm
    if not name or name == "off":
        return None
    from backend.llm.factory import default_model, make_provider

    provider = make_provider(rs.settings, name)
    model = rs.settings.analysis_llm_model or default_model(rs.settings, name)
    return provider, model


def _variant(llm) -> str:
    if llm is None:
        return ""
    provider, model = llm
    return hashlib.sha256(f"{provider.name}/{model}".encode()).hexdigest()[:16]


def analyze_document(rs, doc: int | str, *, version: int | None = None,
                     what: Iterable[str] | str | None = None, section: int | str | None = None,
                     llm: str | None = None, use_cache: bool = True,
                     scope: Scope) -> DocumentAnalysis:
    """Run the extractors on a document version (all, or those named in `what`), from the
    cache where it is fresh. With `section`, only the items of that section and the ones
    below it are returned (for a version too long to analyse whole, only that section is
    analysed). `llm` overrides RAGSCOPE_ANALYSIS_LLM ("off" to skip the LLM pass). A
    document outside `scope` is not found."""
    names = _names(what)
    t = resolve(rs, doc, version, scope=scope)
    limit = rs.settings.analysis_max_chars
    src: Source | None = None
    sec: SectionRef | None = None
    if t.chars > limit:
        if section is None:
            raise AnalysisError(
                f"document {t.document_id} ({t.filename}) has {t.chars:,} characters; documents "
                f"over {limit:,} (RAGSCOPE_ANALYSIS_MAX_CHARS) are analysed section by section: "
                "choose a section")
        src = load_source(rs, t)
        sec = find_section(src, section)
        if sec.end - sec.start > limit:
            raise AnalysisError(f"section {sec.label!r} of document {t.document_id} has "
                                f"{sec.end - sec.start:,} characters, over the limit of {limit:,}")
        src.span = (sec.start, sec.end)
        analysis = _run(rs, t, src, names, llm_choice(rs, llm), cache=False)
        analysis.warnings.append(f"analysed section {sec.label!r} only: the document is over "
                                 f"{limit:,} characters")
        return analysis
    refine = llm_choice(rs, llm)
    analysis = _run(rs, t, None, names, refine, cache=use_cache)
    if section is not None:
        src = load_source(rs, t)
        sec = find_section(src, section)
        for r in analysis.results.values():
            r.items = [i for i in r.items if sec.start <= i.start < sec.end]
            r.total = len(r.items)
    return analysis


def _run(rs, t: Target, src: Source | None, names: list[str], refine, *,
         cache: bool) -> DocumentAnalysis:
    variant = _variant(refine)
    versions = {n: EXTRACTORS[n].version for n in names}
    sig = artifacts.source_signature(rs.store, t.version_id)
    hits = artifacts.get_many(rs.store, t.version_id,
                              [(f"extract:{n}", variant, v) for n, v in versions.items()],
                              sig) if cache else {}
    results: dict[str, ExtractorResult] = {}
    warnings: list[str] = []
    for n in names:
        c = hits.get((f"extract:{n}", variant))
        if c is not None:
            p = c.payload
            results[n] = ExtractorResult(n, versions[n], unpack(n, p), p["total"],
                                         p["truncated"], True, c.duration_ms, p.get("refined_by"))
    missing = [n for n in names if n not in results]
    if missing:
        if src is None:
            src = load_source(rs, t)
        cap = rs.settings.analysis_max_items
        for n in missing:
            t0 = time.perf_counter()
            items = EXTRACTORS[n].fn(src)
            refined_by = None
            if refine is not None:
                from backend.analysis.refine import refine_items

                items, refined_by, warn = refine_items(rs, src, n, items, refine)
                warnings.extend(warn)
            ms = (time.perf_counter() - t0) * 1000
            total = len(items)
            res = ExtractorResult(n, versions[n], items[:cap], total, total > cap, False, ms,
                                  refined_by)
            results[n] = res
            if cache:
                artifacts.put(rs.store, t.version_id, f"extract:{n}", variant, versions[n], sig,
                              {**pack(res.items), "total": total,
                               "truncated": res.truncated, "refined_by": refined_by},
                              len(res.items), ms)
    for n in names:
        if results[n].truncated:
            warnings.append(f"{n}: {results[n].total} items found, the first "
                            f"{len(results[n].items)} are kept (RAGSCOPE_ANALYSIS_MAX_ITEMS)")
    ref = document_ref(t, src, sections=None) if src is not None else _ref_without_source(rs, t)
    if t.chars == 0 or (src is not None and not src.units):
        warnings.append("the document has no text to analyse")
    return DocumentAnalysis(ref, {n: results[n] for n in names}, warnings)


_COLS = ("text", "start", "end", "section_id", "section", "page", "confidence", "signals",
         "fields", "origin")


def pack(items: list[Item]) -> dict:
    """Items as rows of values (no repeated keys), section paths once per section: the cached
    result of a 300-page document decodes in a few milliseconds."""
    paths: dict[str, list[str]] = {}
    rows = []
    for i in items:
        paths.setdefault(str(i.section_id), i.section_path)
        rows.append([i.text, i.start, i.end, i.section_id, i.section, i.page, i.confidence,
                     i.signals, i.fields, i.origin])
    return {"cols": list(_COLS), "rows": rows, "paths": paths}


def unpack(name: str, payload: dict) -> list[Item]:
    paths = payload["paths"]
    return [Item(name, r[0], r[1], r[2], r[3], r[4], paths.get(str(r[3]), []), r[5], r[6], r[7],
                 r[8], r[9]) for r in payload["rows"]]


def _ref_without_source(rs, t: Target) -> DocumentRef:
    """The document reference for a result served from the cache (no text is loaded)."""
    from sqlalchemy import func, select

    from backend.analysis.dates import document_date
    from backend.store.models import Section

    with rs.store.session() as s:
        n = s.scalar(select(func.count(Section.id)).where(Section.version_id == t.version_id))
        head = s.scalar(select(func.substr(DocumentVersion.text, 1, 1500))
                        .where(DocumentVersion.id == t.version_id)) or ""
    d = document_date(t.filename, head)
    return DocumentRef(t.document_id, t.version_id, t.version_number, t.title, t.filename,
                       t.doc_type, t.language, d.isoformat() if d else None, n or 0, t.pages,
                       t.chars)


def sections_of(rs, doc: int | str, version: int | None = None, *,
                scope: Scope) -> list[SectionRef]:
    """The labelled sections of a version in document order (for pickers and --section)."""
    t = resolve(rs, doc, version, scope=scope)
    return [x for x in load_source(rs, t).sections if x.label]
