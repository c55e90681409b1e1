"""What the follow-up rewrite (backend/chat/followup.py, pure text rules) reads from the
store, and the chat's hooks around it: the session's conversation within its context window
(`context_mode`: regular 25 lines, full 500 lines, seed 004), the texts of the document in
focus, which other document a follow-up names, and the `rewrite` stage of the stored
query-debug trace."""
from __future__ import annotations

import re
from collections.abc import Sequence

from backend.answer.extractive_text import unbold
from backend.chat.followup import Rewrite, Turn, rewrite, words

CONTEXT_LINES = {"regular": "chat_context_lines", "full": "chat_full_context_lines"}
_TITLE_STOP = {"protokoll", "bericht", "richtlinie", "handbuch", "sitzung", "minutes", "report",
               "policy", "manual", "guide", "version", "stadtwerke", "birkenau", "status",
               "annual", "datenblatt", "datasheet", "document", "dokument"}


def context_lines(settings, mode: str) -> int:
    """Lines of the conversation a session's answers see (seed 004: regular 25, full 500)."""
    return int(getattr(settings, CONTEXT_LINES.get(mode, "chat_context_lines")))


def conversation(rs, session_uuid: str, max_lines: int) -> list[Turn]:
    """The session's newest question/answer pairs, oldest first, whose lines add up to at
    most `max_lines` (the newest pair always, a message counting at least one line)."""
    from sqlalchemy import select

    from backend.store.chat_models import ChatMessage, ChatSession

    if max_lines <= 0:
        return []
    with rs.store.session() as s:
        rows = list(s.scalars(select(ChatMessage).join(ChatSession)
                              .where(ChatSession.uuid == str(session_uuid))
                              .order_by(ChatMessage.id.desc()).limit(max_lines + 1)))[::-1]
        pairs, pending = [], None
        for m in rows:
            if m.role == "user":
                pending = m.content
            elif pending is not None:
                pairs.append(_turn(pending, m))
                pending = None
    kept, lines = [], 0
    for t in reversed(pairs):
        n = t.question.count("\n") + t.answer.count("\n") + 2
        if kept and lines + n > max_lines:
            break
        kept.append(t)
        lines += n
    return kept[::-1]


def _turn(question: str, m) -> Turn:
    sources = list(m.sources or [])
    ranked = [x for x in sources if x.get("cited")] + [x for x in sources if not x.get("cited")]
    docs = tuple(dict.fromkeys(int(x["document_id"]) for x in ranked
                               if x.get("document_id") is not None and not x.get("deleted")))
    rw = m.rewrite or {}
    web = next((x for x in sources if x.get("kind") == "web"), None)
    query = rw.get("query", "") if rw.get("followup") else ""
    if web is not None and not query:  # what it retrieved with: the URL's tokens carry nothing
        from backend.chat.question_url import without_url

        query = without_url(question)
    return Turn(question, unbold(m.content or ""),  # the bold marks read as the value alone
                query, docs, bool((m.citations or {}).get("abstained")), web)


def document_texts(rs, document_id: int) -> list[str]:
    """The chunk texts of a document's active version, in order."""
    from sqlalchemy import select

    from backend.store.models import Chunk, DocumentVersion

    with rs.store.session() as s:
        return list(s.scalars(select(Chunk.text).join(
            DocumentVersion, DocumentVersion.id == Chunk.version_id).where(
            Chunk.document_id == document_id, DocumentVersion.is_active.is_(True))
            .order_by(Chunk.ordinal)))


def _title_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-zäöüß0-9]{5,}", (text or "").lower())
            if w not in _TITLE_STOP and not w.isdigit()}


def other_document(docs, q: str, focus: int, focus_text: str) -> str | None:
    """The title of a document other than `focus` that `q` names: one of its title or
    file-name words (five letters or more, also inside compounds) is in the question and
    neither in the focus document's title nor in its text."""
    qwords = re.findall(r"[a-zäöüß0-9-]{5,}", q.lower())
    capitals = [w for w in words(q)[1:] if w[:1].isupper()]
    ftext = focus_text.lower()
    focus_words = next((_title_words(f"{d.title} {d.filename}") for d in docs if d.id == focus),
                       set())
    best = None
    for d in docs:
        if d.id == focus:
            continue
        name = re.sub(r"[_.-]", " ", d.filename.rsplit(".", 1)[0])
        hits = [t for t in _title_words(f"{d.title} {name}") - focus_words
                if t not in ftext and any(t in w for w in qwords)]
        if len(hits) < 2 and not any(t in w.lower() for t in hits for w in capitals):
            continue  # one lowercase word ("course") is a topic, not a name
        if hits and (best is None or len(hits) > best[0]):
            best = (len(hits), d.title or d.filename)
    return best[1] if best else None


def for_question(chat, sess, q: str, scope, turns: Sequence[Turn]) -> Rewrite:
    """The chat's hook: the rewrite of `q` in session `sess` after `turns`, with the
    documents `scope` may read in the session's collections as the ones it may name."""
    from backend.answer.route import language, scope_documents

    if not turns:
        return Rewrite(q, q, why="first question of the session")
    rs = chat.rs
    texts: dict[int, str] = {}

    def text_of(doc_id: int) -> list[str]:
        if doc_id not in texts:
            texts[doc_id] = "\n".join(document_texts(rs, doc_id))
        return [texts[doc_id]]

    docs: list = []

    def documents() -> list:
        if not docs:
            docs.extend(scope_documents(rs, list(sess.settings.collections), scope))
        return docs

    def names_other(question: str, focus: int) -> str | None:
        return other_document(documents(), question, focus, text_of(focus)[0])

    def name(doc_id: int) -> str:
        return next((f"{d.title} {d.filename}" for d in documents() if d.id == doc_id), "")

    return rewrite(q, turns, language=language(q), names_other=names_other,
                   document_texts=text_of, document_name=name)


def note_trace(rs, trace_id: str | None, rw: Rewrite) -> None:
    """Put the `rewrite` stage after the `route` stage of a stored chat trace."""
    from backend.retrieval.traces import put_stage

    put_stage(rs.store, trace_id, rw.stage())
