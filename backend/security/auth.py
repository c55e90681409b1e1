"""Users, roles, credentials and login rate limiting for the dashboard. No Streamlit calls
here: the pages call these functions, and so can the tests and a future CLI. Sign-in itself
and the re-login cookie are streamlit-authenticator's (app.py); it gets the credentials from
`UserStore.authenticator_credentials`, and passwords are hashed and checked with its `Hasher`
(imported where needed: importing the package declares Streamlit components).

Everything lives under `<data_dir>/auth/` (mode 0700):
- `users.yaml`   streamlit-authenticator's credentials layout (bcrypt hashes, `roles`) plus a
                 `disabled` flag and `sessions_after` per user: sessions that began at or
                 before that moment (epoch seconds) are over. Sign-out, password reset,
                 disabling and a role change set it to now, which ends every open session and
                 re-login cookie of the user (backend/security/sessions.py).
- `cookie_key`   the secret that signs the re-login cookie; created on first start with
                 `secrets.token_urlsafe`, never a constant.
- `login_limits.json`  failed and in-flight sign-ins per user name and per client, and the
                 back-off of locked ones (backend/security/login_limit.py).

First start (`bootstrap`): no users file yet -> an `admin` user is created with the password
passed in (the dashboard passes RAGSCOPE_ADMIN_PASSWORD) or a generated one that is logged
once. There is no default password."""
from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import bcrypt
import yaml

from backend.errors import RagscopeError

log = logging.getLogger(__name__)
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ROLES = ("viewer", "editor", "admin")  # each role includes the ones before it
COOKIE_NAME = "ragscope_auth"
COOKIE_EXPIRY_DAYS = 7.0
MIN_PASSWORD_LEN = 10
_USERNAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,31}$")

# What each action needs. Pages check the page's role, and every action checks its own
# (backend/security/access.py: the caller is resolved from the users file when it acts).
ACTIONS = {
    "view": "viewer",
    "upload": "editor",
    "delete": "editor",
    "activate_version": "editor",
    "edit_document": "editor",  # title and processing profile of a document
    "crawl": "editor",  # crawl sources: create, edit, delete, run, cancel, resume, schedules
    # chatbots: create, edit, build (crawl), generate fields, test-ask drafts, publish
    "chatbot_edit": "editor",
    "author_profiles": "editor",  # author profiles (style rules): create, edit, delete
    "watch_folder": "admin",  # a folder source reads the server's file system
    "manage_users": "admin",
    "manage_tokens": "admin",  # API tokens: create, list, revoke (backend/api/tokens.py)
    "manage_access": "admin",  # knowledge bases, access groups, grants, memberships
    "reindex": "admin",
    "settings": "admin",
}


class PermissionDenied(RagscopeError):
    """The signed-in user's role does not allow this page or action."""


class AuthError(RagscopeError):
    """A user-management request is invalid (unknown user, bad name, weak password...)."""


# ---- roles ------------------------------------------------------------------------------


def role_rank(role: str | None) -> int:
    return ROLES.index(role) if role in ROLES else -1


def effective_role(roles: Iterable[str] | None) -> str | None:
    """The highest known role in a list (streamlit-authenticator keeps roles as a list)."""
    known = [r for r in (roles or []) if r in ROLES]
    return max(known, key=role_rank) if known else None


def has_role(roles: Iterable[str] | str | None, needed: str) -> bool:
    if needed not in ROLES:
        raise ValueError(f"unknown role {needed!r}")
    if isinstance(roles, str):
        roles = [roles]
    return role_rank(effective_role(roles)) >= role_rank(needed)


def can(roles: Iterable[str] | str | None, action: str) -> bool:
    return has_role(roles, ACTIONS[action])


def require(roles: Iterable[str] | str | None, action: str) -> None:
    """Raise PermissionDenied unless the roles allow the action (backend-side check)."""
    if not can(roles, action):
        raise PermissionDenied(f"'{action}' needs the {ACTIONS[action]} role")


