"""backend/security/auth.py, login_limit.py, sessions.py, access.py: roles, the users file,
first-start bootstrap, the sign-in rate limit, sessions and their end."""
from __future__ import annotations

import multiprocessing
import stat
import threading
import time

import bcrypt
import pytest
import yaml

from backend.security import access, auth, login_limit, sessions
from backend.security.login_limit import LoginLimiter, sign_in


@pytest.fixture
def paths(tmp_path):
    return auth.AuthPaths.under(tmp_path / "var")


@pytest.fixture
def users(paths):
    return auth.UserStore(paths, bcrypt_rounds=4)


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


# ---- roles -----------------------------------------------------------------------------


def test_roles_are_ordered_and_actions_mapped():
    assert auth.has_role("admin", "editor") and auth.has_role(["editor"], "viewer")
    assert not auth.has_role("viewer", "editor") and not auth.has_role(None, "viewer")
    assert not auth.has_role(["superuser"], "viewer")  # unknown roles grant nothing
    assert auth.effective_role(["viewer", "admin"]) == "admin"
    assert auth.can("editor", "delete") and not auth.can("viewer", "upload")
    assert not auth.can("editor", "manage_users") and auth.can("admin", "reindex")
    with pytest.raises(auth.PermissionDenied, match="editor"):
        auth.require(["viewer"], "activate_version")


# ---- users file ------------------------------------------------------------------------


def test_users_file_has_bcrypt_hashes_and_private_mode(users, paths):
    pw = users.add("Alice", "editor", name="Alice A.")
    assert len(pw) >= auth.MIN_PASSWORD_LEN
    data = yaml.safe_load(paths.users.read_text())
    rec = data["credentials"]["usernames"]["alice"]
    assert rec["password"].startswith("$2") and pw not in paths.users.read_text()
    assert bcrypt.checkpw(pw.encode(), rec["password"].encode())
    assert rec["roles"] == ["editor"] and rec["disabled"] is False
    assert rec["sessions_after"] == 0  # no session has been ended yet
    assert stat.S_IMODE(paths.users.stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.root.stat().st_mode) == 0o700
    assert users.get("ALICE") == auth.User("alice", "Alice A.", "", "editor", False)


@pytest.mark.parametrize("name,role,password,msg", [
    ("x", "viewer", None, "2-32"),
    ("bad name", "viewer", None, "2-32"),
    ("bob", "root", None, "unknown role"),
    ("bob", "viewer", "short", "at least"),
    ("bob", "viewer", " padded-password ", "white space"),
    ("bob", "viewer", "ü" * 40, "72 bytes"),
])
def test_add_rejects_bad_input(users, name, role, password, msg):
    with pytest.raises(auth.AuthError, match=msg):
        users.add(name, role, password=password)


def test_duplicate_user_and_unknown_user(users):
    users.add("bob", "viewer")
    with pytest.raises(auth.AuthError, match="exists already"):
        users.add("BOB", "editor")
    with pytest.raises(auth.AuthError, match="unknown user"):
        users.set_role("carol", "viewer")


def test_disabled_users_cannot_sign_in(users):
    users.add("admin", "admin")
    pw = users.add("bob", "viewer")
    assert users.check_password("Bob", pw).username == "bob"
    assert users.check_password("bob", "wrong-password") is None
    assert users.check_password("nobody", pw) is None
    users.set_disabled("bob", True)
    assert users.get("bob").disabled and users.check_password("bob", pw) is None
    users.set_disabled("bob", False)
    assert users.check_password("bob", pw).role == "viewer"


def test_last_active_admin_is_protected(users):
    users.add("admin", "admin")
    with pytest.raises(auth.AuthError, match="last active admin"):
        users.set_disabled("admin", True)
    with pytest.raises(auth.AuthError, match="last active admin"):
        users.set_role("admin", "editor")
    users.add("root2", "admin")
    users.set_role("admin", "editor")
    assert users.get("admin").role == "editor"


def test_reset_password_replaces_the_hash(users, paths):
    old = users.add("bob", "viewer")
    new = users.reset_password("bob")
    assert new != old
    h = yaml.safe_load(paths.users.read_text())["credentials"]["usernames"]["bob"]["password"]
    assert bcrypt.checkpw(new.encode(), h.encode()) and not bcrypt.checkpw(old.encode(), h.encode())
    assert users.reset_password("bob", "chosen-password-1") == "chosen-password-1"


# ---- bootstrap -------------------------------------------------------------------------


