"""Streamlit glue of the chatbot pages: one ChatbotService per process and configuration,
on the process's crawl service (pages/_crawl_common.py), so a build started in one page run
is the background thread the next run — or a reload — reads from the store."""
from __future__ import annotations

import streamlit as st

from backend.chatbots.service import ChatbotService
from pages._common import get_rs, settings_json
from pages._crawl_common import get_console


@st.cache_resource(show_spinner=False)
def _bots(settings_json: str) -> ChatbotService:
    return ChatbotService(get_rs(), crawl=get_console().service)


def get_bots() -> ChatbotService:
    return _bots(settings_json())


def sources_rows(sources: list[dict]) -> list[dict]:
    """An answer's sources as dataframe rows (plain text, never Markdown)."""
    return [{"#": s.get("n"), "cited": bool(s.get("cited")), "score": s.get("score"),
             "relevance": s.get("relevance"),
             "title": s.get("title") or "", "section": s.get("breadcrumb") or "",
             "URL": s.get("source_uri") or ""} for s in sources]



def cited_text(s: dict) -> str:
    """`[1] Tickets and fares · https://…/tickets · score 0.83`: plain text (escape it)."""
    parts = [f"[{int(s.get('n') or 0):d}] {s.get('title') or ''}"]
    if s.get("source_uri"):
        parts.append(str(s["source_uri"]))
    if s.get("score") is not None:
        parts.append(f"score {float(s['score']):.2f}")
    return " · ".join(parts)
