"""The answer benchmark: ask every question of an answer goldenset through the chat's answering
path (retrieval, evidence gate, provider, citation check; nothing stored in the chat tables) and
measure what a user would get.

Metrics (per question in `QuestionResult.metrics`, aggregated in `AnswerReport.metrics`):

* `accuracy` — answerable questions answered (not abstained) with an acceptable answer string
  in the text: case-insensitive, whitespace- and quote-normalised, on word boundaries, citation
  marks and bold marks (`**`) removed (`contains_answer`); also per question language
  (`accuracy_de`, `accuracy_en`) and for questions asked in the language of a supporting
  document (`accuracy_same_language`) or only in the other one (`accuracy_cross_language`: an
  English question about a German document);
* `exact` — the answer without citations equals an acceptable answer string (SQuAD-style
  exact match; only short generated answers can reach it, an extractive quote never does);
* `citation_precision` — of all citations `[n]` in the answers to answerable questions, the
  share whose source n contains a supporting sentence (`squash`: whitespace and table bars
  ignored, as PDF tables come out without bars);
* `abstention_recall` — unanswerable questions the answerer declined; `abstention_precision`
  — of all declined answerable and unanswerable questions, the share that were unanswerable;
* `inventory_accuracy` — inventory questions whose answer lists every required document and
  whose listed documents are at least 75 % required or acceptable ones (`inventory_recall`,
  `inventory_precision` as means);
* latency: `latency_p50_ms`/`_p95_ms` (question to last token), `first_token_p50_ms`/`_p95_ms`
  (after retrieval), `retrieval_p50_ms`.

An answer "declines" when the chat's evidence gate abstained or the text says so in German or
English (`is_abstention`), so generated answers are judged by the same rule."""
from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

from backend.errors import ConfigError
from eval.answer_set import AnswerGoldenset, AnswerQuestion
from eval.generation_metrics import (aggregate_generation, answer_support, generation_metrics,
                                     warm_up)
from eval.goldenset import GoldensetError

INVENTORY_MIN_PRECISION = 0.75
_CITE = re.compile(r"\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]")
_EMPHASIS = re.compile(r"\*\*")
_QUOTES = str.maketrans({"„": '"', "“": '"', "”": '"', "‚": "'", "‘": "'", "’": "'",
                         "–": "-", "—": "-", "\u00a0": " "})
_ABSTAIN = re.compile(
    r"nichts gefunden|keine (?:angaben|informationen|hinweise|aussage)|nicht (?:beantwortet|"
    r"beantworten|enthalten|erwähnt|genannt)|enthalten keine|geben keine auskunft|"
    r"found nothing|no information|not (?:mentioned|found|stated|specified|provided|contain)|"
    r"(?:do|does|did) not (?:say|mention|contain|answer|specify|provide|include)|"
    r"cannot answer|can't answer|unable to answer|no sources", re.I)

Progress = Callable[[int, int, str], None]


