"""Snippets of tantivy hits with the matched terms marked (backend/index/tantivy_index.py):
tantivy's snippet generators run once per analyzer (German and English field), and fuzzy
clauses are not highlighted by tantivy at all; these merge the generators' matches into one
HTML-escaped fragment and find a text's own terms within edit distance 1 of a query term."""
from __future__ import annotations

import html
from typing import Any, Callable, Sequence

import tantivy


def within_one(a: str, b: str) -> bool:
    """Optimal-string-alignment distance of a and b is at most 1."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    i = 0
    while i < min(la, lb) and a[i] == b[i]:
        i += 1
    if la == lb:
        return a[i + 1:] == b[i + 1:] or (a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1])
    return a[i + 1:] == b[i:] if la > lb else a[i:] == b[i + 1:]


def highlight(text: str, generators: list[tuple[str, Any]]) -> str:
    """One snippet of `text` with the terms matched through either analyzer in <b>..</b>,
    everything else HTML-escaped. The fragment is the one the generator with the most
    matches picked; matches the other analyzer found inside it are marked too."""
    if not text:
        return ""
    data = text.encode("utf-8")
    snippets = []
    for field, gen in generators:
        sn = gen.snippet_from_doc(tantivy.Document(**{field: text}))
        fr = sn.fragment_range()
        snippets.append((len(sn.highlighted()), fr.start, fr.end,
                         [(fr.start + h.start, fr.start + h.end) for h in sn.highlighted()]))
    best = max(snippets, key=lambda s: s[0])
    if best[0] == 0:
        return ""
    start, end = best[1], best[2]
    spans = sorted({(a, b) for s in snippets for a, b in s[3] if start <= a and b <= end})
    parts, pos = [], start
    for a, b in spans:
        if a < pos:  # overlapping spans from the two analyzers: extend the previous one
            if b > pos and parts:
                parts[-1] = parts[-1][:-4] + html.escape(data[pos:b].decode("utf-8", "replace")) + "</b>"
                pos = b
            continue
        parts.append(html.escape(data[pos:a].decode("utf-8", "replace")))
        parts.append("<b>" + html.escape(data[a:b].decode("utf-8", "replace")) + "</b>")
        pos = b
    parts.append(html.escape(data[pos:end].decode("utf-8", "replace")))
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(data) else ""
    return prefix + "".join(parts).strip() + suffix


class Snippets:
    """The snippets of one search's hits. The generators (one per analyzer field) are made at
    the first snippet asked for, so a search whose hits need none (a caller that deferred
    them and returned other hits) makes none."""

    def __init__(self, searcher, query, schema, fields: Sequence[str], max_chars: int,
                 fuzzy: Callable[[str], str] | None = None):
        self._args = (searcher, query, schema)
        self._fields, self._max = fields, max_chars
        self._fuzzy = fuzzy
        self._generators: list[tuple[str, Any]] | None = None

    def of(self, text: str) -> list[str]:
        """`text`'s snippet as a hit's `highlights` (empty when nothing matched)."""
        if self._generators is None:
            self._generators = []
            for f in self._fields:
                gen = tantivy.SnippetGenerator.create(*self._args, f)
                gen.set_max_num_chars(self._max)
                self._generators.append((f, gen))
        snippet = highlight(text, self._generators)
        if not snippet and self._fuzzy is not None:
            snippet = self._fuzzy(text)
        return [snippet] if snippet else []
