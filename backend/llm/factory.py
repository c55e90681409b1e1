"""Provider by name, configured from the settings. The chat never branches on which
provider it talks to."""
from __future__ import annotations

from backend.config import Settings
from backend.errors import ConfigError
from backend.llm.base import Provider

PROVIDERS: tuple[str, ...] = ("extractive", "local", "ollama", "anthropic", "openai")
LABELS = {"extractive": "Extractive (built in, no model)",
          "local": "Local model (GGUF, llama.cpp)", "ollama": "Ollama",
          "anthropic": "Anthropic", "openai": "OpenAI-compatible server"}


def default_model(settings: Settings, name: str) -> str:
    if name == "local":
        from backend.llm.local import configured_model_path, model_alias

        return model_alias(configured_model_path(settings.local_model_path, settings.data_dir))
    return {"extractive": "extractive", "ollama": settings.ollama_model,
            "anthropic": settings.anthropic_model, "openai": settings.openai_model}[name]


def make_provider(settings: Settings, name: str) -> Provider:
    s = settings
    timeouts = dict(connect_timeout_s=s.llm_connect_timeout_s, read_timeout_s=s.llm_timeout_s)
    if name == "extractive":
        from backend.answer.extractive import ExtractiveProvider

        return ExtractiveProvider()
    if name == "local":
        from backend.llm.local import LocalProvider

        return LocalProvider(s)
    if name == "ollama":
        from backend.llm.ollama import OllamaProvider

        return OllamaProvider(s.ollama_url, s.ollama_model, **timeouts)
    if name == "anthropic":
        from backend.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(s.anthropic_api_key, s.anthropic_model,
                                 base_url=s.anthropic_base_url, max_retries=s.llm_max_retries,
                                 **timeouts)
    if name == "openai":
        from backend.llm.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(s.openai_base_url, s.openai_model,
                                    api_key=s.openai_api_key, max_retries=s.llm_max_retries,
                                    stream_usage=s.openai_stream_usage, **timeouts)
    raise ConfigError(f"unknown LLM provider {name!r}; choose one of {', '.join(PROVIDERS)}")
