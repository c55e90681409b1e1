"""Routing as a measured component (issue 22, item 2): the labelled routing set
(eval/routing_set.yaml) asked through the chat's real router — the analysis route
(backend/answer/route.py, which runs the analysis to see whether it found what was
asked) and the retrieval module's inventory mode — over the sample corpus, without
generating passage answers. `python -m eval routing [--split tune|test] [--json]`.

An item is right when the route matches and, for an analysis route with a labelled
document, the route answered from that document. Follow-up items get their previous turn
stored in the session first (its answer citing the previous document), as the chat does."""
from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from eval.goldenset import GoldensetError

SET_FILE = Path(__file__).with_name("routing_set.yaml")
ANALYSIS_ROUTES = {"summarize_document", "summarize_section", "compare_versions",
                   "compare_documents", "cross_reference"}
ROUTES = {"passage", "inventory", "url"} | ANALYSIS_ROUTES
EXTRACTORS = {"decisions", "meeting_actions", "deadlines", "requirements", "config_keys",
              "setup_steps", "api_surface", "operational_notes", "risks", "entities"}


@dataclass(frozen=True)
class RouteItem:
    id: str
    question: str
    language: str
    route: str
    document: str | None = None
    previous: tuple[str, str | None] | None = None  # (question, document of its answer)
    split: str = "test"
    reproduction: bool = False


@dataclass
class RouteResult:
    item: RouteItem
    route: str
    document: str | None
    why: str
    ms: float
    document_b: str | None = None  # compare_documents: the second document

    @property
    def documents(self) -> set[str | None]:
        return {self.document, self.document_b} - {None}

    @property
    def route_ok(self) -> bool:
        return self.route == self.item.route

    @property
    def ok(self) -> bool:
        """The route, and for an analysis route with a labelled document, that document."""
        analysis = self.item.route in ANALYSIS_ROUTES or self.item.route.startswith("extract:")
        return self.route_ok and (not analysis or self.item.document is None
                                  or self.item.document in self.documents)


