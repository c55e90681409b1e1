"""The settings of the current environment, built once per distinct RAGSCOPE_* environment.

The dashboard asks for its settings several times in every script run (the data dir for
sign-in, the Ragscope service, the crawl console), and every run of every page is a new
`Settings()`: pydantic-settings reads and validates every field from the environment, about
0.1 s of the script thread per run on the shared 2-core machine (py-spy over 25 direct page
loads: 810 of 2,048 samples of the script runs, docs/benchmarks.md). The result depends only
on the RAGSCOPE_* variables (no settings file is read), so it is kept per distinct set of
them: a changed variable (a test's monkeypatch, a new data dir) builds new settings at the
next call, as before. `Settings` is frozen, so sharing one object is safe."""
from __future__ import annotations

import os
from functools import lru_cache

from backend.config.settings import Settings

PREFIX = "RAGSCOPE_"  # the settings' env_prefix (case-insensitive, like pydantic-settings)


def current() -> Settings:
    """`Settings()` for the environment as it is now."""
    return _built(_environment())[0]


def current_json() -> str:
    """`current().model_dump_json()` (the key of the dashboard's cached services)."""
    return _built(_environment())[1]


def _environment() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith(PREFIX)))


@lru_cache(maxsize=16)
def _built(env: tuple[tuple[str, str], ...]) -> tuple[Settings, str]:  # noqa: ARG001 (the key)
    settings = Settings()  # a ValidationError is raised to the caller and not kept
    return settings, settings.model_dump_json()
