"""Rated answers on the Evaluation page (issue 23): the listing's rows, and a rated answer
turned into a goldenset question — the question asked, the expected answer (a thumbs-up
answer as given, without its citation marks; for a thumbs-down one the quote of its first
cited source, to be corrected), the cited passages as reference contexts and the cited
documents as relevant (grade 2), named as the goldenset names documents. The draft is
edited on the page before it is saved into an existing goldenset or a new one."""
from __future__ import annotations

import re

from backend.chat.feedback import RatedAnswer
from backend.ingest.language import detect_language
from backend.ui.citations import trace_url
from eval.goldenset import Goldenset, GoldQuery, make_goldenset, parse_query
from eval.runner import DocKeys
from eval.store import get_goldenset, next_query_id, put_query, save_goldenset

CITE_MARK = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")
THUMB = {"up": "👍 up", "down": "👎 down"}


def rows(items: list[RatedAnswer]) -> list[dict]:
    """The listing as table rows: plain text; the trace as a Query-debug link."""
    return [{"rated": i.feedback.updated_at, "who": i.feedback.user,
             "rating": THUMB[i.feedback.rating], "question": i.question,
             "answer": i.answer, "note": i.feedback.note,
             "where": f"chatbot {i.chatbot}" if i.chatbot else "chat",
             "trace": trace_url(i.trace_id, i.question) if i.trace_id else None}
            for i in items]


def label(item: RatedAnswer) -> str:
    return (f"{THUMB[item.feedback.rating]} {item.feedback.user} · "
            f"{item.question[:80] or '(no question)'}")


def draft(rs, item: RatedAnswer, gs: Goldenset | None = None) -> dict:
    """The editable fields of a question made from `item`, for goldenset `gs` (its next
    id and its way of naming documents; None: a new goldenset, file names)."""
    keys = DocKeys(rs, gs.doc_key if gs else "filename")
    cited = item.cited
    docs = list(dict.fromkeys(keys.of_hit(int(s["document_id"]), s.get("filename") or "",
                                          s.get("source_uri") or "") for s in cited))
    quotes = [s.get("quote") or s.get("passage") or "" for s in cited]
    if item.feedback.rating == "up":
        expected = CITE_MARK.sub("", item.answer).strip()
    else:
        expected = next((q for q in quotes if q), "")
    return {"id": next_query_id(gs) if gs else "q01", "question": item.question,
            "language": detect_language(item.question) if item.question.strip() else "",
            "tags": f"feedback, thumbs-{item.feedback.rating}", "answer": expected,
            "contexts": "\n".join(" ".join(q.split()) for q in quotes if q),
            "documents": "\n".join(docs)}


def to_query(fields: dict) -> GoldQuery:
    """The edited fields as a question (GoldensetError naming the field when invalid)."""
    docs = [d.strip() for d in str(fields.get("documents") or "").splitlines() if d.strip()]
    return parse_query({
        "id": str(fields.get("id") or "").strip(), "question": fields.get("question") or "",
        "language": str(fields.get("language") or "").strip(),
        "tags": [t.strip() for t in str(fields.get("tags") or "").split(",") if t.strip()],
        "relevant": [{"doc": d, "grade": 2} for d in docs],
        "reference_answer": (fields.get("answer") or "").strip() or None,
        "reference_contexts": [c.strip() for c in str(fields.get("contexts") or "")
                               .splitlines() if c.strip()]}, "the question")


def save(rs, goldenset: str, fields: dict, *, new: bool = False) -> GoldQuery:
    """Add the question to the stored goldenset `goldenset`, or (`new`) create a goldenset
    of that name holding it. Nothing is stored when a field is invalid."""
    q = to_query(fields)
    name = goldenset.strip()
    if new:
        from eval.goldenset import GoldensetError

        if not name:
            raise GoldensetError("goldenset: give the new goldenset a name")
        try:
            get_goldenset(rs, name)
        except GoldensetError:
            save_goldenset(rs, make_goldenset(name, [q], description="from rated answers"),
                           source="rated answers", edited=True)
            return q
        raise GoldensetError(f"goldenset: '{name}' exists already; choose it in the list")
    return put_query(rs, name, q)
