"""Everything ragscope writes under the data dir is private to the user who runs it:
folders 0700, files 0600, whatever the umask.

- `ensure_private_data_dir(settings)` (called by `Settings.ensure_dirs`, i.e. whenever a
  `Ragscope` is built) creates the data dir, `originals/` and the embedded index folders 0700
  and the SQLite file 0600 before SQLite, Chroma or tantivy touch them. SQLite creates its
  `-wal`/`-shm` files with the permissions of the database file, so they are 0600 too.
- Files inside the index folders are written by native code (Chroma, tantivy) with the
  process umask; the 0700 folder above them keeps them private. The CLI (and so
  `python -m backend up`, which starts the dashboard) also runs with umask 077.
- A data dir made by an older version (group/world bits set) is tightened once, on open:
  its own entries are set to 0700/0600, logged once per process.
- `write_private` writes a file atomically with mode 0600 (originals)."""
from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
PRIVATE_UMASK = 0o077
# What ragscope itself keeps in the data dir; only these are tightened (recursively), so a
# data dir pointed at a shared folder never gets foreign files chmod-ed.
OWN_ENTRIES = ("ragscope.db", "ragscope.db-wal", "ragscope.db-shm", "ragscope.db-journal",
               "originals", "chroma", "keyword", "auth", "models")
_tightened: set[str] = set()


def ensure_private_data_dir(settings) -> None:
    data_dir = Path(settings.data_dir)
    loose = data_dir.exists() and _loose(data_dir)
    make_private_dir(data_dir)
    if loose:
        tighten(data_dir)
    dirs = [settings.originals_dir]
    if not settings.chroma_url:
        dirs.append(settings.chroma_dir)
    if settings.keyword_backend == "tantivy":
        dirs.append(settings.keyword_dir)
    for d in dirs:
        make_private_dir(d)
    db = settings.sqlite_path
    if db is not None and db.parent.is_dir() and not db.is_symlink():
        touch_private(db)
        for suffix in ("-wal", "-shm", "-journal"):
            extra = db.with_name(db.name + suffix)
            if extra.exists():
                _chmod(extra, FILE_MODE)


def make_private_dir(path: Path) -> None:
    """Create a folder with mode 0700 (its missing parents with the default mode), or set
    an existing one to 0700."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        pass
    _chmod(path, DIR_MODE)


def touch_private(path: Path) -> None:
    """Create an empty file with mode 0600 if it does not exist; set an existing one to 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (temporary file, then rename), mode 0600."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                 FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # a stale .tmp left by a crash may have had another mode
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
    finally:
        if fd >= 0:
            os.close(fd)
    os.replace(tmp, path)


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Run a block with umask 077 (files 0600, folders 0700 unless created otherwise):
    the CLI wraps every command in it, so native code (Chroma, tantivy) and the dashboard
    started by `up` (the umask is inherited by exec) create nothing readable by others."""
    old = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(old)


def tighten(data_dir: Path) -> int:
    """Set ragscope's own entries in the data dir to 0700 (folders) / 0600 (files),
    recursively, without following symlinks. Returns how many modes were changed."""
    data_dir = Path(data_dir)
    changed = 0
    for name in OWN_ENTRIES:
        top = data_dir / name
        if not top.exists() or top.is_symlink():
            continue
        stack = [top]
        while stack:
            p = stack.pop()
            try:
                st = p.lstat()
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                changed += _fix(p, st, DIR_MODE)
                with contextlib.suppress(OSError):
                    stack.extend(p.iterdir())
            elif stat.S_ISREG(st.st_mode):
                changed += _fix(p, st, FILE_MODE)
    key = str(data_dir.resolve())
    if key not in _tightened:
        _tightened.add(key)
        log.warning("data dir %s was readable by other users; made it private (0700) and "
                    "tightened %d files and folders in it to 0600/0700", data_dir, changed)
    return changed


def _loose(path: Path) -> bool:
    try:
        return bool(stat.S_IMODE(path.stat().st_mode) & 0o077)
    except OSError:
        return False


def _fix(path: Path, st: os.stat_result, mode: int) -> int:
    if stat.S_IMODE(st.st_mode) & 0o077:
        return _chmod(path, stat.S_IMODE(st.st_mode) & ~0o077 | (mode & 0o700))
    return 0


def _chmod(path: Path, mode: int) -> int:
    try:
        if stat.S_IMODE(path.stat().st_mode) == mode:
            return 0
        os.chmod(path, mode)
        return 1
    except OSError as e:  # not the owner (a shared folder): say so, do not fail
        log.warning("could not make %s private (mode %o): %s", path, mode, e.strerror)
        return 0
