"""The text of an extractive answer: the quoted sentences put together so that the answer
reads like one (issue 23, item 7), not like an excerpt pasted from the middle of a paragraph.

What the extractive answerer chose to quote (backend/answer/extractive.py: the best
candidate, the sentence before it when that one carries the question's words, the sentence
after it when only that one has the asked value) is composed here:

* **value first**: the sentence that holds the value the question asks for (an amount with
  its unit, a date, a duration, a count, a name: backend/answer/values.py) comes first, then
  its context sentence(s) in their order in the document. The source order is kept when that
  sentence leans on the one before it ("Er beträgt …", "This is …", "Außerdem …") or when no
  quoted sentence holds the value; the value is looked for in the chosen sentence first;
* **the value in bold**: only that span, with its unit or currency ("**2,69 EUR je
  Kubikmeter** (netto)"); Markdown emphasis the document itself had is dropped from the
  quote, so every `**…**` of an extractive answer is the composer's (the chat page renders
  exactly those as bold, backend/security/safe_markdown.py);
* **a vote line for a vote question**: "Wer hat gegen den Beschluss 2024/17 gestimmt?" is
  answered by the vote line below the decision ("Abstimmung: 5 Ja-Stimmen, **1 Gegenstimme**,
  0 Enthaltungen.") with the decision as its context;
* every sentence keeps its citation `[n]`.

Nothing is invented: the answer holds only the source's own sentences, reordered, with bold
marks and citations. No lead-in phrase is added."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from backend.answer.evidence.candidates import Candidate, candidates
from backend.answer.evidence.question import Question
from backend.answer.values import Span, value_span
from backend.llm.base import Evidence

# a sentence whose subject is a pronoun for something the sentence before it named ("Er
# beträgt …", "They are recorded …", "This is …"): it does not lead the answer; the
# ambiguous ones stay out ("Sie" is also the polite "you", "Es gingen …" has no referent,
# "Das"/"Damit" also start a noun or a clause)
_REFERS_BACK = re.compile(
    r"^(?:er|ihm|ihn|dies|dabei|dafür|davon|dazu|darüber|darin|hierfür|hierzu|hierbei|it|its|"
    r"they|their|them|he|she|his|her|(?:this|these|that|those|diese[rs]?)\s+(?:is|are|was|were|"
    r"has|have|means|applies|apply|ist|sind|war|waren|gilt|gelten|bedeutet))\b",
    re.I)
# a sentence that continues the one before it: it does not lead the answer
_CONTINUES = re.compile(r"^(?:außerdem|zudem|ebenso|ebenfalls|jedoch|allerdings|stattdessen|"
                        r"deshalb|deswegen|daher|somit|anschließend|danach|also|however|"
                        r"in\s+addition|additionally|furthermore|moreover|therefore|thus|"
                        r"otherwise|instead|then)\b", re.I)
_EMPHASIS = re.compile(r"\*\*")
_VOTE_QUESTION = re.compile(r"\b(?:gestimmt|abgestimmt|stimmte\w*|gegenstimme\w*|dagegen|"
                            r"enthalt\w*|enthielt\w*|voted?|voting|abstain\w*|abstention\w*)\b",
                            re.I)
_VOTE_LINE = re.compile(r"^(?:Abstimmung|Abstimmungsergebnis|Ergebnis|Vote|Voting|Result)\b"
                        r"[^.]*\d|\b(?:Ja-Stimmen|Gegenstimmen?|Enthaltungen|votes?\s+in\s+favou?r"
                        r"|against|abstentions?)\b", re.I)
_VOTE_VALUE = {  # which figure of a vote line the question asks for
    "no": re.compile(r"\b(?:\d+|kein\w*|no|none)\s+(?:Gegenstimmen?|(?:votes?\s+)?against)\b",
                     re.I),
    "abstain": re.compile(r"\b(?:\d+|kein\w*|no|none)\s+(?:Enthaltung(?:en)?|abstentions?)\b",
                          re.I),
    "yes": re.compile(r"\b\d+\s+(?:Ja-Stimmen|Jastimmen|(?:votes?\s+)?in\s+favou?r|yes)\b", re.I),
}
_VOTE_KIND = [("abstain", re.compile(r"enthalt|enthielt|abstain|abstention", re.I)),
              ("no", re.compile(r"gegen|dagegen|against|\bno\b", re.I)),
              ("yes", re.compile(r"\bfür\b|dafür|zugestimmt|in\s+favou?r|\bfor\b", re.I))]
VOTE_LOOKAHEAD = 3  # candidates after a decision searched for its vote line


@dataclass
class Part:
    """One quoted sentence of the answer and its source number."""

    text: str
    n: int
    value: Span | None = None  # the asked value inside `text`, if any

    def render(self) -> str:
        t = self.text
        if self.value is not None:
            v = self.value
            t = f"{t[:v.start]}**{v.text}**{t[v.end:]}"
        return f"{t} [{self.n}]"


def unbold(text: str) -> str:
    """The text without `**` marks: an answer as it reads (follow-ups look for its values),
    a quote without the document's own bold."""
    return _EMPHASIS.sub("", text)


