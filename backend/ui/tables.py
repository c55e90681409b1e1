"""Rows for the dashboard's tables (st.dataframe): an absent value reads as an em dash, not
as the word "None" that Streamlit's grid prints for a null cell; a document's metadata as
field/value rows rather than raw JSON. No Streamlit import."""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable, Mapping

DASH = "—"


def _text(v: Any) -> str:
    if v is None:
        return DASH
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, datetime):
        return f"{v:%Y-%m-%d %H:%M}"
    return str(v)


def no_none(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`rows` with every None shown as "—". A column holding a None becomes text (Arrow
    keeps one type per column, and a number beside "—" would not be one); columns without
    one keep their type, so numbers still sort as numbers."""
    rows = [dict(r) for r in rows]
    gaps = {k for r in rows for k, v in r.items() if v is None or v == ""}
    for r in rows:
        for k in gaps & r.keys():
            r[k] = DASH if r[k] in (None, "") else _text(r[k])
    return rows


def field_rows(values: Mapping[str, Any], prefix: str = "") -> list[dict[str, str]]:
    """A mapping as field/value rows: nested mappings flattened to "meta › key", lists
    joined with commas, absent values as "—"."""
    out: list[dict[str, str]] = []
    for key, v in values.items():
        name = f"{prefix}{key}"
        if isinstance(v, Mapping) and v:
            out += field_rows(v, f"{name} › ")
        elif isinstance(v, (list, tuple, set)):
            out.append({"field": name, "value": ", ".join(
                x if isinstance(x, str) else json.dumps(x, default=str) for x in v) or DASH})
        elif isinstance(v, Mapping):
            out.append({"field": name, "value": DASH})
        else:
            out.append({"field": name, "value": _text(v) if v != "" else DASH})
    return out
