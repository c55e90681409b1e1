"""Dashboard sessions: who is signed in, and whether that is still true.

A session is (user name, the moment it began). The users file keeps per user the moment
`sessions_after` (backend/security/auth.py): sign-out, password reset, disabling and a role change
set it to now. A session is current while its user exists, is enabled and the session
began after that moment. Every dashboard run checks this (pages/_common.current_user), and
so does the upload gate for every upload, so an ended session ends on the next click, in
every browser and every dashboard process that shares the data dir.

When a session begins:
- a password sign-in: the moment just before the credentials it was checked against were
  read (app.py), so a password reset that lands during the check ends the new session too;
- a re-login from the cookie: the moment the cookie stands for (`from_cookie`).

The re-login cookie is streamlit-authenticator's: an HS256 JWT, signed with the
installation's cookie key, holding `username` and `exp_date` (= the moment it was written +
the authenticator's `cookie_expiry_days`). The library checks signature and expiry; it
cannot end a cookie early, which is what `sessions_after` adds. The dashboard gives the
authenticator `cookie_days(session)` as expiry, so a cookie written for a session expires
COOKIE_EXPIRY_DAYS after the session began (less COOKIE_MARGIN_S), and `from_cookie` maps it
back to a session that began no later than the one it was written for: ending that session
ends the cookie, and re-logins never extend a cookie beyond 7 days from the password
sign-in. No Streamlit here: the dashboard moves cookies in and out of the browser, the
backend decides."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from backend.security.auth import COOKIE_EXPIRY_DAYS, User, UserStore

DAY_S = 86400.0
# A cookie stands for a session that began this much before the real one: it covers the
# time between computing the expiry and the library writing the cookie within one run.
COOKIE_MARGIN_S = 1.0


@dataclass(frozen=True)
class Session:
    username: str
    began: float  # epoch seconds


def validate(users: UserStore, session: Session | None) -> User | None:
    """The user of a session while it is current: the user exists, is enabled and has not
    ended the sessions that began when this one did. Read from the users file on every
    call."""
    if session is None:
        return None
    user = users.get(session.username)
    if user is None or user.disabled or not session.began > user.sessions_after:
        return None
    return user


def cookie_days(session: Session | None, now: float | None = None) -> float:
    """The `cookie_expiry_days` to give streamlit-authenticator in a run of `session`: a
    cookie it writes then expires COOKIE_EXPIRY_DAYS after the session began, less
    COOKIE_MARGIN_S. Not positive when the session is older than that (write no cookie)."""
    if session is None:
        return COOKIE_EXPIRY_DAYS
    now = time.time() if now is None else now
    return COOKIE_EXPIRY_DAYS - (now - session.began + COOKIE_MARGIN_S) / DAY_S


def from_cookie(payload: Any) -> Session | None:
    """The session a re-login cookie stands for, from its payload as streamlit-
    authenticator's cookie controller returns it (signature and expiry already checked):
    it began COOKIE_EXPIRY_DAYS before `exp_date`. None for anything else."""
    if not isinstance(payload, dict):
        return None
    name, exp = payload.get("username"), payload.get("exp_date")
    if not isinstance(name, str) or not name or isinstance(exp, bool) \
            or not isinstance(exp, (int, float)) or not math.isfinite(exp):
        return None
    return Session(name.strip().lower(), float(exp) - COOKIE_EXPIRY_DAYS * DAY_S)
