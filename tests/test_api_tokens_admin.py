"""Managing API tokens: the CLI (`python -m backend token create|list|revoke`), the admin
page (issue, list, revoke; admins only), and `up` starting the API beside the dashboard."""
from __future__ import annotations

import os

import pytest

from backend.api import tokens
from backend.cli.main import main
from backend.config import Settings
from backend.services.container import Ragscope
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    bare,
    components,
    errors,
    open_page,
    shared_model,
    successes,
)


def test_token_cli_creates_lists_and_revokes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    assert main(["token", "create", "openwebui", "--scopes", "read,write",
                 "--expires-days", "30", "-d", "Open WebUI"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()  # stdout holds only the token: TOKEN=$(python -m backend token …)
    assert token.startswith("rgs_") and "\n" not in token
    assert "openwebui" in err and "read,write" in err and "not shown again" in err
    rs = Ragscope(Settings(data_dir=tmp_path / "var"))
    assert tokens.authenticate(rs.store, token).scopes == ("read", "write")
    assert main(["token", "list"]) == 0
    out, _ = capsys.readouterr()
    assert "openwebui" in out and "active" in out and token not in out
    key_id = tokens.list_tokens(rs.store)[0].key_id
    assert main(["token", "revoke", key_id]) == 0
    assert "revoked" in capsys.readouterr().out
    with pytest.raises(tokens.TokenRefused, match="revoked"):
        tokens.authenticate(rs.store, token)
    assert main(["token", "create", "Bad Name", "--scopes", "read"]) == 2
    assert "principal" in capsys.readouterr().err
    assert main(["token", "revoke", "999"]) == 2
    rs.close()


def test_up_starts_the_api_beside_the_dashboard(tmp_path, monkeypatch):
    from backend.api import cli as cli_api

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    started, execs = [], []
    monkeypatch.setattr(cli_api, "start_api_beside", lambda host, port: started.append(
        cli_api.api_command(host, port)))
    monkeypatch.setattr(os, "execvp", lambda file, argv: execs.append(argv))
    assert main(["up", "--no-samples", "--api-port", "8123"]) == 0
    assert started == [cli_api.api_command("127.0.0.1", 8123)]
    assert started[0][-5:] == ["api", "--host", "127.0.0.1", "--port", "8123"]
    assert execs and "streamlit" in execs[0]
    started.clear()
    assert main(["up", "--no-samples", "--no-api"]) == 0
    assert started == []


def test_admin_page_issues_lists_and_revokes_tokens(app, bare):
    data = bare[0]
    at = open_page(app(data, "admin"), "admin_tokens")
    at.text_input(key=K.TOKENS_PRINCIPAL).input("claude-desktop")
    at.multiselect(key=K.TOKENS_SCOPES).select("write")
    at.button[0].click().run()  # the form's submit button
    assert any(m.startswith("Token ") and "claude-desktop" in m for m in successes(at))
    plain = at.code[0].value
    rs = Ragscope(Settings(data_dir=data))
    assert tokens.authenticate(rs.store, plain).scopes == ("read", "write")
    table = at.dataframe[0].value
    assert list(table["principal"]) == ["claude-desktop"] and plain not in table.to_string()
    at.run()  # the plain token is shown only once
    assert not at.code
    at.button(key=K.TOKENS_REVOKE).click().run()
    at.button(key=K.TOKENS_REVOKE_CONFIRM).click().run()  # revoking asks first
    assert any("revoked" in m for m in successes(at))
    with pytest.raises(tokens.TokenRefused):
        tokens.authenticate(rs.store, plain)
    at.text_input(key=K.TOKENS_PRINCIPAL).input("Not Valid!")
    at.button[0].click().run()
    assert errors(at) and "principal" in errors(at)[0]
    rs.close()


@pytest.mark.parametrize("user", ["viewer", "editor"])
def test_only_admins_reach_the_token_page(app, bare, user):
    at = open_page(app(bare[0], user), "admin_tokens")
    assert errors(at)[0].startswith("Access denied") and not at.dataframe


def test_token_management_checks_the_role_in_the_backend(tmp_path):
    from backend.security.access import Actor
    from backend.security.auth import PermissionDenied

    rs = Ragscope(Settings(data_dir=tmp_path / "var"))
    editor = Actor("ed", "editor")
    for call in (lambda: tokens.tokens_overview(rs, editor),
                 lambda: tokens.issue_token(rs, editor, "bot", ["admin"], expires_days=1),
                 lambda: tokens.withdraw_token(rs, editor, 1)):
        with pytest.raises(PermissionDenied):
            call()
    info, _ = tokens.issue_token(rs, Actor("boss", "admin"), "bot", ["read"], expires_days=1)
    assert info.created_by == "boss" and tokens.list_tokens(rs.store)[0].principal == "bot"
    rs.close()
