"""A deterministic, stratified subset of an answer benchmark (`python -m eval answers --sample
N --seed S`), so a slow generative provider (the local Qwen model: 10-60 s per question on 2
cores) can be measured in an hour, and every provider is measured on THE SAME questions.

Strata: what the question is (answerable, near-miss unanswerable, inventory, a follow-up
dialogue ending answerable or unanswerable) and, for answerable ones, the language pair
(question language _ document language: de_de, en_en, de_en, en_de). N is shared out in
proportion to the strata's sizes by largest remainder, with at least one question per stratum
while N allows, so a small subset still holds each pair, near misses and follow-ups. Within a
stratum questions are ranked by sha256(f"{seed}:{id}"): the choice depends only on the
question ids and the seed (not on file order, provider or run), and a larger N keeps the
questions of a smaller one in each stratum whose share did not shrink. The subset keeps the
benchmark's file order."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace

from eval.answer_set import AnswerGoldenset, AnswerQuestion
from eval.goldenset import GoldensetError

DocLanguage = Callable[[AnswerQuestion], str]


def stratum(q: AnswerQuestion, doc_language: DocLanguage | None = None) -> str:
    """The stratum label: `answerable:de_en`, `unanswerable:de`, `followup:answerable:en_en`,
    `inventory:de`; the document language is left out when unknown or mixed."""
    kind = q.type if q.type != "followup" else f"followup:{q.scored_type}"
    doc = doc_language(q) if doc_language and q.scored_type == "answerable" else ""
    pair = f"{q.language or '?'}_{doc}" if doc else (q.language or "?")
    return f"{kind}:{pair}"


def _rank(seed: int, qid: str) -> str:
    return hashlib.sha256(f"{seed}:{qid}".encode()).hexdigest()


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Questions per stratum: one each first (largest strata first while n lasts), the rest
    in proportion to the sizes by largest remainder; never more than a stratum holds."""
    n = min(n, sum(sizes.values()))
    order = sorted(sizes, key=lambda k: (-sizes[k], k))
    take = {k: 0 for k in sizes}
    for k in order[:n]:
        take[k] = 1
    left = n - sum(take.values())
    while left > 0:
        room = {k: sizes[k] - take[k] for k in sizes if sizes[k] > take[k]}
        total = sum(sizes[k] for k in room)
        quota = {k: left * sizes[k] / total for k in room}
        for k in room:
            add = min(int(quota[k]), room[k])
            take[k] += add
            left -= add
        if left > 0:  # the remainders, largest first (ties by name: deterministic)
            for k in sorted(room, key=lambda k: (-(quota[k] - int(quota[k])), k)):
                if left and take[k] < sizes[k]:
                    take[k] += 1
                    left -= 1
    return take


def stratified_sample(questions: list[AnswerQuestion], n: int, seed: int = 0,
                      doc_language: DocLanguage | None = None) -> list[AnswerQuestion]:
    """N questions stratified as the module says, in their original order."""
    if n < 1:
        raise GoldensetError(f"--sample must be at least 1 (got {n})")
    groups: dict[str, list[AnswerQuestion]] = {}
    for q in questions:
        groups.setdefault(stratum(q, doc_language), []).append(q)
    take = allocate({k: len(v) for k, v in groups.items()}, n)
    chosen = {q.id for k, qs in groups.items()
              for q in sorted(qs, key=lambda q: _rank(seed, q.id))[:take[k]]}
    return [q for q in questions if q.id in chosen]


def sample_goldenset(gs: AnswerGoldenset, split: str, n: int, seed: int = 0,
                     doc_language: DocLanguage | None = None) -> AnswerGoldenset:
    """The split's subset as a goldenset of its own (named `<name>[sample N seed S]`, so a
    stored run says what it measured); the questions keep their split."""
    picked = stratified_sample(gs.select(split), n, seed, doc_language)
    return replace(gs, name=f"{gs.name}[sample {n} seed {seed}]", questions=picked)


def support_language(languages: dict[str, str]) -> DocLanguage:
    """For the sample benchmark: a question's document language from the store's document
    languages (file name -> language), "" when unknown or mixed."""
    def lang(q: AnswerQuestion) -> str:
        found = {languages.get(s.doc.split("/", 1)[-1], "") for s in q.support}
        return found.pop() if len(found) == 1 else ""
    return lang


def strata_counts(questions: list[AnswerQuestion], doc_language: DocLanguage | None = None
                  ) -> dict[str, int]:
    """How many questions each stratum holds (printed with a sampled run)."""
    out: dict[str, int] = {}
    for q in questions:
        k = stratum(q, doc_language)
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))
