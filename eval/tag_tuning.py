"""Choose `tag_boost` (tag routing, docs/tags.md) on the tuning half of a retrieval goldenset
and report the held-out half:

    RAGSCOPE_DATA_DIR=… python -m eval.tag_tuning eval/goldenset_sample.yaml [--suggest]

`--suggest` first tags every document of the data dir with its suggestions (type label,
category, traits: backend/services/tags.py), as an editor accepting them all would; the
sample corpus has no tags of its own. The grid value with the best nDCG@10 on `tune` wins
(ties: the smaller boost); `test` is only reported. Nothing is stored."""
from __future__ import annotations

import argparse
import json

from backend.retrieval import RetrievalParams
from backend.security.access import Actor, Scope
from eval.goldenset import load_goldenset, split_queries

GRID = (0.0, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0)
METRICS = ["ndcg@10", "mrr@10", "recall@10"]


def suggest_all(rs) -> dict[str, list[str]]:
    """Accept every document's suggestions; returns file name -> its tags."""
    from backend.services import tags
    from backend.store.models import Document

    with rs.store.session() as s:
        docs = [(d.id, d.filename) for d in s.query(Document).order_by(Document.id)]
    actor = Actor.system("tag-tuning")
    for d, _ in docs:  # the suggestions only, also when run again
        tags.replace(rs, actor, d, [])
    return {name: tags.accept_suggestions(rs, actor, d).names for d, name in docs}


def routed(rs, gs) -> dict:
    """How many questions tag routing touched, and with which tags."""
    from backend.retrieval import Retriever

    hits: dict[str, list[str]] = {}
    for q in gs.queries:
        st = Retriever(rs).retrieve(q.question, RetrievalParams(),
                                    scope=Scope.everything()).trace.stage("tags")
        if st is not None:
            hits[q.id] = st.params["matched_tags"]
    return {"questions": len(gs.queries), "routed": len(hits), "matched": hits}


def measure(rs, gs, boosts=GRID) -> dict[str, dict[str, float]]:
    from eval.runner import evaluate

    configs = {f"boost={b}": RetrievalParams(tag_routing=b > 0, tag_boost=b) for b in boosts}
    report = evaluate(rs, gs, configs, scope=Scope.everything(), metrics=METRICS,
                      traces=False, contexts=False)
    return report.summary()


def main(argv: list[str] | None = None) -> int:
    from backend.config import Settings
    from backend.services.container import Ragscope

    ap = argparse.ArgumentParser(prog="python -m eval.tag_tuning")
    ap.add_argument("goldenset")
    ap.add_argument("--suggest", action="store_true",
                    help="tag every document with its suggestions first")
    a = ap.parse_args(argv)
    rs = Ragscope(Settings())
    out: dict = {}
    if a.suggest:
        out["tags"] = suggest_all(rs)
    gs = load_goldenset(a.goldenset)
    tune = measure(rs, split_queries(gs, "tune"))
    best = max(GRID, key=lambda b: (round(tune[f"boost={b}"]["ndcg@10"], 4), -b))
    test = measure(rs, split_queries(gs, "test"), (0.0, best))
    out.update({"tune": tune, "chosen_tag_boost": best, "test": test,
                "routing": {"tune": routed(rs, split_queries(gs, "tune")),
                            "test": routed(rs, split_queries(gs, "test"))}})
    print(json.dumps(out, indent=2, ensure_ascii=False))
    rs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
