"""The topic of a list question within the document it is asked of (issue 22: routing on
documents nobody tuned for).

The router (backend/answer/intents.py) takes as the topic what is left of a question after
its cue, question words, document name and dates: "What decisions did the Harbourside board
of trustees take …" leaves "take", "Welche Fristen gelten für die Ausschreibung …" leaves
"gelten", "open action items from the Riedland fibre project meeting" leaves "fibre project"
(the document is German: "Projektrunde Glasfaserausbau"). Every item had to contain every
topic word, so such questions fell back to a passage answer. With the document and its items
at hand, a topic word that no item contains is

* dropped when it is a form of a verb (the German–English dictionary's verb entries, any
  inflection: "take", "fasste", "gelten", "impose"): the question's phrasing, not its topic;
* dropped when it is a month or a year ("im Mai 2025": the meeting's date);
* dropped when it names the document: it, or one of its translations, occurs in the title,
  the file name or the document's first lines ("fibre" → "Glasfaser" in "Projektrunde
  Glasfaserausbau Riedland", "Q3" in "Statusbericht Q3 2025", "Mai" → "May" in "meeting held
  on 14 May 2025");
* kept otherwise: the question asks about something the document's items do not have, and
  the passages answer it (or say that nothing was found).

A word is found in an item as written (stemmed, also inside compounds) or by one of its
translations, so an English topic matches a German item and the reverse. Without a
dictionary only the as-written matching and the opening lines apply."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.analysis.types import Item
from backend.answer.compose import _stem
from backend.answer.intents import _WHEN
from backend.retrieval.dictionary import Dictionary, is_verb_form, lookup
from backend.retrieval.stopwords import STOP_WORDS

OPENING_LINES = 2  # the document's first non-empty lines name it (title, meeting, date)
OPENING_CHARS = 400
MAX_TRANSLATIONS = 8  # per topic word and direction
MIN_TRANSLATION = 3  # letters; a short one ("May") matches only as a whole word (`found`)
_TOKEN = re.compile(r"[\wäöüÄÖÜß][\w./-]*", re.UNICODE)


@dataclass
class Topic:
    """The topic words the items must contain, and the dropped ones with the reason."""
    words: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    stems: list[set[str]] = field(default_factory=list)  # per word: what finds it (`forms`)

    @property
    def text(self) -> str | None:
        return " ".join(self.words) or None

    def note(self) -> str:
        return "; ".join(f"{w!r} {why}" for w, why in self.dropped)


def forms(word: str, d: Dictionary | None) -> set[str]:
    """The stems a word is found by: its own and those of its translations (both
    directions: the word's language is not known)."""
    out = {_stem(word)}
    if d is not None and word[:1].isalpha():
        for source in ("de", "en"):
            for t in lookup(d, word, source)[:MAX_TRANSLATIONS]:
                if len(t) >= MIN_TRANSLATION and t.casefold() not in STOP_WORDS and " " not in t:
                    out.add(_stem(t))
    return {f for f in out if f}


def found(stems: set[str], hay: str) -> bool:
    """Whether a word (by its stems) occurs in a lower-cased text: a short word ("q3", "rs")
    as a whole word, a longer one also inside compounds."""
    for s in stems:
        if len(s) < 4:
            if re.search(rf"(?<![\w]){re.escape(s)}(?![\w])", hay):
                return True
        elif s in hay:
            return True
    return False


def item_text(i: Item) -> str:
    return (i.text + " " + i.section + " " + " ".join(
        str(v) for v in i.fields.values() if isinstance(v, str))).lower()


def opening(title: str, filename: str, text: str, end: int | None = None) -> str:
    """The words that name a document: title, file name and its first lines, before `end`
    (where its first section after the title starts: "## Version 3.2.0" of release notes
    that cover several versions is a part, not the name)."""
    lines = [x.strip() for x in text[:min(OPENING_CHARS * 2, end or len(text))].splitlines()
             if x.strip()]
    head = " ".join(lines[:OPENING_LINES])[:OPENING_CHARS]
    name = re.sub(r"[_.-]", " ", filename.rsplit(".", 1)[0])
    return f"{title} {name} {head}".lower()


def refine(topic: str | None, items: list[Item], *, title: str, filename: str, text: str,
           d: Dictionary | None, end: int | None = None) -> Topic:
    """The topic words the items are filtered by (see the module's rules)."""
    out = Topic()
    if not topic:
        return out
    hays = [item_text(i) for i in items]
    head = None
    for w in _TOKEN.findall(topic):
        w = w.strip(".-/")
        if not w:
            continue
        verb = is_verb_form(d, w)
        stems = {_stem(w)} if verb else forms(w, d)  # a verb counts only as written
        if any(found(stems, h) for h in hays):
            out.words.append(w)
            out.stems.append(stems)
            continue
        if verb:
            out.dropped.append((w, "is a verb of the question, in no item"))
            continue
        if _WHEN.fullmatch(w):  # "im Mai 2025": when the meeting was, not what it decided
            out.dropped.append((w, "is a month or year, in no item"))
            continue
        head = opening(title, filename, text, end) if head is None else head
        if found(stems, head):
            out.dropped.append((w, "names the document"))
            continue
        out.words.append(w)
        out.stems.append(stems)
    return out


def matches(t: Topic, i: Item) -> bool:
    """Whether an item has every topic word (as written or translated; a verb as written)."""
    hay = item_text(i)
    return all(found(stems, hay) for stems in t.stems)
