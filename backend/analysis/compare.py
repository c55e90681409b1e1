"""Comparison: two versions of one document (sections paired by content, not number:
backend/analysis/align.py; added, removed, changed with a word-level diff; extracted items
added, removed, changed) and two documents (shared and differing topics, decisions, actions, configuration keys)."""
from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from backend.security.access import Scope
from backend.analysis.align import match_sections
from backend.analysis.source import SectionRef, Source, _owned_spans
from backend.analysis.summaries import STOPWORDS
from backend.analysis.types import DocumentRef, Item

COMPARED = ("decisions", "meeting_actions", "deadlines", "requirements", "config_keys")


@dataclass
class WordOp:
    op: str  # equal | insert | delete | replace
    a: str
    b: str


@dataclass
class SectionChange:
    status: str  # added | removed | changed | unchanged
    label_a: str | None
    label_b: str | None
    section_id_a: int | None
    section_id_b: int | None
    page_a: int | None
    page_b: int | None
    similarity: float  # 0..1 of the section texts
    text_a: str
    text_b: str
    ops: list[WordOp] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.label_b or self.label_a or "(document start)"

    @property
    def heading(self) -> str:
        """The label, with the old one when the section was renumbered or retitled
        ("TOP 4: Verschiedenes (was TOP 3: Verschiedenes)")."""
        if self.label_a and self.label_b and self.label_a != self.label_b:
            return f"{self.label_b} (was {self.label_a})"
        return self.label


@dataclass
class ItemChange:
    extractor: str
    status: str  # added | removed | changed
    section: str
    a: Item | None
    b: Item | None


@dataclass
class VersionComparison:
    document_a: DocumentRef
    document_b: DocumentRef
    sections: list[SectionChange]
    items: list[ItemChange]

    def counts(self) -> dict[str, int]:
        c = Counter(s.status for s in self.sections)
        return {k: c.get(k, 0) for k in ("added", "removed", "changed", "unchanged")}


@dataclass
class Overlap:
    extractor: str
    shared: list[tuple[Item, Item]]
    only_a: list[Item]
    only_b: list[Item]


@dataclass
class DocumentComparison:
    document_a: DocumentRef
    document_b: DocumentRef
    shared_topics: list[str]
    topics_only_a: list[str]
    topics_only_b: list[str]
    overlaps: dict[str, Overlap]
    topic_similarity: float


# ---- versions ------------------------------------------------------------------------------


def own_texts(src: Source) -> dict[int, str]:
    """Each section's own text (without the sections below it), by ordinal."""
    out: dict[int, list[str]] = {}
    for a, b, ordinal in _owned_spans(src.sections, len(src.text)):
        out.setdefault(ordinal, []).append(src.text[a:b])
    return {k: "".join(v) for k, v in out.items()}


def align(a: Source, b: Source) -> list[tuple[SectionRef | None, SectionRef | None]]:
    """Pairs of sections of two versions, matched by content (backend/analysis/align.py:
    titles without their numbering and own texts, one optimal assignment), so a renumbered
    section stays paired with itself; in the order of version B."""
    sa = [s for s in a.sections if s.label]
    sb = [s for s in b.sections if s.label]
    pairs: list[tuple[SectionRef | None, SectionRef | None]] = list(
        match_sections(sa, sb, own_texts(a), own_texts(b)))
    used_a = {x.ordinal for x, _ in pairs}
    used_b = {y.ordinal for _, y in pairs}
    pairs += [(x, None) for x in sa if x.ordinal not in used_a]
    pairs += [(None, y) for y in sb if y.ordinal not in used_b]
    pairs.insert(0, (a.sections[0], b.sections[0]))  # the text before the first heading
    order = {id(p): (p[1].start if p[1] else p[0].start, 0 if p[1] else 1) for p in pairs}
    return sorted(pairs, key=lambda p: order[id(p)])


