"""Which analysis a question asks for, as a pure function (no store, no model): German and
English phrasings -> extract (which extractors), summarise (document or section, length),
compare versions, compare documents or cross-reference, with the document and section it
names. The chat can route on it (answer from the analysis with section/page citations) and
show the matched rule in the query-debug trace; None means "no analysis intent, retrieve".

    recognise("Welche Fristen stehen im Protokoll?", docs)
    -> Intent(action="extract", extractors=("deadlines",), doc_type="minutes", ...)"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backend.analysis.types import DOC_KINDS
from backend.config import domain_rules
from backend.answer.intent_documents import (
    DocCandidate,
    _STOP,
    named_documents,
    _tokens,
    _two_documents,
)

_I = re.IGNORECASE


@dataclass(frozen=True)
class Intent:
    action: str  # extract | summarize | compare_versions | compare_documents | cross_reference
    extractors: tuple[str, ...] = ()
    document: int | None = None  # resolved from the candidates, when the question names one
    document_b: int | None = None  # compare_documents: the second document
    doc_type: str | None = None  # "minutes" / "policy" / "manual" (types.DOC_KINDS) when named
    section: str | None = None  # "2", "2.2", "TOP 3", "§ 7", "Agenda item 3", "last"
    versions: tuple[int | None, int | None] = (None, None)
    length: str = "medium"
    status: str | None = None  # "open" for "offene Punkte" / "open items"
    topic: str | None = None  # cross_reference: what to look for
    reason: str = ""  # the rules that fired, for the query-debug trace
    matched: tuple[str, ...] = field(default_factory=tuple)
    # the documents the question names when it names several equally well: the route picks
    # among these only, never the previous answer's document (issue 22)
    named: tuple[int, ...] = ()


# The cue words (per extractor, per document kind, singular cues) are data: they live in
# config/domain/intents.yaml (backend/config/domain_rules.py: validated, reloaded when the
# file changes). `_cues()` compiles them once per generation of the rules.
_compiled: dict[str, tuple] = {}


def _cues() -> tuple[list[tuple[str, re.Pattern]], list[tuple[str, re.Pattern]], frozenset[str]]:
    """(extractor cues, document-kind cues, singular cues) of the current domain rules, as
    compiled patterns `\\b(?:alt1|alt2|…)\\b` (case-insensitive)."""
    rules = domain_rules.current()
    got = _compiled.get(rules.generation)
    if got is None:
        it = rules.intents
        words = (lambda alts: re.compile(r"\b(?:" + "|".join(alts) + r")\b", _I))
        got = ([(n, words(a)) for n, a in it.extract_cues.items()],
               [(n, words(a)) for n, a in it.doc_type_cues.items()],
               frozenset(it.singular_cues))
        _compiled.clear()
        _compiled[rules.generation] = got
    return got


_QUESTIONISH = re.compile(r"\b(?:welche|was|wer|wann|wo|wie|gibt es|liste|zeig|nenne|which|what|who|"
                          r"when|where|list|show|are there|give me)\b|\?", _I)
_SUMMARY = re.compile(r"\b(?:fass\w*\b.*\bzusammen|zusammenfass\w*|Zusammenfassung|Überblick|"
                      r"worum geht es|summari[sz]\w*|summary|overview|tl;?dr|gist)\b", _I)
# A summary is asked for with a verb ("Fasse … zusammen", "Summarise …", "Worum geht es …")
# or a request for the noun ("Gib mir eine Zusammenfassung …", "A short summary of …"); the
# noun alone is no intent ("Gibt es eine Zusammenfassung der Kosten?", "What does the summary
# of the report say about …?" ask for passages; issue 22).
_SUMMARY_VERB = re.compile(r"\b(?:fass\w*\b.*\bzusammen|zusammenfassen|summari[sz]e|worum geht es|"
                           r"tl;?dr)\b|^\s*what(?: is|'s) (?:\w+[ -]){1,5}about\s*\??\s*$", _I)
_SUMMARY_NOUN = re.compile(
    r"^\s*(?:(?:bitte|please)\s+)?(?:gib|give|zeig\w*|show|erstell\w*|create|write|schreib\w*|"
    r"liefer\w*|provide|I (?:need|want|would like)|ich (?:brauche|möchte|hätte gern\w*)|"
    r"(?:can|could) you (?:give|write|provide|make)|kannst du)\s+(?:\w+\s+){0,3}?"
    r"(?:Zusammenfassung|summary|overview|Überblick|gist)\b"
    r"|^\s*(?:(?:eine?|a|an|die|the)\s+)?(?:(?:kurze|knappe|ausführliche|short|brief|detailed|"
    r"quick)\s+)?(?:Zusammenfassung|summary|overview|Überblick|tl;?dr|gist)\s*(?:$|[:,?.!]|"
    r"(?:von|vom|des|der|zu[mr]?|über|of|for|on|about|bitte|please)\b)", _I)
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", _I)
_SHORT = re.compile(r"\b(?:kurz\w*|knapp|in (?:einem|zwei|drei) Sätzen|short|brief\w*|in (?:one|two|three) "
                    r"sentences?)\b", _I)
_LONG = re.compile(r"\b(?:ausführlich\w*|detailliert\w*|lang\w*|detailed|in detail|long|thorough\w*)\b", _I)
# "Was hat sich in X geändert?": a change verb asks after versions of one named document;
# "compare", "Unterschied" alone do not ("How do A's results compare to B's?", issue 22)
_CHANGE_VERB = re.compile(r"\b(?:geändert|Änderungen|verändert|was ist neu|changed|changes|"
                          r"what'?s new|what is new|neu in)\b", _I)
_CHANGE = re.compile(r"\b(?:geändert|Änderungen|Unterschied\w*|unterscheide[nt]|differ|differs|"
                     r"was ist neu|verändert|changed|changes|differences?|diff|what'?s new|compare|"
                     r"vergleich\w*)\b", _I)
_VERSIONS = re.compile(r"\bVersions?\s*(\d+)(?![.\d])(?:\s*(?:und|and|,|bis|to|vs\.?|versus|mit|"
                       r"with)\s*(?:Version\s*)?(\d+)(?![.\d]))?", _I)
# "version 3.2.0" names a product release, not a version of the document
_RELEASE = re.compile(r"\b(?:Version|Release|v)\s*\d+\.\d+", _I)
_XREF = re.compile(r"\b(?:wo (?:wird|werden|steht) .* (?:noch|sonst|auch)|wo sonst|andere[nr]? Dokumente?|"
                   r"Querverweis\w*|verwandte Abschnitte|cross[- ]?ref\w*|related (?:sections|documents)|"
                   r"where else|other documents|mentioned elsewhere|elsewhere)\b", _I)
# the words of a cross-reference question that are not its topic
_XREF_WORDS = re.compile(r"\b(?:wo|wird|werden|steht|stehen|noch|sonst|auch|überall|erwähnt|behandelt|"
                         r"angesprochen|andere[nr]?|Dokumente?n?|Querverweis\w*|verwandte|Abschnitte|"
                         r"where|else|elsewhere|mentioned|discussed|covered|other|documents?|"
                         r"cross[- ]?ref\w*|related|sections?)\b", _I)
_ORDINALS = {"erste": "1", "ersten": "1", "zweite": "2", "zweiten": "2", "dritte": "3", "dritten": "3",
             "vierte": "4", "vierten": "4", "fünfte": "5", "fünften": "5", "letzte": "last",
             "letzten": "last", "first": "1", "second": "2", "third": "3", "fourth": "4",
             "fifth": "5", "last": "last"}
_SECTION = [
    (re.compile(r"\bTOP\s*(\d+)", _I), "TOP {}"),
    (re.compile(r"\bagenda item\s*(\d+)", _I), "Agenda item {}"),
    (re.compile(r"\bTagesordnungspunkt\s*(\d+)", _I), "TOP {}"),
    (re.compile(r"§\s*(\d+\w?)"), "§ {}"),
    (re.compile(r"\b(?:Anlage|Anhang|Appendix|Annex)\s+(\d+)", _I), None),
    (re.compile(r"\b(?:Kapitel|Abschnitt|Chapter|Section|Teil|Part|Punkt)\s+(\d+(?:\.\d+)*)", _I), "{}"),
    (re.compile(r"\b(?:das|den|dem|des|the)\s+(erste|ersten|zweite|zweiten|dritte|dritten|vierte|vierten|"
                r"fünfte|fünften|letzte|letzten|first|second|third|fourth|fifth|last)\s+"
                r"(?:Kapitels?|Abschnitts?|chapter|section|Teils?|part)\b", _I), "ordinal"),
]
# "the section on working from abroad", "den Abschnitt über Abfälle": a section named by its
# title (found by the words in its label, backend/analysis/service.find_section)
_SECTION_ON = re.compile(
    r"\b(?:section|chapter|part)\s+(?:on|about|titled|called|headed)\s+[\"“‘']?(?P<t>.+?)[\"”’']?"
    r"(?=\s+(?:in|of)\s+(?:the\b|this\b|that\b|[A-Z])|\s+(?:say|says|state|states|contain|"
    r"contains|mean|means|cover|covers)\b|[?.!,;:]|$)"
    r"|\b(?:Abschnitt|Kapitel|Teil)\s+(?:über|zu[mr]?|namens|mit dem Titel)\s+"
    r"(?:(?:den|die|das|dem)\s+)?[„\"']?(?P<d>.+?)[“\"']?"
    r"(?=\s+(?:in|im|des|der|aus|vom|von)\s+|[?.!,;:]|$)", _I)
# the words after a section number ("Abschnitt 3.1 Energetische Modernisierung des …"): its
# title, tried when the number is not a section of the document
_SECTION_TITLE = re.compile(
    r"\b(?:Kapitel|Abschnitt|Chapter|Section|Teil|Part|Punkt)\s+\d+(?:\.\d+)*\s+[„\"“]?"
    r"(?P<t>(?!(?:zusammen|des|der|im|in|of|from)\b)[^\s,.;:?!]+"
    r"(?:\s+(?!(?:des|der|im|in|aus|vom|von|of|in|from|zusammen)\b)"
    r"[^\s,.;:?!]+){0,3})", _I)


def section_title(q: str) -> str | None:
    """The title words a question gives after a section number, if any."""
    m = _SECTION_TITLE.search(q)
    return m.group("t").strip("„“\"") if m else None


def _section(q: str) -> str | None:
    m = _SECTION_ON.search(q)
    if m:
        return (m.group("t") or m.group("d")).strip()
    for rx, fmt in _SECTION:
        m = rx.search(q)
        if not m:
            continue
        if fmt is None:
            return m.group(0).split()[0].capitalize() + " " + m.group(1)
        if fmt == "ordinal":
            return _ORDINALS[m.group(1).lower()]
        return fmt.format(m.group(1))
    return None


# Words that carry no topic: question words, articles, auxiliaries and the verbs analysis
# questions are phrased with ("Welche Fristen *stehen* im Protokoll?", "are there").
_FUNCTION_WORDS = frozenset([
    "welche", "welcher", "welches", "welchen", "was", "wer", "wen", "wem", "wann", "wo", "wie",
    "gibt", "es", "gab", "gab's", "hat", "haben", "hatte", "ist", "sind", "war", "waren",
    "wird", "werden", "wurde", "wurden", "worden", "stehen", "steht", "standen", "stand",
    "enthalten", "enthält", "genannt", "erwähnt", "aufgeführt", "festgelegt", "getroffen",
    "noch", "alle", "aller", "allen", "bitte", "mir", "mal", "zeig", "zeige", "liste", "nenne",
    "nenn", "der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "einem",
    "einen", "im", "in", "am", "an", "auf", "aus", "bei", "für", "von", "vom", "zu", "zum",
    "zur", "über", "unter", "mit", "nach", "seit", "bis", "und", "oder", "sowie", "dazu",
    "darin", "dort", "hier", "dieser", "diese", "dieses", "diesem", "diesen", "es", "sich",
    "man", "uns", "unser", "unsere", "dokument", "dokuments", "dokument", "which", "what",
    "who", "whom", "when", "where", "how", "is", "are", "was", "were", "be", "been", "being",
    "has", "have", "had", "do", "does", "did", "there", "here", "any", "all", "still", "please",
    "me", "show", "list", "give", "tell", "the", "a", "an", "of", "in", "on", "at", "to", "for",
    "from", "by", "about", "with", "into", "under", "during", "and", "or", "this", "that",
    "these", "those", "it", "its", "they", "we", "our", "us", "document", "documents",
    "meeting", "me", "mention", "mentions", "mentioned", "name", "names", "named", "contain",
    "contains", "contained", "include", "includes", "included", "list", "listed", "describe",
    "describes", "described", "nennt", "nennen", "erwähnen", "erwähnt", "beschreibt",
    "beschrieben", "enthält", "items", "item", "points", "punkte", "things", "dinge",
    # verbs and particles of list questions (issue 22: "vergeben", "came out", "gefasst")
    "came", "come", "out", "remain", "remains", "remaining", "before", "after", "vergeben",
    "verteilt", "gefasst", "getroffen", "stellt", "stellen", "macht", "machen", "laut",
    "according", "taken", "made", "make", "owns", "own", "them", "their", "whom", "whose",
    "dabei", "listed", "lists", "gives", "give", "nennt", "vorgesehen", "festgehalten",
    "angesprochen", "besprochen", "discussed", "raised", "recorded", "set", "there", "sind",
    "vor", "hin", "nach", "jeweils", "each", "every", "jede", "jeder", "welchem", "welcher",
])
# a full date names the meeting ("am 12. März 2024"), not a topic of its items
_MONTH = (r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|"
          r"Dezember|January|February|March|May|June|July|October|December)")
_DATE = re.compile(r"\b(?:am|vom|on|of|from)?\s*\d{1,2}\.?\s*" + _MONTH +
                   r"\w*\s*\d{4}\b|\b\d{4}-\d{2}-\d{2}\b", _I)
# Questions after one fact ("Wann ist die Frist für …?", "What is the due date of A-24-07?"):
# with a topic, passages answer them better than a list of items.
_FACT_Q = re.compile(r"^\s*(?:bis wann|wann|wie (?:viele?|hoch|lange|oft)|when|how (?:many|much|long|"
                     r"often|soon)|what (?:is|was) the|was (?:ist|war) (?:die|der|das)|wer (?:ist|war)|"
                     r"who (?:is|was)|wer (?:hat|haben|hatte|hatten)|who (?:has|have|had|approved|"
                     r"signed))\b", _I)
_SPECIFIC_WORDS = 2  # more topic words than this: a specific question, left to retrieval
_WORD = re.compile(r"[\wäöüÄÖÜß][\w./:-]*[\wäöüÄÖÜß]|[\wäöüÄÖÜß]", re.UNICODE)


def _residual(q: str, named: Sequence[DocCandidate], patterns: Sequence[re.Pattern]) -> list[str]:
    """The question's topic words: what is left after the analysis cues, question words,
    document, section and version references and function words are taken out."""
    rest = _DATE.sub(" ", q)
    for rx in patterns:
        rest = rx.sub(" ", rest)
    doc_words = set()
    for d in named:
        doc_words |= _tokens(d.title) | _tokens(re.sub(r"[_.-]", " ", d.filename.rsplit(".", 1)[0]))
    out = []
    for w in _WORD.findall(rest):
        lw = w.lower().strip(".:-/")
        if not lw or lw in _FUNCTION_WORDS or lw in _STOP or len(lw) < 2 and not lw.isdigit():
            continue
        if any(t in lw or lw in t for t in doc_words if len(lw) >= 4):
            continue
        out.append(w.strip(".:-/"))
    return out


# a month or a year names when the meeting was ("im Mai 2025"), seldom a topic: not counted
# as a topic word for `_SPECIFIC_WORDS` (kept in the topic: the items may have it)
_WHEN = re.compile(rf"(?:{_MONTH}|\d{{4}})", _I)


def explain(question: str, documents: Sequence[DocCandidate] = (),
            verbs: Callable[[str], bool] | None = None) -> tuple[Intent | None, str]:
    """The intent of a question and why (for the query-debug trace), or (None, why not).
    `verbs(word)`: whether a topic word is a form of a verb and no noun (the dictionary's;
    the chat's route passes it): such verbs are the question's phrasing ("gelten", "fasste",
    "impose") and do not make a question specific; the handler drops any verb form no item
    has (backend/answer/topic.py)."""
    q = " ".join(question.split())
    if not q:
        return None, "empty question"
    url = _URL.search(q)
    if url:  # issue 22: "Fasse diese Seite zusammen: https://… und nenne …" is no summary
        return None, (f"URL in the question ({url.group(0)}): answered from passages (the "
                      "page counts only if it was crawled or uploaded), not from the analysis")
    extract_cues, doc_types, singular_cues = _cues()
    section = _section(q)
    named = named_documents(q, documents)
    doc_type = next((t for t, rx in doc_types if rx.search(q)), None)
    if len(named) > 1 and doc_type:  # "im Lumen-Handbuch": the named one of that kind
        named = [d for d in named if d.doc_type in DOC_KINDS[doc_type]] or named
    doc = named[0].id if len(named) == 1 else None
    doc_why = ""
    if doc is not None:
        doc_why = f"document {doc} named in the question"
    elif named:
        doc_why = f"documents {', '.join(str(d.id) for d in named)} named in the question"
    elif doc_type:
        same = [d for d in documents if d.doc_type in DOC_KINDS[doc_type]]
        if len(same) == 1:
            doc, doc_why = same[0].id, f"the only {doc_type} document"
    length = "short" if _SHORT.search(q) else "long" if _LONG.search(q) else "medium"
    base = {"document": doc, "doc_type": doc_type, "section": section, "length": length,
            "named": tuple(d.id for d in named) if doc is None and len(named) > 1 else ()}
    suffix = f"; {doc_why}" if doc_why else ""

    vm = _VERSIONS.search(q)
    versioned = vm or re.search(r"\b(?:Version|Fassung|version|revision)\w*\b", q) or (
        doc is not None and not _FACT_Q.search(q) and _CHANGE_VERB.search(q)
        and not _two_documents(q, documents)[1:])  # "Was hat sich in X geändert?"
    if _CHANGE.search(q) and versioned and not (_RELEASE.search(q) and not vm):
        a, b = (int(vm.group(1)), int(vm.group(2))) if vm and vm.group(2) else (None, None)
        if vm and not vm.group(2):
            a = int(vm.group(1))
        why = f"change wording ({_CHANGE.search(q).group(0)!r}) + version reference" + suffix
        return Intent("compare_versions", versions=(a, b), reason=why, **base), why
    pair = _two_documents(q, documents) if _CHANGE.search(q) else []
    if len(pair) == 2:
        why = f"change wording + two named documents ({pair[0].id}, {pair[1].id})"
        return Intent("compare_documents", document=pair[0].id, document_b=pair[1].id,
                      doc_type=doc_type, reason=why), why
    if _XREF.search(q):
        topic = _residual(q, [], [_XREF_WORDS, _QUESTIONISH])
        why = f"cross-reference wording ({_XREF.search(q).group(0)!r})"
        return Intent("cross_reference", topic=" ".join(topic) or None, reason=why,
                      **base), why
    if _SUMMARY.search(q) and not _summary(q):
        return None, (f"summary word ({_SUMMARY.search(q).group(0)!r}) without a request "
                      "for a summary: passages answer it")
    if _summary(q):
        why = f"summary wording ({_summary(q).group(0)!r})" + (
            f" + section {section!r}" if section else "") + suffix
        return Intent("summarize", reason=why, **base), why
    hits = [(name, rx.search(q)) for name, rx in extract_cues]
    found = tuple(name for name, m in hits if m)
    if not found:
        change = _CHANGE.search(q)  # "How do A's results compare to B's?": one keyword
        return None, ("no analysis wording (decisions, actions, deadlines, summary, changes …)"
                      + (f"; the change word {change.group(0)!r} alone, without two named "
                         "documents or a version reference, is no intent" if change else ""))
    if not _QUESTIONISH.search(q):
        return None, "analysis wording, but not a question or request"
    cues = [m.group(0) for _, m in hits if m]
    topic = _residual(q, named, [rx for _, rx in extract_cues] + [
        _QUESTIONISH, _SHORT, _LONG, _VERSIONS, _OPEN, _SECTION_ON] + [rx for _, rx in doc_types]
        + [rx for rx, _ in _SECTION])
    content = [t for t in topic if not _WHEN.fullmatch(t) and not (verbs and verbs(t))]
    if len(content) > _SPECIFIC_WORDS:
        return None, (f"a specific question ({len(content)} topic words besides the cue "
                      f"{cues[0]!r}: {', '.join(content[:6])}): passages answer it better")
    if topic and all(c.lower() in singular_cues for c in cues):
        return None, (f"a question after one item ({cues[0]!r} … {' '.join(topic)}): passages "
                      "answer it better")
    if topic and _FACT_Q.search(q):
        return None, (f"a question after one fact ({_FACT_Q.search(q).group(0).strip()!r} … "
                      f"{' '.join(topic)}): passages answer it better")
    status = "open" if _OPEN.search(q) else None
    why = "cue: " + ", ".join(cues) + (f"; topic: {' '.join(topic)}" if topic else "") + suffix
    return Intent("extract", extractors=found, status=status, topic=" ".join(topic) or None,
                  reason=why, matched=tuple(cues), **base), why


def _summary(q: str):
    """The match of a request for a summary (a verb, or a request for the noun), or None."""
    return _SUMMARY_VERB.search(q) or _SUMMARY_NOUN.search(q)


_OPEN = re.compile(r"\b(?:offen\w*|open|outstanding|ausstehend\w*|unerledigt\w*|pending)\b", _I)


def has_cue(question: str) -> bool:
    """Whether a question has any analysis wording at all: a cheap test before the
    documents are loaded (most chat questions stop here)."""
    q = " ".join(question.split())
    return bool(q) and any(rx.search(q) for rx in
                           [_SUMMARY, _CHANGE, _XREF] + [rx for _, rx in _cues()[0]])


def recognise(question: str, documents: Sequence[DocCandidate] = ()) -> Intent | None:
    """The analysis a question asks for, or None: "retrieve passages" (see explain)."""
    return explain(question, documents)[0]
