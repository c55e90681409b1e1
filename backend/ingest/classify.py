"""A cheap, deterministic document-type guess from structure and wording. Used for filters
and shown in the explorer; an LLM classifier can replace it later."""
from __future__ import annotations

import re

from backend.ingest.types import SectionNode

_MINUTES = re.compile(r"\b(protokoll|niederschrift|sitzung|minutes|meeting|tagesordnung|agenda)\b",
                      re.I)
_MINUTES_TITLE = re.compile(r"\b(protokoll|niederschrift|minutes)\b", re.I)
_POLICY = re.compile(r"\b(richtlinie|ordnung|policy|satzung|verordnung|regulation)\b", re.I)
_MANUAL = re.compile(r"\b(handbuch|anleitung|manual|guide|installation|konfiguration|"
                     r"configuration|runbook)\b", re.I)


def doc_type(file_type: str, sections: list[SectionNode], text: str, title: str = "") -> str:
    kinds = [s.kind for s in sections]
    head = text[:3000]
    if kinds.count("agenda_item") >= 2 or (_MINUTES.search(head) and "agenda_item" in kinds):
        return "minutes"
    if kinds.count("paragraph") >= 2 or (_POLICY.search(head) and "§" in text):
        return "policy"
    if _MINUTES_TITLE.search(title or text[:200]):
        return "minutes"
    if _MANUAL.search(head) and sum(k in ("chapter", "section") for k in kinds) >= 3:
        return "manual"
    if _POLICY.search(head[:500]):
        return "policy"
    if file_type in ("html", "htm"):
        return "web_page"
    return "generic"