def word_diff(a: str, b: str) -> list[WordOp]:
    wa, wb = a.split(), b.split()
    sm = difflib.SequenceMatcher(None, wa, wb, autojunk=False)
    return [WordOp(op, " ".join(wa[i1:i2]), " ".join(wb[j1:j2]))
            for op, i1, i2, j1, j2 in sm.get_opcodes()]


def diff_sections(a: Source, b: Source) -> list[SectionChange]:
    ta, tb = own_texts(a), own_texts(b)
    out = []
    for x, y in align(a, b):
        xa = " ".join(ta.get(x.ordinal, "").split()) if x else ""
        yb = " ".join(tb.get(y.ordinal, "").split()) if y else ""
        if x is None or y is None:
            status, ops, sim = ("added" if x is None else "removed"), [], 0.0
        elif xa == yb:
            status, ops, sim = "unchanged", [], 1.0
        else:
            ops = word_diff(xa, yb)
            sim = difflib.SequenceMatcher(None, xa.split(), yb.split(), autojunk=False).ratio()
            status = "changed"
        if x is not None and y is not None and x.level == 0 and not xa and not yb:
            continue
        out.append(SectionChange(status, x.label if x else None, y.label if y else None,
                                 x.id if x else None, y.id if y else None,
                                 a.page_at(x.start) if x else None,
                                 b.page_at(y.start) if y else None, round(sim, 3), xa, yb, ops))
    return out


def _norm(t: str) -> str:
    return " ".join(t.split()).lower()


def diff_items(name: str, ia: list[Item], ib: list[Item],
               section_map: dict[str, str]) -> list[ItemChange]:
    """Items of two versions: unchanged ones are left out. `section_map` maps a section
    label of version A to the aligned label of version B."""
    out: list[ItemChange] = []
    left = list(ib)
    if name == "config_keys":
        by_key = {i.fields.get("key"): i for i in ib}
        for x in ia:
            y = by_key.pop(x.fields.get("key"), None)
            if y is None:
                out.append(ItemChange(name, "removed", x.section, x, None))
            elif (x.fields.get("default") or "") != (y.fields.get("default") or ""):
                out.append(ItemChange(name, "changed", y.section, x, y))
        out += [ItemChange(name, "added", y.section, None, y) for y in by_key.values()]
        return out
    for x in ia:
        target = section_map.get(x.section, x.section)
        same = next((y for y in left if _norm(y.text) == _norm(x.text)), None)
        if same is not None:
            left.remove(same)
            continue
        cands = [(fuzz.ratio(_norm(x.text), _norm(y.text)), y) for y in left
                 if y.section == target]
        best = max(cands, key=lambda c: c[0], default=(0, None))
        if best[1] is not None and best[0] >= 60:
            left.remove(best[1])
            out.append(ItemChange(name, "changed", best[1].section, x, best[1]))
        else:
            out.append(ItemChange(name, "removed", x.section, x, None))
    out += [ItemChange(name, "added", y.section, None, y) for y in left]
    return out


# ---- documents -----------------------------------------------------------------------------

_TERM = re.compile(r"[A-Za-zÄÖÜäöüß][\w.-]{3,}")


def key_terms(src: Source, n: int = 30) -> list[str]:
    """The document's most frequent content words (a stand-in for its topics)."""
    counts = Counter(w.lower().strip(".-") for w in _TERM.findall(src.text)
                     if w.lower() not in STOPWORDS and not w.isupper())
    return [w for w, _ in counts.most_common(n) if len(w) > 3]


def overlap(name: str, ia: list[Item], ib: list[Item], threshold: int = 80) -> Overlap:
    def key(i: Item) -> str:
        return (i.fields.get("key") or i.fields.get("action") or " ".join(i.text.split())).lower()

    shared, only_a, left = [], [], list(ib)
    for x in ia:
        best = max(((fuzz.token_set_ratio(key(x), key(y)), y) for y in left),
                   key=lambda c: c[0], default=(0, None))
        if best[1] is not None and best[0] >= threshold:
            shared.append((x, best[1]))
            left.remove(best[1])
        else:
            only_a.append(x)
    return Overlap(name, shared, only_a, left)


