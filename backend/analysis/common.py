"""Helpers the extractors share: building an Item from units, labelled blocks
("Beschluss 2024/17:", "Open item OI-7:", "Warning:"), and a per-source memo."""
from __future__ import annotations

import re
from typing import Callable, TypeVar

from backend.analysis.source import Source, Unit
from backend.analysis.types import Item

T = TypeVar("T")

# A label at the start of a unit: one to five words (with an optional id such as
# "PB-24-11", "2024/17" or "(high)") followed by a colon.
_LABEL = re.compile(r"^\s*(?:[-•*]\s+)?(?P<label>[A-ZÄÖÜ][\w\-/.]*(?:\s+[\w\-/.()]+){0,4}?)\s*:\s+")


def memo(src: Source, key: str, fn: Callable[[], T]) -> T:
    cache = src.__dict__.setdefault("_memo", {})
    if key not in cache:
        cache[key] = fn()
    return cache[key]


def label_of(text: str) -> str | None:
    m = _LABEL.match(text)
    return m.group("label") if m else None


def make_item(src: Source, extractor: str, start: int, end: int, section: int,
              confidence: float, signals: list[str], **fields) -> Item:
    sec = src.sections[section]
    return Item(extractor=extractor, text=src.text[start:end], start=start, end=end,
                section_id=sec.id, section=sec.label or src.title or "(document)",
                section_path=list(sec.path), page=src.page_at(start),
                confidence=round(min(0.99, max(0.05, confidence)), 2),
                signals=sorted(set(signals)), fields=fields)


def item_from_units(src: Source, extractor: str, first: int, last: int, confidence: float,
                    signals: list[str], **fields) -> Item:
    u0, u1 = src.units[first], src.units[last]
    return make_item(src, extractor, u0.start, u1.end, u0.section, confidence, signals,
                     **fields)


def labelled_block(src: Source, i: int, labels: re.Pattern) -> tuple[int, int, str] | None:
    """When unit i starts with a label matching `labels`, the units it governs: itself and
    the following units of its block up to the next label. Returns (first, last, label)."""
    units = src.units
    labs = memo(src, "labels", lambda: [label_of(u.text) for u in units])
    lab = labs[i]
    if not lab or not labels.match(lab):
        return None
    _, hi = src.block_span(i)
    last = i
    for j in range(i + 1, hi + 1):
        nxt = labs[j]
        if nxt and labels.match(nxt) and not _CONTINUATION.match(nxt):
            break
        last = j
    return i, last, lab


# labels that continue the block they are in (the vote after a decision, the owner of an item)
_CONTINUATION = re.compile(r"^(?:Abstimmung|Ergebnis|Vote|Voting|Owner|Due|Status|Verantwortlich|Frist|"
                           r"Termin|Mitigation|Gegenmaßnahme|Workaround|Deadline)\b", re.I)


def content_units(src: Source) -> list[tuple[int, Unit]]:
    """Units that carry content: no headings, no echoes of section titles (agenda lists,
    tables of contents)."""
    return memo(src, "content_units", lambda: [
        (i, u) for i, u in enumerate(src.units)
        if u.kind not in ("heading", "header_row") and not u.title_echo])
