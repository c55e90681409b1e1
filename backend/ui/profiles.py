"""What the dashboard shows of author profiles (pages/profiles.py, the chat's and the
chatbot builder's profile pickers): table rows, labels and the choices of the form."""
from __future__ import annotations

from backend.chat.profile_rules import ADDRESSES, FORMALITIES, OUTPUT_FORMATS, AuthorProfile

ADDRESS_LABELS = {"sie": "Sie (German, formal)", "du": "du (German, informal)",
                  "you": "you (English)", "none": "no rule"}
FORMALITY_LABELS = {"formal": "formal", "neutral": "neutral", "informal": "informal"}
FORMAT_LABELS = {"markdown": "Markdown", "plain": "Plain text (reiner Text)"}
NO_PROFILE = "(no author profile)"
assert set(ADDRESS_LABELS) == set(ADDRESSES) and set(FORMALITY_LABELS) == set(FORMALITIES) \
    and set(FORMAT_LABELS) == set(OUTPUT_FORMATS)


def table_rows(profiles: list[AuthorProfile], usage: dict[int, tuple[int, int]]) -> list[dict]:
    """One row a profile; every cell text or a number (no empty cell reads "None")."""
    return [{"Name": p.name, "Tone": p.tone or "—", "Formality": p.formality,
             "Address": ADDRESS_LABELS[p.address], "Format": FORMAT_LABELS[p.output_format],
             "Max words/sentence": str(p.max_sentence_words or "no limit"),
             "Forbidden words": ", ".join(p.forbidden_words) or "—",
             "Sessions": usage.get(p.id, (0, 0))[0], "Chatbots": usage.get(p.id, (0, 0))[1]}
            for p in profiles]


def choices(profiles: list[AuthorProfile]) -> tuple[list[int | None], dict[int | None, str]]:
    """The options of a profile picker (None first: no profile) and their labels."""
    labels: dict[int | None, str] = {None: NO_PROFILE}
    labels.update({p.id: p.name for p in profiles})
    return list(labels), labels


def words_text(words: list[str]) -> str:
    return "\n".join(words)
