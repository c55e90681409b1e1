"""The handlers of the chat's analysis route, one per intent action: choose the document
(Context.choose), run the analysis service, write the answer (backend/answer/compose.py)
and the trace stages. Each raises NoRoute when the analysis cannot answer, so the question
goes to retrieval instead."""
from __future__ import annotations

import re
import time

from backend.analysis.source import SectionRef, Source
from backend.answer.compose import (
    Citations,
    Place,
    items_answer,
    keep,
    one_line,
    w,
)
from backend.answer import topic
from backend.answer.compare_answers import compare_documents_answer, compare_versions_answer
from backend.answer.context import (
    Answer,
    Context,
    NoRoute,
    analysis_stage,
    elapsed_ms,
    is_german,
)
from backend.errors import AnalysisError, NotFound


def find_section(src: Source, ref: str) -> SectionRef:
    """A section named in a question: "2", "2.2", "TOP 4", "Agenda item 3", "§ 7",
    "Anlage 3", "last". A bare number also finds "TOP 2" / "Item 2" / "§ 2" at the top level,
    else the n-th top-level section."""
    from backend.analysis.service import find_section as by_ref

    labelled = [x for x in src.sections if x.label]
    top = min((x.level for x in labelled), default=1)
    tops = [x for x in labelled if x.level == top]
    if ref == "last":
        if not tops:
            raise AnalysisError(f"{src.filename or src.title} has no sections")
        return tops[-1]
    try:
        return by_ref(src, ref)
    except AnalysisError:
        if not ref.isdigit():
            raise
    same = [x for x in tops if x.number and re.search(rf"(?<![\d.]){ref}$", x.number)]
    if len(same) == 1:
        return same[0]
    if 1 <= int(ref) <= len(tops) and not any(x.number for x in tops):
        return tops[int(ref) - 1]
    raise AnalysisError(f"no section {ref!r} in {src.filename or src.title}")


def _named_section(src: Source, ref: str, question: str) -> SectionRef:
    """The section a question names by number, else by the title words it gives after the
    number ("Abschnitt 3.1 Energetische Modernisierung …" in a report whose headings carry
    no "3.1": the section titled so)."""
    from backend.answer.intents import section_title

    try:
        return find_section(src, ref)
    except AnalysisError:
        title = section_title(question)
        if not title:
            raise
        return find_section(src, title)


def _source(ctx: Context, doc: int, version: int | None = None) -> Source:
    from backend.analysis.service import load_source, resolve

    return load_source(ctx.rs, resolve(ctx.rs, doc, version, scope=ctx.scope))


# ---- extract ------------------------------------------------------------------------------


def extract(ctx: Context) -> Answer:
    from backend.analysis.extractors import EXTRACTORS
    from backend.analysis.service import analyze_document

    it = ctx.intent
    names = list(it.extractors)
    what = " / ".join(EXTRACTORS[n].label.lower() for n in names) + (
        f" about {it.topic!r}" if it.topic else "") + (f" in {it.section}" if it.section else "")
    seen: dict[int, tuple] = {}
    failed: dict[int, str] = {}

    words = ctx.dictionary

    def accept(doc: int):
        t0 = time.perf_counter()
        try:
            src = _source(ctx, doc)
            sec = find_section(src, it.section) if it.section else None
            a = analyze_document(ctx.rs, doc, what=names,
                                 section=sec.id if sec is not None else None, scope=ctx.scope)
        except (AnalysisError, NotFound) as e:
            failed[doc] = str(e)
            return None
        everything = sorted((i for n in names for i in a.items(n)), key=lambda i: i.start)
        about = topic.refine(it.topic, everything, title=src.title, filename=src.filename,
                             text=src.text, d=words, end=min(
                                 (x.start for x in src.sections if x.start > 0), default=None))
        items = [i for i in everything if keep(i, it.status) and topic.matches(about, i)]
        seen[doc] = (a, everything, items, sec, elapsed_ms(t0), about)
        return items or None

    doc, _, choice = ctx.choose(accept, what)
    if doc not in seen:
        raise NoRoute(failed.get(doc) or f"document {doc} cannot be analysed")
    a, everything, found, sec, ms, about = seen[doc]
    if not found:  # issue 22: an analysis answer only when it found what was asked
        asked = about.text or it.status
        raise NoRoute(f"{ctx.title(doc)!r} has {len(everything)} "
                      f"{what.split(' about')[0]} items" + (f", none about {asked!r}" if asked
                                                            else "") +
                      (f" ({about.note()})" if about.dropped else ""))
    ref = a.document
    cites = Citations()
    notes = []
    lines = items_answer(ref.title, ref.version_number, names, found,
                         document_id=ref.document_id, version_id=ref.version_id,
                         lang=ctx.lang, status=it.status, topic=about.text,
                         section=sec.label if sec else None, limit=ctx.limit, cites=cites)
    if len(found) > ctx.limit:
        notes.append(f"{len(found) - ctx.limit} more item(s) on the Analysis page "
                     f"(analysis?doc={ref.document_id}).")
    notes += ctx.also_note(what) + list(a.warnings)
    refined = {r.refined_by for r in a.results.values() if r.refined_by}
    stage = analysis_stage(ms, doc, ref.version_number, names,
                            found=len(found), total=len(everything), shown=min(len(found),
                                                                                ctx.limit),
                            cached=all(r.cached for r in a.results.values()),
                            refined_by=sorted(refined), topic=about.text,
                            topic_dropped=[{"word": w_, "why": why} for w_, why in about.dropped])
    return Answer("\n".join(lines), cites.places, [choice, stage], notes,
                  model="rules" + (" + " + ", ".join(sorted(refined)) if refined else ""))


