"""Users (admin): add and disable users, set roles, reset passwords, lift sign-in locks.
Disabling, a new role and a new password end the user's sessions (backend/security/sessions.py)."""
import math

import streamlit as st

from backend.security import auth, login_limit
from backend.ui import state as K
from pages._common import auth_paths, md_escape, require_page, show_errors

user = require_page("admin", "user management")
store = auth.UserStore(auth_paths())
limiter = login_limit.LoginLimiter(auth_paths())
st.title("Users")

flash = st.session_state.get(K.ADMIN_USERS_FLASH)
if flash:
    st.success(md_escape(flash["message"]))
    if flash.get("password"):
        st.caption("The password is shown only now; pass it on securely.")
        st.code(flash["password"], language=None)
    st.session_state[K.ADMIN_USERS_FLASH] = None


def _done(message: str, password: str | None = None) -> None:
    st.session_state[K.ADMIN_USERS_FLASH] = {"message": message, "password": password}
    st.rerun()


def _act(fn) -> object:
    """Every action checks the role itself, then reports errors as one line."""
    def run():
        auth.require(user.role, "manage_users")
        return fn() or True
    return show_errors(run)


users = store.users()
locks = limiter.locked_users()


def _status(u: auth.User) -> str:
    if u.disabled:
        return "disabled"
    if u.username in locks:
        return f"locked ({math.ceil(locks[u.username] / 60)} min)"
    return "active"


st.dataframe([{"user": u.username, "name": u.name, "email": u.email, "role": u.role,
               "status": _status(u)} for u in users], hide_index=True)

left, right = st.columns(2)
with left, st.form(K.ADMIN_USERS_ADD_FORM, clear_on_submit=True):
    st.subheader("Add a user", anchor=False)
    new_name = st.text_input("User name", key=K.ADMIN_USERS_NEW_USERNAME)
    full_name = st.text_input("Display name", key=K.ADMIN_USERS_NEW_NAME)
    email = st.text_input("Email", key=K.ADMIN_USERS_NEW_EMAIL)
    role = st.selectbox("Role", auth.ROLES, key=K.ADMIN_USERS_NEW_ROLE)
    password = st.text_input("Password (empty: generate one)", type="password",
                             key=K.ADMIN_USERS_NEW_PASSWORD)
    if st.form_submit_button("Add user", type="primary"):
        pw = _act(lambda: store.add(new_name, role, name=full_name, email=email,
                                    password=password or None))
        if pw:
            _done(f"Added {new_name.strip().lower()} ({role}).",
                  None if password else pw)

with right:
    st.subheader("Change a user", anchor=False)
    names = [u.username for u in users]
    target_name = st.selectbox("User", names, key=K.ADMIN_USERS_TARGET)
    target = next(u for u in users if u.username == target_name)
    is_self = target.username == user.username
    new_role = st.selectbox("Role", auth.ROLES, index=auth.ROLES.index(target.role),
                            key=f"{K.ADMIN_USERS_ROLE}.{target.username}")
    if st.button("Set role", key=K.ADMIN_USERS_SET_ROLE, disabled=new_role == target.role):
        if is_self:
            st.error("You cannot change your own role; ask another admin.")
        elif _act(lambda: store.set_role(target.username, new_role)):
            _done(f"{target.username} is now {new_role}.")
    label = "Enable" if target.disabled else "Disable"
    if st.button(label, key=K.ADMIN_USERS_TOGGLE, disabled=is_self and not target.disabled,
                 help="You cannot disable yourself." if is_self else None):
        if _act(lambda: store.set_disabled(target.username, not target.disabled)):
            _done(f"{target.username} is now {'active' if target.disabled else 'disabled'}.")
    reset_pw = st.text_input("New password (empty: generate one)", type="password",
                             key=K.ADMIN_USERS_RESET_PASSWORD)
    if st.button("Reset password", key=K.ADMIN_USERS_RESET):
        pw = _act(lambda: store.reset_password(target.username, reset_pw or None))
        if pw:
            limiter.unlock(target.username)
            _done(f"New password set for {target.username}.", None if reset_pw else pw)
    if target.username in locks:
        st.caption(f"Sign-in is locked for {math.ceil(locks[target.username] / 60):d} more "
                   "minute(s) after failed attempts.")
    if st.button("Unlock sign-in", key=K.ADMIN_USERS_UNLOCK,
                 disabled=target.username not in locks,
                 help="Lift the lock that failed sign-in attempts put on this user name."):
        if _act(lambda: limiter.unlock(target.username)):
            _done(f"Sign-in for {target.username} is unlocked.")