def test_bootstrap_generates_admin_password_once(tmp_path, capsys):
    data = tmp_path / "var"
    pw = auth.bootstrap(data)
    err = capsys.readouterr().err
    assert pw and pw in err and "admin" in err
    paths = auth.AuthPaths.under(data)
    u = auth.UserStore(paths).get("admin")
    assert u.role == "admin" and not u.disabled
    key = paths.cookie_key.read_text()
    assert len(key) >= 32 and stat.S_IMODE(paths.cookie_key.stat().st_mode) == 0o600
    # second start: nothing new, nothing printed, the same cookie key
    assert auth.bootstrap(data) is None
    assert capsys.readouterr().err == ""
    assert paths.cookie_key.read_text() == key == auth.cookie_key(paths)


def test_bootstrap_takes_the_password_from_the_caller(tmp_path, capsys):
    assert auth.bootstrap(tmp_path / "var", admin_password="from-the-env-123") is None
    assert "from-the-env-123" not in capsys.readouterr().err
    h = yaml.safe_load(auth.AuthPaths.under(tmp_path / "var").users.read_text())
    assert bcrypt.checkpw(b"from-the-env-123",
                          h["credentials"]["usernames"]["admin"]["password"].encode())


def test_cookie_keys_differ_between_installations(tmp_path):
    a = auth.cookie_key(auth.AuthPaths.under(tmp_path / "a"))
    b = auth.cookie_key(auth.AuthPaths.under(tmp_path / "b"))
    assert a != b


def test_bootstrap_refuses_a_weak_admin_password(tmp_path):
    with pytest.raises(auth.AuthError, match="at least"):
        auth.bootstrap(tmp_path / "var", admin_password="short")


# ---- rate limit ------------------------------------------------------------------------


def _limiter(paths, clock, **kw) -> LoginLimiter:
    return LoginLimiter(paths, clock=clock, **kw)


def test_five_failures_lock_the_user_name_and_a_right_password_waits(users, paths):
    clock = Clock()
    pw = users.add("bob", "editor")
    lim = _limiter(paths, clock)
    for _ in range(4):
        assert sign_in(users, lim, "Bob", "wrong-password", "10.0.0.1").message == \
            login_limit.INCORRECT
        clock.t += 10
    assert lim.locked_for("bob") == 0
    sign_in(users, lim, "bob", "wrong-password", "10.0.0.1")
    assert lim.locked_for("BOB") == pytest.approx(login_limit.FIRST_BACKOFF_S)
    # the right password, even from another address, does not sign in while locked
    res = sign_in(users, lim, "bob", pw, "10.0.0.2")
    assert res.user is None and "Too many failed sign-in attempts for this user name" in \
        res.message
    assert sign_in(users, lim, "alice", "whatever-pw", "10.0.0.1").message == \
        login_limit.INCORRECT  # per user name
    clock.t += login_limit.FIRST_BACKOFF_S + 1  # the lock ends by itself
    assert sign_in(users, lim, "bob", pw, "10.0.0.1").user.username == "bob"


def test_lockout_backs_off_exponentially_and_expires_even_for_admin(users, paths):
    """An attacker who keeps guessing gets ever longer locks (capped), never a permanent
    one; refused attempts are not counted, and the admin gets in after the back-off."""
    clock = Clock()
    pw = users.add("admin", "admin")
    lim = _limiter(paths, clock, max_backoff_s=600)
    expected = [60, 120, 240, 480, 600, 600]
    for length in expected:
        for _ in range(5):
            assert sign_in(users, lim, "admin", "guess-guess", "203.0.113.9").user is None
        assert lim.locked_for("admin") == pytest.approx(length)
        for _ in range(50):  # hammering a locked name changes nothing
            assert "Too many" in sign_in(users, lim, "admin", "guess", "198.51.100.1").message
        assert lim.locked_for("admin") == pytest.approx(length)
        clock.t += length + 1
    assert sign_in(users, lim, "admin", pw, "192.0.2.5").user.role == "admin"
    assert lim.locked_users() == {}
    # after a success the next streak starts again at the first back-off
    for _ in range(5):
        sign_in(users, lim, "admin", "guess-guess", "203.0.113.9")
    assert lim.locked_for("admin") == pytest.approx(60)


def test_a_quiet_period_forgets_the_streak(users, paths):
    clock = Clock()
    lim = _limiter(paths, clock, max_backoff_s=600)
    for _ in range(2):
        for _ in range(5):
            sign_in(users, lim, "bob", "guess-guess", "x")
        clock.t += lim.locked_for("bob") + 1
    clock.t += 601  # quiet for the cap: the streak is forgotten
    for _ in range(5):
        sign_in(users, lim, "bob", "guess-guess", "x")
    assert lim.locked_for("bob") == pytest.approx(60)


