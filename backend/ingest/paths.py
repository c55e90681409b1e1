"""Which paths may be ingested, how folders are walked, and how files are opened.

Whatever is ingested becomes readable to every dashboard viewer, so:
- nothing of ragscope's own data is ever ingested: the data dir (database, originals,
  indexes, `auth/` with the cookie key and users.yaml) and a SQLite file kept elsewhere,
  whether named directly, found in a folder or reached through a symlink;
- system paths (`/`, `/etc`, `/proc`, `/root`, `/var/lib`, ... see SYSTEM_PATHS) are never
  ingested, unless a folder named in RAGSCOPE_INGEST_ROOTS lies inside one;
- folders are walked without following any symlink: a symlink whose target lies outside
  the folder (or in the data dir, or a system path) is *refused*, one inside the folder is
  *skipped* (its target is found under its own path anyway); either way with a per-file
  outcome, and the batch goes on. The data dir (or a system path) met as a real sub-folder
  of a walked folder is *skipped* as a whole; named directly, it is *refused*;
- watched folders (folder crawl sources) must also lie inside an allowed root
  (RAGSCOPE_INGEST_ROOTS; default: the working directory and the user's home);
- files are opened from `/` down, one path part at a time with O_NOFOLLOW, so a file or
  folder swapped for a symlink between listing and reading is refused, not followed."""
from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterable, Sequence

from backend.errors import FileTooLarge, PathRefused
from backend.ingest.extract import is_supported

SYSTEM_PATHS = (
    "/etc", "/proc", "/sys", "/dev", "/boot", "/root", "/run", "/var/lib", "/var/log",
    "/var/spool", "/var/mail", "/var/backups", "/var/cache", "/usr", "/bin", "/sbin",
    "/lib", "/lib32", "/lib64", "/libx32", "/snap",
)
_ROOTS_SETTING = "RAGSCOPE_INGEST_ROOTS"
_O_PATH = getattr(os, "O_PATH", os.O_RDONLY)


@dataclass(frozen=True)
class FoundFile:
    """A file to ingest, or one that must not be read (`status` "refused" or "skipped")."""

    path: Path  # as named, or <resolved folder>/<relative path> when found in a folder
    target: Path  # what is opened: the resolved path (no symlink in it when listed)
    root: Path | None = None  # the resolved folder it was found in; None when named directly
    status: str | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def readable(self) -> bool:
        return self.status is None

    @property
    def message(self) -> str:
        return f"{self.path}: {self.reason}"


def _resolve(p: str | Path) -> Path:
    return Path(p).expanduser().resolve()


def _inside(path: Path, base: Path) -> bool:
    return path == base or path.is_relative_to(base)


