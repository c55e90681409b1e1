"""One run of critique rounds on a text (seed 001 run_critique_round), stored as it goes.

Round r: every active critic rates the current text (LLM critics through the provider, the
format checker in code); each critique is stored. If all pass (rating >= the critic's
threshold) the run ends: `validated` when the original passed, `revised` when a revision did.
Otherwise, while fewer than `max_rounds` revisions were made, the model revises the text with
the question, the sources and the failing critiques, the revision is stored, and round r+1
critiques it. A text still failing after the last revision ends `failed`, as does a run the
provider could not serve (its error stored). `max_rounds` 0: critique only, no revision.

An LLM critic's reply that holds no feedback JSON is a failed critique (rating None, not
passed) stored with the raw reply; it is not a crash, and the other critics still run."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Callable

from backend.chat import format_check
from backend.chat.critique import runs
from backend.chat.critique.critics import CriticInfo, render_prompt
from backend.chat.critique.defaults import REVISION_PROMPT, REVISION_SYSTEM
from backend.chat.critique.feedback import (
    Feedback,
    UnparseableFeedback,
    format_feedback,
    parse_feedback,
)
from backend.chat.prompt import evidence_block
from backend.errors import ProviderUnavailable
from backend.llm.base import Evidence, GenerationRequest, Message, Provider, TextDelta
from backend.store.critic_models import ContentCritique, CritiqueRevision, CritiqueRun

CRITIC_SYSTEM = ("You are a strict reviewer of answers written by a document assistant. "
                 "You reply with the requested JSON object only.")
CRITIC_MAX_TOKENS = 400
CRITIC_TEMPERATURE = 0.0
REVISION_TEMPERATURE = 0.2
STYLE_RULE_TEXT = {
    "emojis_forbidden": "No emojis.",
    "markdown_forbidden": "Plain text: no Markdown (no **bold**, *italic* or # headings).",
    "bold_forbidden": "No bold text.",
    "dashes_forbidden": "No en or em dashes (– —); use a hyphen, comma or full stop.",
    "hashtags_forbidden": "No hashtags.",
    "exclamation_marks_sparing": "At most 2 exclamation marks.",
}


@dataclass
class Target:
    """What is critiqued: the text, the question it answers, its numbered sources
    ({"n", "title", "section", "text"}), and where it comes from."""

    text: str
    question: str = ""
    sources: list[dict] = field(default_factory=list)
    kind: str = "text"  # answer | reply | summary | text
    message_id: int | None = None
    profile: str = "markdown"  # the answer profile the format checker applies
    style_rules: str | None = None  # the author profile's rules the text was written under


@dataclass
class Reviewer:
    """The model that critiques and revises."""

    provider: Provider
    model: str
    user: str = ""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def default_style_rules(profile: str) -> str:
    """The style rules when no author profile gives any: the format checker's active rules
    of the answer profile, one per line."""
    cfg = format_check.PROFILES.get(profile, format_check.PROFILES["markdown"])
    rules = format_check.active_rules(cfg["structure"], cfg["profile"])
    lines = [f"- {STYLE_RULE_TEXT[r]}" for r in rules]
    lines.append("- Clear, factual, concise; the language of the question.")
    return "\n".join(lines)


def sources_block(sources: list[dict]) -> str:
    return evidence_block([Evidence(n=int(s["n"]), text=s.get("text") or "",
                                    document=s.get("title") or "",
                                    section=s.get("section") or "") for s in sources])


def _complete(reviewer: Reviewer, system: str, prompt: str, *, max_tokens: int,
              temperature: float) -> str:
    request = GenerationRequest(model=reviewer.model, system=system,
                                messages=[Message("user", prompt)],
                                temperature=temperature, max_tokens=max_tokens)
    return "".join(e.text for e in reviewer.provider.stream(request)
                   if isinstance(e, TextDelta)).strip()


def _critique(critic: CriticInfo, text: str, target: Target, reviewer: Reviewer,
              style_rules: str) -> tuple[Feedback, str]:
    """(feedback, raw reply) of one critic on the text."""
    if critic.deterministic:
        cfg = format_check.PROFILES.get(target.profile, format_check.PROFILES["markdown"])
        return format_feedback(format_check.check_formatting(
            text, cfg["structure"], cfg["profile"])), ""
    prompt = render_prompt(critic, answer=text, question=target.question,
                           sources=sources_block(target.sources), style_rules=style_rules)
    try:
        raw = _complete(reviewer, CRITIC_SYSTEM, prompt, max_tokens=CRITIC_MAX_TOKENS,
                        temperature=CRITIC_TEMPERATURE)
    except ProviderUnavailable as e:
        return Feedback(rating=None, error=f"the provider failed: {e}"), ""
    try:
        return parse_feedback(raw), raw
    except UnparseableFeedback as e:
        return Feedback(rating=None, error=str(e)), raw


def critiques_block(critiques: list[tuple[CriticInfo, Feedback]]) -> str:
    """The failing critiques as the revision prompt shows them."""
    parts = []
    for critic, fb in critiques:
        if fb.passed(critic.threshold) or fb.rating is None:
            continue
        lines = [f"{critic.name} ({critic.type}): {fb.rating:g}/10, needs {critic.threshold:g}"]
        lines += [f"- issue: {i}" for i in fb.issues]
        lines += [f"- suggestion: {x}" for x in fb.suggestions]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _revise(text: str, target: Target, reviewer: Reviewer, critiques: str) -> str:
    prompt = (REVISION_PROMPT.replace("{question}", target.question or "(none)")
              .replace("{sources}", sources_block(target.sources))
              .replace("{answer}", text).replace("{critiques}", critiques))
    return _complete(reviewer, REVISION_SYSTEM, prompt,
                     max_tokens=max(300, min(2048, len(text) // 2)),
                     temperature=REVISION_TEMPERATURE)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


def run_rounds(store, target: Target, critics: list[CriticInfo], reviewer: Reviewer, *,
               max_rounds: int, style_rules: str | None = None,
               progress: Callable[[str], None] | None = None) -> dict:
    """Critique and revise; returns the stored run (backend/chat/critique/runs.py)."""
    say = progress or (lambda _msg: None)
    rules = style_rules if style_rules and style_rules.strip() else default_style_rules(
        target.profile)
    t_run = time.perf_counter()
    with store.session() as s:
        run = CritiqueRun(message_id=target.message_id, text_hash=text_hash(target.text),
                          kind=target.kind, original_text=target.text, final_text=target.text,
                          sources=target.sources, status="running", max_rounds=max_rounds,
                          provider=getattr(reviewer.provider, "name", ""),
                          model=reviewer.model, user=reviewer.user)
        s.add(run)
        s.flush()
        run_id = run.id
    text, status, error, revisions, done = target.text, "failed", "", 0, 0
    try:
        for rnd in range(1, max_rounds + 2):
            results, done = [], rnd
            for critic in critics:
                say(f"round {rnd}: {critic.name}")
                t0 = time.perf_counter()
                fb, raw = _critique(critic, text, target, reviewer, rules)
                results.append((critic, fb))
                _store_critique(store, run_id, rnd, critic, fb, raw, _ms(t0))
            if all(fb.passed(c.threshold) for c, fb in results):
                status = "revised" if revisions else "validated"
                break
            feedback = critiques_block(results)
            if revisions >= max_rounds or not feedback:
                error = ("" if feedback or revisions >= max_rounds else
                         "no critic gave usable feedback to revise with: "
                         + "; ".join(f"{c.name}: {fb.error}" for c, fb in results if fb.error))
                break
            say(f"round {rnd}: revision")
            t0 = time.perf_counter()
            revised = _revise(text, target, reviewer, feedback)
            if not revised:
                error = "the model returned an empty revision"
                break
            text, revisions = revised, revisions + 1
            _store_revision(store, run_id, rnd, text, _ms(t0))
    except ProviderUnavailable as e:
        error = f"the provider failed during the revision: {e}"
    except BaseException as e:  # stored as failed with the reason, then raised on
        error = f"interrupted: {type(e).__name__}: {e}"[:500]
        raise
    finally:
        with store.session() as s:
            row = s.get(CritiqueRun, run_id)
            row.final_text, row.status, row.error = text, status, error
            row.rounds, row.duration_ms = done, _ms(t_run)
    with store.session() as s:
        return runs.get_run(s, run_id)


def _store_critique(store, run_id: int, rnd: int, critic: CriticInfo, fb: Feedback, raw: str,
                    ms: float) -> None:
    with store.session() as s:
        s.add(ContentCritique(run_id=run_id, round=rnd, critic_id=critic.id,
                              critic_name=critic.name, critic_type=critic.type,
                              rating=fb.rating, threshold=critic.threshold,
                              passed=fb.passed(critic.threshold), issues=fb.issues,
                              suggestions=fb.suggestions, summary=fb.summary,
                              deterministic=fb.deterministic, raw=raw, error=fb.error,
                              duration_ms=ms))


def _store_revision(store, run_id: int, rnd: int, text: str, ms: float) -> None:
    with store.session() as s:
        s.add(CritiqueRevision(run_id=run_id, round=rnd, text=text, duration_ms=ms))