@dataclass
class RoutingReport:
    split: str
    results: list[RouteResult] = field(default_factory=list)

    def metrics(self) -> dict:
        rs = self.results
        acc = lambda xs: round(sum(r.ok for r in xs) / len(xs), 4) if xs else None  # noqa: E731
        by_route, by_lang = defaultdict(list), defaultdict(list)
        for r in rs:
            by_route[r.item.route].append(r)
            by_lang[r.item.language].append(r)
        ms = sorted(r.ms for r in rs)
        return {
            "split": self.split, "questions": len(rs), "accuracy": acc(rs),
            "route_accuracy": round(sum(r.route_ok for r in rs) / len(rs), 4) if rs else None,
            "per_route": {k: {"n": len(v), "accuracy": acc(v)} for k, v in sorted(by_route.items())},
            "per_language": {k: {"n": len(v), "accuracy": acc(v)} for k, v in sorted(by_lang.items())},
            "reproductions": acc([r for r in rs if r.item.reproduction]),
            "route_ms_p50": ms[len(ms) // 2] if ms else None,
            "confusion": dict(Counter(f"{r.item.route} -> {r.route}" for r in rs
                                      if not r.route_ok).most_common()),
            "misses": [{"id": r.item.id, "question": r.item.question, "expected": r.item.route,
                        "expected_document": r.item.document, "got": r.route,
                        "got_document": r.document, "why": r.why} for r in rs if not r.ok],
        }


def split_of(item_id: str) -> str:
    """tune for a third of the ids (sha1 mod 3 == 0), test for the rest: fixed by the id."""
    return "tune" if int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % 3 == 0 else "test"


def load_routing_set(path: str | Path = SET_FILE) -> list[RouteItem]:
    """The routing set; a bad item is refused with the file, the item and the field named."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise GoldensetError(f"{path}: cannot read the routing set ({e})") from None
    items, seen = [], set()
    for n, q in enumerate(data.get("questions") or [], 1):
        where = f"{path}: question {n} ({q.get('id', '?') if isinstance(q, dict) else '?'})"
        if not isinstance(q, dict) or not q.get("id") or not q.get("question"):
            raise GoldensetError(f"{where}: needs 'id' and 'question'")
        route = str(q.get("route") or "")
        if route not in ROUTES and not (route.startswith("extract:")
                                        and route.split(":", 1)[1] in EXTRACTORS):
            raise GoldensetError(f"{where}: route {route!r} is not one of {sorted(ROUTES)} "
                                 f"or extract:<{'|'.join(sorted(EXTRACTORS))}>")
        if q["id"] in seen:
            raise GoldensetError(f"{where}: duplicate id")
        seen.add(q["id"])
        if q.get("language") not in ("de", "en"):
            raise GoldensetError(f"{where}: language must be de or en")
        if q.get("split") != split_of(q["id"]):
            raise GoldensetError(f"{where}: split must be {split_of(q['id'])!r} (the id's hash)")
        prev = q.get("previous")
        if prev is not None and (not isinstance(prev, dict) or not prev.get("question")):
            raise GoldensetError(f"{where}: previous needs a 'question' (and 'document')")
        items.append(RouteItem(q["id"], q["question"], q["language"], route, q.get("document"),
                               (prev["question"], prev.get("document")) if prev else None,
                               q["split"], bool(q.get("reproduction"))))
    if not items:
        raise GoldensetError(f"{path}: no questions")
    return items


def route_label(routed) -> str:
    """The answer path a `chat_route.Routed` stands for (its `label`, also in the trace)."""
    return routed.label


def _chosen_documents(routed) -> tuple[int | None, int | None]:
    """The document (and a comparison's second one) the analysis route answered from."""
    for st in routed.answer.stages if routed.answer is not None else []:
        if st.name == "document_choice":
            return st.params.get("document_id"), st.params.get("document_b")
    return None, None


def _ids_by_file(rs) -> dict[str, int]:
    from sqlalchemy import select

    from backend.store.models import Document

    with rs.store.session() as s:
        return {f: i for i, f in s.execute(select(Document.id, Document.filename)
                                           .where(Document.status == "active"))}


def _previous_turn(chat, sess, question: str, doc_id: int | None) -> None:
    """Store an earlier turn whose answer cites `doc_id`, as a follow-up's context."""
    sources = [] if doc_id is None else [{"n": 1, "document_id": doc_id, "cited": True,
                                           "title": "", "filename": ""}]
    chat.store_turn(sess.uuid, question, sess.settings, content="(earlier answer) [1]",
                    sources=sources, citations={"ok": True, "cited": [1], "invalid": []},
                    provider="extractive", model="extractive")


def evaluate_routing(rs, items: list[RouteItem], split: str = "all",
                     on_progress=None) -> RoutingReport:
    """Route every item of `split` through the real router over the corpus in `rs`."""
    from backend.security.access import Scope
    from backend.answer import route as chat_route
    from backend.chat.service import ChatService

    chosen = [i for i in items if split == "all" or i.split == split]
    ids = _ids_by_file(rs)
    names = {v: k for k, v in ids.items()}
    wanted = {i.document for i in chosen if i.document} | {
        i.previous[1] for i in chosen if i.previous and i.previous[1]}
    missing = sorted(wanted - set(ids))
    if missing:
        raise GoldensetError(f"the data dir lacks documents of the routing set: "
                             f"{', '.join(missing)} (ingest data/samples, or use --samples)")
    chat, scope = ChatService(rs), Scope.everything()
    report = RoutingReport(split)
    for n, item in enumerate(chosen, 1):
        sess = chat.create_session(None, provider="extractive")
        if item.previous:
            _previous_turn(chat, sess, item.previous[0], ids.get(item.previous[1] or ""))
        t0 = time.perf_counter()
        routed = chat_route.route(chat, sess, item.question, scope)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        doc, doc_b = _chosen_documents(routed)
        report.results.append(RouteResult(item, route_label(routed),
                                          names.get(doc), routed.why, ms, names.get(doc_b)))
        chat.delete_session(sess.uuid)
        if on_progress:
            on_progress(n, len(chosen), item.id)
    return report