# ---- files ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthPaths:
    root: Path

    @classmethod
    def under(cls, data_dir: Path) -> "AuthPaths":
        return cls(Path(data_dir) / "auth")

    @property
    def users(self) -> Path:
        return self.root / "users.yaml"

    @property
    def cookie_key(self) -> Path:
        return self.root / "cookie_key"

    @property
    def limits(self) -> Path:
        return self.root / "login_limits.json"

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(self.root, 0o700)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock shared by every process using the same data dir."""
    lock = path.with_name(path.name + ".lock")
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def write_private(path: Path, text: str) -> None:
    """Replace a file atomically with mode 0600 (readers never see half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def cookie_key(paths: AuthPaths) -> str:
    """The cookie-signing secret; created once with secrets.token_urlsafe."""
    paths.ensure()
    with locked(paths.cookie_key):
        if not paths.cookie_key.exists():
            write_private(paths.cookie_key, secrets.token_urlsafe(32))
        key = paths.cookie_key.read_text(encoding="utf-8").strip()
    if len(key) < 32:
        raise AuthError(f"{paths.cookie_key} holds a key shorter than 32 characters")
    return key


def hash_password(password: str, rounds: int | None = None) -> str:
    """A bcrypt hash made by streamlit-authenticator's Hasher (bcrypt's default cost, 12);
    `rounds` sets another cost (tests use 4 to stay fast)."""
    if rounds is None:
        from streamlit_authenticator import Hasher

        return Hasher.hash(password)
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds)).decode()


def generate_password() -> str:
    return secrets.token_urlsafe(12)


_DUMMY_HASH: list[str] = []


def equalize_timing(password: str | None) -> None:
    """Spend one password check on a sign-in for an unknown or disabled user (which the
    authenticator refuses without one), so response time does not reveal which user names
    exist. Passwords over bcrypt's 72 bytes are refused at once for every user alike."""
    from streamlit_authenticator import Hasher

    if not _DUMMY_HASH:
        _DUMMY_HASH.append(Hasher.hash("x"))
    try:
        Hasher.check_pw(password or "", _DUMMY_HASH[0])
    except ValueError:  # longer than 72 bytes
        pass


# ---- users ------------------------------------------------------------------------------


@dataclass(frozen=True)
class User:
    username: str
    name: str
    email: str
    role: str
    disabled: bool
    sessions_after: float = 0.0  # sessions that began at or before this moment are over


