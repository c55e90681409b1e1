"""Values of the eval CLI's repeatable, comma-separated options (`--config a,b --config c`),
shared by the command modules without one importing the other."""
from __future__ import annotations


def names(values: list[str] | None) -> list[str]:
    return [n.strip() for v in values or [] for n in v.split(",") if n.strip()]
