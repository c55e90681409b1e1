"""URLs in questions (issue 26 item 4, seed 004): "Fasse diese Seite zusammen:
https://example.org/info.html und nenne die maximale Fahrzeughöhe" is answered from that page.

The first URL of a question is fetched through the crawler's own parts — the SSRF guard
(`UrlGuard`, every redirect hop and the connect-time address checked; `crawl_allowed_hosts`
opens chosen hosts), robots.txt (`RobotsCache`, RFC 9309 rules), the fetcher's deadline and
size limit (`crawl_timeout_s`, `crawl_max_response_mb`) and the ingest extractors (HTML or
PDF only) — and its best passages become one separate source, numbered [1] before the
documents' sources: the asker pointed at it, so it ranks first. The page is neither indexed
nor stored as a document; the stored answer keeps it as a `kind: "web"` source (URL, title,
passage, quote; no page image). A refused or failed URL is named with its reason in the
answer's notice and the question is answered from the documents. The retrieval query is the
question without the URL (its tokens match nothing useful). The trace gets a `question URL`
stage. `RAGSCOPE_QUESTION_URLS=off` turns fetching off (the notice says so).

A follow-up question (backend/chat/followup.py decides) after a question whose page was used
reuses that page — not fetched again: the stored web source keeps the page's passages
(`page_passages`, at most KEEP_PASSAGES) — so "Und wie lange ist es geöffnet?" is answered
from the page the previous question named; the trace stage says `outcome: reused`.

The fetch makes one attempt (no retries: the asker waits), so a question waits at most two
crawl timeouts (robots.txt and the page)."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np

from backend.config import Settings
from backend.crawl.fetch import Fetcher, extension_for, filename_for
from backend.crawl.robots import RobotsCache, origin
from backend.errors import IngestError, UrlRefused
from backend.llm.base import Evidence

# A URL as the router sees one (backend/answer/intents.py `_URL`, kept the same here so the
# route and the fetch agree); trailing sentence punctuation is not part of it.
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.I)
_TRAILING = ".,;:!?"
USED_TYPES = (".html", ".pdf")  # what a question's page may be (seed 004: web pages, PDFs)
MAX_PASSAGES = 3  # passages of the page put into its source (each up to chat_source_chars)
KEEP_PASSAGES = 40  # passages kept with the stored web source, for follow-ups to reuse
STAGE = "question URL"


@dataclass
class QuestionPage:
    """What became of a question's URL: fetched (`passages` set) or not (`error` says why)."""

    url: str
    final_url: str = ""
    status: int | None = None
    size: int = 0
    content_type: str = ""
    title: str = ""
    file_type: str = ""  # html or pdf
    passages: list[str] = field(default_factory=list)
    error: str | None = None
    refused: bool = False  # the guard or robots.txt refused it (no page request was made)
    ms: float = 0.0
    reused: bool = False  # the previous question's page, for a follow-up (not fetched again)

    @property
    def used(self) -> bool:
        return self.error is None and bool(self.passages)

    def notice(self) -> str | None:
        if self.used:
            return None
        return (f"The URL {self.url} was not used: {self.error}. The question was answered "
                "from the documents.")

    def stage(self) -> dict:
        """The trace stage, in stored (dict) form."""
        params = {"url": self.url, "final_url": self.final_url or None, "status": self.status,
                  "bytes": self.size, "content_type": self.content_type or None,
                  "title": self.title or None, "passages": len(self.passages),
                  "outcome": "reused" if self.reused and self.used else "fetched"
                  if self.used else "refused" if self.refused else "failed"}
        if self.error:
            params["reason"] = self.error
        note = (f"reused the previous question's page {self.final_url} (a follow-up)"
                if self.reused and self.used else
                f"fetched {self.size:,} bytes (HTTP {self.status}) from {self.final_url}"
                if self.used else f"not used: {self.error}")
        return {"name": STAGE, "ms": round(self.ms, 3), "params": params, "candidates": [],
                "error": None if self.used else self.error, "note": note}


def find_url(question: str) -> str | None:
    """The first URL of a question (`www.x` as https), without trailing punctuation."""
    m = _URL.search(question or "")
    if not m:
        return None
    url = m.group(0).rstrip(_TRAILING)
    return url if url.lower().startswith(("http://", "https://")) else "https://" + url


# What a question says to the page rather than about the subject: "Fasse diese Seite
# zusammen", "laut dieser Seite", "und nenne", "summarise this page", "tell me". Left in, these
# words (which neither the corpus nor the page contains) outweigh the question's subject
# in the answerer's corpus IDF, and it declines.
_PAGE_WORDS = (r"(?:diese[rnms]?|die|der|den|dem|das|this|the|that)\s+(?:Web)?(?:Seite|Site|"
               r"Page|Artikel|Article|Text|Inhalt|PDF|Dokument|Document|Link|URL)\b")
