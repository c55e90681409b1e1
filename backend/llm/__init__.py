"""Answer generators behind one streaming protocol (base.py): the extractive answerer
(default, no model), Ollama, Anthropic and OpenAI-compatible servers; pricing and local token
counting. `make_provider(settings, name)` picks one."""
from backend.llm.base import (
    Evidence,
    GenerationRequest,
    Message,
    Provider,
    ProviderFailure,
    StreamEnd,
    TextDelta,
)
from backend.llm.factory import LABELS, PROVIDERS, default_model, make_provider

__all__ = ["Evidence", "GenerationRequest", "Message", "Provider", "ProviderFailure",
           "StreamEnd", "TextDelta", "PROVIDERS", "LABELS", "default_model", "make_provider"]
