"""Streamlit glue of the crawl page: one CrawlConsole (CrawlService + CrawlScheduler) per
process and configuration. Calling `get_console()` once per process — the crawl page does,
and app.py may at start-up — makes this dashboard a scheduler candidate; the database lease
lets exactly one process run the scheduled crawls (docs/crawling.md)."""
from __future__ import annotations

import streamlit as st

from backend.ui import crawl as crawl_ui
from pages._common import get_rs, settings_json


@st.cache_resource(show_spinner=False)
def _console(settings_json: str) -> crawl_ui.CrawlConsole:
    return crawl_ui.open_console(get_rs(), start_scheduler=True)


def get_console() -> crawl_ui.CrawlConsole:
    """The crawl service (and this process's scheduler) for the current settings."""
    return _console(settings_json())
