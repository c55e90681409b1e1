"""What the dashboard shows of an answer's confidence hint and of a declined answer's
"possibly related" passages (backend/answer/confidence.py), so the chat and chatbot pages
only render. Markdown is built from escaped text only (backend/security/safe_markdown.py)."""
from __future__ import annotations

from backend.security.safe_markdown import md_escape

_COLOUR = {"high": "green", "medium": "orange", "low": "red"}
PASSAGE_CHARS = 400  # of a related passage shown


def confidence_caption(citations: dict | None) -> str | None:
    """"Confidence: medium — based on 5 passages from 2 documents" as a coloured badge line;
    None for answers stored before the hint existed."""
    c = (citations or {}).get("confidence")
    if not isinstance(c, dict) or not c.get("text"):
        return None
    colour = _COLOUR.get(str(c.get("level")), "gray")
    return f":{colour}-badge[{md_escape(str(c['text']))}]"


def related_passages(citations: dict | None) -> tuple[str, list[str]]:
    """The label ("Possibly related" / "Möglicherweise verwandt") and one markdown line per
    passage (title, page, the sentence), or ("", []) when the answer has none."""
    c = citations or {}
    items = c.get("related") or []
    if not items:
        return "", []
    lines = []
    for r in items:
        where = md_escape(str(r.get("title") or ""))
        if r.get("page") is not None:
            where += f", p. {int(r['page'])}"
        text = str(r.get("text") or "")
        if len(text) > PASSAGE_CHARS:
            text = text[:PASSAGE_CHARS].rsplit(" ", 1)[0] + " …"
        lines.append(f"- **{where}**: {md_escape(text)}")
    return md_escape(str(c.get("related_label") or "Possibly related")), lines


def related_label(citations: dict | None) -> str:
    """The expander's label of a declined answer's closest passages, escaped."""
    return related_passages(citations)[0]


def related_markdown(citations: dict | None) -> str:
    """The closest passages as one Markdown list ("" when there are none), escaped."""
    return "\n".join(related_passages(citations)[1])
