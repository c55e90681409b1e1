"""backend/auth.py: roles, the users file, first-start bootstrap, the login rate limit."""
from __future__ import annotations

import stat

import bcrypt
import pytest
import yaml

from backend import auth


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


def test_disabled_users_are_not_given_to_the_authenticator(users):
    users.add("admin", "admin")
    users.add("bob", "viewer")
    assert set(users.authenticator_credentials()["usernames"]) == {"admin", "bob"}
    users.set_disabled("bob", True)
    creds = users.authenticator_credentials()["usernames"]
    assert set(creds) == {"admin"} and creds["admin"]["roles"] == ["admin"]
    assert users.get("bob").disabled
    users.set_disabled("bob", False)
    assert "bob" in users.authenticator_credentials()["usernames"]


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


def test_limiter_locks_after_five_failures_within_the_window(paths):
    clock = Clock()
    lim = auth.LoginLimiter(paths, clock=clock)
    for _ in range(4):
        lim.record_failure("Bob")
        clock.t += 10
    assert lim.locked_for("bob") == 0
    lim.record_failure("bob")
    wait = lim.locked_for("BOB")
    assert 250 < wait <= 300
    assert lim.locked_for("alice") == 0  # per user name
    clock.t += wait + 1  # the oldest failure left the window
    assert lim.locked_for("bob") == 0


def test_limiter_old_failures_expire_and_reset_clears(paths):
    clock = Clock()
    lim = auth.LoginLimiter(paths, clock=clock)
    for _ in range(4):
        lim.record_failure("bob")
    clock.t += 301
    lim.record_failure("bob")
    assert lim.locked_for("bob") == 0  # only one failure in the window
    for _ in range(5):
        lim.record_failure("bob")
    assert lim.locked_for("bob") > 0
    lim.reset("bob")
    assert lim.locked_for("bob") == 0


def test_limiter_state_is_shared_through_the_file(paths):
    clock = Clock()
    for _ in range(5):
        auth.LoginLimiter(paths, clock=clock).record_failure("nobody")  # unknown names count
    assert auth.LoginLimiter(paths, clock=clock).locked_for("nobody") > 0


def test_equalize_timing_accepts_any_password():
    auth.equalize_timing("")
    auth.equalize_timing("x" * 500)
