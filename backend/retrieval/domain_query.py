"""The domain rules applied to a question before retrieval (issue 26, item 7): query repair
(typos and variants -> canonical forms, config/domain/search_repair.yaml) and synonym
expansion (config/domain/vocabulary.yaml). Pure text functions over the current rules
(backend/config/domain_rules.py); the retrieval engine calls `apply` once per question and
shows the result as the trace stage `domain_rules`.

    d = apply("Wie hoch ist der Wasserpreiss?")
    d.text     -> "Wie hoch ist der Wasserpreis?"   (searched by both indexes)
    d.repaired -> [{"wrong": "Wasserpreiss", "right": "Wasserpreis"}]
    d.added    -> ["Trinkwasserpreis", "water price"]  (keyword query only, half weight)

Why: a repair changes what both retrievers see, so it is whole-word, case-insensitive and
never inside a quoted phrase or a protected word (product names, codes); a synonym only
widens the keyword query, like the dictionary's translations, so a question's own words stay
ahead of words it did not use."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.config import domain_rules

_QUOTED = re.compile(r"[\"“„«»”][^\"“„«»”]{2,200}[\"“„«»”]")
_compiled: dict[str, tuple] = {}


@dataclass
class DomainApplied:
    text: str  # the question after repair
    repaired: list[dict] = field(default_factory=list)  # {"wrong", "right"} in order found
    expanded: dict[str, list[str]] = field(default_factory=dict)  # word -> its synonyms added
    generation: str = ""
    error: dict | None = None  # the current files' error (the rules used are the last good)

    @property
    def added(self) -> list[str]:
        return [w for ws in self.expanded.values() for w in ws]

    def stage_params(self) -> dict:
        params = {"repaired": self.repaired, "expanded": self.expanded, "added": self.added,
                  "text": self.text}
        if self.error:
            params["config_error"] = self.error["message"]
        return params


def _words_rx(words) -> re.Pattern | None:
    words = sorted({w for w in words if w}, key=lambda w: (-len(w), w))
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.I)


def _tables(rules) -> tuple:
    """Per generation: the repair pattern and table, the protected pattern, the synonym
    pattern and word -> group table."""
    got = _compiled.get(rules.generation)
    if got is None:
        sr, voc = rules.search_repair, rules.vocabulary
        repairs = {r.wrong.casefold(): r.right for r in sr.repairs}
        groups = {w.casefold(): g.words for g in voc.synonyms for w in g.words}
        got = (_words_rx(r.wrong for r in sr.repairs), repairs, _words_rx(sr.protected),
               _words_rx(w for g in voc.synonyms for w in g.words), groups, voc.max_added)
        _compiled.clear()
        _compiled[rules.generation] = got
    return got


def _blocked(text: str, protected: re.Pattern | None) -> list[tuple[int, int]]:
    spans = [m.span() for m in _QUOTED.finditer(text)]
    if protected is not None:
        spans += [m.span() for m in protected.finditer(text)]
    return spans


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in spans)


def repair(text: str, rules=None) -> tuple[str, list[dict]]:
    """The text with every repair applied (whole words, outside quotes and protected words)
    and the repairs made."""
    rules = rules or domain_rules.current()
    rx, table, protected = _tables(rules)[:3]
    if rx is None or not text:
        return text, []
    blocked = _blocked(text, protected)
    done: list[dict] = []

    def sub(m: re.Match) -> str:
        if _inside(m.span(), blocked):
            return m.group(0)
        right = table[m.group(0).casefold()]
        done.append({"wrong": m.group(0), "right": right})
        return right
    return rx.sub(sub, text), done


def expand(text: str, rules=None) -> dict[str, list[str]]:
    """Question word (or phrase) -> the other words of its synonym group that the question
    does not contain; at most `max_added` words in all, protected words left alone."""
    rules = rules or domain_rules.current()
    _, _, protected, rx, groups, limit = _tables(rules)
    if rx is None or not text:
        return {}
    blocked = _blocked(text, protected)
    present = {m.group(0).casefold() for m in rx.finditer(text)}
    out: dict[str, list[str]] = {}
    n = 0
    for m in rx.finditer(text):
        word = m.group(0)
        if word in out or _inside(m.span(), blocked):
            continue
        add = [w for w in groups[word.casefold()] if w.casefold() not in present
               and not any(w in ws for ws in out.values())][: max(0, limit - n)]
        if add:
            out[word] = add
            n += len(add)
    return out


def apply(text: str, directory=None) -> DomainApplied:
    """Repair, then expand, with the current rules of `directory` (the setting
    RAGSCOPE_DOMAIN_CONFIG_DIR; empty: config/domain)."""
    rules = domain_rules.current(directory)
    err = domain_rules.last_error(directory)
    fixed, repaired = repair(text, rules)
    return DomainApplied(fixed, repaired, expand(fixed, rules), rules.generation,
                         err.to_dict() if err else None)
