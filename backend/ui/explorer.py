"""The explorer's table: one row per document, few and narrow columns so that the table fits
the page (issue 23: its right part was cut off), absent values as "—"; a selected row is
the document to open."""
from __future__ import annotations

from typing import Any, Sequence

from backend.security.display import safe_text
from backend.services.documents import DocumentRow
from backend.ui.tables import DASH, no_none, selected_row

# Streamlit column widths: the title takes the room, the short codes stay narrow.
WIDTHS = {"title": "large", "file": "medium", "collections": "medium", "type": "small",
          "format": "small", "source": "small", "status": "small", "version": "small",
          "updated": "small"}


def table_rows(rows: Sequence[DocumentRow]) -> list[dict[str, Any]]:
    """Rows in the order shown; the file name only where it differs from the title."""
    return no_none({
        "title": safe_text(r.title or r.filename),
        "file": DASH if (r.title or r.filename) == r.filename else safe_text(r.filename),
        "type": r.doc_type, "format": r.file_type, "source": r.source_kind, "status": r.status,
        "version": DASH if r.active_version is None else f"{r.active_version} of {r.versions}",
        "collections": safe_text(", ".join(r.collections)) or None,
        "updated": r.updated_at.strftime("%Y-%m-%d %H:%M") if r.updated_at else None,
    } for r in rows)


def selected_id(rows: Sequence[DocumentRow], event: Any) -> int | None:
    """The document of the row clicked in the table (`st.dataframe`'s selection event)."""
    i = selected_row(event)
    return rows[i].id if i is not None and 0 <= i < len(rows) else None
