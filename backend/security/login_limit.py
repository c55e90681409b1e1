"""The sign-in rate limit, per user name and per client address, and `sign_in` itself.

One attempt is: `admit` (check and reserve, one step under the file lock), the password
check (in the dashboard: streamlit-authenticator's login), `finish` (record the outcome). A
reserved attempt counts against both limits while its password is being checked, so N
parallel attempts cannot all pass the check before any of them is recorded: exactly
`max_failures` are checked, the rest are refused.

After `max_failures` failures of a user name within `window_s` (and after
`client_max_failures` failures from one client address), that name (address) is locked with
an exponential back-off: `first_backoff_s`, doubling with every further lock of the streak,
capped at `max_backoff_s`. A lock always ends by itself; the streak is forgotten after a
quiet `max_backoff_s`. While locked, attempts are refused without checking the password
(so a correct password does not sign in either) and without being counted, so a locked
name cannot be locked for longer by hammering it. Admins lift a user name's lock on the
Users page or with `python -m backend unlock-user NAME`.

Unknown user names are counted like known ones, so a lock tells nothing about which names
exist. State: `<data_dir>/auth/login_limits.json` (mode 0600), every change under the same
kind of file lock as the users file, so all dashboard processes of a data dir share it."""
from __future__ import annotations

import contextlib
import json
import math
import secrets
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from backend.security.auth import AuthPaths, User, UserStore, locked, write_private

MAX_FAILURES = 5  # per user name and window
CLIENT_MAX_FAILURES = 20  # per client address and window (many users may share a proxy)
FAILURE_WINDOW_S = 300.0
FIRST_BACKOFF_S = 60.0
MAX_BACKOFF_S = 3600.0
PENDING_TTL_S = 120.0  # an attempt whose process died is forgotten after this
INCORRECT = "Username or password is incorrect."


def user_key(username: str) -> str:
    return "user:" + (username or "").strip().lower()[:64]


def client_key(client: str | None) -> str:
    """Streamlit reports loopback connections as None: they all share the key `local`."""
    return "client:" + ((client.strip()[:64] if isinstance(client, str) else "") or "local")


@dataclass(frozen=True)
class Admission:
    """The outcome of `admit`: a ticket to check the password, or a refusal."""

    ticket: str | None
    keys: tuple[str, ...] = ()
    wait_s: float = 0.0  # when refused: seconds until the lock (or the crowd) is gone
    scope: str = ""  # when refused: "user" or "client"

    @property
    def ok(self) -> bool:
        return self.ticket is not None


@dataclass(frozen=True)
class SignIn:
    user: User | None  # the signed-in user, or None
    message: str | None = None  # why not
    wait_s: float = 0.0


