"""What the learned sentence ranker (backend/answer/evidence/ranker.py) costs per question: the
CPU time of `assess` with the hand weights alone and with the fitted ranker, on the sample
benchmark's questions over evidence made of the sample corpus's text files (8 passages of
800 characters each, the ones sharing most words with the question), no embedding model
(`encoder=None`, so only the scoring itself is timed), a fixed corpus share for every word.

    OPENBLAS_NUM_THREADS=1 nice -n 10 python -m bench.bench_ranker [ROUNDS]"""
from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

import yaml

from backend.answer.evidence.ranker import load_ranker
from backend.answer.evidence.scoring import assess
from backend.llm.base import Evidence
from bench.machine import uptime

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ("pressemitteilung_wasserpreis_2025.txt", "protokoll_werkausschuss_2024-03-12.txt",
         "chargectl_setup_guide.md", "lumen_release_notes.md", "runbook_gateway_failover.md")
_W = re.compile(r"\w{3,}")


def passages() -> list[str]:
    out = []
    for name in TEXTS:
        text = (ROOT / "data" / "samples" / name).read_text(encoding="utf-8")
        out += [text[i:i + 800] for i in range(0, len(text), 700)]
    return out


def evidence(question: str, chunks: list[str], k: int = 8) -> list[Evidence]:
    words = set(_W.findall(question.casefold()))
    best = sorted(chunks, key=lambda c: -len(words & set(_W.findall(c.casefold()))))[:k]
    return [Evidence(n, c, "doc", score=1.0 / n) for n, c in enumerate(best, 1)]


def cpu_ms(q: str, ev: list[Evidence], ranker, rounds: int) -> float:
    t = time.process_time()
    for _ in range(rounds):
        assess(q, ev, known=lambda w: 0.05, ranker=ranker, model=None)
    return (time.process_time() - t) * 1000 / rounds


def main(rounds: int = 5) -> None:
    data = yaml.safe_load((ROOT / "eval" / "answers_sample.yaml").read_text(encoding="utf-8"))
    qs = [q["question"] for q in data["questions"] if q.get("type", "answerable") != "inventory"]
    chunks = passages()
    model = load_ranker()
    hand, learned, cands = [], [], []
    for q in qs:
        ev = evidence(q, chunks)
        cands.append(len(assess(q, ev, known=lambda w: 0.05, ranker=None, model=None).ranked))
        hand.append(cpu_ms(q, ev, None, rounds))
        learned.append(cpu_ms(q, ev, model, rounds))
    print(f"{len(qs)} questions, candidates per question median {statistics.median(cands)}")
    print(f"assess CPU ms per question, median: hand weights {statistics.median(hand):.2f}, "
          f"with the ranker {statistics.median(learned):.2f} (difference "
          f"{statistics.median(b - a for a, b in zip(hand, learned)):.2f})")
    print(uptime())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