def _norm(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def strip_citations(text: str) -> str:
    """The answer as a reader reads it: without citation marks and without the Markdown
    bold marks around the value (the extractive answer's "**2,69 EUR**" reads "2,69 EUR")."""
    return _EMPHASIS.sub("", _CITE.sub("", text))


def squash(text: str) -> str:
    """For containment checks that ignore layout: no whitespace, no table bars, casefolded."""
    return re.sub(r"[\s|]+", "", text.translate(_QUOTES)).casefold()


def contains_answer(text: str, answers: list[str]) -> bool:
    body = _norm(strip_citations(text))
    for a in answers:
        pat = r"\s+".join(re.escape(w) for w in _norm(a).split())
        if re.search(rf"(?<!\w){pat}(?!\w)", body):
            return True
    return False


def exact_match(text: str, answers: list[str]) -> bool:
    body = _norm(strip_citations(text)).strip(" .;:!?")
    return any(body == _norm(a).strip(" .;:!?") for a in answers)


def is_abstention(text: str) -> bool:
    return bool(_ABSTAIN.search(text or ""))


def cited_numbers(text: str) -> list[int]:
    return [int(x) for m in _CITE.finditer(text) for x in re.split(r"\s*[,;]\s*", m.group(1))]


@dataclass
class Answer:
    """What the benchmark needs of one answer."""

    text: str
    sources: list[dict]  # the chat's source dicts (n, filename, …)
    contexts: dict[int, str]  # source number -> the text the answerer was given
    abstained: bool = False
    latency_ms: float = 0.0
    first_token_ms: float | None = None
    retrieval_ms: float = 0.0
    trace_id: str | None = None
    fallback: bool = False
    notice: str | None = None
    mode: str = "answer"
    tokens_output: int | None = None
    support: list[dict] | None = None  # the chat's per-sentence support check, if it ran
    uncited: int = 0  # sentences without a citation
    provider: str = ""  # who wrote the answer ("extractive" also for a gate's decline)
    tokens_input: int | None = None  # the prompt's tokens


@dataclass
class QuestionResult:
    question: AnswerQuestion
    answer: Answer
    metrics: dict[str, float]


@dataclass
class AnswerReport:
    goldenset: AnswerGoldenset
    provider: str
    split: str
    results: list[QuestionResult]
    metrics: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    max_tokens: int | None = None


def score(q: AnswerQuestion, a: Answer, doc_languages: dict[str, str] | None = None
          ) -> dict[str, float]:
    """Per-question metrics (1.0/0.0 flags, counts, latency). `doc_languages` (file name ->
    language) marks answerable questions whose supporting documents are all in another
    language than the question (`cross_language`)."""
    declined = a.abstained or is_abstention(a.text)
    m: dict[str, float] = {"abstained": float(declined), "latency_ms": a.latency_ms,
                           "retrieval_ms": a.retrieval_ms}
    if a.first_token_ms is not None:
        m["first_token_ms"] = a.first_token_ms
    m.update(generation_metrics(a))
    if q.type == "answerable":
        m["correct"] = float(not declined and contains_answer(a.text, q.answers))
        m["exact"] = float(not declined and exact_match(a.text, q.answers))
        sups = [squash(s.sentence) for s in q.support]
        cites = [] if declined else cited_numbers(a.text)
        good = sum(1 for n in cites if any(s in squash(a.contexts.get(n, "")) for s in sups))
        m["citations"], m["precise_citations"] = float(len(cites)), float(good)
        if doc_languages and q.language:
            langs = {doc_languages.get(s.doc, "") for s in q.support}
            m["cross_language"] = float(bool(langs) and q.language not in langs)
    elif q.type == "inventory":
        by_n = {s["n"]: s.get("filename") for s in a.sources}
        listed = {by_n[n] for n in cited_numbers(a.text) if n in by_n}
        required, ok = set(q.documents), set(q.documents) | set(q.also)
        m["inventory_recall"] = len(listed & required) / len(required)
        m["inventory_precision"] = len(listed & ok) / len(listed) if listed else 0.0
        m["correct"] = float(m["inventory_recall"] == 1.0
                             and m["inventory_precision"] >= INVENTORY_MIN_PRECISION)
    return m


def _pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return round(values[lo] + (values[hi] - values[lo]) * (k - lo), 1)


def aggregate(results: list[QuestionResult]) -> dict[str, float]:
    def mean(xs):
        return round(statistics.fmean(xs), 4) if xs else 0.0

    ans = [r for r in results if r.question.type == "answerable"]
    una = [r for r in results if r.question.type == "unanswerable"]
    inv = [r for r in results if r.question.type == "inventory"]
    out: dict[str, float] = {"questions": float(len(results)), "answerable": float(len(ans)),
                             "unanswerable": float(len(una)), "inventory": float(len(inv))}
    out["accuracy"] = mean([r.metrics["correct"] for r in ans])
    for lang in ("de", "en"):
        out[f"accuracy_{lang}"] = mean([r.metrics["correct"] for r in ans
                                        if r.question.language == lang])
    for name, flag in (("same", 0.0), ("cross", 1.0)):
        part = [r.metrics["correct"] for r in ans if r.metrics.get("cross_language") == flag]
        if part:
            out[f"accuracy_{name}_language"] = mean(part)
            out[f"{name}_language"] = float(len(part))
    out["exact"] = mean([r.metrics["exact"] for r in ans])
    cites = sum(r.metrics["citations"] for r in ans)
    out["citation_precision"] = round(sum(r.metrics["precise_citations"] for r in ans) / cites,
                                      4) if cites else 0.0
    declined = [r for r in ans + una if r.metrics["abstained"]]
    out["abstention_recall"] = mean([r.metrics["abstained"] for r in una])
    out["abstention_precision"] = round(sum(1 for r in declined if r.question.type ==
                                            "unanswerable") / len(declined), 4) if declined else 0.0
    out["answerable_abstained"] = float(sum(1 for r in ans if r.metrics["abstained"]))
    if inv:
        out["inventory_accuracy"] = mean([r.metrics["correct"] for r in inv])
        out["inventory_recall"] = mean([r.metrics["inventory_recall"] for r in inv])
        out["inventory_precision"] = mean([r.metrics["inventory_precision"] for r in inv])
    lat = [r.answer.latency_ms for r in results]
    first = [r.answer.first_token_ms for r in results if r.answer.first_token_ms is not None]
    out["latency_p50_ms"], out["latency_p95_ms"] = _pct(lat, 0.5), _pct(lat, 0.95)
    out["first_token_p50_ms"], out["first_token_p95_ms"] = _pct(first, 0.5), _pct(first, 0.95)
    out["retrieval_p50_ms"] = _pct([r.answer.retrieval_ms for r in results], 0.5)
    out.update(aggregate_generation([r.metrics for r in results]))
    return out


def chat_answer(svc, question: str, cfg) -> Answer:
    """One answer through ChatService.answer_stream (nothing stored in the chat tables), as
    the operator: every collection."""
    from backend.security.access import Scope
    from backend.chat.service import Generated

    gen = None
    for ev in svc.answer_stream(question, cfg, scope=Scope.everything()):
        if isinstance(ev, Generated):
            gen = ev
    assert gen is not None
    support, uncited = answer_support(gen.citations)
    return Answer(gen.text, gen.sources, {e.n: e.text for e in gen.evidence},
                  gen.mode == "abstained", gen.latency_ms, gen.first_token_ms,
                  gen.retrieval_ms, gen.trace_id, gen.fallback, gen.notice, gen.mode,
                  gen.tokens_output, support, uncited, gen.provider, gen.tokens_input)


def document_languages(rs) -> dict[str, str]:
    """File name -> language of the active version, for the same/cross-language split."""
    from sqlalchemy import select

    from backend.store.models import Document, DocumentVersion

    with rs.store.session() as s:
        return {fn: lang or "" for fn, lang in s.execute(
            select(Document.filename, DocumentVersion.language)
            .join(DocumentVersion, DocumentVersion.id == Document.active_version_id))}


def check_provider(rs, provider: str) -> None:
    """A clear error before anything is measured: unknown name, or a provider that cannot
    be built from the settings (missing key, package not installed)."""
    from backend.llm import PROVIDERS, make_provider

    if provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r}; registered providers: "
                          f"{', '.join(PROVIDERS)}")
    make_provider(rs.settings, provider)


