"""Run the unseen answer benchmark (eval/unseen_set.py) the way a user meets the chat: every
question (every turn of a follow-up dialogue) is asked through `ChatService.ask_stream` in a
chat session of its own, so the analysis route, the session history and everything the chat
page does take part; only the last turn of a dialogue is scored.

    python -m eval answers --benchmark unseen --split tune|test|all [--json]

The documents are ingested into collection `unseen` of RAGSCOPE_DATA_DIR first when any of
them is missing or changed there (`ensure_ingested`; otherwise nothing is ingested).

Metrics beyond eval/answers.py's (`aggregate`, over the scored turns):

* `accuracy_<q>_<d>` — answerable questions asked in language q about documents in language d
  (the folder, de/ or en/): de_de, en_en, de_en (a German question on an English document),
  en_de; `pair_<q>_<d>` their counts;
* `route_accuracy` — questions whose route the chat took (the `route` stage of the answer's
  trace, backend/answer/route.py) equals the question's `route`; an analysis answer maps
  to extract:<kind> (right when the intended kind is among the extractors run),
  summarize_section / summarize_document, compare_versions, compare_documents or
  cross_reference; a retrieval answer to inventory (a document list) or passage, and to `url`
  only when its trace has a stage that fetched or read the page (named url, fetch, web, crawl
  or page; the query stages echoing the question do not count); `route_accuracy_<label>` per
  intended route;
* `followup_accuracy` — dialogues whose last turn is right (the value, or a decline where the
  last turn is unanswerable); `followups` their count."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from eval.answer_set import AnswerGoldenset, AnswerQuestion, Support
from eval.answers import Answer, AnswerReport, QuestionResult, aggregate, check_provider, score
from eval.generation_metrics import answer_support, warm_up
from eval.goldenset import GoldensetError
from eval.unseen_set import COLLECTION, DOCUMENTS_DIR, LANGUAGES

Progress = Callable[[int, int, str], None]
_URL = re.compile(r"https?://\S+")
# a stage that fetched or read a web page (the query stages only echo the question's text)
_URL_STAGE = re.compile(r"url|fetch|web|crawl|page", re.I)


# ---- documents ----------------------------------------------------------------------------

def document_files(root: Path = DOCUMENTS_DIR) -> list[Path]:
    """The benchmark's documents (de/ and en/, whatever exists); file names must be unique,
    since the store knows a document by its file name."""
    files = [p for lang in LANGUAGES if (root / lang).is_dir()
             for p in sorted((root / lang).iterdir()) if p.is_file()]
    seen: dict[str, Path] = {}
    for p in files:
        if p.name in seen:
            raise GoldensetError(f"unseen documents: {p.name} is in both "
                                 f"{seen[p.name].parent.name}/ and {p.parent.name}/")
        seen[p.name] = p
    if not files:
        raise GoldensetError(f"no documents in {root}")
    return files


def _stored(rs, collection: str) -> dict[str, str]:
    """File name -> content sha256 of the active version, for the collection's documents."""
    from sqlalchemy import select

    from backend.store import repo
    from backend.store.models import Document, DocumentVersion

    with rs.store.session() as s:
        ids = repo.document_ids(s, repo.DocumentFilter(collections=[collection]))
        if not ids:
            return {}
        return {fn: sha or "" for fn, sha in s.execute(
            select(Document.filename, DocumentVersion.content_sha256)
            .join(DocumentVersion, DocumentVersion.id == Document.active_version_id)
            .where(Document.id.in_(ids)))}


def ensure_ingested(rs, root: Path = DOCUMENTS_DIR, collection: str = COLLECTION) -> list[str]:
    """Ingest the documents into `collection` unless every one is there unchanged; returns
    notes (what was ingested, which files failed)."""
    import hashlib

    from backend.ingest.service import Ingestor

    files = document_files(root)
    stored = _stored(rs, collection)
    stale = [p for p in files
             if stored.get(p.name) != hashlib.sha256(p.read_bytes()).hexdigest()]
    if not stale:
        return []
    outs = Ingestor(rs).ingest_paths(stale, collection=collection)
    notes = [f"ingested {sum(o.ok for o in outs)} of {len(stale)} documents into "
             f"collection {collection!r}"]
    notes += [f"{o.filename}: {o.status} ({o.error})" for o in outs if not o.ok]
    return notes


