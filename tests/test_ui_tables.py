"""Small pure pieces behind issue 23's page fixes: absent cells read "—", metadata as
field/value rows, A vs B rank changes with overlap@k, section labels without a doubled
number, the structure page's section rows."""
from __future__ import annotations

from backend.retrieval.compare import compare_results, shared_time_range
from backend.services.documents import SectionNode
from backend.ui.structure import section_rows
from backend.ui.tables import DASH, field_rows, no_none


def test_none_cells_become_a_dash_and_other_columns_keep_their_type():
    rows = no_none([{"a": 1, "b": None, "c": "x"}, {"a": 2, "b": 0.5, "c": ""}])
    assert rows == [{"a": 1, "b": DASH, "c": "x"}, {"a": 2, "b": "0.5", "c": DASH}]
    assert all("None" not in str(v) for r in rows for v in r.values())


def test_metadata_as_field_value_rows():
    rows = field_rows({"id": 3, "collections": ["a", "b"], "source": "",
                       "meta": {"author": "Kim", "pages": None, "tags": []}})
    assert rows == [{"field": "id", "value": "3"}, {"field": "collections", "value": "a, b"},
                    {"field": "source", "value": DASH},
                    {"field": "meta › author", "value": "Kim"},
                    {"field": "meta › pages", "value": DASH},
                    {"field": "meta › tags", "value": DASH}]


def _result(ids: list[str], k: int = 3) -> dict:
    return {"params": {"k": k}, "hits": [{"chunk_id": c, "rank": i + 1} for i, c in enumerate(ids)],
            "trace": {"stages": [{"name": "fusion", "ms": 2.0 * len(ids), "error": None}]}}


def test_compare_counts_overlap_and_moves():
    a, b = _result(["x", "y", "z"]), _result(["y", "x", "w"])
    cmp = compare_results(a, b, 3, {"x": "Doc X · Intro · p. 1"})
    assert cmp["shared"] == 2 and round(cmp["overlap"], 3) == 0.667
    assert cmp["counts"] == {"up": 1, "down": 1, "same": 0, "new": 1, "dropped": 1}
    by = {r["passage"]: r for r in cmp["rows"]}
    assert by["y"]["change"] == "up" and by["Doc X · Intro · p. 1"]["change"] == "down"
    assert by["w"]["change"] == "new" and by["z"]["change"] == "dropped"
    assert [r["passage"] for r in cmp["rows"]][-1] == "z"  # dropped ones last


def test_both_waterfalls_share_one_axis():
    a, b = _result(["x"]), _result(["x", "y", "z", "w"])
    assert shared_time_range(a, b) == shared_time_range(b, None) == [0.0, 8.0 * 1.05]


def _node(i, number, title, children=(), parent=None):
    return SectionNode(i, parent, 1, "heading", title, number, 0, 10, None, None, 1,
                       children=list(children))


def test_a_number_the_title_names_already_is_not_repeated():
    assert _node(1, "Item 1", "Agenda item 1: Budget").label == "Agenda item 1: Budget"
    assert _node(1, "TOP 3", "TOP 3: IT-Sicherheit").label == "TOP 3: IT-Sicherheit"
    assert _node(1, "3.2", "Scope").label == "3.2 Scope"
    assert _node(1, "Item 1", "Agenda item 10").label == "Item 1 Agenda item 10"


def test_section_rows_indent_by_depth_in_reading_order():
    tree = _node(1, None, "doc", [_node(2, "1", "Intro", [_node(3, "1.1", "Scope")]),
                                  _node(4, "2", "Plan")])
    ids, rows = section_rows(tree)
    assert ids == [1, 2, 3, 4]
    assert [r["section"] for r in rows] == ["(whole document)", "\u20031 Intro",
                                            "\u2003\u20031.1 Scope", "\u20032 Plan"]
    assert {r["pages"] for r in rows} == {DASH}


def test_a_clicked_cell_or_row_checkbox_selects_its_row():
    from backend.ui.tables import selected_row

    assert selected_row({"selection": {"rows": [2], "columns": [], "cells": []}}) == 2
    assert selected_row({"selection": {"rows": [], "columns": [], "cells": [(4, "title")]}}) == 4
    assert selected_row({"selection": {"rows": [], "columns": [], "cells": []}}) is None
    assert selected_row(None) is None


def test_the_explorer_table_fits_the_page():
    from datetime import datetime

    from backend.services.documents import DocumentRow
    from backend.ui.explorer import WIDTHS, table_rows

    row = table_rows([DocumentRow(1, "", "a.md", "md", "note", "upload", "active", None, 0,
                                  ["x", "y"], datetime(2026, 12, 2))])[0]
    assert list(row) == list(WIDTHS) and sum(WIDTHS.values()) + 30 <= 940
    assert row["title"] == "a.md" and row["file"] == DASH and row["kind"] == "md · upload"
    assert row["version"] == DASH and row["collections"] == "x, y"
