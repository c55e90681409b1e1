"""Git repositories as a source: `python -m backend ingest-git URL_OR_PATH [--branch B]
[--subpath P] --collection C` (docs/ingestion.md, "Git repositories").

Files are read from the repository's object database at one commit (`git ls-tree`, `git
cat-file`), never from a checkout: nothing is materialised on disk, so a symlink in the
repository is only a blob holding its target and is never followed (one pointing outside
the repository is *refused*, one inside *skipped*, as folder walks do; docs/security.md).
A local repository is read in place (its path goes through the PathPolicy like any folder:
never the data dir or a system path); a URL is cloned bare into `<data_dir>/git/` once and
fetched on later runs.

Per file: hidden paths, `.gitignore`d paths (also tracked ones), submodules, unsupported
types, files over `git_max_file_mb` (judged by the size git records, before reading) and
binary content are skipped with their reason. A re-sync compares the branch's commit with
the last one synchronised (nothing to do when equal) and each file's blob id with the one
ingested: only changed files are read and become new versions; files gone from the
repository (or now skipped) have their documents archived."""
from __future__ import annotations

import logging
import posixpath
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Callable

from sqlalchemy import select

from backend.ingest.git_repo import Entry, GitError, Repository
from backend.ingest.extract import file_format, is_supported
from backend.ingest.identity import Identity
from backend.ingest.records import IngestItem, IngestOutcome, IngestProgress
from backend.store.git_models import GitFile, GitSource
from backend.store.models import utcnow

log = logging.getLogger(__name__)
_BINARY_FORMATS = ("pdf", "docx", "odt", "png", "jpeg", "tiff")
MIB = 1024 * 1024


@dataclass
class GitEvent:
    path: str
    outcome: str  # new | changed | unchanged | archived | skipped | refused | failed
    reason: str = ""
    document_id: int | None = None


@dataclass
class GitSyncReport:
    source_id: int
    commit: str
    previous: str
    events: list[GitEvent] = field(default_factory=list)
    up_to_date: bool = False

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.events:
            out[e.outcome] = out.get(e.outcome, 0) + 1
        return out

    @property
    def ok(self) -> bool:
        return not any(e.outcome in ("failed", "refused") for e in self.events)


# ---- the rules for files ------------------------------------------------------------------


class Ignore:
    """The repository's .gitignore files (each applies below its folder)."""

    def __init__(self, repo: Repository, entries: list[Entry]):
        import pathspec

        self.specs: list[tuple[str, object]] = []
        for e in entries:
            if PurePosixPath(e.path).name == ".gitignore" and e.mode.startswith("100") \
                    and e.size < MIB:
                lines = repo.read(e.blob).decode("utf-8", "replace").splitlines()
                base = posixpath.dirname(e.path)
                self.specs.append((base, pathspec.GitIgnoreSpec.from_lines(lines)))

    def ignored(self, path: str) -> str | None:
        for base, spec in self.specs:
            if base and not path.startswith(base + "/"):
                continue
            rel = path[len(base) + 1:] if base else path
            if spec.match_file(rel):
                return f"{base}/.gitignore" if base else ".gitignore"
        return None


def judge(e: Entry, ignore: Ignore, max_bytes: int, repo: Repository) -> tuple[str, str] | None:
    """(outcome, reason) for a file that is not read; None for one to ingest."""
    parts = PurePosixPath(e.path).parts
    if any(p.startswith(".") for p in parts):
        return "skipped", "hidden (a path part starts with '.')"
    if e.mode == "160000":
        return "skipped", "submodule (not followed)"
    if e.mode == "120000":
        target = repo.read(e.blob).decode("utf-8", "replace")
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(e.path), target))
        if target.startswith("/") or joined == ".." or joined.startswith("../"):
            return "refused", f"symlink to {target}, a target outside the repository (not followed)"
        return "skipped", (f"symlink to {joined} within the repository (not followed; files "
                           "are ingested under their own path)")
    if not e.mode.startswith("100"):
        return "skipped", f"not a file (mode {e.mode})"
    if (where := ignore.ignored(e.path)) is not None:
        return "skipped", f"ignored by {where}"
    if not is_supported(PurePosixPath(e.path).name):
        ext = PurePosixPath(e.path).suffix.lower()
        return "skipped", f"unsupported file type '{ext}'" if ext else "unsupported file (no extension)"
    if e.size > max_bytes:
        return "skipped", (f"{e.size / MIB:.1f} MiB, over the limit of {max_bytes / MIB:g} MiB "
                           "(RAGSCOPE_GIT_MAX_FILE_MB); not read")
    if e.size == 0:
        return "skipped", "empty file"
    return None


# ---- synchronising --------------------------------------------------------------------------