# ---- one dialogue ---------------------------------------------------------------------------

def _chunk_texts(rs, chunk_ids: list[str]) -> dict[str, str]:
    from sqlalchemy import select

    from backend.store.models import Chunk

    if not chunk_ids:
        return {}
    with rs.store.session() as s:
        return {cid: text for cid, text in s.execute(
            select(Chunk.id, Chunk.text).where(Chunk.id.in_(chunk_ids)))}


def _route_stage(rs, trace_id: str | None) -> tuple[dict, list[dict]]:
    """The `route` stage's params and all stages of a stored trace."""
    from backend.store.models import RetrievalTrace

    if not trace_id:
        return {}, []
    with rs.store.session() as s:
        row = s.get(RetrievalTrace, trace_id)
        data = row.trace if row is not None and isinstance(row.trace, dict) else {}
    stages = list((data.get("trace") or {}).get("stages") or [])
    route = next((st.get("params") or {} for st in stages if st.get("name") == "route"), {})
    return route, stages


def route_labels(params: dict, stages: list[dict], model: str, question: str) -> list[str]:
    """The benchmark's labels (eval/answer_set.py ROUTES) for the route an answer took; an
    analysis extraction may run several extractors, hence a list."""
    if params.get("route") == "analysis":
        action = params.get("action") or ""
        if action == "extract":
            return [f"extract:{x}" for x in params.get("extractors") or []] or ["extract:"]
        if action == "summarize":
            return ["summarize_section" if params.get("section") else "summarize_document"]
        return [action]
    if model == "inventory":
        return ["inventory"]
    if _URL.search(question) and any(_URL_STAGE.search(str(st.get("name", "")))
                                     for st in stages):
        return ["url"]
    return ["passage"]


def ask_dialogue(svc, q: AnswerQuestion, settings: dict, *, keep_session: bool = False
                 ) -> tuple[Answer, list[str]]:
    """Ask every turn of `q` in one new chat session; the last turn's answer and the labels
    of the route it took. The session is deleted afterwards (unless `keep_session`), so a
    benchmark run leaves no conversations in the chat page's list; traces stay."""
    from backend.security.access import Scope
    from backend.chat.types import Answered

    rs = svc.rs
    sess = svc.create_session(None, **settings)
    msg, latency = None, 0.0
    for turn in [t.question for t in q.turns] or [q.question]:
        t0 = time.perf_counter()
        for ev in svc.ask_stream(sess.uuid, turn, scope=Scope.everything()):
            if isinstance(ev, Answered):
                msg = ev.message
        latency = round((time.perf_counter() - t0) * 1000, 3)
    assert msg is not None
    texts = _chunk_texts(rs, [s["chunk_id"] for s in msg.sources if s.get("chunk_id")])
    contexts = {s["n"]: texts.get(s.get("chunk_id"), "") for s in msg.sources}
    params, stages = _route_stage(rs, msg.trace_id)
    if not keep_session:
        svc.delete_session(sess.uuid)
    support, uncited = answer_support(msg.citations)
    answer = Answer(msg.content, msg.sources, contexts,
                    abstained=bool((msg.citations or {}).get("abstained")),
                    latency_ms=latency, first_token_ms=msg.first_token_ms,
                    retrieval_ms=msg.retrieval_ms or 0.0, trace_id=msg.trace_id,
                    fallback=msg.fallback, notice=msg.notice,
                    mode="analysis" if params.get("route") == "analysis" else "answer",
                    tokens_output=msg.tokens_output, support=support, uncited=uncited,
                    provider=msg.provider, tokens_input=msg.tokens_input)
    return answer, route_labels(params, stages, msg.model, q.question)


# ---- scoring --------------------------------------------------------------------------------

def scored_question(q: AnswerQuestion) -> AnswerQuestion:
    """The question as eval/answers.py scores it: a follow-up as its last turn's type;
    document paths (de/x.pdf) as the file names the store and the sources use."""
    name = lambda doc: doc.split("/", 1)[-1]  # noqa: E731
    return replace(q, type=q.scored_type,
                   support=[Support(name(s.doc), s.sentence, s.section) for s in q.support],
                   documents=[name(d) for d in q.documents], also=[name(d) for d in q.also])


