"""A chatbot's build: crawl its URL into its collection (the crawler ingests, chunks and
embeds every page as it goes) as a persisted background job.

The job is the crawl run `chatbots.crawl_run_id` (crawl_runs + jobs rows): counters,
current URL, frontier and cancel flag are in the store, so `build_progress(slug)` — pages
crawled, chunks embedded, ETA — reads everything back after a page reload and reconnects to
the running build. Cancel lets requests in flight finish (their pages stay); resume continues
from the saved frontier, and identical content is linked, never ingested twice, so a
cancelled and resumed build holds every chunk exactly once."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select

from backend.security.access import Actor
from backend.crawl import runs
from backend.crawl.runs import RESUMABLE, Progress
from backend.errors import ChatbotError, CrawlError
from backend.store.chatbot_models import Chatbot, ChatbotCollection
from backend.store.models import Chunk, CollectionDocument, DocumentVersion, utcnow

ACTIVE = ("queued", "running")


@dataclass
class BuildProgress:
    """What the wizard's build step shows; everything read from the store."""

    status: str  # none | queued | running | cancelled | interrupted | failed | done
    run_id: int | None = None
    pages_done: int = 0
    pages_total: int = 0
    current_url: str = ""
    documents: int = 0  # documents in the bot's collections
    chunks_embedded: int = 0  # indexed chunks of the active versions in the bot's collections
    eta_s: float | None = None
    errors: int = 0
    problem: str | None = None  # why the build gave no content, in words
    error: str | None = None

    @property
    def fraction(self) -> float:
        """Pages done of pages known; never complete while the job still runs (the last
        pages' chunks are being embedded and published after they were fetched)."""
        if self.status == "done":
            return 1.0
        total = max(self.pages_total, self.pages_done)
        return min(0.99, self.pages_done / total) if total else 0.0

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def resumable(self) -> bool:
        return self.status in RESUMABLE


def _aware(t: datetime | None) -> datetime | None:
    return t.replace(tzinfo=UTC) if t is not None and t.tzinfo is None else t


