"""Reading a Git repository without a checkout: the git command with a safe environment,
a local repository in place or a bare mirror of a URL under <data_dir>/git/, the tree of a
commit and blobs (backend/ingest/git_source.py uses it; docs/security.md, "Git")."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from backend.errors import PathRefused, RepositoryError

GitError = RepositoryError  # a repository that cannot be read (backend/errors.py)
_URL = re.compile(r"^(https?|ssh|git)://|^[\w.\-]+@[\w.\-]+:")


@dataclass
class Entry:
    path: str  # repository path (posix)
    mode: str
    blob: str
    size: int


# ---- git commands ---------------------------------------------------------------------------


def _env() -> dict:
    """No prompts, no system/global config, no pager; only plain transports."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_ALLOW_PROTOCOL="file:git:http:https:ssh", GIT_PAGER="cat",
               GIT_SSH_COMMAND="ssh -o BatchMode=yes")
    return env


def git(args: list[str], source: str, *, git_dir: Path | None = None, timeout: float = 120,
        text: bool = True, input: bytes | None = None):
    cmd = ["git"] + ([f"--git-dir={git_dir}"] if git_dir else []) + args
    try:
        res = subprocess.run(cmd, capture_output=True, env=_env(), timeout=timeout, input=input)
    except FileNotFoundError:
        raise GitError(source, "the git command is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(source, f"git {args[0]} took longer than {timeout:g} s "
                       "(RAGSCOPE_GIT_TIMEOUT_S)") from None
    if res.returncode != 0:
        msg = " ".join(res.stderr.decode(errors="replace").split())[:300]
        raise GitError(source, f"git {args[0]} failed: {msg}")
    return res.stdout.decode("utf-8", "replace") if text else res.stdout


# ---- the repository -------------------------------------------------------------------------


class Repository:
    """A repository to read: a local one in place, or a bare mirror of a URL."""

    def __init__(self, rs, source: str, branch: str | None):
        self.rs, self.settings = rs, rs.settings
        self.source = source
        self.branch = branch or ""
        self.remote = bool(_URL.match(source)) or source.startswith("file://")
        if not self.remote and "://" in source or source.startswith(("ext::", "fd::")):
            raise GitError(source, "only https, http, ssh, git and file URLs or local paths "
                           "can be ingested")
        self.key = source if self.remote else str(Path(source).expanduser().resolve())
        self.ref = f"refs/heads/{self.branch}" if self.branch else "HEAD"
        self.git_dir = self._local_git_dir() if not self.remote else self._mirror()

    def _local_git_dir(self) -> Path:
        path = Path(self.source).expanduser()
        resolved = path.resolve()
        reason = self.rs.path_policy.refusal(resolved)
        if reason:
            raise PathRefused(self.source, reason)
        if not resolved.is_dir():
            raise GitError(self.source, "no such folder")
        try:
            out = _rev_parse(resolved, self.source)
        except GitError:
            raise GitError(self.source, "not a Git repository (no .git folder here or above); "
                           "give the repository's top folder or a URL") from None
        bare, git_dir, top = out
        if not bare and Path(top).resolve() != resolved:
            sub = resolved.relative_to(Path(top).resolve())
            raise GitError(self.source, f"is a folder inside the Git repository {top}; use "
                           f"`ingest-git {top} --subpath {sub.as_posix()}`")
        if bare and Path(git_dir).resolve() != resolved:
            raise GitError(self.source, f"is a folder inside the bare repository {git_dir}")
        return Path(git_dir)

    def _mirror(self) -> Path:
        """Bare clone under <data_dir>/git/<hash>.git; fetched when it exists."""
        url = self.source
        root = self.settings.data_dir / "git"
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = hashlib.sha256(f"{url}#{self.branch}".encode()).hexdigest()[:20]
        dest = root / f"{name}.git"
        t = self.settings.git_timeout_s
        if not (dest / "HEAD").exists():
            args = ["clone", "--bare", "--no-tags", "--single-branch", "--quiet"]
            if self.branch:
                args += ["--branch", self.branch]
            try:
                git(args + ["--", url, str(dest)], url, timeout=t)
            except GitError as e:
                if "not found in upstream" in e.reason or "Remote branch" in e.reason:
                    raise GitError(url, f"has no branch '{self.branch}'") from None
                raise
            return dest
        branch = self.branch or git(["symbolic-ref", "--short", "HEAD"], url, git_dir=dest,
                                    timeout=30).strip()
        git(["fetch", "--quiet", "--no-tags", "--force", "--update-head-ok", "origin",
             f"+refs/heads/{branch}:refs/heads/{branch}"], url, git_dir=dest, timeout=t)
        return dest

    def commit(self) -> str:
        """The commit to read: the branch's tip, else HEAD."""
        try:
            return git(["rev-parse", "--verify", "--quiet", f"{self.ref}^{{commit}}"],
                       self.source, git_dir=self.git_dir).strip()
        except GitError:
            if not self.branch:
                raise GitError(self.source, "the repository has no commits") from None
            names = git(["for-each-ref", "--format=%(refname:short)", "refs/heads"],
                        self.source, git_dir=self.git_dir).split()
            raise GitError(self.source, f"has no branch '{self.branch}' (branches: "
                           f"{', '.join(names) or 'none'})") from None

    def entries(self, commit: str, subpath: str) -> list[Entry]:
        args = ["ls-tree", "-r", "-l", "-z", "--full-tree", commit]
        if subpath:
            args += ["--", subpath]
        out = git(args, self.source, git_dir=self.git_dir, timeout=self.settings.git_timeout_s)
        entries = []
        for rec in out.split("\0"):
            if not rec:
                continue
            meta, _, path = rec.partition("\t")
            mode, _kind, blob, size = meta.split()
            entries.append(Entry(path, mode, blob, int(size) if size.isdigit() else 0))
        return entries

    def read(self, blob: str) -> bytes:
        return git(["cat-file", "blob", blob], self.source, git_dir=self.git_dir, text=False,
                   timeout=self.settings.git_timeout_s)


def _rev_parse(folder: Path, source: str) -> tuple[bool, str, str]:
    out = git(["-C", str(folder), "rev-parse", "--is-bare-repository", "--absolute-git-dir"],
              source, timeout=30).split("\n")
    bare = out[0].strip() == "true"
    git_dir = out[1].strip()
    top = git_dir if bare else git(["-C", str(folder), "rev-parse", "--show-toplevel"], source,
                                   timeout=30).strip()
    return bare, git_dir, top
