"""The seed's feedback format ({"rating", "score", "passed", "issues", "suggestions",
"summary", "deterministic"}) read from a model's reply, and made from the format checker's
result.

Models wrap JSON in code fences, put a sentence before or after it, write "8/10" or "8" for
the rating, a string for a list, leave a trailing comma: `parse_feedback` takes the first
JSON object in the reply that has a rating (or score) and normalises it. A reply without one
raises `UnparseableFeedback`; the caller stores it as a failed critique with the raw text."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
MAX_ITEMS = 20  # issues / suggestions kept per critique
MAX_ITEM_CHARS = 600


class UnparseableFeedback(ValueError):
    """The reply holds no JSON object with a rating."""


@dataclass
class Feedback:
    rating: float | None  # 0-10; None: the critique failed (see error)
    issues: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    summary: str = ""
    deterministic: bool = False
    error: str = ""

    def passed(self, threshold: float) -> bool:
        return self.rating is not None and self.rating >= threshold

    def to_dict(self, threshold: float) -> dict:
        """The seed's format, plus the threshold and the error of a failed critique."""
        return {"rating": self.rating, "score": self.rating, "passed": self.passed(threshold),
                "issues": self.issues, "suggestions": self.suggestions, "summary": self.summary,
                "deterministic": self.deterministic, "threshold": threshold,
                "error": self.error}


def _objects(text: str):
    """Every JSON object in the text, fenced ones first, in order of appearance."""
    decoder = json.JSONDecoder()
    pieces = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for piece in pieces:
        for candidate in (piece, _TRAILING_COMMA.sub(r"\1", piece)):
            i = candidate.find("{")
            while i != -1:
                try:
                    obj, end = decoder.raw_decode(candidate, i)
                except json.JSONDecodeError:
                    i = candidate.find("{", i + 1)
                    continue
                if isinstance(obj, dict):
                    yield obj
                i = candidate.find("{", end)


def _rating(value) -> float | None:
    """8, 8.5, "8", "8/10", "8 of 10" -> 8.0 (clamped to 0-10); anything else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        m = _NUMBER.search(str(value))
        if not m:
            return None
        number = float(m.group().replace(",", "."))
    return max(0.0, min(10.0, number))


def _items(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value] if value.strip() else []
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        value = [value]
    out = []
    for v in value:
        if isinstance(v, dict):  # {"issue": "...", "where": "..."}
            v = "; ".join(str(x) for x in v.values())
        s = " ".join(str(v).split())
        if s:
            out.append(s[:MAX_ITEM_CHARS])
    return out[:MAX_ITEMS]


def parse_feedback(reply: str) -> Feedback:
    """The first JSON object with a usable rating ("rating", else "score")."""
    for obj in _objects(reply or ""):
        keys = {k.lower(): v for k, v in obj.items() if isinstance(k, str)}
        rating = _rating(keys.get("rating", keys.get("score")))
        if rating is None:
            continue
        return Feedback(rating=rating, issues=_items(keys.get("issues")),
                        suggestions=_items(keys.get("suggestions")),
                        summary=" ".join(str(keys.get("summary") or "").split())[:1000])
    snippet = " ".join((reply or "").split())[:120]
    raise UnparseableFeedback(f"the reply holds no JSON object with a rating: {snippet!r}"
                              if snippet else "the reply was empty")


def format_feedback(result: dict) -> Feedback:
    """The format checker's result (backend/chat/format_check.py) as feedback: its rating is
    10 minus 2 per violated rule."""
    return Feedback(rating=float(result["rating"]), issues=list(result["issues"]),
                    suggestions=list(result["suggestions"]), summary=result["summary"],
                    deterministic=True)
