"""LLM-judged metrics through ragas with a scripted provider (no model, no network): the
provider is wrapped as a ragas LLM, ragscope's embedder as ragas embeddings; without a judge
the metrics are skipped, and the extractive answerer is refused as a judge."""
from __future__ import annotations

import json

import numpy as np
import pytest

from backend.errors import ConfigError
from backend.llm import StreamEnd, TextDelta
from eval.goldenset import GoldQuery, Relevant
from eval.judge import RagasJudge, make_judge

ANSWER = "Pump P-2 is serviced every March."


class ScriptedProvider:
    """Answers ragas' prompts (statement extraction, NLI verdicts, question generation) with
    fixed JSON, and the grounded-answer prompt with ANSWER."""

    name, local, default_model = "scripted", True, "scripted"

    def __init__(self, verdict: int = 1):
        self.verdict = verdict
        self.prompts: list[str] = []

    def stream(self, req):
        text = req.messages[-1].content
        self.prompts.append(text)
        if req.system:
            out = ANSWER
        elif "judge the faithfulness" in text:
            out = json.dumps({"statements": [{"statement": ANSWER, "reason": "in source 1",
                                              "verdict": self.verdict}]})
        elif "noncommittal" in text:
            out = json.dumps({"question": "When is pump P-2 serviced?", "noncommittal": 0})
        else:
            out = json.dumps({"statements": [ANSWER]})
        yield TextDelta(out)
        yield StreamEnd("scripted")


class TinyEmbedder:
    def encode(self, texts):
        return np.array([[1.0, 0.0] if "P-2" in t else [0.0, 1.0] for t in texts])

    def encode_query(self, text):
        return self.encode([text])[0]


Q = GoldQuery("q1", "When is pump P-2 serviced?", [Relevant("pumps.md")],
              reference_answer="Pump P-2 is serviced every March.")


def test_faithfulness_and_relevancy_through_ragas():
    provider = ScriptedProvider()
    scores = RagasJudge(provider, "scripted", TinyEmbedder()).score(
        Q, ["Pump P-2 at Eichberg is serviced every March."])
    assert scores == {"faithfulness": 1.0, "answer_relevancy": 1.0, "answer_similarity": 1.0}
    assert provider.prompts[0].startswith("Sources:\n[1] Pump P-2")  # the answer, grounded
    assert len(provider.prompts) == 6  # answer, statements, verdicts, 3 generated questions


def test_unfaithful_answer_scores_zero():
    scores = RagasJudge(ScriptedProvider(verdict=0), "scripted", TinyEmbedder()).score(
        Q, ["Something unrelated."])
    assert scores["faithfulness"] == 0.0


def test_judge_choice():
    assert make_judge(None, None) is None
    with pytest.raises(ConfigError, match="extractive answerer is not a language model"):
        make_judge(None, "extractive")
