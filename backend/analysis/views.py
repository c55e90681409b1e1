"""Rows and links for the Analysis page (plain data; the page only renders). Section links
point at the document page, which opens the version and section named in the URL."""
from __future__ import annotations

from urllib.parse import urlencode

from backend.analysis.compare import SectionChange
from backend.analysis.extractors import EXTRACTORS
from backend.analysis.types import ExtractorResult, Summary
from backend.security.safe_markdown import md_escape


def section_params(document_id: int, version_id: int | None,
                   section_id: int | None) -> dict[str, str]:
    params = {"doc": str(document_id)}
    if version_id is not None:
        params["version"] = str(version_id)
    if section_id is not None:
        params["section"] = str(section_id)
    return params


def section_link(document_id: int, version_id: int | None, section_id: int | None) -> str:
    return "document?" + urlencode(section_params(document_id, version_id, section_id))


def item_label(i) -> str:
    """One line naming an item: where and what (plain text for a picker)."""
    return f"{i.section[:50]} — {' '.join(i.text.split())[:100]}"


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, dict):
        return "; ".join(f"{k}={x}" for k, x in v.items() if x is not None and x != "" and x is not False)
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return v


def vote_text(v: dict | None) -> str:
    """{"yes": 5, "no": 1, "abstain": 0} -> "5 yes, 1 no, 0 abstain"; unanimous first."""
    if not v:
        return ""
    parts = ["unanimous"] if v.get("unanimous") else []
    parts += [f"{v[k]} {k}" for k in ("yes", "no", "abstain") if v.get(k) is not None]
    return ", ".join(parts)


def item_rows(r: ExtractorResult, document_id: int, version_id: int) -> list[dict]:
    fields = EXTRACTORS[r.name].fields
    rows = []
    for i in r.items:
        row = {f: (vote_text(i.fields.get(f)) if f == "vote" else _cell(i.fields.get(f)))
               for f in fields}
        row.update(section=i.section, page=i.page, text=" ".join(i.text.split()),
                   confidence=i.confidence, signals=", ".join(i.signals), origin=i.origin,
                   link=section_link(document_id, version_id, i.section_id))
        rows.append(row)
    return rows


def summary_rows(s: Summary) -> list[dict]:
    return [{"#": n, "sentence": x.text, "section": x.section, "page": x.page,
             "link": section_link(s.document.document_id, s.document.version_id, x.section_id)}
            for n, x in enumerate(s.sentences, 1)]


def diff_columns(c: SectionChange) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(left, right) segments of a changed section: ("same"|"del"|"ins", text)."""
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    if c.status in ("added", "removed", "unchanged") or not c.ops:
        return ([("del" if c.status == "removed" else "same", c.text_a)] if c.text_a else [],
                [("ins" if c.status == "added" else "same", c.text_b)] if c.text_b else [])
    for op in c.ops:
        if op.op == "equal":
            left.append(("same", op.a))
            right.append(("same", op.b))
        else:
            if op.a:
                left.append(("del", op.a))
            if op.b:
                right.append(("ins", op.b))
    return left, right


_DIFF_STYLE = {"same": "{}", "del": ":red-background[{}]", "ins": ":green-background[{}]"}


def diff_markdown(segments: list[tuple[str, str]]) -> str:
    """One side of diff_columns as Markdown: every text escaped, removed text on red and inserted
    text on green background; "—" for an empty side."""
    return " ".join(_DIFF_STYLE[kind].format(md_escape(text)) for kind, text in segments) or "—"
