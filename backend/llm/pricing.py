"""Cost of an answer from a pricing table in a YAML file (config/pricing.yaml by default):
per model, input and output price per million tokens, and the date the prices were taken.
Local models cost 0 and are labelled "local"; a priced provider's model missing from the table
has an unknown cost (None), shown as such rather than as 0."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import yaml

from backend.errors import ConfigError

DEFAULT_PRICING_FILE = Path(__file__).resolve().parents[2] / "config" / "pricing.yaml"
CostLabel = Literal["local", "priced", "unknown"]


@dataclass(frozen=True)
class Price:
    key: str
    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class Cost:
    usd: float | None
    label: CostLabel
    price_key: str | None = None

    def display(self) -> str:
        if self.label == "local":
            return "local"
        return "n/a" if self.usd is None else f"${self.usd:.4f}"


@dataclass(frozen=True)
class PricingTable:
    prices: dict[str, Price]
    prices_taken: str
    currency: str = "USD"
    local_providers: frozenset[str] = frozenset({"extractive", "local", "ollama"})

    @classmethod
    def load(cls, path: Path | str | None = None) -> "PricingTable":
        p = Path(path) if path else DEFAULT_PRICING_FILE
        try:
            raw = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as e:
            raise ConfigError(f"pricing file {p}: {e}") from e
        prices = {}
        for key, v in (raw.get("models") or {}).items():
            try:
                prices[str(key)] = Price(str(key), float(v["input"]), float(v["output"]))
            except (TypeError, KeyError, ValueError) as e:
                raise ConfigError(f"pricing file {p}: model {key!r} needs numeric "
                                  f"input and output prices") from e
        taken = raw.get("prices_taken")
        if not taken:
            raise ConfigError(f"pricing file {p}: prices_taken (a date) is missing")
        return cls(prices, str(taken if not isinstance(taken, date) else taken.isoformat()),
                   str(raw.get("currency", "USD")),
                   frozenset(raw.get("local_providers") or ("extractive", "local", "ollama")))

    def lookup(self, model: str) -> Price | None:
        """Exact name, else the longest listed prefix ("claude-sonnet-4-5-20250929")."""
        m = (model or "").strip().lower()
        if m in self.prices:
            return self.prices[m]
        keys = [k for k in self.prices if m.startswith(k.lower())]
        return self.prices[max(keys, key=len)] if keys else None

    def cost(self, provider: str, model: str, input_tokens: int | None,
             output_tokens: int | None, *, provider_is_local: bool = False) -> Cost:
        if provider in self.local_providers:
            return Cost(0.0, "local")
        price = self.lookup(model)
        if price is None:
            return Cost(0.0, "local") if provider_is_local else Cost(None, "unknown")
        usd = ((input_tokens or 0) * price.input_per_mtok
               + (output_tokens or 0) * price.output_per_mtok) / 1_000_000
        return Cost(round(usd, 8), "priced", price.key)


_cache: dict[tuple[str, float], PricingTable] = {}
_lock = threading.Lock()


def pricing_table(path: Path | str | None = None) -> PricingTable:
    """The table of a file, re-read when the file changes."""
    p = Path(path) if path else DEFAULT_PRICING_FILE
    try:
        key = (str(p.resolve()), p.stat().st_mtime)
    except OSError as e:
        raise ConfigError(f"pricing file {p}: {e}") from e
    with _lock:
        if key not in _cache:
            _cache[key] = PricingTable.load(p)
        return _cache[key]
