"""What the domain rules (config/domain/*.yaml; docs/domain-config.md) cost per question:
`domain_rules.current()` between file checks and with the check (four `os.stat`), the repair +
synonym step `domain_query.apply()` on the sample goldenset's questions, the router's
`explain()` with its cue words from intents.yaml, and loading all four files (once per edit).
No index, no model: pure text work.

    python bench/bench_domain_rules.py [--repeat 2000]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backend.answer.intents import explain  # noqa: E402
from backend.config import domain_rules  # noqa: E402
from backend.retrieval.domain_query import apply  # noqa: E402

GOLDEN = Path(__file__).resolve().parent.parent / "eval" / "goldenset_sample.yaml"


def _us(fn, repeat: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1e6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000)
    a = ap.parse_args()
    data = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    questions = [q.get("query") or q.get("question") for q in data["queries"]]
    t0 = time.perf_counter()
    domain_rules.load(domain_rules.DEFAULT_DIR)
    load_ms = (time.perf_counter() - t0) * 1000
    apply(questions[0]), explain(questions[0])  # warm: compiled once per generation
    cached = _us(domain_rules.current, a.repeat)
    domain_rules.RELOAD_CHECK_S = 0.0
    checked = _us(domain_rules.current, a.repeat)
    domain_rules.RELOAD_CHECK_S = 1.0
    per_q = [_us(lambda q=q: apply(q), max(1, a.repeat // 10)) for q in questions]
    route = [_us(lambda q=q: explain(q), max(1, a.repeat // 10)) for q in questions]
    fired = sum(1 for q in questions if (d := apply(q)).repaired or d.added)
    print(f"load all four files: {load_ms:.1f} ms")
    print(f"current(): {cached:.2f} us between checks, {checked:.1f} us with the mtime check")
    print(f"apply() over {len(questions)} questions ({fired} with a repair or synonym): "
          f"median {statistics.median(per_q):.1f} us, max {max(per_q):.1f} us")
    print(f"explain() (router, cues from intents.yaml): median {statistics.median(route):.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
