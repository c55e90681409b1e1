"""Optional refinement of the heuristic classification by an LLM endpoint
(`RAGSCOPE_CLASSIFY_LLM_PROVIDER`: ollama, anthropic, openai or local; empty: off).

The model gets the registry (each enabled type with its label and prompt hint), the file
name, title, the heuristic result and the first CLASSIFY_CHARS characters, and must answer
one JSON object: {"primary_type", "secondary_types", "confidence", "reasoning_short"}. An
answer that is not such an object, or names a type the registry does not have, is not
used: the heuristic result stays, with a warning that says why. The profile follows the
LLM's type unless the heuristics set it for a reason (OCR, an override)."""
from __future__ import annotations

import json
import logging
import re
from dataclasses import replace

from backend.errors import RagscopeError
from backend.ingest.classify import Classification, Subject
from backend.ingest.doctypes import TypeDef

log = logging.getLogger(__name__)
CLASSIFY_CHARS = 3000
SYSTEM = ("You classify documents for a retrieval system. Answer with one JSON object only, "
          "no prose, no code fence.")
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def prompt(sub: Subject, heuristic: Classification, types: list[TypeDef]) -> str:
    registry = "\n".join(f"- {t.name}: {t.label}. {t.prompt_hint}" for t in types if t.enabled)
    return (
        f"Document types:\n{registry}\n\n"
        f"File name: {sub.filename}\nTitle: {sub.title}\nFormat: {sub.fmt}\n"
        f"Heuristic guess: {heuristic.primary_type} (traits: {', '.join(heuristic.traits)})\n\n"
        f"Beginning of the text:\n<<<\n{sub.text[:CLASSIFY_CHARS]}\n>>>\n\n"
        'Answer: {"primary_type": "<one type name from the list>", "secondary_types": '
        '["<type>", ...], "confidence": <0..1>, "reasoning_short": "<one sentence>"}')


def refine(settings, sub: Subject, heuristic: Classification,
           types: list[TypeDef]) -> tuple[Classification, str | None]:
    """(classification, warning or None). Never raises for a failing or confused model."""
    from backend.llm.base import GenerationRequest, Message, StreamEnd, TextDelta
    from backend.llm.factory import default_model, make_provider

    name = settings.classify_llm_provider
    try:
        provider = make_provider(settings, name)
        model = settings.classify_llm_model or default_model(settings, name)
        req = GenerationRequest(model=model, system=SYSTEM,
                                messages=[Message("user", prompt(sub, heuristic, types))],
                                temperature=0.0, max_tokens=300)
        parts, used = [], model
        for ev in provider.stream(req):
            if isinstance(ev, TextDelta):
                parts.append(ev.text)
            elif isinstance(ev, StreamEnd):
                used = ev.model or model
        answer = _parse("".join(parts), {t.name: t for t in types if t.enabled})
    except (RagscopeError, ValueError) as e:
        return heuristic, f"LLM classification ({name}) not used: {e}; kept the heuristic result"
    by_name = {t.name: t for t in types}
    primary = answer["primary_type"]
    profile = heuristic.processing_profile
    if heuristic.profile_source == "type":
        profile = by_name[primary].default_profile
    secondary = [x for x in answer.get("secondary_types", []) if x in by_name and x != primary][:3]
    return replace(heuristic, primary_type=primary, secondary_types=secondary,
                   processing_profile=profile,
                   confidence=round(float(answer.get("confidence", heuristic.confidence)), 2),
                   reasoning_short=str(answer.get("reasoning_short", ""))[:300]
                   or heuristic.reasoning_short,
                   signals=heuristic.signals + [f"llm: {primary}"],
                   method="heuristic+llm", model=f"{name}:{used}"), None


def _parse(text: str, known: dict[str, TypeDef]) -> dict:
    m = _OBJECT.search(text)
    if not m:
        raise ValueError(f"the answer is not a JSON object ({text[:80]!r})")
    try:
        obj = json.loads(m.group(0))
    except json.JSONDecodeError as e:
        raise ValueError(f"the answer is not valid JSON ({e.msg})") from None
    primary = obj.get("primary_type") if isinstance(obj, dict) else None
    if primary not in known:
        raise ValueError(f"unknown primary_type {primary!r}")
    conf = obj.get("confidence", 0.5)
    if not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
        obj["confidence"] = 0.5
    if not isinstance(obj.get("secondary_types", []), list):
        obj["secondary_types"] = []
    return obj
