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


def no_none(rows: Iterable[Mapping[str, Any]], keep: Iterable[str] = ()) -> list[dict[str, Any]]:
    """`rows` with every None shown as "—". A column holding a None becomes text (Arrow
    keeps one type per column, and a number beside "—" would not be one); columns without
    one keep their type, so numbers still sort as numbers. `keep`: columns left as they are
    (a progress bar column needs its numbers)."""
    rows = [dict(r) for r in rows]
    gaps = {k for r in rows for k, v in r.items() if v is None or v == ""} - set(keep)
    for r in rows:
        for k in gaps & r.keys():
            r[k] = DASH if r[k] in (None, "") else _text(r[k])
    return rows


# A table whose rows open something: a click on the row's checkbox selects the row, a click
# on any of its cells selects that cell; both count (`selected_row`).
OPEN_ON_CLICK = ["single-row", "single-cell"]


def selected_row(event: Any) -> int | None:
    """The row clicked in an `st.dataframe(..., selection_mode=OPEN_ON_CLICK)`: its selected
    row, else the row of its selected cell."""
    sel = (event or {}).get("selection") or {}
    rows = list(sel.get("rows") or [])
    if rows:
        return int(rows[0])
    cells = list(sel.get("cells") or [])
    return int(cells[0][0]) if cells and cells[0] else None


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