class PathPolicy:
    """The rules above for one configuration (`from_settings`)."""

    def __init__(self, private: Sequence[Path], roots: Sequence[Path], *, explicit: bool):
        self.private = tuple(_resolve(p) for p in private)
        self.roots = tuple(dict.fromkeys(_resolve(p) for p in roots))
        self.explicit = explicit  # roots named in RAGSCOPE_INGEST_ROOTS (may open system paths)
        self.system = tuple(dict.fromkeys(_resolve(p) for p in SYSTEM_PATHS))

    @classmethod
    def from_settings(cls, settings) -> "PathPolicy":
        named = [x.strip() for x in settings.ingest_roots.split(",") if x.strip()]
        private = [settings.data_dir]
        db = settings.sqlite_path
        if db is not None:
            private += [db.with_name(db.name + s) for s in ("", "-wal", "-shm", "-journal")]
        return cls(private, named or [Path.cwd(), Path.home()], explicit=bool(named))

    # ---- rules --------------------------------------------------------------------------

    def refusal(self, path: Path) -> str | None:
        """Why a resolved path may never be ingested (None: it may)."""
        for p in self.private:
            if _inside(path, p):
                return f"inside ragscope's own data ({p}); never ingested"
        if path == Path(path.anchor):
            return "the file-system root; never ingested"
        for sysdir in self.system:
            if _inside(path, sysdir) and not (self.explicit and any(
                    _inside(r, sysdir) and _inside(path, r) for r in self.roots)):
                return (f"inside {sysdir}, a system path; never ingested unless "
                        f"{_ROOTS_SETTING} names a folder there")
        return None

    def watchable_roots(self) -> list[Path]:
        """The roots a watched folder may lie in: those not refused themselves (for root,
        the default home root /root is a system path and opens nothing, so it is not
        offered: the old message listed it and then refused every folder in it)."""
        return [r for r in self.roots if self.refusal(r) is None]

    def check_watched(self, folder: str | Path) -> str | None:
        """Why a folder may not be watched (a folder crawl source), in the user's words
        (no setting names, no errno); None when it may."""
        resolved = _resolve(folder)
        if not resolved.exists():
            return f"folder {folder} does not exist"
        if not resolved.is_dir():
            return f"{folder} is a file, not a folder"
        if any(_inside(resolved, p) for p in self.private):
            return f"{resolved} holds ragscope's own data and cannot be watched"
        if resolved == Path(resolved.anchor):
            return "/ is the whole file system and cannot be watched"
        sysdir = next((d for d in self.system if _inside(resolved, d)), None)
        if sysdir is not None and self.refusal(resolved):
            return (f"{resolved} is in the system folder {sysdir}, which cannot be watched "
                    "(an administrator can allow a folder there)")
        usable = self.watchable_roots()
        root = next((r for r in usable if _inside(resolved, r)), None)
        if root is None:
            if not usable:
                return ("no folder may be watched on this server yet (an administrator "
                        "chooses the folders)")
            return (f"{resolved} is not in a folder that may be watched: "
                    f"{', '.join(map(str, usable))}")
        if any(part.startswith(".") for part in resolved.relative_to(root).parts):
            return f"{resolved} is a hidden folder (a name in its path starts with '.')"
        return None

    # ---- finding files ------------------------------------------------------------------

    def find(self, paths: Iterable[str | Path | FoundFile]) -> list[FoundFile]:
        """Files named directly, and the files below named folders (sorted per folder), each
        with its refusal if any; hidden files and folders and unsupported files are
        "skipped" with the reason (never read). Entries found before (FoundFile) are kept."""
        out: list[FoundFile] = []
        for p in paths:
            if isinstance(p, FoundFile):
                out.append(p)
                continue
            p = Path(p)
            target = _resolve(p)
            reason = self.refusal(target)
            if reason:
                prefix = "symlink to a target " if p.is_symlink() else ""
                out.append(FoundFile(p, target, status="refused", reason=prefix + reason))
            elif target.is_dir():
                out += sorted(self._walk(target), key=lambda f: f.path)
            else:
                out.append(FoundFile(p, target))
        return out

    def named(self, path: str | Path) -> FoundFile:
        """One file named directly (no folder walk)."""
        p = Path(path)
        target = _resolve(p)
        reason = self.refusal(target)
        if reason:
            prefix = "symlink to a target " if p.is_symlink() else ""
            return FoundFile(p, target, status="refused", reason=prefix + reason)
        return FoundFile(p, target)

    def _walk(self, root: Path) -> list[FoundFile]:
        out: list[FoundFile] = []
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError as e:  # unreadable sub-folder: skipped, with the reason
                if folder != root:
                    out.append(FoundFile(folder, folder, root, "skipped",
                                         f"folder cannot be listed ({e.strerror})"))
                continue
            for e in entries:
                path = Path(e.path)
                try:
                    if e.name.startswith("."):  # never walked; reported so nothing is silent
                        what = "folder" if e.is_dir(follow_symlinks=False) else "file"
                        out.append(FoundFile(path, path, root, "skipped",
                                             f"hidden {what} (the name starts with '.')"))
                        continue
                    if e.is_symlink():
                        out.append(self._symlink(path, root))
                    elif e.is_dir(follow_symlinks=False):
                        reason = self.refusal(path)  # the data dir, /var/lib below /var, ...
                        if reason:
                            out.append(FoundFile(path, path, root, "skipped", reason))
                        else:
                            stack.append(path)
                    elif e.is_file(follow_symlinks=False):
                        reason = self.refusal(path)
                        if reason is None and not is_supported(e.name):
                            ext = path.suffix.lower()
                            reason = (f"unsupported file type '{ext}'" if ext
                                      else "unsupported file (no extension)")
                        out.append(FoundFile(path, path, root, "skipped" if reason else None,
                                             reason))
                    else:  # a named pipe, socket or device: reading could block or never end
                        out.append(FoundFile(path, path, root, "skipped",
                                             f"not a regular file ({_kind(path)})"))
                except OSError:  # vanished while listing
                    continue
        return out

    def _symlink(self, path: Path, root: Path) -> FoundFile:
        """A symlink met while walking `root`: never followed, always reported (a link out
        of the folder is refused whatever its name: `passwd_noext -> /etc/passwd`)."""
        target = _resolve(path)
        reason = self.refusal(target)
        if reason:
            return FoundFile(path, target, root, "refused", "symlink to a target " + reason)
        if not _inside(target, root):
            return FoundFile(path, target, root, "refused",
                             f"symlink to a target outside {root} (not followed)")
        if not path.is_dir() and not is_supported(path.name):
            return FoundFile(path, target, root, "skipped",
                             f"symlink within {root} to an unsupported file (not followed)")
        return FoundFile(path, target, root, "skipped",
                         f"symlink within {root} (not followed; files are ingested under "
                         "their own path)")


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return ("named pipe" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
            else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file")


def open_file(found: FoundFile) -> BinaryIO:
    """Open a found file for reading without following any symlink: the folders of its
    resolved path are opened from `/` down, each with O_NOFOLLOW relative to the one
    before (openat), and the file itself with O_NOFOLLOW. Raises PathRefused when a part
    became a symlink after listing or the file is not a regular file, OSError otherwise."""
    target = found.target
    parts = target.parts
    base = _O_PATH | os.O_DIRECTORY | os.O_CLOEXEC  # O_PATH: search permission suffices
    dir_flags = base | os.O_NOFOLLOW
    fd = os.open(target.anchor or "/", base)
    try:
        for part in parts[1:-1]:
            try:
                nxt = os.open(part, dir_flags, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(part, fd):
                    raise _swapped(found) from None
                raise
            os.close(fd)
            fd = nxt
        try:
            ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                          dir_fd=fd)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _swapped(found) from None
            raise
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(ffd).st_mode):
        os.close(ffd)
        raise PathRefused(found.name, f"{found.path} is not a regular file")
    os.set_blocking(ffd, True)
    return os.fdopen(ffd, "rb")


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _swapped(found: FoundFile) -> PathRefused:
    return PathRefused(found.name, f"{found.path} became a symlink after it was listed "
                       "(not followed)")


def read_found(found: FoundFile, settings) -> bytes:
    """The bytes of a found file (opened without following symlinks), or FileTooLarge."""
    limit = settings.max_upload_bytes
    with open_file(found) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(limit + 1) if size <= limit else b""
    if size > limit or len(data) > limit:
        raise FileTooLarge(found.name, too_large(max(size, len(data)), settings))
    return data


def too_large(size: int, settings) -> str:
    return (f"file is {size / 1048576:.1f} MiB, over the upload limit of "
            f"{settings.max_upload_mb:g} MiB (RAGSCOPE_MAX_UPLOAD_MB)")