class UserStore:
    """Users in a YAML file. Every change is read-modify-write under a file lock."""

    def __init__(self, paths: AuthPaths, *, bcrypt_rounds: int | None = None):
        self.paths = paths
        self.rounds = bcrypt_rounds

    def exists(self) -> bool:
        return self.paths.users.exists()

    def _read(self) -> dict:
        if not self.paths.users.exists():
            return {"credentials": {"usernames": {}}}
        # libyaml's safe loader: the pure-Python one took ~1 ms per read, 3 reads per page run
        data = yaml.load(self.paths.users.read_text(encoding="utf-8"), Loader=_SAFE_LOADER) or {}
        data.setdefault("credentials", {}).setdefault("usernames", {})
        data["credentials"]["usernames"] = data["credentials"]["usernames"] or {}
        return data

    @contextlib.contextmanager
    def _edit(self) -> Iterator[dict]:
        self.paths.ensure()
        with locked(self.paths.users):
            data = self._read()
            yield data["credentials"]["usernames"]
            write_private(self.paths.users, yaml.safe_dump(data, sort_keys=True))

    @staticmethod
    def _user(username: str, rec: dict) -> User:
        return User(username, rec.get("name") or username, rec.get("email") or "",
                    effective_role(rec.get("roles")) or "viewer", bool(rec.get("disabled")),
                    float(rec.get("sessions_after") or 0.0))

    def users(self) -> list[User]:
        recs = self._read()["credentials"]["usernames"]
        return [self._user(u, r) for u, r in sorted(recs.items())]

    def get(self, username: str | None) -> User | None:
        if not username:
            return None
        rec = self._read()["credentials"]["usernames"].get(username.lower())
        return self._user(username.lower(), rec) if rec else None

    def authenticator_credentials(self) -> dict:
        """What streamlit-authenticator gets: enabled users with a bcrypt hash only, a fresh
        dict every call (the library mutates it; nothing it writes goes back to the file).
        Disabled users are left out, so the authenticator signs them in neither with a
        password nor with a cookie."""
        return self._credentials(self._read()["credentials"]["usernames"])

    @staticmethod
    def _credentials(recs: dict) -> dict:
        from streamlit_authenticator import Hasher

        return {"usernames": {
            u: {"name": r.get("name") or u, "email": r.get("email") or "",
                "password": r["password"], "roles": [effective_role(r.get("roles")) or "viewer"]}
            for u, r in recs.items()
            if not r.get("disabled") and Hasher.is_hash(str(r.get("password") or ""))}}

    def check_password(self, username: str | None, password: str | None) -> User | None:
        """The enabled user whose password this is, else None: the check the authenticator
        makes (`Hasher.check_pw` against `authenticator_credentials`), without Streamlit. The
        dashboard signs in through streamlit-authenticator itself (app.py); this one serves
        `login_limit.sign_in`'s callers outside the dashboard. Unknown and disabled users
        cost one check too (no timing difference)."""
        from streamlit_authenticator import Hasher

        name = (username or "").strip().lower()
        recs = self._read()["credentials"]["usernames"]
        cred = self._credentials(recs)["usernames"].get(name) if name else None
        if cred is None:
            equalize_timing(password)
            return None
        try:
            ok = Hasher.check_pw((password or "").strip(), cred["password"])
        except ValueError:  # longer than 72 bytes
            return None
        return self._user(name, recs[name]) if ok else None

    def _check_password(self, password: str) -> None:
        if len(password) < MIN_PASSWORD_LEN:
            raise AuthError(f"passwords need at least {MIN_PASSWORD_LEN} characters")
        if len(password.encode()) > 72:
            raise AuthError("passwords can be at most 72 bytes long (a bcrypt limit)")
        if password != password.strip():
            raise AuthError("passwords must not start or end with white space")

    def add(self, username: str, role: str, *, name: str = "", email: str = "",
            password: str | None = None) -> str:
        """Create a user; returns the password (the one given or a generated one)."""
        username = username.strip().lower()
        if not _USERNAME_RE.match(username):
            raise AuthError("user names are 2-32 characters: a-z, 0-9, '.', '_', '-'")
        if role not in ROLES:
            raise AuthError(f"unknown role {role!r} (known: {', '.join(ROLES)})")
        password = password or generate_password()
        self._check_password(password)
        hashed = hash_password(password, self.rounds)
        with self._edit() as users:
            if username in users:
                raise AuthError(f"user '{username}' exists already")
            users[username] = {"name": name.strip() or username, "email": email.strip(),
                               "password": hashed, "roles": [role], "disabled": False,
                               "sessions_after": 0.0}
        return password

    def _change(self, username: str, fn: Callable[[dict, dict], None], *,
                end_sessions: bool = False) -> None:
        with self._edit() as users:
            rec = users.get(username.lower())
            if rec is None:
                raise AuthError(f"unknown user '{username}'")
            fn(rec, users)
            if end_sessions:  # never earlier than before, should the clock step back
                rec["sessions_after"] = max(time.time(), float(rec.get("sessions_after") or 0))
                rec.pop("session_gen", None)  # the generation counter this replaced

    def end_sessions(self, username: str) -> None:
        """Sign the user out everywhere: every session and re-login cookie that began until
        now is over."""
        self._change(username, lambda rec, users: None, end_sessions=True)

    @staticmethod
    def _other_active_admins(users: dict, username: str) -> int:
        return sum(1 for u, r in users.items() if u != username and not r.get("disabled")
                   and effective_role(r.get("roles")) == "admin")

    def set_role(self, username: str, role: str) -> None:
        if role not in ROLES:
            raise AuthError(f"unknown role {role!r} (known: {', '.join(ROLES)})")

        def fn(rec, users):
            if role != "admin" and not self._other_active_admins(users, username.lower()) \
                    and effective_role(rec.get("roles")) == "admin" and not rec.get("disabled"):
                raise AuthError("the last active admin cannot lose the admin role")
            rec["roles"] = [role]

        self._change(username, fn, end_sessions=True)

    def set_disabled(self, username: str, disabled: bool) -> None:
        def fn(rec, users):
            if disabled and effective_role(rec.get("roles")) == "admin" \
                    and not self._other_active_admins(users, username.lower()):
                raise AuthError("the last active admin cannot be disabled")
            rec["disabled"] = bool(disabled)

        self._change(username, fn, end_sessions=True)

    def reset_password(self, username: str, password: str | None = None) -> str:
        password = password or generate_password()
        self._check_password(password)
        hashed = hash_password(password, self.rounds)
        self._change(username, lambda rec, _users: rec.update(password=hashed),
                     end_sessions=True)
        return password


# ---- first start ------------------------------------------------------------------------


def bootstrap(data_dir: Path, admin_password: str | None = None) -> str | None:
    """Create the cookie secret and, when no users file exists, the `admin` user.
    Returns the generated admin password (None when one was given or users exist); a
    generated password is also written once to stderr and the log."""
    paths = AuthPaths.under(data_dir)
    paths.ensure()
    cookie_key(paths)
    store = UserStore(paths)
    with locked(paths.users):
        if store.exists():
            return None
    try:
        pw = store.add("admin", "admin", name="Administrator", password=admin_password or None)
    except AuthError as e:
        if "exists already" in str(e):  # another process won the race
            return None
        raise
    if admin_password:
        log.info("created user 'admin' with the password from RAGSCOPE_ADMIN_PASSWORD")
        return None
    msg = (f"ragscope: created user 'admin' with the generated password: {pw}\n"
           "ragscope: it is shown only once; change it on the Users page.")
    print(msg, file=sys.stderr, flush=True)
    log.warning("created user 'admin' with a generated password (printed to stderr once)")
    return pw