_INSTRUCTION = re.compile(
    r"\b(?:fass\w*\s+" + _PAGE_WORDS + r"\s+(?:\w+\s+){0,2}?zusammen|"
    r"summari[sz]e\s+" + _PAGE_WORDS + r"|(?:auf|in|laut|von|aus|gemäß|on|in|from|"
    r"according\s+to|of)\s+" + _PAGE_WORDS + r"|(?:was|what)\s+(?:steht|says?|is)\s+"
    r"(?:auf|in|on|at)\b|(?:und|and)\s+(?:nenne|nenn|gib|sag|name|give|tell|list)\b(?:\s+mir|"
    r"\s+me|\s+uns|\s+us)?|^\s*(?:bitte\s+|please\s+)?(?:nenne|nenn|name|tell\s+me|"
    r"gib\s+mir)\b)", re.I)

_AT_URL = re.compile(r"(?:\b(?:auf|in|laut|von|aus|gemäß|unter|on|from|at|according\s+to|of|"
                     r"does|sagt)\s+)?\x00(?:\s+(?:says?|sagt|steht))?", re.I)


def without_url(question: str, page: "QuestionPage | None" = None) -> str:
    """The question with its first URL and what it says to the page taken out: the query
    retrieval and the answerer use ("und nenne die maximale Fahrzeughöhe" -> "die maximale
    Fahrzeughöhe"). Nothing left ("Fasse diese Seite zusammen: URL"): the used page's
    title, so the answer is the page's sentence that says what it is about."""
    m = _URL.search(question or "")
    if not m:
        return question
    rest = (question[:m.start()] + " \x00 " +
            question[m.start() + len(m.group(0).rstrip(_TRAILING)):])
    rest = _AT_URL.sub(" ", rest).replace("\x00", " ")
    rest = " ".join(_INSTRUCTION.sub(" ", rest).split()).strip(" :,;-")
    rest = re.sub(r"\s+([?.!,;:])", r"\1", rest)
    if not re.search(r"\w{2,}", rest):
        return page.title if page is not None and page.used and page.title else question
    return rest


def route_reason(url: str) -> str:
    """The router's `why` for a question with a URL (backend/answer/route.py)."""
    return (f"URL in the question ({url}): answered from the fetched page and the passages "
            "(see the 'question URL' stage), not from the analysis")


def fetch(settings: Settings, url: str, *, fetcher: Fetcher | None = None) -> QuestionPage:
    """Fetch and extract a question's URL; never raises for the URL's sake."""
    t0 = time.perf_counter()
    own = fetcher is None
    fetcher = fetcher or Fetcher.from_settings(settings, retries=0)
    try:
        page = _fetch(settings, fetcher, url)
    finally:
        if own:
            fetcher.close()
    page.ms = (time.perf_counter() - t0) * 1000
    return page


def _fetch(settings: Settings, fetcher: Fetcher, url: str) -> QuestionPage:
    page = QuestionPage(url)
    try:
        fetcher.guard.check(url)  # before robots.txt: a refused host gets no request at all
    except UrlRefused as e:
        page.error, page.refused = e.reason, True
        return page
    robots = RobotsCache(fetcher, settings.crawl_user_agent)
    ok, why = robots.allowed(url)
    if not ok:
        page.error, page.refused = f"{why} (robots.txt of {origin(url)})", True
        return page
    res = fetcher.fetch(url)
    page.final_url, page.status, page.size = res.final_url, res.status, len(res.content)
    page.content_type = res.content_type
    if not res.ok:
        page.error, page.refused = res.error or f"unexpected HTTP {res.status}", res.refused
        return page
    if origin(res.final_url) != origin(url):  # redirected to another site: its robots.txt
        ok, why = robots.allowed(res.final_url)
        if not ok:
            page.error, page.refused = f"{why} (robots.txt of {origin(res.final_url)})", True
            return page
    ext = extension_for(res.final_url, res.content_type, res.content)
    if ext not in USED_TYPES:
        page.error = (f"not an HTML page or PDF (Content-Type "
                      f"'{res.content_type or 'none'}')")
        return page
    page.file_type = ext[1:]
    _extract(settings, page, res.content, filename_for(res.final_url, ext))
    return page


def _extract(settings: Settings, page: QuestionPage, data: bytes, filename: str) -> None:
    from backend.ingest.extract import extract
    from backend.ingest.extract.limits import ExtractLimits

    try:
        raw = extract(data, filename, limits=ExtractLimits.from_settings(settings))
    except IngestError as e:
        page.error = f"the page could not be read ({e.reason})"
        return
    page.title = (raw.title or "").strip() or urlsplit(page.final_url).hostname or page.url
    page.passages = passages([b.text for b in raw.blocks], settings.chat_source_chars)


