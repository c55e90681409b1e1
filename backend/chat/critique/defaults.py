"""The seeded critics (seed 001: Faktenprüfer, Stilist, Strukturanalyst, Formatierungsprüfer),
in English with the seed's focus. A prompt is a template with the placeholders {answer},
{sources}, {question}, {rubric} and {style_rules} (backend/chat/critique/critics.py renders
them; any other brace is left as it is, so an admin's prompt cannot break the rendering).
Every LLM critic's prompt ends with the reply format (FEEDBACK_FORMAT), added when rendered,
so an edited prompt cannot lose it."""
from __future__ import annotations

FEEDBACK_FORMAT = """Reply with one JSON object and nothing else, in this format:
{"rating": <integer 0-10>, "issues": ["<one problem per entry>"], \
"suggestions": ["<one concrete fix per entry>"], "summary": "<one sentence>"}
10 means no problem at all; list no issue for a rating of 10."""

FACT_PROMPT = """You are the fact checker. Check every claim of the answer below against the \
numbered sources it cites. A claim is supported only if a cited source states it; a claim \
without a citation, with a citation to a source that does not say it, or with numbers, names \
or dates that differ from the source is an issue. Outside knowledge does not count.

Rubric:
{rubric}

Question:
{question}

Sources:
{sources}

Answer to check:
{answer}"""

FACT_RUBRIC = """10: every claim is stated by the source it cites.
7-9: all claims supported, a citation missing or pointing to a neighbouring source.
4-6: one claim unsupported or a detail (number, name, date) wrong.
0-3: several claims unsupported or contradicted by the sources."""

STYLE_PROMPT = """You are the stylist. Judge the style of the answer below against the style \
rules: tone, formality, form of address, sentence length, flow, forbidden forms. Quote the \
words that break a rule in the issue.

Rubric:
{rubric}

Style rules:
{style_rules}

Answer to check:
{answer}"""

STYLE_RUBRIC = """10: follows every style rule and reads fluently.
7-9: one minor slip (a long sentence, a mixed tone).
4-6: several slips or one rule clearly broken.
0-3: ignores the style rules."""

STRUCTURE_PROMPT = """You are the structure analyst. Judge the structure of the answer below: \
does it answer the question first, are its parts in a sensible order, is it complete (every \
part of the question answered, nothing left hanging), are paragraphs, lists and headings used \
where they help and not where they do not.

Rubric:
{rubric}

Question:
{question}

Answer to check:
{answer}"""

STRUCTURE_RUBRIC = """10: answer first, clear order, complete, headings and lists fit the length.
7-9: a small order or layout problem.
4-6: a part of the question unanswered or the order confusing.
0-3: no recognisable structure or the question not answered."""

FORMAT_RUBRIC = """Code, not a model: the active rules of the format checker \
(backend/chat/format_check.py). 10 minus 2 per violated rule."""

DEFAULT_CRITICS = (
    {"name": "Fact checker", "type": "fact", "prompt": FACT_PROMPT, "rubric": FACT_RUBRIC,
     "threshold": 7.0, "active": True, "position": 1},
    {"name": "Stylist", "type": "style", "prompt": STYLE_PROMPT, "rubric": STYLE_RUBRIC,
     "threshold": 7.0, "active": True, "position": 2},
    {"name": "Structure analyst", "type": "structure", "prompt": STRUCTURE_PROMPT,
     "rubric": STRUCTURE_RUBRIC, "threshold": 7.0, "active": True, "position": 3},
    {"name": "Format checker", "type": "format", "prompt": "", "rubric": FORMAT_RUBRIC,
     "threshold": 10.0, "active": True, "position": 4},
)

REVISION_SYSTEM = """You revise answers of a document assistant. Rewrite the answer so that \
it fixes every issue the critics name, using only the numbered sources. Keep what is correct, \
keep the citations [n] of the sources, keep the language of the answer. Reply with the \
revised answer only: no preface, no notes about the changes."""

REVISION_PROMPT = """Question:
{question}

Sources:
{sources}

Answer:
{answer}

Critiques:
{critiques}

Write the revised answer."""
