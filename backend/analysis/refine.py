"""The optional LLM pass over extractor results (RAGSCOPE_ANALYSIS_LLM): it may refine, never
replace. Per section (those with the most rule findings first, at most
RAGSCOPE_ANALYSIS_LLM_MAX_SECTIONS) the model sees the section text and the rule items and
answers in JSON with
    {"add": [{"sentence": "<verbatim sentence>", "owner": ..., "due": ..., "status": ...}],
     "fill": [{"index": <n of a rule item>, "owner": ..., "due": ..., "status": ...}]}
An added item is kept only if its sentence occurs verbatim in that section (it becomes an item
with origin "llm", its real offsets and a lower confidence); a fill only sets fields the rules
left empty. Rule items are never removed or changed otherwise. A provider failure leaves the
rule result as it is and adds a warning."""
from __future__ import annotations

import json
import re
from collections import Counter

from backend.analysis.common import make_item
from backend.analysis.source import Source
from backend.analysis.types import Item
from backend.errors import ProviderUnavailable

REFINABLE = {"decisions", "meeting_actions", "deadlines", "requirements", "risks",
             "operational_notes"}
FILLABLE = {"owner", "due", "status"}
SECTION_CHARS = 6000
_WHAT = {
    "decisions": "decisions, resolutions, approvals and rejections",
    "meeting_actions": "action items, open points and commitments (owner, due date as "
                       "YYYY-MM-DD, status open/done)",
    "deadlines": "deadlines, due dates and time limits (due as YYYY-MM-DD where a date is given)",
    "requirements": "obligations and prerequisites",
    "risks": "risks, blockers and warning signs",
    "operational_notes": "warnings, troubleshooting hints and notes for operation",
}


def _prompt(name: str, section_text: str, items: list[Item]) -> str:
    listed = "\n".join(f"{n}. {' '.join(i.text.split())[:300]}" for n, i in enumerate(items)) or "(none)"
    return (f"Find the {_WHAT[name]} in the section below. Rules already found these items:\n"
            f"{listed}\n\nReply with JSON only: {{\"add\": [{{\"sentence\": \"...\", \"owner\": "
            f"\"\", \"due\": \"\", \"status\": \"\"}}], \"fill\": [{{\"index\": 0, \"owner\": \"\", "
            f"\"due\": \"\", \"status\": \"\"}}]}}. In \"add\" put only items the rules missed, each "
            f"with a sentence copied exactly from the section. In \"fill\" put only fields the "
            f"rules left empty. No other text.\n\nSECTION:\n{section_text}")


def _ask(provider, model: str, prompt: str) -> str:
    from backend.llm.base import GenerationRequest, Message, TextDelta

    req = GenerationRequest(model=model, system="You extract structured facts from documents "
                            "and answer with JSON only.",
                            messages=[Message("user", prompt)], question=prompt,
                            temperature=0.0, max_tokens=800)
    return "".join(ev.text for ev in provider.stream(req) if isinstance(ev, TextDelta))


def _json(text: str) -> dict:
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        return {}
    try:
        data = json.loads(m.group(0))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def refine_items(rs, src: Source, name: str, items: list[Item], llm
                 ) -> tuple[list[Item], str | None, list[str]]:
    """(items, "provider/model" or None, warnings). `llm` is (provider, model)."""
    if name not in REFINABLE:
        return items, None, []
    provider, model = llm
    label = f"{provider.name}/{model}"
    by_section = Counter(i.section_id for i in items)
    sections = sorted((s for s in src.sections if s.label or s.level == 0),
                      key=lambda s: (-by_section.get(s.id, 0), s.ordinal))
    sections = sections[:rs.settings.analysis_llm_max_sections]
    out = list(items)
    have = {(i.start, i.end) for i in items}
    for sec in sections:
        text = src.text[sec.start:sec.end][:SECTION_CHARS]
        if not text.strip():
            continue
        mine = [i for i in out if i.section_id == sec.id and i.origin == "rules"]
        try:
            data = _json(_ask(provider, model, _prompt(name, text, mine)))
        except ProviderUnavailable as e:
            return items, None, [f"{name}: the LLM pass was skipped ({e}); rule results only"]
        for f in data.get("fill") or []:
            if not isinstance(f, dict) or not isinstance(f.get("index"), int):
                continue
            if 0 <= f["index"] < len(mine):
                it = mine[f["index"]]
                for k in FILLABLE & set(f):
                    if k in it.fields and not it.fields.get(k) and f[k]:
                        it.fields[k] = str(f[k])[:80]
                        it.signals = sorted(set(it.signals) | {"llm_field"})
        for a in data.get("add") or []:
            sentence = " ".join(str((a or {}).get("sentence", "")).split()) if isinstance(a, dict) else ""
            if len(sentence) < 12:
                continue
            pos = _find(src.text, sec.start, sec.end, sentence)
            if pos is None or pos in have:
                continue
            have.add(pos)
            fields = {k: (str(a[k])[:80] if a.get(k) else None) for k in FILLABLE if k in a}
            it = make_item(src, name, pos[0], pos[1], sec.ordinal, 0.5, ["llm"], **fields)
            it.origin = "llm"
            out.append(it)
    out.sort(key=lambda i: i.start)
    return out, label, []


def _find(text: str, a: int, b: int, sentence: str) -> tuple[int, int] | None:
    """Offsets of `sentence` in text[a:b], whitespace-insensitively; None if absent."""
    words = sentence.split()
    rx = r"\s+".join(re.escape(w) for w in words)
    m = re.compile(rx).search(text, a, b)
    return (m.start(), m.end()) if m else None
