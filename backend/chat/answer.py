"""Pieces of the chat's answering path that do not need the service: source entries for the
answer's source list, the document-list answer of inventory questions, and the flags stored
with an answer (abstention, evidence score, per-sentence support of generated answers)."""
from __future__ import annotations

from backend.ingest.language import detect_language
from backend.answer.extractive import NOTHING_FOUND, message_language

INVENTORY_HEAD = {
    ("de", False): "Folgende Dokumente gibt es ({n}):",
    ("en", False): "These documents exist ({n}):",
    ("de", True): "Folgende Dokumente betreffen „{topic}“ ({n}):",
    ("en", True): "These documents cover “{topic}” ({n}):",
}


def hit_source(n: int, hit) -> dict:
    return {"n": n, "chunk_id": hit.chunk_id, "document_id": hit.document_id,
            "title": hit.document_title or hit.filename, "filename": hit.filename,
            "version": hit.version_number, "breadcrumb": hit.breadcrumb,
            "section_path": list(hit.section_path), "page": hit.page,
            "score": round(float(hit.score), 6), "original_path": hit.original_path,
            # cosine similarity of question and passage (None: found by keywords only);
            # a chatbot's minimum relevance is checked against it
            "relevance": None if hit.vector_score is None else round(float(hit.vector_score), 4),
            "source_uri": hit.source_uri, "cited": False}


def document_source(n: int, doc, hit=None) -> dict:
    """A listed document (inventory answers): its best chunk's details when there is one."""
    src = hit_source(n, hit) if hit is not None else {
        "n": n, "chunk_id": doc.best_chunk_id, "document_id": doc.document_id,
        "title": doc.title or doc.filename, "filename": doc.filename, "version": None,
        "breadcrumb": "", "section_path": [], "page": None, "original_path": None,
        "source_uri": "", "cited": False}
    src.update(score=round(float(doc.score), 6), doc_type=doc.doc_type)
    return src


def inventory_text(question: str, topic: str, sources: list[dict]) -> str:
    """The document list: a lead line in the question's language, then one line per document
    with its citation. No documents: the "nothing found" message."""
    lang = message_language(question, detect_language(question))
    if not sources:
        return NOTHING_FOUND[lang]
    head = INVENTORY_HEAD[(lang, bool(topic))].format(n=len(sources), topic=topic)
    lines = [f"- {s['title']} ({s['filename']}) [{s['n']}]" if s["title"] != s["filename"]
             else f"- {s['filename']} [{s['n']}]" for s in sources]
    return "\n".join([head] + lines)
