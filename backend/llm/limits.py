"""What each provider accepts for the sampling temperature, so a session or a chatbot is
refused with the provider's range before a request fails at the provider.

- anthropic: 0.0–1.0 (the Messages API's documented range)
- openai: 0.0–2.0 (OpenAI's Chat Completions range; OpenAI-compatible servers follow it)
- local: 0.0–2.0 (llama.cpp's server takes any non-negative temperature, 0 = greedy; capped
  at the OpenAI-compatible range its endpoint imitates)
- ollama: 0.0–2.0 (llama.cpp's sampler underneath, same cap)
- extractive: 0.0–2.0 (no sampling; accepted so a bot can switch providers)
"""
from __future__ import annotations

TEMPERATURE_MAX: dict[str, float] = {"anthropic": 1.0, "openai": 2.0, "local": 2.0,
                                     "ollama": 2.0, "extractive": 2.0}
TEMPERATURE_CAP = max(TEMPERATURE_MAX.values())


def temperature_max(provider: str) -> float:
    return TEMPERATURE_MAX.get(provider, 1.0)


def temperature_error(provider: str, value) -> str | None:
    """The message when `value` is outside what `provider` accepts, else None."""
    hi = temperature_max(provider)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= hi:
        return f"value must be between 0.0 and {hi:.1f} for provider {provider}"
    return None


__all__ = ["TEMPERATURE_CAP", "TEMPERATURE_MAX", "temperature_error", "temperature_max"]
