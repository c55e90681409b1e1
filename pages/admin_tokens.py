"""API tokens (admin): issue a token for a principal (shown once), see every token with its
scopes, expiry, last use and the principal's access groups, revoke one. All logic is in
backend/api/tokens.py (which checks the admin role again); membership of access groups is
managed on the Access page; docs/security.md, "API tokens"."""
import streamlit as st

from backend.api import tokens
from backend.errors import RagscopeError
from backend.ui import state as K
from pages._common import current_actor, get_rs, md_escape, plain_label, require_page

user = require_page("admin", "API token management")
rs = get_rs()
st.title("API tokens")
st.caption("Tokens give scripts, MCP clients and other tools access to the HTTP API and the "
           "MCP server. A principal reads what its access groups grant (Access page); "
           "`read` searches and reads, `write` also uploads, `admin` sees everything.")

flash = st.session_state.get(K.TOKENS_FLASH)
if flash:
    level, message, plain = flash
    getattr(st, level, st.info)(md_escape(message))
    if plain:
        st.caption("The token is shown only now; pass it on securely.")
        st.code(plain, language=None)
    st.session_state[K.TOKENS_FLASH] = None


def _act(fn, ok) -> None:
    """Run a token action as the current actor; report the outcome once."""
    try:
        result = fn(current_actor())
    except RagscopeError as e:
        st.session_state[K.TOKENS_FLASH] = ("error", str(e), None)
    else:
        message, plain = ok(result)
        st.session_state[K.TOKENS_FLASH] = ("success", message, plain)
    st.rerun()


def _when(t) -> str:
    return t.strftime("%Y-%m-%d %H:%M") if t else "–"


try:
    rows = tokens.tokens_overview(rs, current_actor())
except RagscopeError as e:
    st.error(md_escape(str(e)))
    st.stop()

st.dataframe([{"id": r.token.id, "key id": r.token.key_id, "principal": r.token.principal,
               "scopes": ", ".join(r.token.scopes), "status": r.token.status,
               "groups": ", ".join(r.groups) or "(none: reads nothing)"
               if "admin" not in r.token.scopes else "(admin: everything)",
               "expires": _when(r.token.expires_at), "last used": _when(r.token.last_used_at),
               "created by": r.token.created_by, "description": r.token.description}
              for r in rows], hide_index=True)

left, right = st.columns(2)
with left, st.form(K.TOKENS_FORM, clear_on_submit=True):
    st.subheader("Issue a token", anchor=False)
    principal = st.text_input("Principal", key=K.TOKENS_PRINCIPAL,
                              help="e.g. openwebui or claude-desktop; add it to access groups "
                                   "on the Access page")
    scopes = st.multiselect("Scopes", tokens.SCOPES, default=["read"], key=K.TOKENS_SCOPES)
    days = st.number_input("Expires after (days)", min_value=1, max_value=3650,
                           value=tokens.DEFAULT_EXPIRY_DAYS, key=K.TOKENS_EXPIRY)
    never = st.checkbox("Never expires", key=K.TOKENS_NO_EXPIRY)
    description = st.text_input("Description", key=K.TOKENS_DESCRIPTION)
    if st.form_submit_button("Issue token", type="primary"):
        _act(lambda actor: tokens.issue_token(rs, actor, principal, scopes,
                                              expires_days=None if never else float(days),
                                              description=description),
             lambda res: (f"Token {res[0].key_id} issued for {res[0].principal}.", res[1]))

with right:
    st.subheader("Revoke a token", anchor=False)
    active = [r.token for r in rows if r.token.status == "active"]
    if not active:
        st.caption("No active tokens.")
    else:
        pick = st.selectbox("Token", [t.id for t in active], key=K.TOKENS_REVOKE_PICK,
                            format_func=lambda i: plain_label(next(
                                f"{t.key_id} · {t.principal} · {', '.join(t.scopes)}"
                                for t in active if t.id == i)))
        if st.session_state[K.TOKENS_REVOKE_ASK] != pick:
            st.button("Revoke", key=K.TOKENS_REVOKE, icon=":material/block:",
                      on_click=lambda: st.session_state.update({K.TOKENS_REVOKE_ASK: pick}))
        else:  # a revoked token cannot be restored: ask once more, naming it
            shown = next(t for t in active if t.id == pick)
            st.warning(f"Revoke token **{md_escape(shown.key_id)}** of "
                       f"**{md_escape(shown.principal)}**? Every script using it stops "
                       "working at once; this cannot be undone.")
            b1, b2 = st.columns(2)
            if b1.button("Revoke for good", key=K.TOKENS_REVOKE_CONFIRM, type="primary"):
                st.session_state[K.TOKENS_REVOKE_ASK] = None
                _act(lambda actor: tokens.withdraw_token(rs, actor, pick),
                     lambda info: (f"Token {info.key_id} of {info.principal} revoked; it "
                                   "stops working at once.", None))
            b2.button("Cancel", key=K.TOKENS_REVOKE_CANCEL,
                      on_click=lambda: st.session_state.update({K.TOKENS_REVOKE_ASK: None}))