class GitSync:
    def __init__(self, ingestor, source: str, *, collection: str, branch: str | None = None,
                 subpath: str | None = None, scope=None):
        if not collection or not collection.strip():
            raise GitError(source, "a collection is needed (--collection)")
        self.ingestor, self.rs, self.store = ingestor, ingestor.rs, ingestor.store
        self.settings = ingestor.settings
        self.source, self.collection = source, collection.strip()
        self.scope = scope  # what the caller may read: deduplication stays inside it
        self.branch = (branch or "").strip()
        self.subpath = (subpath or "").strip().strip("/")
        if ".." in PurePosixPath(self.subpath).parts:
            raise GitError(source, f"--subpath {subpath} leaves the repository")

    def run(self, *, force: bool = False,
            on_progress: Callable[[IngestProgress], None] | None = None,
            ) -> GitSyncReport:
        repo = Repository(self.rs, self.source, self.branch)
        src_id, previous, known = self._source(repo.key)
        commit = repo.commit()
        report = GitSyncReport(src_id, commit, previous)
        if commit == previous and not force:
            report.up_to_date = True
            return report
        self.ingestor.check_guardrails()
        entries = repo.entries(commit, self.subpath)
        if len(entries) > self.settings.git_max_files:
            raise GitError(self.source, f"{len(entries)} files at {commit[:12]}, over the limit of "
                           f"{self.settings.git_max_files} (RAGSCOPE_GIT_MAX_FILES); use --subpath")
        ignore = Ignore(repo, entries)
        max_bytes = int(self.settings.git_max_file_mb * MIB)
        to_read: list[Entry] = []
        present: set[str] = set()
        for e in entries:
            verdict = judge(e, ignore, max_bytes, repo)
            if verdict is not None:
                report.events.append(GitEvent(e.path, *verdict))
                continue
            present.add(e.path)
            k = known.get(e.path)
            if k is not None and k.blob == e.blob and k.state == "active" and not force:
                report.events.append(GitEvent(e.path, "unchanged", "same blob",
                                              k.document_id))
                continue
            to_read.append(e)
        read: list[Entry] = []  # in the order handed to the ingestion

        def items():
            """Blobs are read one at a time, while the previous ones are ingested: a large
            repository is never held in memory at once."""
            for e in to_read:
                item = self._item(repo, e, commit)
                if isinstance(item, GitEvent):  # binary content: not a document
                    report.events.append(item)
                    present.discard(e.path)
                    continue
                read.append(e)
                yield item

        outs = self.ingestor.ingest_many(items(), total=len(to_read),
                                         collection=self.collection, source_kind="git",
                                         on_progress=on_progress, scope=self.scope)
        for e, out in zip(read, outs):
            report.events.append(self._event(e, out, known.get(e.path)))
        self._archive_gone(known, present, report)
        self._save(src_id, commit, read, outs)
        return report

    def _item(self, repo: Repository, e: Entry, commit: str) -> IngestItem | GitEvent:
        name = PurePosixPath(e.path).name
        data = repo.read(e.blob)
        if file_format(name) not in _BINARY_FORMATS and b"\0" in data[:8192]:
            return GitEvent(e.path, "skipped", "binary content (NUL bytes) in a text-like file")
        uri = f"git:{repo.key}#{self.branch or 'HEAD'}:{e.path}"
        return IngestItem(name, data=data, source_uri=uri, title=e.path,
                          meta={"path": e.path, "repository": repo.key,
                                "branch": self.branch or "HEAD", "commit": commit,
                                "blob": e.blob},
                          identity=Identity.new_document())

    @staticmethod
    def _event(e: Entry, out: IngestOutcome, known) -> GitEvent:
        if not out.ok:
            return GitEvent(e.path, "failed", out.error or "", out.document_id)
        outcome = {"new": "new", "new_version": "changed", "duplicate": "linked",
                   "unchanged": "unchanged"}.get(out.status, out.status)
        if outcome == "new" and known is not None:
            outcome = "changed"
        return GitEvent(e.path, outcome, out.note or "", out.document_id)

    def _archive_gone(self, known: dict, present: set[str], report: GitSyncReport) -> None:
        from backend.crawl.archive import archive_document

        for path, k in known.items():
            if path in present or k.state == "gone":
                continue
            if self.subpath and not (path == self.subpath or path.startswith(self.subpath + "/")):
                continue
            archived = k.document_id is not None and archive_document(
                self.ingestor, k.document_id, f"{path} is gone from the repository at "
                f"{report.commit[:12]}")
            report.events.append(GitEvent(path, "archived" if archived else "gone",
                                          "no longer in the repository (or now skipped)",
                                          k.document_id))
            with self.store.session() as s:
                row = s.get(GitFile, k.id)
                row.state = "gone"

    # ---- state --------------------------------------------------------------------------

    def _source(self, key: str) -> tuple[int, str, dict[str, GitFile]]:
        with self.store.session() as s:
            src = s.scalar(select(GitSource).where(
                GitSource.url == key, GitSource.branch == self.branch,
                GitSource.subpath == self.subpath, GitSource.collection == self.collection))
            if src is None:
                src = GitSource(url=key, branch=self.branch, subpath=self.subpath,
                                collection=self.collection, last_commit="")
                s.add(src)
                s.flush()
            files = s.scalars(select(GitFile).where(GitFile.source_id == src.id)).all()
            for f in files:
                s.expunge(f)
            return src.id, src.last_commit, {f.path: f for f in files}

    def _save(self, src_id: int, commit: str, read: list[Entry], outs) -> None:
        from backend.crawl.archive import is_archived, restore_document

        with self.store.session() as s:
            rows = {f.path: f for f in s.scalars(select(GitFile).where(GitFile.source_id == src_id))}
            for e, out in zip(read, outs):
                row = rows.get(e.path) or GitFile(source_id=src_id, path=e.path)
                row.blob = e.blob if out.ok else ""
                row.document_id = out.document_id
                row.state = "active" if out.ok else "failed"
                s.add(row)
            src = s.get(GitSource, src_id)
            src.last_commit, src.synced_at, src.last_error = commit, utcnow(), None
        for out in outs:  # a file back after being archived
            if out.ok and out.document_id and is_archived(self.ingestor, out.document_id):
                restore_document(self.ingestor, out.document_id, out.version_id)


def list_sources(store) -> list[dict]:
    with store.session() as s:
        return [{"id": x.id, "url": x.url, "branch": x.branch or "HEAD", "subpath": x.subpath,
                 "collection": x.collection, "commit": x.last_commit[:12],
                 "synced_at": x.synced_at} for x in s.scalars(select(GitSource))]