class BuildMixin:
    """Build methods of ChatbotService (self.store, self.crawl, self._row, self.get)."""

    def _chunk_count(self, s, bot_id: int) -> int:
        colls = select(ChatbotCollection.collection_id).where(
            ChatbotCollection.chatbot_id == bot_id)
        docs = select(CollectionDocument.document_id).where(
            CollectionDocument.collection_id.in_(colls))
        return s.scalar(select(func.count(Chunk.id))
                        .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
                        .where(DocumentVersion.is_active.is_(True),
                               DocumentVersion.status == "indexed",
                               Chunk.document_id.in_(docs))) or 0

    def _document_count(self, s, bot_id: int) -> int:
        colls = select(ChatbotCollection.collection_id).where(
            ChatbotCollection.chatbot_id == bot_id)
        return s.scalar(select(func.count(func.distinct(CollectionDocument.document_id)))
                        .where(CollectionDocument.collection_id.in_(colls))) or 0

    def _build_run(self, slug: str) -> tuple[int, int | None, int | None]:
        with self.store.session() as s:
            bot = self._row(s, slug)
            return bot.id, bot.crawl_source_id, bot.crawl_run_id

    def _mark_leg(self, bot_id: int, run_id: int, pages_done: int) -> None:
        with self.store.session() as s:
            bot = s.get(Chatbot, bot_id)
            bot.crawl_run_id, bot.build_started_at = run_id, utcnow()
            bot.build_started_pages = pages_done

    def start_build(self, actor: Actor | None, slug: str, *, background: bool = True,
                    on_progress=None) -> int:
        """Crawl the bot's URL into its collection; returns the run id (at once when
        `background`, else after the crawl)."""
        self._editable(actor, slug)
        self._require_build_writable(actor, slug)
        bot_id, source_id, run_id = self._build_run(slug)
        if source_id is None:
            raise ChatbotError(f"chatbot '{slug}' has no URL to build from; it answers from "
                               "the collections chosen for it")
        runs.mark_interrupted(self.store)
        if run_id is not None and runs.progress(self.store, run_id).status in ACTIVE:
            raise ChatbotError(f"the build of chatbot '{slug}' is already running")
        new_run = self.crawl.prepare(source_id)
        self._mark_leg(bot_id, new_run, 0)
        if background:
            self.crawl._spawn(new_run)
        else:
            self.crawl.execute(new_run, on_progress)
        return new_run

    def cancel_build(self, actor: Actor | None, slug: str) -> None:
        """Stop a running build: no new requests; pages fetched so far stay (with their
        chunks), and the build can be resumed."""
        self._editable(actor, slug)
        self._require_build_writable(actor, slug)
        _bot_id, _src, run_id = self._build_run(slug)
        if run_id is None:
            raise ChatbotError(f"chatbot '{slug}' has no build to cancel")
        try:
            self.crawl.cancel(run_id)
        except CrawlError:
            status = runs.progress(self.store, run_id).status
            raise ChatbotError(f"the build of chatbot '{slug}' is not running ({status})") \
                from None

    def resume_build(self, actor: Actor | None, slug: str, *, background: bool = True,
                     on_progress=None) -> int:
        """Continue a cancelled, failed or interrupted build from its saved frontier."""
        self._editable(actor, slug)
        self._require_build_writable(actor, slug)
        bot_id, _src, run_id = self._build_run(slug)
        if run_id is None:
            raise ChatbotError(f"chatbot '{slug}' has no build to resume; start one")
        runs.mark_interrupted(self.store)
        p = runs.progress(self.store, run_id)
        if p.status not in RESUMABLE:
            raise ChatbotError(f"the build of chatbot '{slug}' is {p.status}; only a "
                               "cancelled, failed or interrupted build can be resumed")
        self._mark_leg(bot_id, run_id, p.pages_done)
        if background:
            self.crawl.resume(run_id, background=True)
        else:
            self.crawl.resume(run_id, on_progress=on_progress)
        return run_id

    def wait_build(self, slug: str, timeout: float | None = None) -> BuildProgress:
        """Wait for this process's background build thread (tests, CLI)."""
        _bot_id, _src, run_id = self._build_run(slug)
        if run_id is not None:
            self.crawl.wait(run_id, timeout)
        return self.build_progress(slug)

    def build_status(self, actor: Actor | None, slug: str) -> BuildProgress:
        """`build_progress` of a bot the actor may edit (the API's build status)."""
        self._editable(actor, slug)
        return self.build_progress(slug)

    def build_progress(self, slug: str) -> BuildProgress:
        runs.mark_interrupted(self.store)  # a build whose process died becomes resumable
        with self.store.session() as s:
            bot = self._row(s, slug)
            run_id, started, start_pages = (bot.crawl_run_id, _aware(bot.build_started_at),
                                            bot.build_started_pages)
            chunks, docs = self._chunk_count(s, bot.id), self._document_count(s, bot.id)
            url = bot.source_url
        if run_id is None:
            return BuildProgress("none", documents=docs, chunks_embedded=chunks)
        p = runs.progress(self.store, run_id)
        total = max(p.pages_total, p.pages_done)
        out = BuildProgress(p.status, run_id, p.pages_done, total, p.current_url, docs, chunks,
                            None, p.errors, None, p.error)
        if p.status in ACTIVE and started is not None and p.pages_done > start_pages:
            elapsed = (utcnow() - started).total_seconds()
            rate = (p.pages_done - start_pages) / max(elapsed, 1e-6)
            out.eta_s = round(max(0, total - p.pages_done) / rate, 1)
        if p.status not in ACTIVE and not chunks:
            out.problem = self._no_content_reason(p, url)
        return out

    def _no_content_reason(self, p: Progress, url: str) -> str:
        if p.status == "failed":
            return f"The build failed: {p.error}"
        if p.status in ("cancelled", "interrupted"):
            return "The build stopped before any page was stored; resume it."
        problems = self.crawl.events(p.run_id, "failed", "refused", "skipped")
        first = next((e for e in problems if e.url.rstrip("/") == url.rstrip("/")), None)
        first = first or (problems[0] if problems else None)
        if first is not None:
            return (f"No page with content could be crawled from {url}: {first.url} — "
                    f"{first.outcome}: {first.reason}")
        return f"No page with content could be crawled from {url} (the site has no pages)."
