"""A document named in the question beats the others for a passage answer too (issue 22,
"a document named in the question beats the previous answer's document"): when the
question names exactly one document in scope by its title or file name ("… bei Brightwater
Logistics …") and the best evidence sentence comes from another document, or none passes,
the chat searches again within the named document and answers from it when its evidence
passes. Cross-language questions are where it counts: a German question over an English
policy retrieves German sentences of other documents first."""
from __future__ import annotations

from backend.answer.context import scope_documents
from backend.answer.evidence.scoring import Assessment
from backend.answer.intent_documents import DocCandidate, name_words, named_documents
from backend.retrieval import dictionary
from backend.security.access import Scope


def proper_names(question: str, words: dictionary.Dictionary | None) -> set[str]:
    """The question's words that look like names, lower-cased: capitalised after its first
    word and, with the dictionary, no entry of it ("Brightwater", "Talblick", "Hollerbach";
    not "Jahr", "Server", "Housing")."""
    found = dictionary.TEXT_WORD.findall(question)[1:]
    return {w.casefold() for w in found if w[:1].isupper()
            and (words is None or not dictionary.knows(words, w))}


def _whole(title_word: str, name: str) -> bool:
    """The name is the title word, up to an inflection ending ("Waldfreibads" of
    "Waldfreibad"), not a compound that merely starts with it ("Fahrzeughöhe" names no
    "Fahrzeugflotte")."""
    return name.startswith(title_word) and len(name) - len(title_word) <= 3


def named_document(rs, question: str, collections: list[str], scope: Scope
                   ) -> tuple[int, str] | None:
    """(id, title) of the one document in scope the question names best by a name
    (`proper_names`) in its title or file name, else None (none, several named equally
    well, or named only by common words: "im Jahr 2024" names no "Jahresbericht")."""
    names = proper_names(question, dictionary.get(rs.settings.dictionary_path))
    if not names:
        return None
    docs = scope_documents(rs, collections, scope)
    named = named_documents(question, [DocCandidate(d.id, d.title, d.filename, d.doc_type)
                                       for d in docs])
    if len(named) != 1:
        return None
    in_title, in_name, _ = name_words(question, named[0])
    if not any(_whole(t, w) for t in in_title | in_name for w in names):
        return None
    return named[0].id, named[0].title


def answered_elsewhere(assessment: Assessment, sources: list[dict], document_id: int) -> bool:
    """Whether the answer would not come from the named document: nothing passes, or the
    best candidate's source belongs to another document."""
    top = assessment.top
    if assessment.abstain or top is None:
        return True
    return sources[top.candidate.n - 1].get("document_id") != document_id


def search_within(chat, q: str, cfg, owner, scope: Scope, evidence: list, sources: list[dict],
                  assessment: Assessment | None, assess_with):
    """The second pass of the chat service (backend/chat/service.py `answer_stream`):
    (assessment of the first pass, or None when it was not needed; the replacement
    (result, trace id, evidence, sources, assessment, note) of the search within the named
    document when it answers there and the first pass did not, else None).
    `assess_with(q, evidence)` scores evidence as the first pass does."""
    named = named_document(chat.rs, q, list(cfg.collections), scope)
    if named is None:
        return assessment, None
    doc, title = named
    assessment = assessment or assess_with(q, evidence)
    if not answered_elsewhere(assessment, sources, doc):
        return assessment, None
    result, trace_id, _ = chat._retrieve(q, cfg, owner, scope, [doc])
    ev, src = chat._evidence(result, cfg)
    again = assess_with(q, ev) if ev else None
    if again is None or again.abstain:
        return assessment, None
    return again, (result, trace_id, ev, src,
                   f"Searched again within “{title}”, the document the question names.")
