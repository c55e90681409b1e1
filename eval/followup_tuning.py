"""Error analysis of the follow-up dialogues of the unseen benchmark, TUNE split only (issue 22,
part 5): every dialogue is asked turn by turn in one chat session, as eval/unseen_bench.py asks
it, and for each turn this prints what the chat did — the rewritten retrieval query (the
`rewrite` stage), the pinned document, whether the supporting sentence was among the retrieved
passages, whether the answer quoted it — and, for a dialogue whose last turn is wrong, the class
of its failure (`failure_class`).

    RAGSCOPE_DATA_DIR=<dir> python -m eval.followup_tuning [--only ID ...] [--json]

It reads the tune split through `load_unseen_for_tuning` (which refuses the test split)."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field

from eval.answer_set import AnswerQuestion
from eval.answers import cited_numbers, contains_answer, is_abstention, squash

CLASSES = ("first turn wrong", "not read as a follow-up", "wrong document in focus",
           "retrieval missed the sentence", "previous answer repeated",
           "answerer quoted another sentence", "not declined (near miss)",
           "declined although answerable", "route")


@dataclass
class TurnResult:
    """What the chat did with one turn of a dialogue."""

    question: str
    answer: str
    correct: bool
    abstained: bool
    query: str = ""
    why: str = ""
    pinned: list[int] | None = None
    retrieved: bool = False  # a supporting sentence is in one of the retrieved passages
    quoted: bool = False  # ... in a passage the answer cites
    support_docs: list[str] = field(default_factory=list)
    source_docs: list[str] = field(default_factory=list)
    route: str = ""


def _file(doc: str) -> str:
    return doc.split("/", 1)[-1]


def ask_turns(svc, q: AnswerQuestion, settings: dict) -> list[TurnResult]:
    """Ask every turn of dialogue `q` in one new session; one TurnResult per turn."""
    from backend.chat.types import Answered
    from backend.security.access import Scope
    from eval.unseen_bench import _chunk_texts, _route_stage, route_labels

    sess = svc.create_session(None, **settings)
    out = []
    try:
        for turn in q.turns:
            msg = None
            for ev in svc.ask_stream(sess.uuid, turn.question, scope=Scope.everything()):
                if isinstance(ev, Answered):
                    msg = ev.message
            texts = _chunk_texts(svc.rs, [s["chunk_id"] for s in msg.sources
                                          if s.get("chunk_id")])
            ctx = {s["n"]: squash(texts.get(s.get("chunk_id"), "")) for s in msg.sources}
            sups = [squash(s.sentence) for s in turn.support]
            declined = bool((msg.citations or {}).get("abstained")) or is_abstention(msg.content)
            cited = set(cited_numbers(msg.content))
            rw = msg.rewrite or {}
            params, stages = _route_stage(svc.rs, msg.trace_id)
            correct = declined if turn.unanswerable else (
                not declined and contains_answer(msg.content, turn.answers))
            out.append(TurnResult(
                turn.question, msg.content, bool(correct), declined,
                rw.get("query", turn.question), rw.get("why", "not a follow-up"),
                rw.get("document_ids"),
                any(s in c for s in sups for c in ctx.values()),
                any(s in ctx.get(n, "") for s in sups for n in cited),
                sorted({_file(s.doc) for s in turn.support}),
                list(dict.fromkeys(s.get("filename", "") for s in msg.sources)),
                "+".join(route_labels(params, stages, msg.model, turn.question))))
    finally:
        svc.delete_session(sess.uuid)
    return out


def failure_class(q: AnswerQuestion, turns: list[TurnResult]) -> str | None:
    """Why the last turn is wrong (None: it is right), the first matching class of CLASSES."""
    last, first = turns[-1], turns[0]
    if last.correct:
        return None
    if not first.correct:
        return "first turn wrong"
    if last.why.startswith(("not a follow-up", "first question")):
        return "not read as a follow-up"
    if q.turns[-1].unanswerable:
        return "not declined (near miss)"
    if q.route and q.route not in last.route.split("+"):
        return "route"
    if last.support_docs and last.source_docs and last.source_docs[0] not in last.support_docs:
        return "wrong document in focus"
    if not last.retrieved:
        return "retrieval missed the sentence"
    if last.abstained:
        return "declined although answerable"
    prev = squash(turns[-2].answer)[:80]
    if prev and prev in squash(last.answer):
        return "previous answer repeated"
    return "answerer quoted another sentence"


def cross_language(q: AnswerQuestion) -> bool:
    langs = {s.doc.split("/", 1)[0] for t in q.turns for s in t.support}
    return bool(langs) and q.language not in langs


def analyse(rs, questions: list[AnswerQuestion]) -> list[dict]:
    from backend.chat.service import ChatService

    svc = ChatService(rs)
    settings = {"provider": "extractive", "collections": ["unseen"], "temperature": 0.0}
    rows = []
    for q in questions:
        turns = ask_turns(svc, q, settings)
        rows.append({"id": q.id, "language": q.language, "cross": cross_language(q),
                     "class": failure_class(q, turns),
                     "turns": [t.__dict__ for t in turns]})
    return rows


def _print(rows: list[dict]) -> None:
    for r in rows:
        mark = "ok " if r["class"] is None else "BAD"
        print(f"{mark} {r['id']} ({r['language']}{', cross' if r['cross'] else ''})"
              f"{'  -> ' + r['class'] if r['class'] else ''}")
        for t in r["turns"]:
            print(f"   Q: {t['question']}")
            if t["query"] != t["question"]:
                print(f"      retrieved as: {t['query']}  [pinned {t['pinned']}]")
            print(f"      {'right' if t['correct'] else 'wrong'}; support "
                  f"{'retrieved' if t['retrieved'] else 'NOT retrieved'}, "
                  f"{'quoted' if t['quoted'] else 'not quoted'}; sources "
                  f"{t['source_docs'][:3]}; route {t['route']}")
            print(f"      A: {' '.join(t['answer'].split())[:220]}")
    n = len(rows)
    ok = sum(r["class"] is None for r in rows)
    print(f"\nfollow-up accuracy {ok}/{n} = {ok / n:.3f}" if n else "no dialogues")
    for cls, k in Counter(r["class"] for r in rows if r["class"]).most_common():
        print(f"  {k:3d}  {cls}")


def main(argv: list[str] | None = None) -> int:
    import backend  # noqa: F401  (offline flags)
    from backend.config import Settings
    from backend.services.container import Ragscope
    from eval.unseen_bench import ensure_ingested
    from eval.unseen_set import load_unseen_for_tuning

    ap = argparse.ArgumentParser(prog="python -m eval.followup_tuning")
    ap.add_argument("--only", nargs="*", help="dialogue ids")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rs = Ragscope(Settings())
    ensure_ingested(rs)
    qs = [q for q in load_unseen_for_tuning("tune").questions if q.type == "followup"
          and (not a.only or q.id in a.only)]
    rows = analyse(rs, qs)
    if a.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        _print(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
