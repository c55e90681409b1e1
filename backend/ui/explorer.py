"""The explorer's table: one row per document, few and narrow columns so that the table fits
the page (issue 23: its right part was cut off), absent values as "—"; a selected row is
the document to open."""
from __future__ import annotations

from typing import Any, Sequence

from backend.security.display import safe_text
from backend.services.documents import DocumentRow
from backend.ui.tables import DASH, no_none, selected_row

# Column widths in pixels, adding up to less than the wide layout's content width at a
# 1400 px window (940 px, measured in Chromium; the row checkboxes take 30): the table is
# never cut off on the right. A longer title or file name is shortened with "…" in its
# cell (the full text shows on hover).
WIDTHS = {"title": 190, "file": 115, "type": 90, "kind": 90, "status": 60, "version": 60,
          "collections": 100, "tags": 90, "updated": 85}


def table_rows(rows: Sequence[DocumentRow]) -> list[dict[str, Any]]:
    """Rows in the order shown; the file name only where it differs from the title, the
    format and the source kind in one column."""
    return no_none({
        "title": safe_text(r.title or r.filename),
        "file": DASH if (r.title or r.filename) == r.filename else safe_text(r.filename),
        "type": r.doc_type, "kind": " · ".join(x for x in (r.file_type, r.source_kind) if x),
        "status": r.status,
        "version": DASH if r.active_version is None else f"{r.active_version} of {r.versions}",
        "collections": safe_text(", ".join(r.collections)) or None,
        "tags": safe_text(", ".join(r.tags)) or None,
        "updated": r.updated_at.strftime("%Y-%m-%d") if r.updated_at else None,
    } for r in rows)


def selected_id(rows: Sequence[DocumentRow], event: Any) -> int | None:
    """The document of the row clicked in the table (`st.dataframe`'s selection event)."""
    i = selected_row(event)
    return rows[i].id if i is not None and 0 <= i < len(rows) else None
