"""A small exception hierarchy. The CLI prints them as one line and exits non-zero;
pages show them with st.error."""
from __future__ import annotations


class RagscopeError(Exception):
    """Base of every error ragscope raises on purpose."""


class ConfigError(RagscopeError):
    """A setting has an invalid value."""


class IngestError(RagscopeError):
    """A file could not be ingested. The message names the file and the reason."""

    def __init__(self, filename: str, reason: str):
        self.filename = filename
        self.reason = reason
        super().__init__(f"{filename}: {reason}")


class RepositoryError(IngestError):
    """A Git repository cannot be read: not a repository, unknown branch, git failed."""


class UnsupportedFormat(IngestError):
    """The file's extension or content type is not supported."""


class FileTooLarge(IngestError):
    """The file, or what it expands to (ZIP parts, extracted text), is over a configured
    size limit; the message names the limit and its setting."""


class PathRefused(IngestError):
    """A path must not be ingested: inside the data dir, a system path, a symlink out of
    the ingested folder, or a watched folder outside the allowed roots."""


class ExtractionError(IngestError):
    """The file is corrupt, encrypted, empty or otherwise unreadable."""


class IndexMismatch(RagscopeError):
    """The index was built with other structural parameters; run `reindex`."""


class NotFound(RagscopeError):
    """A document, version, collection or other object does not exist, or lies outside the
    caller's scope (the same error and message: ids outside the scope do not leak)."""


class AccessConfigError(RagscopeError):
    """A request to manage knowledge bases, access groups or memberships is invalid
    (duplicate or empty name, unknown permission or member kind, a non-empty knowledge base
    to delete, ...). Unknown names raise NotFound."""


class StorageFull(RagscopeError):
    """The data dir's file system ran out of space (or quota) while something was written.
    Not a bad file: the batch stops, since every later write would fail the same way."""

    HINT = ("free space on the data dir's file system, then run `python -m backend check "
            "--repair` (what was stored before is kept)")

    def __init__(self, what: str, detail: str):
        self.what = what
        self.detail = detail
        super().__init__(f"the data dir's disk is full ({detail}) while {what}: {self.HINT}")


_FULL_ERRNOS = {28, 122}  # ENOSPC, EDQUOT
_FULL_TEXT = ("database or disk is full", "no space left on device", "disk quota exceeded")


def storage_full(exc: BaseException, what: str) -> StorageFull | None:
    """A StorageFull for `exc` when it (or an exception it was raised from) says the disk is
    full: OSError ENOSPC/EDQUOT, SQLite's "database or disk is full", or the same text in
    an index library's error; None otherwise."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, StorageFull):
            return cur
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.errno in _FULL_ERRNOS:
            return StorageFull(what, cur.strerror or "no space left on device")
        text = str(cur).lower()
        for phrase in _FULL_TEXT:
            if phrase in text:
                return StorageFull(what, phrase)
        cur = cur.__cause__ or cur.__context__
    return None


class BackendUnavailable(RagscopeError):
    """An external service (Elasticsearch, Chroma server, LLM provider) cannot be reached."""


class ProviderUnavailable(BackendUnavailable):
    """An LLM provider cannot be reached or answered with an error."""


class AnalysisError(RagscopeError):
    """A document cannot be analysed (no indexed version, too long, unknown section, ...)."""


class CrawlError(RagscopeError):
    """A crawl, re-crawl or folder sync could not run (bad source, unknown run, ...)."""


class UrlRefused(CrawlError):
    """A URL is refused by the crawl guard: scheme, credentials, or an address that is
    loopback, private, link-local, multicast, reserved or a cloud-metadata endpoint."""

    def __init__(self, url: str, reason: str):
        self.url = url
        self.reason = reason
        super().__init__(f"{url}: refused ({reason})")


class InvalidCrawlSource(CrawlError):
    """A crawl source fails validation; `errors` maps each field to its message."""

    def __init__(self, errors: dict[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


class ChatbotError(RagscopeError):
    """A chatbot action cannot be done (unknown bot, no build to cancel, nothing crawled
    to generate from, ...); the message says why and what to do."""


class InvalidChatbot(ChatbotError):
    """A chatbot configuration fails validation; `errors` maps each field to its message."""

    def __init__(self, errors: dict[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


class TagError(RagscopeError):
    """A tag is invalid (empty, too long, characters outside the allowed set, too many on
    one document); `field` names the request field it came from."""

    def __init__(self, message: str, field: str = "tags"):
        self.field = field
        super().__init__(message)


class FilterError(RagscopeError):
    """A retrieval filter names something that does not exist (an unknown document-type
    category); `field` names the request field."""

    def __init__(self, message: str, field: str):
        self.field = field
        super().__init__(message)
