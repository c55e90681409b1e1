"""The structure page's section table: every section one row, indented by its depth in the
tree, so that one click on a row shows the section (issue 23: an expander per section, then
a button inside it, took two clicks; labels read "Item 1 Agenda item 1: …", fixed in
`SectionNode.label`)."""
from __future__ import annotations

from typing import Any

from backend.services.documents import SectionNode
from backend.ui.tables import no_none, selected_row

INDENT = "\u2003"  # an em space per level: leading spaces would be trimmed by the grid


# The section column takes what the narrow figures leave, so that no column is cut off.
WIDTHS = {"section": "medium", "chars": "small", "chunks": "small", "pages": "small"}
ROW_PX, MAX_HEIGHT = 35, 460  # st.dataframe's row height; the table's tallest


def height(rows: int) -> int:
    """Tall enough for every row up to MAX_HEIGHT (no empty grid below a short tree)."""
    return min(MAX_HEIGHT, ROW_PX * (rows + 1) + 3)


def pages(n: SectionNode) -> str | None:
    if not n.page_start:
        return None
    end = n.page_end if n.page_end not in (None, n.page_start) else None
    return f"{n.page_start}" + (f"–{end}" if end else "")


def section_rows(tree: SectionNode) -> tuple[list[int], list[dict[str, Any]]]:
    """(section ids, rows) in reading order; the root is "(whole document)"."""
    ids: list[int] = []
    rows: list[dict[str, Any]] = []
    stack: list[tuple[SectionNode, int]] = [(tree, 0)]
    while stack:  # depth by tree position: levels may skip
        n, depth = stack.pop()
        ids.append(n.id)
        rows.append({"section": INDENT * depth + ("(whole document)" if n is tree else n.label),
                     "chars": n.chars, "chunks": n.subtree_chunks, "pages": pages(n)})
        stack += [(c, depth + 1) for c in reversed(n.children)]
    return ids, no_none(rows)


def picked_section(ids: list[int], event: Any) -> int | None:
    """The section of the row selected in the table."""
    i = selected_row(event)
    return ids[i] if i is not None and 0 <= i < len(ids) else None
