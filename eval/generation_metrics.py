"""What a generated answer costs and how well its sentences hold (issue 22, item 7), per
question and over a run, for `python -m eval answers` with any provider.

Per question (`generation_metrics`, merged into the question's metrics):

* `generated` (1.0) — a model wrote the answer (not the extractive answerer, not the
  evidence gate's decline before any model was asked); only then the figures below;
* `model_first_token_ms` — the answer's first token after retrieval (gate, prompt, HTTP,
  prompt evaluation);
* `tokens_output` — tokens the answer came in (the provider's usage, else counted locally);
  `tokens_input` — the prompt's tokens (sources, rules, history, question);
* `generation_ms` — first token to the last: answer latency minus retrieval and first token;
* `tokens_per_s` — (tokens_output - 1) / generation time, when the answer had at least two
  tokens and took measurable time (the first token's own time is the first-token figure);
* `support_checked` (1.0) when the chat's per-sentence support check ran (generated, not
  declined answers: backend/answer/evidence/grounding.py), then `support_sentences` (cited
  sentences checked), `unsupported_sentences` (checked and not supported by the cited
  source: the sentences the chat flags) and `uncited_sentences` (sentences with no citation).

Over a run (`aggregate_generation`): `support_checked` answers, `unsupported_share` (of the
checked sentences), `generated` answers, `model_first_token_p50_ms` / `_p95_ms` / `_max_ms`
over them, `answers_with_unsupported` (answers with at least one flagged sentence)
and its share `answers_with_unsupported_share`, `uncited_share` (of all sentences of the
checked answers), and `tokens_per_s_p50` / `_p95`, `tokens_output_p50`, `tokens_input_p50`, `generation_p50_ms`.
The extractive answerer quotes source sentences, so the chat runs no support check on it and
its runs have no support figures (`support_checked` 0)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # eval/answers.py imports this module
    from eval.answers import Answer


def _pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p * 100)), 1)


def generation_metrics(a: Answer) -> dict[str, float]:
    """Speed only of answers a model generated (not the extractive answerer, not a decline
    by the evidence gate before the model): `generated` 1.0 marks them."""
    m: dict[str, float] = {}
    if a.provider in ("", "extractive"):
        return m
    m["generated"] = 1.0
    if a.tokens_output is not None:
        m["tokens_output"] = float(a.tokens_output)
    if a.tokens_input is not None:
        m["tokens_input"] = float(a.tokens_input)
    if a.first_token_ms is not None:
        m["model_first_token_ms"] = a.first_token_ms
        gen_ms = max(0.0, a.latency_ms - a.retrieval_ms - a.first_token_ms)
        m["generation_ms"] = round(gen_ms, 1)
        if a.tokens_output and a.tokens_output > 1 and gen_ms > 0:
            m["tokens_per_s"] = round((a.tokens_output - 1) / (gen_ms / 1000), 2)
    if a.support is not None:
        m["support_checked"] = 1.0
        m["support_sentences"] = float(len(a.support))
        m["unsupported_sentences"] = float(sum(1 for s in a.support if not s.get("supported")))
        m["uncited_sentences"] = float(a.uncited)
    return m


def answer_support(citations: dict | None) -> tuple[list[dict] | None, int]:
    """The chat's support check out of an answer's citation record: the checked sentences
    (None when no check ran) and the number of uncited sentences."""
    c = citations or {}
    support = c.get("support")
    return (list(support) if support is not None else None,
            len(c.get("uncited_sentences") or []))


def aggregate_generation(rows: list[dict[str, float]]) -> dict[str, float]:
    """Run figures from the per-question metrics (see the module docstring)."""
    checked = [m for m in rows if m.get("support_checked")]
    out: dict[str, float] = {"support_checked": float(len(checked))}
    sents = sum(m["support_sentences"] for m in checked)
    if checked:
        flagged = sum(1 for m in checked if m["unsupported_sentences"] > 0)
        out["unsupported_share"] = round(sum(m["unsupported_sentences"] for m in checked)
                                         / sents, 4) if sents else 0.0
        out["answers_with_unsupported"] = float(flagged)
        out["answers_with_unsupported_share"] = round(flagged / len(checked), 4)
        every = sents + sum(m["uncited_sentences"] for m in checked)
        out["uncited_share"] = round(sum(m["uncited_sentences"] for m in checked) / every,
                                     4) if every else 0.0
    speed = [m["tokens_per_s"] for m in rows if "tokens_per_s" in m]
    if speed:
        out["tokens_per_s_p50"], out["tokens_per_s_p95"] = _pct(speed, 0.5), _pct(speed, 0.95)
    for key in ("tokens_output", "tokens_input"):
        toks = [m[key] for m in rows if key in m]
        if toks:
            out[f"{key}_p50"] = _pct(toks, 0.5)
    first = [m["model_first_token_ms"] for m in rows if "model_first_token_ms" in m]
    if first:
        out["model_first_token_p50_ms"] = _pct(first, 0.5)
        out["model_first_token_p95_ms"] = _pct(first, 0.95)
        out["model_first_token_max_ms"] = round(max(first), 1)
    out["generated"] = float(sum(1 for m in rows if m.get("generated")))
    gen = [m["generation_ms"] for m in rows if "generation_ms" in m]
    if gen:
        out["generation_p50_ms"] = _pct(gen, 0.5)
    return out


def warm_up(rs, provider: str) -> None:
    """Start the local model's server before the first question is timed, so the first
    question's first token does not include loading the model (printed by bench_local_llm)."""
    if provider == "local":
        from backend.errors import ConfigError, ProviderUnavailable
        from backend.llm.local import shared_server

        try:
            shared_server(rs.settings)
        except ProviderUnavailable as e:
            raise ConfigError(f"provider 'local' is unavailable ({e}); nothing measured") from e