def plain(text: str) -> str:
    """A quoted text on one line without the document's own bold marks."""
    return " ".join(unbold(text).split())


def refers_back(text: str) -> bool:
    """The sentence's subject stands for something named in the sentence before it."""
    return bool(_REFERS_BACK.match(text.lstrip("„\"'(")))


def leans_back(text: str) -> bool:
    """The sentence cannot open an answer: it refers back or continues the one before."""
    t = text.lstrip("„\"'(")
    return bool(_REFERS_BACK.match(t) or _CONTINUES.match(t))


def vote_kind(q: Question) -> str | None:
    """"no" / "abstain" / "yes" when the question asks how a vote went, else None."""
    if not _VOTE_QUESTION.search(q.text):
        return None
    return next((k for k, rx in _VOTE_KIND if rx.search(q.text)), "no")


def vote_line(top: Candidate, evidence: list[Evidence]) -> Candidate | None:
    """The vote line right after a decision ("Abstimmung: 5 Ja-Stimmen, 1 Gegenstimme …"),
    within VOTE_LOOKAHEAD candidates of the same source (all of its candidates: the
    scorer keeps only those carrying a key the question names, "2024/17", and the vote line
    below the decision does not repeat it)."""
    if _VOTE_LINE.search(top.text):
        return None
    same = [e for e in evidence if e.n == top.n]
    after = sorted((c for c in candidates(same) if
                    top.index < c.index <= top.index + VOTE_LOOKAHEAD), key=lambda c: c.index)
    return next((c for c in after if _VOTE_LINE.search(c.text)), None)


def _vote_span(text: str, kind: str) -> Span | None:
    m = _VOTE_VALUE[kind].search(text)
    return Span(m.start(), m.end(), m.group(0)) if m else None


def order(parts: list[Part]) -> list[Part]:
    """Value first: the part holding the value, then the others in source order; kept as
    they are when no part holds it or the value part leans on the part before it."""
    lead = next((i for i, p in enumerate(parts) if p.value is not None), None)
    if not lead or leans_back(parts[lead].text):
        return parts
    return [parts[lead]] + parts[:lead] + parts[lead + 1:]


def mark(q: Question, parts: list[Part], chosen: int) -> None:
    """Find the asked value: in the chosen candidate's part first, then in the part after
    it, then in the one before (a context sentence's figure is not the answer when the
    chosen sentence has one of the asked type)."""
    for i in [chosen] + list(range(chosen + 1, len(parts))) + list(range(chosen - 1, -1, -1)):
        parts[i].value = value_span(q, parts[i].text)
        if parts[i].value is not None:
            return


def compose_answer(q: Question, top: Candidate, previous: str = "",
                   following: Sequence[Candidate] = (),
                   evidence: list[Evidence] | None = None) -> str:
    """The answer text: `top` (the chosen candidate) with its `previous` sentence and the
    `following` ones when the answerer chose to quote them, composed value first with the
    asked value in bold; each sentence cited."""
    parts = [Part(plain(previous), top.n)] if previous else []
    parts.append(Part(plain(top.text), top.n))
    parts += [Part(plain(f.text), f.n) for f in following]
    kind = vote_kind(q)
    vote = vote_line(top, evidence or []) if kind else None
    if vote is not None and all(plain(vote.text) != p.text for p in parts):
        parts.append(Part(plain(vote.text), vote.n))
    for p in parts if kind else []:  # of a vote line, the count asked for
        if _VOTE_LINE.search(p.text):
            p.value = _vote_span(p.text, kind)
    if not any(p.value is not None for p in parts):
        mark(q, parts, 1 if previous else 0)
    return " ".join(p.render() for p in order(parts))
