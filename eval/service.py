"""What the CLI and the evaluation page call: resolve a goldenset, run and store an evaluation,
search documents for the goldenset editor. No Streamlit here. Runs and searches take the
caller's Scope (backend/security/access.py): the CLI's operator passes `Scope.everything()`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from backend.security.access import Scope
from backend.retrieval import RetrievalParams, Retriever, TraceOwner
from eval.configs import resolve
from eval.goldenset import Goldenset, GoldensetError
from eval.runner import DocKeys, EvalReport, evaluate
from eval.store import (
    delete_query,
    get_goldenset,
    next_query_id,
    put_query,
    register_file,
    save_goldenset,
    save_report,
)

EVAL_DIR = Path(__file__).resolve().parent
GOLDENSET_SUFFIXES = (".yaml", ".yml", ".jsonl")


def bundled_goldensets() -> list[Path]:
    """Goldenset files shipped in eval/ (goldenset_*.yaml|jsonl)."""
    return sorted(p for p in EVAL_DIR.glob("goldenset_*") if p.suffix in GOLDENSET_SUFFIXES)


def resolve_goldenset(rs, ref: str) -> tuple[Goldenset, list[str]]:
    """A file path (registered in the store under its name) or a stored goldenset's name."""
    p = Path(ref)
    if p.suffix in GOLDENSET_SUFFIXES or p.exists():
        if not p.exists():
            raise GoldensetError(f"{ref}: no such goldenset file")
        return register_file(rs, p)
    return get_goldenset(rs, ref), []


def import_bundled(rs, path: Path) -> Goldenset:
    """Store a bundled file's goldenset (replacing a stored copy of that name)."""
    from eval.goldenset import load_goldenset

    gs = load_goldenset(path)
    save_goldenset(rs, gs, source=str(path))
    return gs


def run(rs, gs: Goldenset, config_names: list[str], *, scope: Scope,
        metrics: list[str] | None = None,
        collections: list[str] | None = None, traces: bool | None = None,
        judge: str | None = None, owner: TraceOwner | None = None,
        store: bool = True, label: str = "",
        on_progress: Callable[[int, int, str], None] | None = None
        ) -> tuple[EvalReport, list[int]]:
    from eval.judge import make_judge

    configs = resolve(config_names)
    report = evaluate(rs, gs, configs, scope=scope, metrics=metrics, collections=collections,
                      traces=traces,
                      judge=make_judge(rs, judge), owner=owner, on_progress=on_progress)
    ids = save_report(rs, report, label=label) if store else []
    return report, ids


def put_question(rs, goldenset: str, question: dict, *, old_id: str | None = None):
    """Add or replace a question of a stored goldenset (validated; GoldensetError if not)."""
    return put_query(rs, goldenset, question, old_id=old_id)


def delete_question(rs, goldenset: str, question_id: str) -> None:
    delete_query(rs, goldenset, question_id)


def next_question_id(gs: Goldenset) -> str:
    return next_query_id(gs)


@dataclass
class DocCandidate:
    key: str  # what relevant[].doc takes for this goldenset
    title: str
    score: float
    snippet: str


def search_documents(rs, gs: Goldenset, text: str, *, scope: Scope, limit: int = 10,
                     collections: list[str] | None = None) -> list[DocCandidate]:
    """Documents for a question (among those `scope` may read), for marking relevant ones
    in the goldenset editor."""
    if not text.strip():
        return []
    collections = scope.collections(collections or ([gs.collection] if gs.collection else None))
    keys = DocKeys(rs, gs.doc_key, collections)
    p = RetrievalParams(policy="document_first", k=limit * 2, inventory="off",
                        collections=collections)
    res = Retriever(rs).retrieve(text, p, scope=scope)
    best = {}
    for h in res.hits:
        best.setdefault(h.document_id, h)
    out = []
    for d in res.documents[:limit]:
        h = best.get(d.document_id)
        out.append(DocCandidate(keys.of_hit(d.document_id, d.filename), d.title or d.filename,
                                round(d.score, 4), (h.text[:300] if h else "")))
    return out
