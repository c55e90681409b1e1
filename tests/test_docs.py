"""Docs checked by tests: every setting has type, default and help text and is documented;
every CLI command is in the README."""
from __future__ import annotations

import re

from backend.cli.main import build_parser
from backend.config import Settings
from tests.conftest import ROOT


def test_every_setting_has_help_text_and_a_type():
    for name, field in Settings.model_fields.items():
        assert field.description and len(field.description) > 10, name
        assert field.annotation is not None, name


def test_every_setting_is_documented():
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    missing = [n for n in Settings.model_fields if f"RAGSCOPE_{n.upper()}" not in doc]
    assert not missing, f"settings missing from docs/settings.md: {missing}"


def test_every_cli_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.dest == "cmd")
    missing = [c for c in sub.choices if not re.search(rf"python -m backend {c}\b", readme)]
    assert not missing, f"CLI commands missing from README.md: {missing}"
