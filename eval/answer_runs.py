"""One `python -m eval answers` run over the chosen questions, with any number of providers on
THE SAME questions (`--provider local --compare extractive`), an optional stratified subset
(`--sample N --seed S`, eval/answer_subset.py) and one JSON line per answered question
(`--rows FILE`, appended as each question is answered, so a long run that is stopped keeps
what it measured and can be watched with `tail -f`)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from eval.answer_set import AnswerGoldenset
from eval.answer_subset import sample_goldenset, strata_counts, support_language
from eval.answers import QuestionResult
from eval.cli_values import names

ROW_METRICS = ("correct", "abstained", "generated", "first_token_ms", "latency_ms", "tokens_input", "tokens_output",
               "tokens_per_s", "support_sentences", "unsupported_sentences",
               "uncited_sentences", "route_correct", "followup_correct", "cross_language")


def questions(a, rs) -> tuple[AnswerGoldenset, object]:
    """The goldenset to answer (the split, sampled when asked) and how to find a question's
    document language (for the strata)."""
    from eval.answer_set import load_answer_goldenset

    if a.benchmark == "unseen":
        from eval.unseen_bench import doc_language
        from eval.unseen_set import load_unseen

        gs, lang = load_unseen(a.split), doc_language  # the reporting path: may read "test"
    else:
        from eval.answers import document_languages

        gs, lang = load_answer_goldenset(a.goldenset), support_language(document_languages(rs))
    if a.sample:
        gs = sample_goldenset(gs, a.split, a.sample, a.seed, lang)
        counts = ", ".join(f"{k} {v}" for k, v in strata_counts(gs.questions, lang).items())
        print(f"note: {len(gs.questions)} questions sampled (seed {a.seed}): {counts}",
              file=sys.stderr)
    return gs, lang


def row_writer(path: Path | None, provider: str, label: str):
    """A callback writing one JSON line per answered question, or None."""
    if path is None:
        return None

    def write(r: QuestionResult) -> None:
        row = {"provider": provider, "label": label, "id": r.question.id,
               "question": r.question.question, "type": r.question.type,
               "language": r.question.language,
               **{k: r.metrics[k] for k in ROW_METRICS if k in r.metrics},
               "answer": r.answer.text,
               "unsupported": [s["sentence"] for s in r.answer.support or []
                               if not s.get("supported")]}
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return write


def run(a, rs, bar_factory) -> list:
    """One report per provider (`--provider` first, then each `--compare`), all on the same
    questions."""
    from eval.answers import evaluate_answers

    gs, _ = questions(a, rs)
    rows = Path(a.rows) if getattr(a, "rows", None) else None
    reports = []
    if a.benchmark == "unseen":
        from eval.unseen_bench import ensure_ingested, evaluate_unseen

        for note in ensure_ingested(rs):
            print(f"note: {note}", file=sys.stderr)
    for provider in dict.fromkeys([a.provider] + list(getattr(a, "compare", None) or [])):
        bar = bar_factory()
        on_result = row_writer(rows, provider, a.label or "")
        common = dict(provider=provider, split=a.split, on_progress=bar,
                      max_tokens=a.max_tokens, context_limit=a.context_limit,
                      on_result=on_result)
        if a.benchmark == "unseen":
            reports.append(evaluate_unseen(rs, gs, **common))
        else:
            reports.append(evaluate_answers(rs, gs, collections=names(a.collection) or None,
                                            **common))
        bar.close()
    return reports
