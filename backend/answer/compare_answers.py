"""The chat's comparison answers: two versions of one document (word diff per section) and
two documents (topic overlap, sections each has alone). Handlers of the analysis route
(backend/answer/analysis_answers.py `HANDLERS`); each raises NoRoute when it cannot answer."""
from __future__ import annotations

import time

from backend.answer.compose import Citations, Place, one_line
from backend.answer.context import (
    Answer,
    Context,
    NoRoute,
    analysis_stage,
    elapsed_ms,
    is_german,
)
from backend.errors import AnalysisError, NotFound


# ---- compare versions ------------------------------------------------------------------------


def _ops(ops, lang: str, n: int = 4) -> str:
    """A word diff (compare.WordOp list) as a short phrase: „a“ → „b“; „c“ ergänzt."""
    parts = []
    for op in [o for o in ops if o.op != "equal"][:n]:
        a, b = one_line(op.a, 80), one_line(op.b, 80)
        if op.op == "replace":
            parts.append(f"„{a}“ → „{b}“" if lang == "de" else f"“{a}” → “{b}”")
        elif op.op == "delete":
            parts.append(f"„{a}“ gestrichen" if lang == "de" else f"“{a}” removed")
        elif op.op == "insert":
            parts.append(f"„{b}“ ergänzt" if lang == "de" else f"“{b}” added")
    more = len([o for o in ops if o.op != "equal"]) - n
    if more > 0:
        parts.append(f"… (+{more})")
    return "; ".join(parts)


_STATUS = {"added": ("neu", "added"), "removed": ("entfallen", "removed"),
           "changed": ("geändert", "changed")}


def compare_versions_answer(ctx: Context) -> Answer:
    from backend.analysis.compare import compare_versions

    it = ctx.intent
    va, vb = it.versions
    if va is not None and vb is not None and va > vb:
        va, vb = vb, va
    timing: dict[int, float] = {}

    def accept(doc: int):
        if ctx.docs[doc].versions < 2:
            return None
        t0 = time.perf_counter()
        try:
            cmp = compare_versions(ctx.rs, doc, version_a=va, version_b=vb, scope=ctx.scope)
        except (AnalysisError, NotFound):
            return None
        timing[doc] = elapsed_ms(t0)
        return cmp

    doc, cmp, choice = ctx.choose(accept, "two indexed versions" + (
        f" ({va} and {vb})" if va and vb else f" (version {va})" if va else ""))
    if cmp is None:
        raise NoRoute(f"{ctx.title(doc)!r} has no versions {va} and {vb} to compare")
    a, b = cmp.document_a, cmp.document_b
    c = cmp.counts()
    i = 0 if is_german(ctx) else 1
    cites = Citations()
    head = (f"Änderungen von Version {a.version_number} zu Version {b.version_number} in "
            f"„{b.title}“: {c['changed']} Abschnitt(e) geändert, {c['added']} hinzugefügt, "
            f"{c['removed']} entfernt:" if is_german(ctx) else
            f"Changes from version {a.version_number} to version {b.version_number} of "
            f"“{b.title}”: {c['changed']} section(s) changed, {c['added']} added, "
            f"{c['removed']} removed:")
    lines, n = [head], 0
    changed = [ch for ch in cmp.sections if ch.status != "unchanged"]
    for ch in changed[:ctx.limit]:
        n += 1
        if ch.status == "removed":
            p = Place(a.document_id, a.version_id, ch.section_id_a, [], ch.page_a, None,
                      ch.text_a[:600])
        else:
            p = Place(b.document_id, b.version_id, ch.section_id_b, [], ch.page_b, None,
                      ch.text_b[:600])
        detail = _ops(ch.ops, ctx.lang) if ch.status == "changed" else ""
        lines.append(f"{n}. {ch.label} ({_STATUS[ch.status][i]})" + (f": {detail}" if detail
                                                                      else "")
                     + f" [{cites.cite(p)}]")
    if cmp.items:
        from backend.answer.compose import LABELS
        from backend.analysis.compare import word_diff

        lines.append("Geänderte Einträge der Analyse:" if is_german(ctx) else
                     "Changed items of the analysis:")
        shown: set[str] = set()  # a sentence found by two extractors is listed once
        for ic in cmp.items:
            item = ic.b or ic.a
            key = " ".join(item.text.split())
            if key in shown or n - len(changed[:ctx.limit]) >= ctx.limit:
                continue
            shown.add(key)
            n += 1
            vid = b.version_id if ic.b is not None else a.version_id
            c_ = cites.item(item, b.document_id, vid)
            if ic.a is not None and ic.b is not None:
                text = one_line(ic.b.text, 90) + ": " + _ops(word_diff(ic.a.text, ic.b.text),
                                                             ctx.lang)
            else:
                text = (f"„{one_line(item.text, 160)}“" if is_german(ctx)
                        else f"“{one_line(item.text, 160)}”")
            lines.append(f"{n}. {LABELS[ic.extractor][i]}, {_STATUS[ic.status][i]}: {text} – "
                         f"{ic.section} [{c_}]")
    notes = ctx.also_note("several versions")
    if len(changed) > ctx.limit or len(cmp.items) > ctx.limit:
        notes.append("The comparison has more changes than shown; the Analysis page has all.")
    if not changed:
        lines = [(f"Version {a.version_number} und {b.version_number} von „{b.title}“ "
                  "unterscheiden sich im Text nicht." if is_german(ctx) else
                  f"Versions {a.version_number} and {b.version_number} of “{b.title}” do not "
                  "differ in their text.")]
    stage = analysis_stage(timing.get(doc, 0.0), doc, b.version_number, ["compare_versions"],
                            version_a=a.version_number, version_b=b.version_number, **c,
                            items=len(cmp.items))
    return Answer("\n".join(lines), cites.places, [choice, stage], notes, model="word diff")


