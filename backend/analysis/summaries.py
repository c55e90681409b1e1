"""Summaries of a document or a section, in stages (as the sister system does, with the
sources kept):

1. the scope: the whole version or one section with everything below it;
2. long text is split into parts (top-level sections, or ~12,000-character runs);
3. each part is condensed extractively: sentences scored by their weight of the part's
   frequent content words, a bonus for a section's opening sentence and for sentences the
   extractors flagged (decisions, deadlines, actions), a penalty for very short or very long
   ones;
4. with an analysis LLM configured, the condensed sentences (numbered) go to the model, which
   writes the summary citing them as [n]; each summary sentence is linked to the section and
   page of the source sentences it cites (or, without a citation, of its closest source);
5. without an LLM, or when it fails, the best condensed sentences in document order are the
   summary (extractive fallback), each with its exact offsets.

Lengths: short 3 sentences, medium 7, long 15."""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from backend.security.access import Scope
from backend.analysis.common import content_units
from backend.analysis.source import Source, Unit
from backend.analysis.types import SummarySentence

LENGTHS = {"short": 3, "medium": 7, "long": 15}
PART_CHARS = 12_000
PER_PART = 6  # sentences kept per part before the final stage
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß][\w'-]{2,}")
STOPWORDS = frozenset("""
der die das den dem des ein eine einer eines einem einen und oder aber als auch auf aus bei bis
durch für gegen hat haben hatte ist sind war waren wird werden wurde wurden im in mit nach nicht
noch nur ob oder sich sie er es wir ihr ihre ihren sein seine so über um unter vom von vor wie
zu zum zur dass daß diese dieser dieses diesem diesen kann können muss müssen soll sollen wenn
the and for are was were been has have had not but with from that this these those which who
will would shall should can could may might must its their there they them than then also into
onto about after before over under between each other such only very more most some any all
per via our your you his her him she he one two three has been being
""".split())


@dataclass
class _Sent:
    unit: Unit
    index: int
    words: list[str]
    score: float = 0.0


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS]


def candidates(src: Source, span: tuple[int, int] | None = None) -> list[_Sent]:
    lo, hi = span or (0, len(src.text))
    out = []
    for i, u in content_units(src):
        if u.kind in ("code", "row") or not (lo <= u.start < hi):
            continue
        n = len(u.text)
        if n < 25 or n > 600 or u.text.rstrip().endswith(":"):
            continue
        out.append(_Sent(u, i, _words(u.text)))
    return out


