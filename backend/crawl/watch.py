"""A watched import folder: a source of kind "folder" synchronised like a re-crawl.

Every sync compares the folder with what the source knew: added files are ingested, changed
files (size or modification time differ, and then the content hash) become a new version of
their document, removed files are archived. Documents get source kind "sync" and the file's
absolute path as source URI, so a file ingested by hand earlier is the same document."""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from backend.crawl import runs
from backend.crawl.changes import KnownPage, PageStates
from backend.crawl.runs import Event, Progress
from backend.errors import CrawlError
from backend.ingest.service import Ingestor, iter_files
from backend.store.models import utcnow

log = logging.getLogger(__name__)


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_mtime_ns}:{st.st_size}"


class FolderSync:
    def __init__(self, ingestor: Ingestor, run_id: int, on_progress=None):
        self.ingestor, self.store, self.run_id = ingestor, ingestor.store, run_id
        _run, self.src = runs.load(self.store, run_id)
        self.states = PageStates(ingestor, self.src.id)
        self.on_progress = on_progress
        self.counters: dict[str, int] = {}
        self.job_id = 0

    def execute(self) -> Progress:
        folder = Path(self.src.start_url)
        self.job_id = runs.begin(self.store, self.run_id, "sync")
        status, error = "interrupted", "stopped by the user or the process"
        try:
            if not folder.is_dir():
                raise CrawlError(f"watched folder {folder} does not exist")
            self.ingestor.check_guardrails()
            files = iter_files([folder])
            known = self.states.load()
            present: set[str] = set()
            for path in files:
                key = str(path.resolve())
                present.add(key)
                event = self._sync_file(path, key, known.get(key))
                if self._save([event], key, len(files)):
                    status, error = "cancelled", None
                    break
            else:
                gone = [self.states.remove(p, self.run_id, "file removed from the folder")
                        for p in self.states.missing(known, present)]
                self._save(gone, "", len(files))
                status, error = "done", None
        except Exception as e:
            log.exception("folder sync %s failed", self.run_id)
            status, error = "failed", f"{type(e).__name__}: {e}"
        finally:
            runs.finish(self.store, self.run_id, status, error)
        return runs.progress(self.store, self.run_id)

    def _sync_file(self, path: Path, key: str, known: KnownPage | None) -> Event:
        self._count("pages")
        try:
            stamp = _stamp(path)
            if known is not None and known.usable and known.last_modified == stamp:
                self.states.record(key, self.run_id)
                return Event(key, "unchanged", "same size and modification time",
                             document_id=known.document_id)
            data = path.read_bytes()
        except OSError as e:
            return Event(key, "failed", f"cannot read file ({e.strerror})")
        sha = hashlib.sha256(data).hexdigest()
        if known is not None and known.usable and known.content_sha == sha:
            self.states.record(key, self.run_id, last_modified=stamp)
            return Event(key, "unchanged", "same content hash", document_id=known.document_id,
                         size_bytes=len(data))
        out = self.ingestor.ingest_bytes(data, path.name, collection=self.src.collection,
                                         source_kind="sync", source_uri=key, job_id=self.job_id,
                                         meta={"path": key, "watched_folder": self.src.name})
        event = self.states.after_ingest(key, out)
        event.size_bytes = len(data)
        extra = {"changed_at": utcnow()} if event.outcome in ("new", "changed", "restored") else {}
        self.states.record(key, self.run_id, final_url=key, document_id=out.document_id,
                           state="active" if out.ok else "failed",
                           content_sha=sha if out.ok else "", last_modified=stamp, **extra)
        return event

    def _count(self, key: str) -> None:
        self.counters[key] = self.counters.get(key, 0) + 1

    def _save(self, events: list[Event], current: str, total: int) -> bool:
        for e in events:
            self._count(e.outcome)
        cancel = runs.save(self.store, self.run_id, events=events, current_url=current,
                           counters=self.counters, frontier=[], seen=[], pages_total=total)
        if self.on_progress is not None:
            self.on_progress(runs.progress(self.store, self.run_id))
        return cancel
