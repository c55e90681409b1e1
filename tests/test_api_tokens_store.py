"""API tokens on the store itself, on SQLite and (when configured) PostgreSQL: create,
authenticate, last use, expiry, revocation (timestamps with and without time zones)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from backend.api import tokens
from backend.store import Store
from backend.store.models import utcnow
from backend.store.token_models import ApiToken


def test_token_lifecycle(db_url):
    store = Store(db_url)
    info, tok = tokens.create_token(store, "svc.bot", "read, write", created_by="tests",
                                    expires_days=2, description="nightly sync")
    assert info.scopes == ("read", "write") and info.status == "active"
    p = tokens.authenticate(store, tok)
    assert (p.name, p.role, p.token_id) == ("svc.bot", "editor", info.id)
    (listed,) = tokens.list_tokens(store, "svc.bot")
    first_use = listed.last_used_at
    assert first_use is not None and listed.description == "nightly sync"
    tokens.authenticate(store, tok)  # within a minute: last use is not written again
    assert tokens.list_tokens(store)[0].last_used_at == first_use
    with store.session() as s:
        s.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(minutes=1)))
    with pytest.raises(tokens.TokenRefused) as e:
        tokens.authenticate(store, tok)
    assert e.value.reason == "expired" and tok not in str(e.value)
    assert tokens.list_tokens(store)[0].status == "expired"
    info2, tok2 = tokens.create_token(store, "svc.bot", ["admin"], created_by="tests",
                                      expires_days=None)
    assert info2.expires_at is None and tokens.authenticate(store, tok2).role == "admin"
    revoked = tokens.revoke_token(store, str(info2.id))
    again = tokens.revoke_token(store, info2.key_id)  # the first moment is kept
    assert revoked.revoked_at == again.revoked_at and again.status == "revoked"
    with pytest.raises(tokens.TokenRefused) as e:
        tokens.authenticate(store, tok2)
    assert e.value.reason == "revoked"
    store.dispose()


@pytest.mark.parametrize("header,reason", [(None, "missing"), ("", "missing"),
                                           ("Token abc", "malformed"), ("Bearer ", "malformed"),
                                           ("Basic YTpi", "malformed")])
def test_authorization_headers_that_are_not_bearer_tokens(header, reason):
    with pytest.raises(tokens.TokenRefused) as e:
        tokens.bearer_token(header)
    assert e.value.reason == reason
    assert tokens.bearer_token("bearer  rgs_x ") == "rgs_x"
