"""Change detection across runs of a source, shared by the web crawler and the watched folder.

A page (or file) is known by its URL within its source, with the content hash, ETag,
Last-Modified and sitemap lastmod seen last time. A re-crawl
- skips the fetch when the sitemap's lastmod is not newer than the one recorded,
- asks with If-None-Match / If-Modified-Since and takes a 304 as unchanged,
- compares the content hash, and ingests only changed content (a new version of the document
  at that URL),
- archives the document of a page that answers 404/410, and — after a complete run — of a
  known page the crawl no longer reached. A document is archived only through the URL it
  was created from; a page merely linked to another URL's document is just marked gone."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import select

from backend.crawl.archive import archive_document, is_archived, restore_document
from backend.crawl.runs import Event
from backend.ingest.dedup import base_source
from backend.ingest.service import Ingestor, IngestOutcome
from backend.store.crawl_models import CrawlPage
from backend.store.models import Document, utcnow

OUTCOME_OF_INGEST = {"new": "new", "new_version": "changed", "duplicate": "linked",
                     "unchanged": "unchanged", "failed": "failed"}
GONE_STATUSES = (404, 410)


@dataclass
class KnownPage:
    url: str
    final_url: str = ""
    document_id: int | None = None
    state: str = "active"
    content_sha: str = ""
    etag: str = ""
    last_modified: str = ""
    sitemap_lastmod: datetime | None = None
    links: list[str] = field(default_factory=list)
    depth: int = 0

    @property
    def usable(self) -> bool:
        """Known with content in the store: conditional requests and lastmod skips apply."""
        return self.state == "active" and self.document_id is not None and bool(self.content_sha)


def _aware(dt: datetime | None) -> datetime | None:
    if dt is not None and dt.tzinfo is None:  # SQLite returns naive datetimes
        return dt.replace(tzinfo=timezone.utc)
    return dt


class PageStates:
    def __init__(self, ingestor: Ingestor, source_id: int):
        self.ingestor = ingestor
        self.store = ingestor.store
        self.source_id = source_id

    def load(self) -> dict[str, KnownPage]:
        with self.store.session() as s:
            rows = s.scalars(select(CrawlPage).where(CrawlPage.source_id == self.source_id))
            return {r.url: KnownPage(r.url, r.final_url, r.document_id, r.state, r.content_sha,
                                     r.etag, r.last_modified, _aware(r.sitemap_lastmod),
                                     list(r.links or []), r.depth) for r in rows}

    def urls_of_run(self, run_id: int) -> set[str]:
        """URLs (and their final URLs) this source's run has already handled."""
        with self.store.session() as s:
            rows = s.execute(select(CrawlPage.url, CrawlPage.final_url).where(
                CrawlPage.source_id == self.source_id, CrawlPage.last_run_id == run_id)).all()
        return {u for row in rows for u in row if u}

    @staticmethod
    def conditional_headers(known: KnownPage | None) -> dict[str, str]:
        if known is None or not known.usable:
            return {}
        h = {}
        if known.etag:
            h["If-None-Match"] = known.etag
        if known.last_modified:
            h["If-Modified-Since"] = known.last_modified
        return h

    @staticmethod
    def unchanged_by_lastmod(known: KnownPage | None, lastmod: datetime | None) -> bool:
        return (known is not None and known.usable and lastmod is not None
                and known.sitemap_lastmod is not None and lastmod <= known.sitemap_lastmod)

    def record(self, url: str, run_id: int, **values) -> None:
        """Insert or update what is known about url (only the given fields change)."""
        with self.store.session() as s:
            row = s.scalar(select(CrawlPage).where(CrawlPage.source_id == self.source_id,
                                                   CrawlPage.url == url))
            if row is None:
                row = CrawlPage(source_id=self.source_id, url=url, links=[])
                s.add(row)
            for k, v in values.items():
                setattr(row, k, v)
            row.last_run_id, row.last_seen_at = run_id, utcnow()

    def after_ingest(self, url: str, out: IngestOutcome) -> Event:
        """The event of an ingest outcome; restores an archived document that is back."""
        outcome = OUTCOME_OF_INGEST.get(out.status, "failed")
        reason = {"new": "new document", "changed": "content changed: new version",
                  "linked": "same content as an existing document: linked",
                  "unchanged": "same content as before"}.get(outcome, out.error or "")
        if out.ok and out.document_id and is_archived(self.ingestor, out.document_id):
            restore_document(self.ingestor, out.document_id, out.version_id)
            outcome, reason = "restored", "back after being archived"
        return Event(url, outcome, reason, document_id=out.document_id)

    def remove(self, page: KnownPage, run_id: int, reason: str) -> Event:
        """A known page is gone: archive its document if the page owns it, else mark it gone."""
        self.record(page.url, run_id, state="gone")
        doc_id = page.document_id
        if doc_id is not None and self._owns(page, doc_id):
            if archive_document(self.ingestor, doc_id, reason):
                return Event(page.url, "archived", reason, document_id=doc_id)
        return Event(page.url, "gone", reason, document_id=doc_id)

    def missing(self, known: dict[str, KnownPage], reached: set[str]) -> list[KnownPage]:
        """Known active pages a complete run did not reach."""
        return [p for u, p in known.items() if p.state == "active" and u not in reached]

    def _owns(self, page: KnownPage, doc_id: int) -> bool:
        with self.store.session() as s:
            doc = s.get(Document, doc_id)
            return doc is not None and base_source(doc.source_uri) in (page.url, page.final_url)