def test_one_client_is_limited_across_user_names(users, paths):
    clock = Clock()
    pw = users.add("carol", "viewer")
    lim = _limiter(paths, clock, client_max_failures=8)
    for i in range(8):  # spraying: one guess each for many names from one address
        assert sign_in(users, lim, f"user{i}", "guess-guess", "203.0.113.7").message == \
            login_limit.INCORRECT
    res = sign_in(users, lim, "carol", pw, "203.0.113.7")
    assert res.user is None and "for your address" in res.message
    assert sign_in(users, lim, "carol", pw, "192.0.2.1").user is not None  # another client
    assert lim.locked_for("carol") == 0


def test_admin_unlocks_a_user(users, paths):
    clock = Clock()
    pw = users.add("admin", "admin")
    lim = _limiter(paths, clock)
    for _ in range(5):
        sign_in(users, lim, "admin", "guess-guess", "x")
    assert "admin" in lim.locked_users()
    assert lim.unlock("ADMIN") is True and lim.unlock("admin") is False
    assert sign_in(users, lim, "admin", pw, "y").user is not None


def test_unlock_user_command(tmp_path, monkeypatch, capsys):
    from backend.cli.main import main

    data = tmp_path / "var"
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    auth.bootstrap(data, admin_password="admin-password-1")
    paths = auth.AuthPaths.under(data)
    lim = LoginLimiter(paths)
    for _ in range(5):
        sign_in(auth.UserStore(paths), lim, "admin", "guess-guess", None)
    assert lim.locked_for("admin") > 0
    assert main(["unlock-user", "Admin"]) == 0
    assert capsys.readouterr().out.strip() == "admin: sign-in unlocked"
    assert lim.locked_for("admin") == 0
    assert sign_in(auth.UserStore(paths), lim, "admin", "admin-password-1", None).user


def _slow_checks(monkeypatch) -> list[str]:
    """Count bcrypt password checks and make each take a while, so parallel attempts
    overlap (they all start before the first one is decided)."""
    calls: list[str] = []
    real = bcrypt.checkpw

    def slow(pw, hashed):
        calls.append("check")
        time.sleep(0.3)
        return real(pw, hashed)

    monkeypatch.setattr(auth.bcrypt, "checkpw", slow)
    return calls


def test_parallel_wrong_attempts_check_exactly_the_limit(users, paths, monkeypatch):
    users.add("admin", "admin")
    calls = _slow_checks(monkeypatch)
    lim = LoginLimiter(paths)
    start = threading.Barrier(10)
    results: list[login_limit.SignIn] = []

    def attempt(i):
        start.wait()
        results.append(sign_in(users, lim, "admin", f"wrong-guess-{i}", f"10.0.0.{i}"))

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == login_limit.MAX_FAILURES  # exactly the limit was checked
    messages = sorted(r.message for r in results)
    assert messages.count(login_limit.INCORRECT) == 5
    assert sum("Too many failed sign-in attempts" in m for m in messages) == 5
    assert all(r.user is None for r in results)
    assert lim.locked_for("admin") == pytest.approx(login_limit.FIRST_BACKOFF_S, abs=5)


def _attempt_in_process(args):
    data_root, i = args
    paths = auth.AuthPaths(data_root)
    res = sign_in(auth.UserStore(paths), LoginLimiter(paths), "admin", f"wrong-{i}", "10.1.1.1")
    return res.message


def test_parallel_attempts_from_processes_share_the_limit(users, paths, monkeypatch):
    users.add("admin", "admin")
    _slow_checks(monkeypatch)  # inherited by the forked workers
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(10) as pool:
        messages = pool.map(_attempt_in_process, [(paths.root, i) for i in range(10)])
    assert messages.count(login_limit.INCORRECT) == 5
    assert sum("Too many failed sign-in attempts" in m for m in messages) == 5


def test_limit_state_is_private_and_shared_through_the_file(paths):
    clock = Clock()
    for _ in range(5):  # unknown names count too
        adm = LoginLimiter(paths, clock=clock).admit("nobody", "c")
        LoginLimiter(paths, clock=clock).finish(adm, success=False)
    assert LoginLimiter(paths, clock=clock).locked_for("nobody") > 0
    assert stat.S_IMODE(paths.limits.stat().st_mode) == 0o600


def test_equalize_timing_accepts_any_password():
    auth.equalize_timing("")
    auth.equalize_timing("x" * 500)