def split_parts(src: Source, sents: list[_Sent]) -> list[list[_Sent]]:
    """Parts of roughly PART_CHARS, cut at top-level section boundaries where possible."""
    parts: list[list[_Sent]] = []
    cur: list[_Sent] = []
    size = 0
    top = None
    for s in sents:
        sec = src.sections[s.unit.section]
        head = sec.path[0] if sec.path else ""
        if cur and (size >= PART_CHARS or (head != top and size >= PART_CHARS // 3)):
            parts.append(cur)
            cur, size = [], 0
        top = head
        cur.append(s)
        size += len(s.unit.text)
    if cur:
        parts.append(cur)
    return parts


def condense(src: Source, part: list[_Sent], flagged: set[int], keep: int) -> list[_Sent]:
    """The `keep` best sentences of one part (extractive)."""
    freq = Counter(w for s in part for w in set(s.words))
    if not freq:
        return part[:keep]
    top = max(freq.values())
    first_of_section: set[int] = set()
    seen_sections: set[int] = set()
    for s in part:
        if s.unit.section not in seen_sections:
            seen_sections.add(s.unit.section)
            first_of_section.add(s.index)
    for s in part:
        if not s.words:
            s.score = 0.0
            continue
        weight = sum(freq[w] / top for w in set(s.words)) / math.sqrt(len(s.words))
        if s.index in first_of_section:
            weight *= 1.25
        if s.index in flagged:
            weight *= 1.35
        n = len(s.unit.text)
        if n < 50 or n > 400:
            weight *= 0.8
        s.score = weight
    best = sorted(part, key=lambda s: -s.score)[:keep]
    return sorted(best, key=lambda s: s.index)


def to_sentence(src: Source, s: _Sent) -> SummarySentence:
    sec = src.sections[s.unit.section]
    return SummarySentence(" ".join(s.unit.text.split()), sec.id, sec.label or src.title,
                           src.page_at(s.unit.start), s.unit.start, s.unit.end,
                           round(s.score, 4))


def extractive(src: Source, span: tuple[int, int] | None, length: str,
               flagged: set[int]) -> tuple[list[_Sent], int]:
    """(the condensed sentences of every part, the number of parts)."""
    sents = candidates(src, span)
    parts = split_parts(src, sents)
    keep = max(PER_PART, LENGTHS[length]) if len(parts) == 1 else PER_PART
    condensed = [s for p in parts for s in condense(src, p, flagged, keep)]
    return condensed, len(parts)


def pick(condensed: list[_Sent], length: str) -> list[_Sent]:
    n = LENGTHS[length]
    best = sorted(condensed, key=lambda s: -s.score)[:n]
    return sorted(best, key=lambda s: s.index)


def llm_summary(src: Source, condensed: list[_Sent], length: str, llm
                ) -> list[SummarySentence]:
    """The final stage by the LLM. Raises ProviderUnavailable when the provider fails."""
    from backend.llm.base import GenerationRequest, Message, TextDelta

    provider, model = llm
    pool = condensed[:120]
    numbered = "\n".join(f"[{n}] {' '.join(s.unit.text.split())}" for n, s in enumerate(pool, 1))
    lang = "German" if src.language == "de" else "English"
    prompt = (f"Summarise the document \"{src.title}\" in at most {LENGTHS[length]} sentences, in "
              f"{lang}, using only the numbered sentences below. End every sentence with the "
              f"numbers of the sentences it is based on, like [2] or [3][7].\n\n{numbered}")
    req = GenerationRequest(model=model, system="You write faithful, concise summaries.",
                            messages=[Message("user", prompt)], question=prompt,
                            temperature=0.2, max_tokens=900)
    text = "".join(ev.text for ev in provider.stream(req) if isinstance(ev, TextDelta)).strip()
    out: list[SummarySentence] = []
    for raw in re.split(r"(?<=[.!?\]])\s+(?=[A-ZÄÖÜ\"„])", text):
        raw = raw.strip()
        if not raw:
            continue
        cites = [int(n) for n in re.findall(r"\[(\d+)\]", raw) if 1 <= int(n) <= len(pool)]
        clean = re.sub(r"\s*\[\d+\]", "", raw).strip()
        if not clean:
            continue
        if cites:
            src_s = pool[cites[0] - 1]
        else:  # no citation: the source sentence sharing most words
            ws = set(_words(clean))
            src_s = max(pool, key=lambda s: len(ws & set(s.words)))
        sec = src.sections[src_s.unit.section]
        out.append(SummarySentence(clean, sec.id, sec.label or src.title,
                                   src.page_at(src_s.unit.start), src_s.unit.start,
                                   src_s.unit.end, 0.0))
    if not out:
        from backend.errors import ProviderUnavailable

        raise ProviderUnavailable(f"{provider.name} returned no summary")
    return out[:LENGTHS[length] + 2]


# ---- service ---------------------------------------------------------------------------


def summarize_document(rs, doc: int | str, *, version: int | None = None,
                       length: str = "medium", llm: str | None = None,
                       use_cache: bool = True, scope: Scope):
    """Summary of a whole document version (see the module docstring for the stages); a
    document outside `scope` (backend/security/access.py) is not found."""
    return _summarize(rs, doc, version, None, length, llm, use_cache, scope)


def summarize_section(rs, doc: int | str, section: int | str, *, version: int | None = None,
                      length: str = "medium", llm: str | None = None, use_cache: bool = True,
                      scope: Scope):
    """Summary of one section and the sections below it. `section`: id, number, label or
    path (backend.analysis.service.find_section); a document outside `scope` is not found."""
    return _summarize(rs, doc, version, section, length, llm, use_cache, scope)


def _summarize(rs, doc, version, section, length, llm_name, use_cache, reader: Scope):
    import time
    from dataclasses import asdict

    from backend.analysis import artifacts
    from backend.analysis.service import (
        _run,
        _variant,
        document_ref,
        find_section,
        llm_choice,
        load_source,
        resolve,
    )
    from backend.analysis.types import Summary
    from backend.errors import AnalysisError, ConfigError, ProviderUnavailable

    if length not in LENGTHS:
        raise ConfigError(f"unknown summary length {length!r}; choose short, medium or long")
    t = resolve(rs, doc, version, scope=reader)
    limit = rs.settings.analysis_max_chars
    src = load_source(rs, t)
    sec = find_section(src, section) if section is not None else None
    span = (sec.start, sec.end) if sec else None
    size = (span[1] - span[0]) if span else t.chars
    if size > limit:
        raise AnalysisError(
            f"{'section ' + repr(sec.label) if sec else 'document'} of document {t.document_id} "
            f"({t.filename}) has {size:,} characters, over the analysis limit of {limit:,} "
            "(RAGSCOPE_ANALYSIS_MAX_CHARS): summarise a section")
    llm = llm_choice(rs, llm_name)
    variant = _variant(llm)
    kind = f"summary:section:{sec.id if sec and sec.id is not None else sec.ordinal}:{length}" \
        if sec else f"summary:document:{length}"
    sig = artifacts.source_signature(rs.store, t.version_id)
    ref = document_ref(t, src)
    scope = sec.label if sec else "document"
    if use_cache:
        hit = artifacts.get_many(rs.store, t.version_id,
                                 [(kind, variant, artifacts.SUMMARY_VERSION)], sig)
        c = hit.get((kind, variant))
        if c is not None:
            p = c.payload
            return Summary(ref, scope, sec.id if sec else None, length, p["method"],
                           [SummarySentence(**x) for x in p["sentences"]], p["parts"], True,
                           p.get("warnings", []))
    t0 = time.perf_counter()
    flagged_items = _run(rs, t, src, ["decisions", "deadlines", "meeting_actions"], None,
                         cache=True) if t.chars <= limit else None
    starts = {i.start for r in (flagged_items.results.values() if flagged_items else [])
              for i in r.items}
    flagged = {n for n, u in enumerate(src.units) if u.start in starts}
    condensed, parts = extractive(src, span, length, flagged)
    warnings: list[str] = []
    if not condensed:
        warnings.append("no sentences to summarise in this " + ("section" if sec else "document"))
        sentences, method = [], "extractive"
    elif llm is not None:
        try:
            sentences = llm_summary(src, condensed, length, llm)
            method = f"llm:{llm[0].name}/{llm[1]}"
        except ProviderUnavailable as e:
            sentences = [to_sentence(src, s) for s in pick(condensed, length)]
            method = "extractive"
            warnings.append(f"the LLM summary failed ({e}); extractive summary instead")
    else:
        sentences = [to_sentence(src, s) for s in pick(condensed, length)]
        method = "extractive"
    ms = (time.perf_counter() - t0) * 1000
    summary = Summary(ref, scope, sec.id if sec else None, length, method, sentences, parts,
                      False, warnings)
    if use_cache:
        artifacts.put(rs.store, t.version_id, kind, variant, artifacts.SUMMARY_VERSION, sig,
                      {"method": method, "parts": parts, "warnings": warnings,
                       "sentences": [asdict(s) for s in sentences]}, len(sentences), ms)
    return summary
