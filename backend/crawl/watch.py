"""A watched import folder: a source of kind "folder" synchronised like a re-crawl.

Every sync compares the folder with what the source knew: added files are ingested, changed
files (size or modification time differ, and then the content hash) become a new version of
their document, removed files are archived. Documents get source kind "sync" and the file's
absolute path as source URI, so a file ingested by hand earlier is the same document.

The folder is checked again on every run (it may have become a symlink, or the allowed
roots changed), and walked like `ingest` walks folders: symlinks are never followed (one
out of the folder is `refused`, one within it `skipped`, each as an event) and files are
opened without following symlinks (backend/ingest/paths.py).

Added and changed files go through one `Ingestor.ingest_many` call (pipelined batches: the
next files are read and extracted while the current batch is embedded); each file's event
and state are recorded when ingestion reports its outcome."""
from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from backend.security.access import collection_scope
from backend.crawl import runs
from backend.crawl.changes import KnownPage, PageStates
from backend.crawl.runs import Event, Progress
from backend.errors import CrawlError, FileTooLarge, PathRefused
from backend.ingest.identity import AUTO
from backend.ingest.paths import FoundFile
from backend.ingest.records import IngestItem, IngestProgress
from backend.ingest.service import Ingestor
from backend.store.models import utcnow

log = logging.getLogger(__name__)


def _stamp(path: Path) -> str:
    st = path.stat(follow_symlinks=False)
    return f"{st.st_mtime_ns}:{st.st_size}"


@dataclass
class _Changed:
    """A file handed to ingestion: what is recorded once its outcome is known."""
    key: str
    sha: str | None  # None: too large, not read
    stamp: str
    size: int


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
        policy = self.ingestor.rs.path_policy
        self.job_id = runs.begin(self.store, self.run_id, "sync")
        status, error = "interrupted", "stopped by the user or the process"
        try:
            if not folder.is_dir():
                raise CrawlError(f"watched folder {folder} does not exist")
            reason = policy.check_watched(folder)
            if reason is None and folder.resolve() != folder:
                reason = f"{folder} is now a symlink (to {folder.resolve()})"
            if reason:
                raise CrawlError(f"watched folder refused: {reason}")
            self.ingestor.check_guardrails()
            files = policy.find([folder])
            known = self.states.load()
            present: set[str] = set()
            self.total, self.cancelled = len(files), False
            # changed and new files go through one ingest_many call (pipelined batches)
            self.ingestor.ingest_many(self._changed(files, known, present),
                                      collection=self.src.collection, source_kind="sync",
                                      job_id=self.job_id, on_progress=self._ingested,
                                      scope=collection_scope(self.ingestor.rs,
                                                             self.src.collection))
            if self.cancelled:
                status, error = "cancelled", None
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

    def _changed(self, files: list[FoundFile], known: dict[str, KnownPage],
                 present: set[str]) -> Iterator[IngestItem]:
        """Settle unchanged and refused files here; yield the ones to ingest."""
        for found in files:
            if self.cancelled:  # seen when an ingested file's outcome was saved
                return
            key = str(found.path)
            if found.readable:  # a refused path counts as gone: its document is archived
                present.add(key)
                res = self._sync_file(found, key, known.get(key))
            else:
                res = Event(key, found.status, found.reason or "")
            if isinstance(res, IngestItem):
                yield res
            elif self._save([res], key, self.total):
                self.cancelled = True
                return

    def _sync_file(self, found: FoundFile, key: str, known: KnownPage | None
                   ) -> Event | IngestItem:
        self._count("pages")
        try:
            stamp = _stamp(found.path)
            if known is not None and known.usable and known.last_modified == stamp:
                self.states.record(key, self.run_id)
                return Event(key, "unchanged", "same size and modification time",
                             document_id=known.document_id)
            data = self.ingestor.read_found(found)
        except PathRefused as e:
            return Event(key, "refused", e.reason)
        except FileTooLarge:  # recorded as a failed version, like any other file
            return IngestItem(found.name, path=found, source_kind="sync",
                              context=_Changed(key, None, _stamp(found.path), 0))
        except OSError as e:
            return Event(key, "failed", f"cannot read file ({e.strerror})")
        sha = hashlib.sha256(data).hexdigest()
        if known is not None and known.usable and known.content_sha == sha:
            self.states.record(key, self.run_id, last_modified=stamp)
            return Event(key, "unchanged", "same content hash", document_id=known.document_id,
                         size_bytes=len(data))
        return IngestItem(found.name, data=data, source_uri=key, source_kind="sync",
                          meta={"path": key, "watched_folder": self.src.name},
                          identity=AUTO.within(found.root),  # its folder tree's paths
                          context=_Changed(key, sha, stamp, len(data)))

    def _ingested(self, p: IngestProgress) -> None:
        if p.item is None:
            return
        ch: _Changed = p.item.context
        out = p.outcome
        event = self.states.after_ingest(ch.key, out)
        if ch.sha is None:  # too large: failed without being read
            if self._save([event], ch.key, self.total):
                self.cancelled = True
            return
        event.size_bytes = ch.size
        extra = {"changed_at": utcnow()} if event.outcome in ("new", "changed", "restored") else {}
        self.states.record(ch.key, self.run_id, final_url=ch.key, document_id=out.document_id,
                           state="active" if out.ok else "failed",
                           content_sha=ch.sha if out.ok else "", last_modified=ch.stamp, **extra)
        if self._save([event], ch.key, self.total):
            self.cancelled = True

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