def doc_language(q: AnswerQuestion) -> str:
    """The language of a question's supporting documents (their folder), "" when mixed."""
    langs = {s.doc.split("/", 1)[0] for s in q.support} | {d.split("/", 1)[0] for d in
                                                          q.documents}
    return langs.pop() if len(langs) == 1 else ""


def unseen_metrics(q: AnswerQuestion, a: Answer, labels: list[str]) -> dict[str, float]:
    m = score(scored_question(q), a)
    if q.route:
        m["route_correct"] = float(q.route in labels)
    if q.type == "followup":
        m["followup"] = 1.0
        m["followup_correct"] = (m["abstained"] if q.scored_type == "unanswerable"
                                 else m["correct"])
    return m


def aggregate_unseen(results: list[QuestionResult], originals: dict[str, AnswerQuestion]
                     ) -> dict[str, float]:
    """eval/answers.py's metrics plus language pairs, routes and follow-ups."""
    def mean(xs):
        return round(sum(xs) / len(xs), 4) if xs else 0.0

    out = aggregate(results)
    pairs: dict[str, list[float]] = {}
    for r in results:
        q = originals[r.question.id]
        if r.question.type == "answerable" and q.language and doc_language(q):
            pairs.setdefault(f"{q.language}_{doc_language(q)}", []).append(r.metrics["correct"])
    for pair in sorted(pairs):
        out[f"accuracy_{pair}"], out[f"pair_{pair}"] = mean(pairs[pair]), float(len(pairs[pair]))
    routed = [r for r in results if "route_correct" in r.metrics]
    out["route_accuracy"] = mean([r.metrics["route_correct"] for r in routed])
    for label in sorted({originals[r.question.id].route for r in routed}):
        out[f"route_accuracy_{label}"] = mean([r.metrics["route_correct"] for r in routed
                                               if originals[r.question.id].route == label])
    fol = [r.metrics["followup_correct"] for r in results if "followup" in r.metrics]
    out["followups"], out["followup_accuracy"] = float(len(fol)), mean(fol)
    return out


def evaluate_unseen(rs, gs: AnswerGoldenset, *, provider: str = "extractive",
                    split: str = "all", on_progress: Progress | None = None,
                    max_tokens: int | None = None, keep_sessions: bool = False,
                    context_limit: int | None = None,
                    on_result: Callable[[QuestionResult], None] | None = None
                    ) -> AnswerReport:
    """Ask every question of `gs` (already the chosen split) through chat sessions and score
    the last turns. The report's results hold the scored form of each question."""
    from backend.chat.service import ChatService

    if not gs.questions:
        raise GoldensetError(f"answer goldenset '{gs.name}' has no questions")
    check_provider(rs, provider)
    settings = {"provider": provider, "collections": [gs.collection or COLLECTION],
                "temperature": 0.0, **({"max_tokens": max_tokens} if max_tokens else {}),
                **({"context_limit": context_limit} if context_limit else {})}
    svc = ChatService(rs)
    warm_up(rs, provider)
    report = AnswerReport(gs, provider, split, [], max_tokens=max_tokens)
    originals = {q.id: q for q in gs.questions}
    t0 = time.perf_counter()
    for i, q in enumerate(gs.questions, 1):
        a, labels = ask_dialogue(svc, q, settings, keep_session=keep_sessions)
        r = QuestionResult(scored_question(q), a, unseen_metrics(q, a, labels))
        r.route_taken = "+".join(labels)  # shown by --misses
        report.results.append(r)
        if on_result:
            on_result(r)
        if on_progress:
            on_progress(i, len(gs.questions), q.id)
    report.duration_s = round(time.perf_counter() - t0, 3)
    fell_back = [r.question.id for r in report.results if r.answer.fallback]
    if fell_back:
        report.warnings.append(f"{len(fell_back)} answers fell back to the extractive "
                               f"answerer ({', '.join(fell_back[:10])})")
    report.metrics = aggregate_unseen(report.results, originals)
    return report