# ---- service -------------------------------------------------------------------------------


def compare_versions(rs, doc: int | str, *, version_a: int | None = None,
                     version_b: int | None = None, scope: Scope) -> VersionComparison:
    """Version A (default: the one before B) against version B (default: the active one).
    A document outside `scope` (backend/security/access.py) is not found."""
    from backend.analysis.service import analyze_document, document_ref, load_source, resolve
    from backend.errors import AnalysisError

    tb = resolve(rs, doc, version_b, scope=scope)
    if version_a is None:
        version_a = _previous_indexed(rs, tb)
        if version_a is None:
            raise AnalysisError(f"document {tb.document_id} ({tb.filename}) has no earlier "
                                f"indexed version to compare version {tb.version_number} with")
    ta = resolve(rs, doc, version_a, scope=scope)
    if ta.version_id == tb.version_id:
        raise AnalysisError(f"version {ta.version_number} compared with itself")
    limit = rs.settings.analysis_max_chars
    for t in (ta, tb):
        if t.chars > limit:
            raise AnalysisError(f"version {t.version_number} of document {t.document_id} has "
                                f"{t.chars:,} characters, over the analysis limit of {limit:,}")
    a, b = load_source(rs, ta), load_source(rs, tb)
    sections = diff_sections(a, b)
    section_map = {s.label_a: s.label_b for s in sections if s.label_a and s.label_b}
    ra = analyze_document(rs, ta.document_id, version=ta.version_number, what=COMPARED,
                          llm="off", scope=scope)
    rb = analyze_document(rs, tb.document_id, version=tb.version_number, what=COMPARED,
                          llm="off", scope=scope)
    items = [c for n in COMPARED for c in diff_items(n, ra.items(n), rb.items(n), section_map)]
    return VersionComparison(document_ref(ta, a), document_ref(tb, b), sections, items)


def _previous_indexed(rs, t) -> int | None:
    from backend.store import repo

    with rs.store.session() as s:
        d = repo.get_document(s, t.document_id)
        earlier = [v.number for v in d.versions
                   if v.number < t.version_number and v.status == "indexed"]
    return max(earlier) if earlier else None


def compare_documents(rs, doc_a: int | str, doc_b: int | str, *,
                      scope: Scope) -> DocumentComparison:
    """Shared and differing topics, decisions, actions and configuration keys of two
    documents (their active versions). Either document outside `scope` is not found (the
    comparison never reads a document the reader may not read)."""
    from backend.analysis.service import analyze_document, document_ref, load_source, resolve
    from backend.errors import AnalysisError

    ta, tb = resolve(rs, doc_a, scope=scope), resolve(rs, doc_b, scope=scope)
    if ta.document_id == tb.document_id:
        raise AnalysisError("a document compared with itself; use --version to compare versions")
    limit = rs.settings.analysis_max_chars
    for t in (ta, tb):
        if t.chars > limit:
            raise AnalysisError(f"document {t.document_id} has {t.chars:,} characters, over the "
                                f"analysis limit of {limit:,}")
    a, b = load_source(rs, ta), load_source(rs, tb)
    terms_a, terms_b = key_terms(a), key_terms(b)
    shared = [w for w in terms_a if w in terms_b]
    names = ("decisions", "meeting_actions", "config_keys")
    ra = analyze_document(rs, ta.document_id, what=names, llm="off", scope=scope)
    rb = analyze_document(rs, tb.document_id, what=names, llm="off", scope=scope)
    overlaps = {n: overlap(n, ra.items(n), rb.items(n)) for n in names}
    union = set(terms_a) | set(terms_b)
    return DocumentComparison(document_ref(ta, a), document_ref(tb, b), shared,
                              [w for w in terms_a if w not in terms_b],
                              [w for w in terms_b if w not in terms_a], overlaps,
                              round(len(shared) / len(union), 3) if union else 0.0)