def evaluate_answers(rs, gs: AnswerGoldenset, *, provider: str = "extractive",
                     split: str = "all", collections: list[str] | None = None,
                     answer: Callable[[str], Answer] | None = None,
                     on_progress: Progress | None = None,
                     max_tokens: int | None = None, context_limit: int | None = None,
                     on_result: Callable[[QuestionResult], None] | None = None
                     ) -> AnswerReport:
    """Answer every question of the split and score it. `answer` replaces the chat path (the
    baseline measurement uses it); by default a ChatService answers with `provider` at
    temperature 0 (`max_tokens`: the answer length limit, default the session default)."""
    questions = gs.select(split)
    if not questions:
        raise GoldensetError(f"answer goldenset '{gs.name}' has no questions in split {split!r}")
    report = AnswerReport(gs, provider, split, [], max_tokens=max_tokens)
    first = None  # the availability check's answer is the first question's measurement
    if answer is None:
        from backend.chat.service import ChatService, SessionSettings

        check_provider(rs, provider)
        colls = collections or ([gs.collection] if gs.collection else [])
        cfg = SessionSettings(provider=provider, collections=colls, temperature=0.0,
                              **({"max_tokens": max_tokens} if max_tokens else {}),
                              **({"context_limit": context_limit} if context_limit else {}))
        svc = ChatService(rs)
        warm_up(rs, provider)  # the model loaded before the first question is timed
        answer = lambda text: chat_answer(svc, text, cfg)  # noqa: E731
        first = answer(questions[0].question)
        if first.fallback:
            raise ConfigError(f"provider {provider!r} is unavailable ({first.notice}); "
                              f"nothing measured")
    langs = document_languages(rs)
    t0 = time.perf_counter()
    for i, q in enumerate(questions, 1):
        a = first if i == 1 and first is not None else answer(q.question)
        report.results.append(QuestionResult(q, a, score(q, a, langs)))
        if on_result:
            on_result(report.results[-1])
        if on_progress:
            on_progress(i, len(questions), q.id)
    report.duration_s = round(time.perf_counter() - t0, 3)
    fell_back = [r.question.id for r in report.results if r.answer.fallback]
    if fell_back:
        report.warnings.append(f"{len(fell_back)} of {len(questions)} answers fell back to the "
                               f"extractive answerer ({', '.join(fell_back[:10])}); they are "
                               f"scored as given")
    report.metrics = aggregate(report.results)
    return report
