"""The confidence hint every answer carries, and the "possibly related" passages of a declined
one (issue 22, item 4; seed 004 "Datenbasis und Confidence-Hinweise").

The level comes from the abstention model's p(the evidence does not answer the question)
(backend/answer/evidence/abstention.py, fitted on the tune splits): below HIGH_BELOW "high",
below MEDIUM_BELOW "medium", else "low" (a declined answer is always "low"). The cut-offs were
read off the tune rows (2026-12-02, the 249 tune questions with an assessment of both
benchmarks, `python -m eval.unseen_tune --abstain` rows, the fitted model): of the answers with
p < 0.15, 83 % were right (68 of 82); 0.15-0.25: 29 % (23 of 80); 0.25 and above: 11 % (10 of
87). The text names the evidence the answer stood on — "Confidence: medium —
based on 5 passages from 2 documents" — in the question's language (German or English).
Chat page, API (`confidence` of the answer JSON), MCP and published chatbots show it."""
from __future__ import annotations

from backend.answer.evidence.scoring import Assessment

HIGH_BELOW = 0.15  # p(unanswerable) below this: "high" (83 % of such answers right on tune)
MEDIUM_BELOW = 0.25  # below this: "medium" (29 %); above: "low" (11 %)
RELATED = 3  # passages shown under a declined answer

_LEVEL = {"de": {"high": "hoch", "medium": "mittel", "low": "niedrig"},
          "en": {"high": "high", "medium": "medium", "low": "low"}}
RELATED_LABEL = {"de": "Möglicherweise verwandt", "en": "Possibly related"}


def _lang(language: str) -> str:
    return language if language in ("de", "en") else "en"


def level(p_unanswerable: float | None, declined: bool) -> str:
    if declined:
        return "low"
    if p_unanswerable is None:
        return "medium"  # no model: nothing says more than "the gate let it pass"
    if p_unanswerable < HIGH_BELOW:
        return "high"
    return "medium" if p_unanswerable < MEDIUM_BELOW else "low"


def basis(passages: int, documents: int, language: str) -> str:
    """"based on 5 passages from 2 documents" / "auf Grundlage von 5 Passagen aus 2
    Dokumenten"."""
    if _lang(language) == "de":
        p = "Passage" if passages == 1 else "Passagen"
        d = "Dokument" if documents == 1 else "Dokumenten"
        return f"auf Grundlage von {passages} {p} aus {documents} {d}"
    p = "passage" if passages == 1 else "passages"
    d = "document" if documents == 1 else "documents"
    return f"based on {passages} {p} from {documents} {d}"


def hint(sources: list[dict], language: str, *, declined: bool,
         p_unanswerable: float | None = None) -> dict:
    """The `confidence` of an answer: level, p_unanswerable (when the model judged it), the
    counts and the sentence shown."""
    lang = _lang(language)
    lv = level(p_unanswerable, declined)
    docs = {s.get("document_id") or s.get("filename") or s.get("title") for s in sources}
    n, m = len(sources), len(docs - {None, ""})
    word = "Konfidenz" if lang == "de" else "Confidence"
    out = {"level": lv, "passages": n, "documents": m, "language": lang,
           "text": f"{word}: {_LEVEL[lang][lv]} — {basis(n, m, lang)}"}
    if p_unanswerable is not None:
        out["p_unanswerable"] = round(p_unanswerable, 3)
    return out


def for_assessment(a: Assessment | None, sources: list[dict], language: str,
                   declined: bool) -> dict:
    return hint(sources, language, declined=declined,
                p_unanswerable=a.p_unanswerable if a is not None else None)


def related(a: Assessment | None, sources: list[dict], k: int = RELATED) -> list[dict]:
    """The best candidates of a declined answer, one per source: what the documents hold
    nearest to the question, shown as "possibly related" (not as an answer)."""
    if a is None:
        return []
    by_n = {s.get("n"): s for s in sources}
    out, seen = [], set()
    for s in a.ranked:
        n = s.candidate.n
        if n in seen or n not in by_n:
            continue
        seen.add(n)
        src = by_n[n]
        out.append({"n": n, "text": s.candidate.text, "document_id": src.get("document_id"),
                    "title": src.get("title") or src.get("filename") or "",
                    "page": src.get("page"), "section": src.get("breadcrumb") or ""})
        if len(out) >= k:
            break
    return out


def fields(a: Assessment | None, sources: list[dict], question: str, declined: bool, *,
           analysis: bool = False) -> dict:
    """What an answer's `citations` gain: `confidence` always, `related` (with its label in
    the question's language) when it declined and candidates were found. `analysis`: a
    document list or an analysis route (no evidence model judged it)."""
    language = a.question.language if a is not None else ""
    if language not in ("de", "en"):
        from backend.ingest.language import detect_language

        language = detect_language(question)
    out = {"confidence": hint(sources, language, declined=declined) if analysis
           else for_assessment(a, sources, language, declined)}
    near = related(a, sources) if declined else []
    if near:
        out["related"] = near
        out["related_label"] = RELATED_LABEL[_lang(language)]
    return out
