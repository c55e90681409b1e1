"""Critique rounds with the local model (issue 26.1): rounds needed, pass rate and time on a
handful of chat answers.

The sample corpus (data/samples) is ingested once into the data dir; for each of N goldenset
questions (half German, half English, with reference answers) the chat answers with provider
`local` (3 sources, temperature 0, 200 tokens), then `critique_message` runs the seeded
critics (fact checker, stylist, structure analyst through the same local model, the format
checker in code) with up to R revisions. Each answer's run is appended to a JSON-lines file
as it finishes (a long run that is stopped keeps what it measured); `--summary FILE` prints
the table for docs/chat.md from such a file.

    nice -n 10 python bench/bench_critique.py --model /path/to/qwen.gguf --answers 6 \\
        --rounds 1 --data-dir /tmp/critique-bench --out /tmp/critique-bench/runs.jsonl
    python bench/bench_critique.py --summary /tmp/critique-bench/runs.jsonl

`--planted N` instead stores N known-wrong answers (a goldenset reference answer with its
first number changed, with the sources the chat retrieves) and critiques them: does the fact checker catch
the wrong number, and does the revision fix it?
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from bench_chat import env  # noqa: E402  (machine description)


def questions(n: int) -> list[str]:
    from eval.goldenset import load_goldenset

    qs = [q for q in load_goldenset(ROOT / "eval" / "goldenset_sample.yaml").queries
          if q.reference_answer and "inventory" not in q.tags]
    de = [q.question for q in qs if q.language == "de"]
    en = [q.question for q in qs if q.language == "en"]
    return (de[: (n + 1) // 2] + en[: n // 2])[:n]


def services(data_dir: Path, model: Path):
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data_dir, local_model_path=model))
    marker = data_dir / "bench_critique_corpus.done"
    if not marker.exists():
        outs = Ingestor(rs).ingest_paths([ROOT / "data" / "samples"], collection="samples")
        if any(not o.ok for o in outs):
            raise SystemExit(f"ingest failed: {[o.error for o in outs if not o.ok]}")
        marker.write_text("ok\n")
    return rs


def one(rs, question: str, rounds: int) -> dict:
    from backend.chat.service import ChatService
    from backend.security.access import Actor, Scope
    from backend.services import critique

    svc = ChatService(rs)
    sess = svc.create_session(provider="local", max_tokens=200, temperature=0.0,
                              context_limit=3)
    t0 = time.perf_counter()
    msg = svc.ask(sess.uuid, question, scope=Scope.everything()).message
    answer_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    run = critique.critique_message(rs, Actor.system("bench"), msg.id, rounds=rounds,
                                    provider="local")
    return _row(question, run, answer_s, msg.fallback, msg.content,
                time.perf_counter() - t1)


_NUMBER = re.compile(r"(?<![\[\d])\d{2,}(?![\]\d])")  # 2+ digits, not a citation [n]


def planted_questions(n: int) -> list[tuple[str, str]]:
    """(question, reference answer) of goldenset questions whose reference has a number."""
    from eval.goldenset import load_goldenset

    qs = [q for q in load_goldenset(ROOT / "eval" / "goldenset_sample.yaml").queries
          if q.reference_answer and _NUMBER.search(q.reference_answer)
          and "inventory" not in q.tags]
    return [(q.question, q.reference_answer) for q in qs[:n]]


def planted(rs, question: str, reference: str, rounds: int) -> dict:
    """A known-wrong answer: the goldenset's reference answer with its first number of two
    or more digits changed (each digit + 1), stored as the answer with the sources the chat
    retrieves for the question, then critiqued."""
    from backend.chat.service import ChatService
    from backend.chat.types import SessionSettings
    from backend.security.access import Actor, Scope
    from backend.services import critique

    svc = ChatService(rs)
    sess = svc.create_session(provider="extractive", context_limit=3)
    msg = svc.ask(sess.uuid, question, scope=Scope.everything()).message
    m = _NUMBER.search(reference)
    wrong = reference[:m.start()] + "".join(str((int(d) + 1) % 10) for d in m.group()) \
        + reference[m.end():]
    stored = svc.store_turn(sess.uuid, question, SessionSettings(), content=wrong,
                            sources=msg.sources, citations={}, provider="local",
                            model="planted").message
    t1 = time.perf_counter()
    run = critique.critique_message(rs, Actor.system("bench"), stored.id, rounds=rounds,
                                    provider="local")
    return _row(question, run, 0.0, False, wrong, time.perf_counter() - t1,
                changed=m.group(), reference=reference)


def _row(question, run, answer_s, fallback, answer, critique_s, **extra) -> dict:
    return {"question": question, "answer_s": round(answer_s, 1), "fallback": fallback,
            "critique_s": round(critique_s, 1), "status": run["status"],
            "rounds": run["rounds"], "revisions": sum(1 for r in run["critique_rounds"]
                                                       if r["revision"]),
            "error": run["error"],
            "ratings": [[(c["critic"], c["rating"], c["passed"], bool(c["error"]))
                         for c in r["critiques"]] for r in run["critique_rounds"]],
            "answer": answer, "final": run["final_text"], **extra}


def summary(rows: list[dict]) -> str:
    n = len(rows)
    calls = [sum(1 for rnd in r["ratings"] for c in rnd if c[0] != "Format checker")
             + r["revisions"] for r in rows]
    failed_parse = sum(c[3] for r in rows for rnd in r["ratings"] for c in rnd)
    all_crits = sum(len(rnd) for r in rows for rnd in r["ratings"])
    first_pass = {}
    for r in rows:
        for name, _rating, passed, _err in r["ratings"][0]:
            first_pass.setdefault(name, []).append(passed)
    lines = ["| answer | status | critique rounds | revisions | round-1 ratings "
             "(fact/style/structure/format) | last-round ratings | critique s |",
             "|---|---|---:|---:|---|---|---:|"]
    for i, r in enumerate(rows, 1):
        fmt = lambda rnd: "/".join("–" if c[1] is None else f"{c[1]:g}" for c in rnd)  # noqa: E731
        lines.append(f"| {i} | {r['status']} | {r['rounds']} | {r['revisions']} | "
                     f"{fmt(r['ratings'][0])} | {fmt(r['ratings'][-1])} | {r['critique_s']} |")
    ok = sum(r["status"] in ("validated", "revised") for r in rows)
    per_call = sum(r["critique_s"] for r in rows) / max(1, sum(calls))
    lines += ["", f"{n} answers: {ok} passed every critic in the end "
              f"({sum(r['status'] == 'validated' for r in rows)} as written, "
              f"{sum(r['status'] == 'revised' for r in rows)} after revision), "
              f"{sum(r['status'] == 'failed' for r in rows)} failed; "
              f"round-1 pass rate per critic: "
              + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in first_pass.items())
              + f"; unparseable or failed critiques {failed_parse} of {all_crits}; "
              f"critique run median {statistics.median(r['critique_s'] for r in rows):.0f} s, "
              f"{per_call:.1f} s per model call ({sum(calls)} calls); answer median "
              f"{statistics.median(r['answer_s'] for r in rows):.0f} s."]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, help="GGUF file of the local model")
    ap.add_argument("--answers", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=1, help="revisions allowed per answer")
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/critique-bench"))
    ap.add_argument("--out", type=Path, help="JSON lines, one run per answer")
    ap.add_argument("--summary", type=Path, help="print the table of a JSON-lines file")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first K questions")
    ap.add_argument("--fact-threshold", type=float, help="set the fact checker's threshold "
                    "in the bench's data dir first (to see the revision path)")
    ap.add_argument("--planted", type=int, default=0, metavar="N",
                    help="instead: N known-wrong answers (a number of the extractive answer "
                         "changed), to see whether the critics catch it")
    a = ap.parse_args()
    if a.summary:
        print(summary([json.loads(ln) for ln in a.summary.read_text().splitlines() if ln]))
        return
    if not a.model:
        raise SystemExit("--model is needed (a GGUF instruct model)")
    a.data_dir.mkdir(parents=True, exist_ok=True)
    out = a.out or a.data_dir / "runs.jsonl"
    print(json.dumps({"env": env(), "model": str(a.model)}), flush=True)
    rs = services(a.data_dir, a.model)
    if a.fact_threshold is not None:
        from backend.security.access import Actor
        from backend.services import critique

        critique.update_critic(rs, Actor.system("bench"), "Fact checker",
                               threshold=a.fact_threshold)
    todo = planted_questions(a.planted) if a.planted else [(q, None) for q in
                                                           questions(a.answers)]
    todo = todo[a.skip:]
    for q, reference in todo:
        row = planted(rs, q, reference, a.rounds) if a.planted else one(rs, q, a.rounds)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(json.dumps({k: row[k] for k in ("question", "status", "rounds", "critique_s")},
                         ensure_ascii=False), flush=True)
    print(summary([json.loads(ln) for ln in out.read_text().splitlines() if ln]))


if __name__ == "__main__":
    main()