def passages(blocks: list[str], chars: int) -> list[str]:
    """The page's blocks joined into passages of at most `chars` characters (a longer block
    is cut into pieces of that size)."""
    out, cur = [], ""
    for text in (" ".join(b.split()) for b in blocks):
        for piece in (text[i:i + chars] for i in range(0, len(text), chars)):
            if cur and len(cur) + 1 + len(piece) > chars:
                out.append(cur)
                cur = ""
            cur = f"{cur}\n{piece}" if cur else piece
    return out + ([cur] if cur else [])


def best_text(page: QuestionPage, question: str, encoder, k: int = MAX_PASSAGES) -> str:
    """The page's `k` passages closest to the question (embedding cosine), in page order;
    a page of at most `k` passages is used whole."""
    chosen = page.passages
    if len(chosen) > k and encoder is not None:
        qv = np.asarray(encoder.encode_query(question), dtype=np.float32)
        pv = np.asarray(encoder.encode(chosen), dtype=np.float32)
        sims = pv @ qv / (np.linalg.norm(pv, axis=1) * (np.linalg.norm(qv) or 1.0) + 1e-9)
        keep = sorted(np.argsort(-sims)[:k].tolist())
        chosen = [chosen[i] for i in keep]
    return "\n".join(chosen[:k])


def with_page(page: QuestionPage | None, question: str, evidence: list[Evidence],
              sources: list[dict], encoder) -> tuple[list[Evidence], list[dict]]:
    """`evidence` and `sources` with the fetched page as source [1] (the documents' sources
    renumbered after it); unchanged when the page is not used."""
    if page is None or not page.used:
        return evidence, sources
    text = best_text(page, question, encoder)
    score = max((e.score for e in evidence), default=1.0) or 1.0
    host = urlsplit(page.final_url).hostname or ""
    web = Evidence(1, text, page.title, host, None, score)
    shifted = [Evidence(e.n + 1, e.text, e.document, e.section, e.page, e.score)
               for e in evidence]
    src = {"n": 1, "kind": "web", "chunk_id": None, "document_id": None, "title": page.title,
           "filename": "", "version": None, "breadcrumb": host, "section_path": [],
           "page": None, "score": round(float(score), 6), "original_path": None,
           "source_uri": page.final_url, "url": page.final_url, "requested_url": page.url,
           "file_type": page.file_type, "passage": text, "cited": False,
           "page_passages": page.passages[:KEEP_PASSAGES]}
    return [web] + shifted, [src] + [{**s, "n": int(s["n"]) + 1} for s in sources]


def known_with(page: QuestionPage | None, known, floor: float = 0.002):
    """`known(word)` (a word's share of the corpus's chunks: an abstention signal and the
    corpus IDF) with the used page counted: a word the page contains is known, as rare as
    one chunk in 500 (the chat's sample) at least, so a value only the page names is no
    "unknown name" that makes the answerer decline."""
    if page is None or not page.used or known is None:
        return known
    text = " ".join(page.passages).casefold()
    return lambda word: max(known(word), floor if word.casefold() in text else 0.0)


def for_question(settings: Settings, question: str, *, allowed: bool = True
                 ) -> QuestionPage | None:
    """The question's page (fetched, or why not), or None when it names no URL.
    `allowed=False`: the asker's chatbot fetches no URLs (its `question_urls` switch)."""
    url = find_url(question)
    if url is None:
        return None
    if not allowed:
        return QuestionPage(url, error="this chatbot does not fetch URLs in questions",
                            refused=True)
    if not settings.question_urls:
        return QuestionPage(url, error="fetching URLs in questions is off "
                            "(RAGSCOPE_QUESTION_URLS=off)", refused=True)
    return fetch(settings, url)


def carried(turns) -> QuestionPage | None:
    """The page the newest earlier turn's answer used (its stored web source), for a
    follow-up to reuse; None when that answer used no page."""
    src = turns[-1].page if turns else None
    if not src or not src.get("url"):
        return None
    passages = [p for p in (src.get("page_passages") or [src.get("passage") or ""]) if p]
    if not passages:
        return None
    return QuestionPage(src.get("requested_url") or src["url"], final_url=src["url"],
                        title=src.get("title") or "", file_type=src.get("file_type") or "",
                        passages=passages, reused=True)


def note_trace(rs, trace_id: str | None, page: QuestionPage | None) -> None:
    """Put the `question URL` stage after the `route` stage of a stored retrieval trace."""
    if page is None:
        return
    from backend.retrieval.traces import put_stage

    put_stage(rs.store, trace_id, page.stage())