# ---- sessions ----------------------------------------------------------------------------


def _cookie_for(session: sessions.Session, written_at: float) -> dict:
    """The payload streamlit-authenticator writes at `written_at` when the dashboard gives
    it `cookie_days(session)` as expiry (CookieModel: exp_date = now + expiry days)."""
    days = sessions.cookie_days(session, now=written_at)
    return {"username": session.username, "exp_date": written_at + days * 86400}


@pytest.mark.parametrize("end", ["sign_out", "reset", "disable", "role"])
def test_ending_a_session_refuses_its_cookie_and_its_open_sessions(users, paths, end):
    users.add("admin", "admin")
    pw = users.add("bob", "editor")
    began = time.time()
    user = users.check_password("bob", pw)
    session = sessions.Session("bob", began)
    cookie = _cookie_for(session, written_at=began + 2)  # written a run later
    assert sessions.validate(users, session) == user
    assert sessions.validate(users, sessions.from_cookie(cookie)) == user
    assert access.resolve(users, session) == access.Actor("bob", "editor")
    {"sign_out": lambda: users.end_sessions("bob"),
     "reset": lambda: users.reset_password("bob"),
     "disable": lambda: users.set_disabled("bob", True),
     "role": lambda: users.set_role("bob", "viewer")}[end]()
    assert sessions.validate(users, session) is None
    assert sessions.validate(users, sessions.from_cookie(cookie)) is None  # signed, unexpired,
    assert access.resolve(users, session) is None  # ... but over
    if end != "disable":  # a new sign-in starts a new, valid session, and so does its cookie
        later = time.time() + sessions.COOKIE_MARGIN_S + 1
        new = sessions.Session("bob", later)
        assert sessions.validate(users, new) is not None
        assert sessions.validate(users, sessions.from_cookie(
            _cookie_for(new, written_at=later + 30))) is not None


def test_a_cookie_stands_for_the_session_it_was_written_for(users, paths):
    """However late in the session the cookie is written, it expires 7 days after the
    sign-in (re-logins never extend it) and maps back to a session that began no later;
    so ending a session ends every cookie written for it, even one written afterwards."""
    users.add("bob", "viewer", password="bob-password-1")
    session = sessions.Session("bob", 1_000_000.0)
    for written_at in (session.began + 0.5, session.began + 3600, session.began + 6 * 86400):
        cookie = _cookie_for(session, written_at)
        assert cookie["exp_date"] == pytest.approx(
            session.began + auth.COOKIE_EXPIRY_DAYS * 86400 - sessions.COOKIE_MARGIN_S)
        stood_for = sessions.from_cookie(cookie)
        assert stood_for.username == "bob"
        assert stood_for.began == pytest.approx(session.began - sessions.COOKIE_MARGIN_S)
    # a session older than the cookie's lifetime gets no cookie at all
    assert sessions.cookie_days(session, now=session.began + 8 * 86400) < 0
    assert sessions.cookie_days(None) == auth.COOKIE_EXPIRY_DAYS


@pytest.mark.parametrize("payload", [None, False, {}, {"username": "bob"},
                                     {"username": "bob", "exp_date": "soon"},
                                     {"username": "bob", "exp_date": float("inf")},
                                     {"username": "", "exp_date": 2e9},
                                     {"username": "bob", "gen": 0, "exp": 2e9}])
def test_unreadable_cookie_payloads_stand_for_no_session(payload):
    assert sessions.from_cookie(payload) is None


def test_the_authenticator_sees_enabled_users_only(users):
    users.add("admin", "admin", password="admin-password-1")
    users.add("bob", "editor", password="bob-password-1")
    creds = users.authenticator_credentials()
    assert set(creds["usernames"]) == {"admin", "bob"}
    assert creds["usernames"]["bob"]["roles"] == ["editor"]
    users.set_disabled("bob", True)
    assert set(users.authenticator_credentials()["usernames"]) == {"admin"}
    creds["usernames"]["admin"]["password"] = "changed"  # a fresh dict every call
    assert users.authenticator_credentials()["usernames"]["admin"]["password"].startswith("$2")


def test_sessions_after_never_moves_back(users, paths, monkeypatch):
    users.add("bob", "viewer")
    users.end_sessions("bob")
    ended = users.get("bob").sessions_after
    assert ended > 0
    monkeypatch.setattr(auth.time, "time", lambda: ended - 3600)  # the clock steps back
    users.end_sessions("bob")
    assert users.get("bob").sessions_after == ended