# ---- summarize -----------------------------------------------------------------------------


def summarize(ctx: Context) -> Answer:
    from backend.analysis.summaries import summarize_document, summarize_section

    it = ctx.intent
    timing: dict[int, float] = {}

    def accept(doc: int):
        t0 = time.perf_counter()
        try:
            if it.section:
                sec = _named_section(_source(ctx, doc), it.section, ctx.q)
                sm = summarize_section(ctx.rs, doc, sec.id if sec.id is not None else sec.label,
                                       length=it.length, scope=ctx.scope)
            else:
                sm = summarize_document(ctx.rs, doc, length=it.length, scope=ctx.scope)
        except (AnalysisError, NotFound):
            return None
        timing[doc] = elapsed_ms(t0)
        return sm if sm.sentences else None

    what = f"section {it.section!r}" if it.section else "text to summarise"
    doc, sm, choice = ctx.choose(accept, what)
    if sm is None:
        raise NoRoute(f"{ctx.title(doc)!r} has no {what}")
    ref = sm.document
    cites = Citations()
    scope = "" if sm.scope == "document" else f" – {sm.scope}"
    method = ("extraktiv" if sm.method.startswith("extractive") else sm.method) if is_german(ctx) \
        else sm.method
    length = {"short": "kurz", "medium": "mittel", "long": "ausführlich"}.get(sm.length, sm.length) \
        if is_german(ctx) else sm.length
    head = (f"Zusammenfassung von „{ref.title}“{scope}, Version {ref.version_number} "
            f"({method}, {length}):" if is_german(ctx) else
            f"Summary of “{ref.title}”{scope}, version {ref.version_number} "
            f"({method}, {length}):")
    lines = [head]
    for n, s in enumerate(sm.sentences, 1):
        c = cites.cite(Place(ref.document_id, ref.version_id, s.section_id, [], s.page, s.start,
                             s.text, s.score or 1.0))
        lines.append(f"{n}. {one_line(s.text)} [{c}]")
    stage = analysis_stage(timing.get(doc, 0.0), doc, ref.version_number, ["summary"],
                            scope=sm.scope, length=sm.length, method=sm.method,
                            parts=sm.parts, sentences=len(sm.sentences), cached=sm.cached)
    return Answer("\n".join(lines), cites.places, [choice, stage],
                  ctx.also_note(what) + list(sm.warnings),
                  model="extractive summary" if sm.method.startswith("extractive")
                  else sm.method)


# ---- cross-reference ---------------------------------------------------------------------


def cross_reference_answer(ctx: Context) -> Answer:
    from backend.analysis.xref import cross_reference
    from backend.retrieval.types import Stage

    it = ctx.intent
    t0 = time.perf_counter()
    cols = ctx.known_collections() or None
    if it.document is not None and it.section:
        sec = find_section(_source(ctx, it.document), it.section)
        xr = cross_reference(ctx.rs, doc=it.document, section=sec.id, k=ctx.limit,
                             collections=cols, scope=ctx.scope)
    else:
        xr = cross_reference(ctx.rs, it.topic or ctx.q, k=ctx.limit, collections=cols,
                             scope=ctx.scope)
    # sections that share a word with the topic; vector-only neighbours are left out here
    hits = [h for h in xr.hits if h.document_id in ctx.docs and h.shared_terms]
    if not hits:
        raise NoRoute("the cross-reference found no section of another document")
    cites = Citations()
    lines = [(f"Abschnitte zu „{xr.origin if xr.origin != 'query' else xr.query}“:" if is_german(ctx)
              else f"Sections on “{xr.origin if xr.origin != 'query' else xr.query}”:")]
    for n, h in enumerate(hits, 1):
        vid = _version_of(ctx, h.chunk_ids[0]) if h.chunk_ids else None
        p = Place(h.document_id, vid or 0, h.section_id, [], h.page, None, h.snippet, h.score,
                  h.chunk_ids[0] if h.chunk_ids else None)
        page = f", {w('page', ctx.lang)} {h.page}" if h.page is not None else ""
        lines.append(f"{n}. {h.title} › {h.section}{page}: {one_line(h.snippet, 160)} "
                     f"({h.reason}) [{cites.cite(p)}]")
    stage = Stage("analysis", elapsed_ms(t0), {"what": ["cross_reference"], "query": xr.query,
                                        "hits": len(hits)})
    choice = Stage("document_choice", 0.0, {"document_id": it.document,
                                            "why": "sections of other documents"})
    return Answer("\n".join(lines), cites.places, [choice, stage], [], model="hybrid retrieval")


def _version_of(ctx, chunk_id: str) -> int | None:
    from sqlalchemy import select

    from backend.store.models import Chunk

    with ctx.rs.store.session() as s:
        return s.scalar(select(Chunk.version_id).where(Chunk.id == chunk_id))


HANDLERS = {"extract": extract, "summarize": summarize,
            "compare_versions": compare_versions_answer,
            "compare_documents": compare_documents_answer,
            "cross_reference": cross_reference_answer}
