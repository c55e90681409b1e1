"""Settings of the document analysis and its route in the chat (backend/analysis/;
docs/analysis.md)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

class AnalysisSettings(BaseSettings):
    """A group of `Settings`' fields (use `backend.config.Settings`, which reads them from the
    environment): document analysis."""

    # ---- document analysis (backend/analysis/) --------------------------------------
    analysis_llm: Literal["off", "local", "ollama", "anthropic", "openai"] = Field(
        "off", description="LLM provider for the optional refinement of extracted items and for "
        "final summaries (`off`: rules and extractive summaries only, offline). The LLM may "
        "add items whose sentence it quotes verbatim and fill empty fields; it never removes "
        "or changes what the rules found.",
    )
    analysis_llm_model: str = Field(
        "", description="Model for the analysis LLM; empty: the provider's default model."
    )
    analysis_llm_max_sections: int = Field(
        20, ge=1, le=1000, description="Sections of one document sent to the LLM in one "
        "refinement pass (the ones with the most rule findings first)."
    )
    analysis_max_chars: int = Field(
        8_000_000, ge=10_000, le=200_000_000,
        description="A document version longer than this many characters (about 3,000 pages) "
        "is not analysed as a whole; the error says so and a section can be analysed instead.",
    )
    chat_analysis_route: bool = Field(
        True, description="Answer analysis questions in the chat (\"Was wurde beschlossen?\", "
        "\"Which open items are there?\", \"Fass Kapitel 2 zusammen\", \"What changed between "
        "version 1 and 2?\") from the document analysis, each line citing its section and page, "
        "instead of passage retrieval. The query-debug trace shows the route and why.",
    )
    chat_analysis_items: int = Field(
        15, ge=1, le=200, description="Items (or changed sections) listed in one analysis "
        "answer in the chat; the rest are on the Analysis page."
    )
    analysis_max_items: int = Field(
        5000, ge=10, le=1_000_000, description="Items kept per extractor and document; more "
        "are counted and the result is marked as truncated."
    )
