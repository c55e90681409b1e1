"""Named retrieval configurations (eval/configs.yaml): name -> RetrievalParams."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from backend.retrieval import RetrievalParams
from eval.goldenset import GoldensetError

CONFIGS_FILE = Path(__file__).with_name("configs.yaml")


class ConfigError(GoldensetError):
    """An unknown configuration name or invalid parameters in configs.yaml."""


@dataclass(frozen=True)
class NamedConfig:
    name: str
    description: str
    params: RetrievalParams


def _parse(data: dict, where: str) -> dict[str, NamedConfig]:
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{where}: expected a mapping of configuration names")
    out = {}
    for name, spec in data.items():
        spec = spec or {}
        try:
            params = RetrievalParams(**(spec.get("params") or {}))
        except ValidationError as e:
            first = e.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            raise ConfigError(f"{where}: configuration '{name}': {loc}: {first['msg']}") from None
        out[str(name)] = NamedConfig(str(name), str(spec.get("description", "")), params)
    return out


@lru_cache(maxsize=4)
def _load_cached(path: str, mtime: float) -> dict[str, NamedConfig]:
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: cannot read configurations ({e})") from None
    return _parse(data, Path(path).name)


def load_configs(path: str | Path = CONFIGS_FILE) -> dict[str, NamedConfig]:
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"{p}: no such configurations file")
    return dict(_load_cached(str(p), p.stat().st_mtime))


def resolve(names: list[str], path: str | Path = CONFIGS_FILE) -> dict[str, RetrievalParams]:
    """The named configurations, in the order given (duplicates dropped)."""
    known = load_configs(path)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(f"unknown configuration(s) {', '.join(unknown)}; "
                          f"known: {', '.join(known)}")
    return {n: known[n].params for n in dict.fromkeys(names)}