class LoginLimiter:
    def __init__(self, paths: AuthPaths, *, max_failures: int = MAX_FAILURES,
                 client_max_failures: int = CLIENT_MAX_FAILURES,
                 window_s: float = FAILURE_WINDOW_S, first_backoff_s: float = FIRST_BACKOFF_S,
                 max_backoff_s: float = MAX_BACKOFF_S, clock: Callable[[], float] = time.time):
        self.paths, self.clock = paths, clock
        self.max, self.client_max = max_failures, client_max_failures
        self.window, self.first, self.cap = window_s, first_backoff_s, max_backoff_s

    # ---- state ----------------------------------------------------------------------------

    def _read(self) -> dict[str, dict]:
        try:
            data = json.loads(self.paths.limits.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    @contextlib.contextmanager
    def _edit(self) -> Iterator[dict[str, dict]]:
        """Read-modify-write of the whole state under the file lock: one atomic step."""
        self.paths.ensure()
        with locked(self.paths.limits):
            data = self._read()
            yield data
            now = self.clock()
            kept = {k: st for k, st in data.items()
                    if not self._forgotten(self._fresh(st, now), now)}
            write_private(self.paths.limits, json.dumps(kept, sort_keys=True))

    def _fresh(self, st: dict | None, now: float) -> dict:
        """A key's state with failures outside the window and stale reservations dropped."""
        st = st if isinstance(st, dict) else {}
        st["fails"] = sorted(float(t) for t in st.get("fails", []) if now - float(t) < self.window)
        st["pending"] = {k: float(t) for k, t in dict(st.get("pending") or {}).items()
                         if now - float(t) < PENDING_TTL_S}
        st["until"] = float(st.get("until") or 0.0)
        st["level"] = int(st.get("level") or 0)
        if self._forgotten(st, now):  # quiet for the cap: the streak starts again
            st["until"], st["level"] = 0.0, 0
        return st

    def _forgotten(self, st: dict, now: float) -> bool:
        """Nothing recent: no failures, nothing in flight, no lock within the last cap."""
        return not st["fails"] and not st["pending"] and now >= st["until"] + self.cap

    def _limit(self, key: str) -> int:
        return self.client_max if key.startswith("client:") else self.max

    def backoff(self, level: int) -> float:
        """Lock length of the level-th lock of a streak (0 = the first)."""
        return min(self.cap, self.first * 2 ** min(level, 32))

    # ---- one attempt ----------------------------------------------------------------------

    def admit(self, username: str, client: str | None) -> Admission:
        """Check both limits and, when neither refuses, reserve the attempt (one atomic
        step). The caller must `finish` an admitted attempt, whatever happens."""
        keys = (user_key(username), client_key(client))
        with self._edit() as data:
            now = self.clock()
            for key in keys:
                st = data[key] = self._fresh(data.get(key), now)
                if st["until"] > now:
                    return Admission(None, keys, st["until"] - now, key.split(":")[0])
                if len(st["fails"]) + len(st["pending"]) >= self._limit(key):
                    # the limit is taken up by attempts still being checked
                    oldest = min(st["pending"].values(), default=now)
                    return Admission(None, keys, max(1.0, oldest + PENDING_TTL_S - now),
                                     key.split(":")[0])
            ticket = secrets.token_hex(8)
            for key in keys:
                data[key]["pending"][ticket] = now
        return Admission(ticket, keys)

    def finish(self, admission: Admission, success: bool) -> None:
        """Record an admitted attempt's outcome. A failure that reaches a limit locks that
        key for the next back-off; a success clears the user name's failures and streak
        (not the client's: one right password must not buy more guesses elsewhere)."""
        if not admission.ok:
            return
        user, client = admission.keys
        with self._edit() as data:
            now = self.clock()
            for key in (user, client):
                st = data[key] = self._fresh(data.get(key), now)
                st["pending"].pop(admission.ticket, None)
                if success:
                    if key == user:
                        data.pop(key)
                    continue
                st["fails"].append(now)
                if len(st["fails"]) >= self._limit(key):
                    st["until"] = now + self.backoff(st["level"])
                    st["level"] += 1
                    st["fails"] = []

    # ---- admin ----------------------------------------------------------------------------

    def locked_for(self, username: str) -> float:
        """Seconds until this user name may try again (0 when not locked)."""
        st = self._fresh(self._read().get(user_key(username)), self.clock())
        return max(0.0, st["until"] - self.clock())

    def locked_users(self) -> dict[str, float]:
        """Locked user names -> seconds left (for the Users page)."""
        now = self.clock()
        return {k.split(":", 1)[1]: st["until"] - now for k, raw in self._read().items()
                if k.startswith("user:") and (st := self._fresh(raw, now))["until"] > now}

    def unlock(self, username: str) -> bool:
        """Lift a user name's lock and forget its failures; True when it was locked."""
        with self._edit() as data:
            st = self._fresh(data.pop(user_key(username), None), self.clock())
        return st["until"] > self.clock()


PasswordCheck = Callable[[str, str | None], User | None]


def sign_in(users: UserStore, limiter: LoginLimiter, username: str | None,
            password: str | None, client: str | None, *,
            check: PasswordCheck | None = None) -> SignIn:
    """One sign-in attempt, rate-limited. Wrong password and unknown user get the same
    message; a locked name or address gets a message with the wait, and no password check.
    `check(name, password)` returns the user whose password it is (the dashboard passes
    streamlit-authenticator's login); default `users.check_password`."""
    name = (username or "").strip().lower()
    if not name:
        return SignIn(None, INCORRECT)
    admission = limiter.admit(name, client)
    if not admission.ok:
        minutes = max(1, math.ceil(admission.wait_s / 60))
        who = "this user name" if admission.scope == "user" else "your address"
        return SignIn(None, f"Too many failed sign-in attempts for {who}. "
                            f"Try again in {minutes} minute(s).", admission.wait_s)
    user = None
    try:
        user = (check or users.check_password)(name, password)
    finally:
        limiter.finish(admission, success=user is not None)
    return SignIn(user, None if user else INCORRECT)