# ---- compare documents -----------------------------------------------------------------------


def compare_documents_answer(ctx: Context) -> Answer:
    from backend.answer.compose import LABELS
    from backend.analysis.compare import compare_documents
    from backend.retrieval.types import Stage

    it = ctx.intent
    t0 = time.perf_counter()
    for d in (it.document, it.document_b):
        if d not in ctx.docs:
            raise NoRoute(f"document {d} is not in the session's collections")
    dc = compare_documents(ctx.rs, it.document, it.document_b, scope=ctx.scope)
    a, b = dc.document_a, dc.document_b
    cites = Citations()
    topics = ", ".join(dc.shared_topics[:8]) or "–"
    lines = [(f"Vergleich von „{a.title}“ und „{b.title}“ (Themenüberschneidung "
              f"{dc.topic_similarity:.0%}; gemeinsame Themen: {topics}):" if is_german(ctx) else
              f"Comparison of “{a.title}” and “{b.title}” (topic overlap "
              f"{dc.topic_similarity:.0%}; shared topics: {topics}):")]
    n = 0
    for name, o in dc.overlaps.items():
        label = LABELS[name][0 if is_german(ctx) else 1]
        rows = [("both", x, y) for x, y in o.shared] + [("a", x, None) for x in o.only_a] + \
            [("b", None, y) for y in o.only_b]
        for kind, x, y in rows[:ctx.limit]:
            n += 1
            nums = []
            if x is not None:
                nums.append(cites.item(x, a.document_id, a.version_id))
            if y is not None:
                nums.append(cites.item(y, b.document_id, b.version_id))
            where = {"both": "in beiden" if is_german(ctx) else "in both",
                     "a": f"nur in „{a.title}“" if is_german(ctx) else f"only in “{a.title}”",
                     "b": f"nur in „{b.title}“" if is_german(ctx) else f"only in “{b.title}”"}[kind]
            lines.append(f"{n}. {label}, {where}: {one_line((x or y).text, 200)} "
                         f"[{', '.join(map(str, nums))}]")
    stage = Stage("analysis", elapsed_ms(t0), {"document_id": a.document_id,
                                        "document_b": b.document_id, "what": ["compare"],
                                        "shared_topics": len(dc.shared_topics)})
    choice = Stage("document_choice", 0.0, {"document_id": a.document_id,
                                            "document_b": b.document_id,
                                            "why": it.reason}, note=it.reason)
    return Answer("\n".join(lines), cites.places, [choice, stage], [], model="topics + items")
