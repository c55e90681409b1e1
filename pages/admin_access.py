"""Access (admin): knowledge bases and their collections, access groups with their grants
(read or write on knowledge bases) and members (dashboard users, API principals), and what
a user may read and write. All logic is in backend/security/acl.py; the rule: docs/security.md."""
import streamlit as st

from backend.security import acl, auth
from backend.security.access import Scope
from backend.errors import RagscopeError
from backend.store.acl_models import MEMBER_KINDS, PERMISSIONS
from backend.ui import pending
from backend.ui import state as K
from pages._common import (
    auth_paths,
    clear_listings,
    current_actor,
    get_rs,
    md_escape,
    require_page,
)

user = require_page("admin", "access management")
rs = get_rs()
pending.apply(st.session_state)  # a form cleared / a new member picked by the last action
st.title("Knowledge bases and access")

flash = st.session_state.get(K.ACCESS_FLASH)
if flash:
    getattr(st, flash[0], st.info)(md_escape(flash[1]))
    st.session_state[K.ACCESS_FLASH] = None


def _act(fn, ok: str, after: dict | None = None) -> None:
    """Run an acl action as the current actor (which it checks again); report the outcome.
    `after`: widget values for the next run when it succeeded (a cleared form)."""
    try:
        fn(current_actor())
    except RagscopeError as e:
        st.session_state[K.ACCESS_FLASH] = ("error", str(e))
    else:
        clear_listings()
        st.session_state[K.ACCESS_FLASH] = ("success", ok)
        pending.defer(st.session_state, after or {})
    st.rerun()


kbs = acl.knowledge_bases(rs, Scope.everything())
groups = acl.groups(rs)
kb_names = [k.name for k in kbs]
group_names = [g.name for g in groups]

# ---- knowledge bases -------------------------------------------------------------------------
st.subheader("Knowledge bases", anchor=False)
st.caption("Every collection belongs to one knowledge base; access groups grant read or "
           "write on knowledge bases. Admins see everything.")
st.dataframe([{"knowledge base": k.name, "collections": ", ".join(c.name for c in k.collections),
               "documents": k.documents,
               "grants": ", ".join(f"{g}: {p}" for g, p in k.grants.items()),
               "description": k.description} for k in kbs], hide_index=True)

c1, c2, c3 = st.columns(3)
with c1.container(border=True):
    st.markdown("**New knowledge base**")
    name = st.text_input("Name", key=K.ACCESS_KB_NAME, max_chars=acl.NAME_MAX)
    desc = st.text_input("Description", key=K.ACCESS_KB_DESCRIPTION)
    if st.button("Create", key=K.ACCESS_KB_CREATE, icon=":material/add:"):
        _act(lambda a: acl.create_knowledge_base(rs, a, name, desc),
             f"Created knowledge base {name.strip()}.",
             {K.ACCESS_KB_NAME: "", K.ACCESS_KB_DESCRIPTION: ""})
with c2.container(border=True):
    st.markdown("**Move a collection**")
    colls = [c.name for k in kbs for c in k.collections]
    coll = st.selectbox("Collection", colls, key=K.ACCESS_MOVE_COLLECTION)
    target = st.selectbox("Into knowledge base", kb_names, key=K.ACCESS_MOVE_KB)
    if st.button("Move", key=K.ACCESS_MOVE, disabled=not colls, icon=":material/move_item:"):
        _act(lambda a: acl.assign_collection(rs, a, coll, target),
             f"Collection {coll} is now in knowledge base {target}.")
with c3.container(border=True):
    st.markdown("**Delete a knowledge base**")
    empty = [k.name for k in kbs
             if not k.collections and k.name != rs.settings.default_knowledge_base]
    gone = st.selectbox("Empty knowledge base", empty, key=K.ACCESS_KB_DELETE_PICK)
    if st.button("Delete", key=K.ACCESS_KB_DELETE, disabled=not empty, icon=":material/delete:"):
        _act(lambda a: acl.delete_knowledge_base(rs, a, gone), f"Deleted knowledge base {gone}.")

# ---- groups --------------------------------------------------------------------------------
st.subheader("Access groups", anchor=False)
st.dataframe([{"group": g.name, "all users": g.all_users,
               "grants": ", ".join(f"{kb}: {p}" for kb, p in g.grants.items()),
               "members": ", ".join(f"{k}:{n}" for k, n in g.members),
               "description": g.description} for g in groups], hide_index=True)

with st.expander("New group"):
    gname = st.text_input("Name", key=K.ACCESS_GROUP_NAME, max_chars=acl.NAME_MAX)
    gdesc = st.text_input("Description", key=K.ACCESS_GROUP_DESCRIPTION)
    gall = st.checkbox("Every dashboard user is a member", key=K.ACCESS_GROUP_ALL_USERS)
    if st.button("Create group", key=K.ACCESS_GROUP_CREATE, icon=":material/group_add:"):
        _act(lambda a: acl.create_group(rs, a, gname, gdesc, all_users=gall),
             f"Created access group {gname.strip()}.",
             {K.ACCESS_GROUP_NAME: "", K.ACCESS_GROUP_DESCRIPTION: "",
              K.ACCESS_GROUP_ALL_USERS: False, K.ACCESS_GROUP_PICK: gname.strip()})

if group_names:
    pending.keep_valid(st.session_state, K.ACCESS_GROUP_PICK, group_names)
    gpick = st.selectbox("Group", group_names, key=K.ACCESS_GROUP_PICK)
    g = next(x for x in groups if x.name == gpick)
    left, mid, right = st.columns(3)
    with left.container(border=True):
        st.markdown("**Grants**")
        kb = st.selectbox("Knowledge base", kb_names, key=K.ACCESS_GRANT_KB)
        perm = st.radio("Permission", [md_escape(p) for p in PERMISSIONS],
                        key=K.ACCESS_GRANT_PERMISSION,
                        horizontal=True, help="write includes read")
        b1, b2 = st.columns(2)
        if b1.button("Grant", key=K.ACCESS_GRANT):
            _act(lambda a: acl.grant(rs, a, gpick, kb, perm), f"{gpick}: {perm} on {kb}.")
        if b2.button("Revoke", key=K.ACCESS_REVOKE, disabled=kb not in g.grants):
            _act(lambda a: acl.revoke(rs, a, gpick, kb), f"{gpick}: no access to {kb}.")
    with mid.container(border=True):
        st.markdown("**Members**")
        kind = st.radio("Kind", [md_escape(k) for k in MEMBER_KINDS], key=K.ACCESS_MEMBER_KIND,
                        horizontal=True)
        if kind == "user":
            users = [u.username for u in auth.UserStore(auth_paths()).users()]
            member = st.selectbox("User", users, key=K.ACCESS_MEMBER_USER)
        else:
            member = st.text_input("Principal name", key=K.ACCESS_MEMBER_PRINCIPAL,
                                   max_chars=acl.NAME_MAX)
        if st.button("Add member", key=K.ACCESS_MEMBER_ADD, disabled=not member):
            _act(lambda a: acl.add_member(rs, a, gpick, kind, member),
                 f"{gpick}: {kind} {member} added.",
                 {K.ACCESS_MEMBER_PICK: f"{kind}:{member.strip()}",
                  K.ACCESS_MEMBER_PRINCIPAL: ""})
        labels = {f"{k}:{n}": (k, n) for k, n in g.members}
        pending.keep_valid(st.session_state, K.ACCESS_MEMBER_PICK, list(labels))
        out = st.selectbox("Current member", list(labels), key=K.ACCESS_MEMBER_PICK)
        if st.button("Remove member", key=K.ACCESS_MEMBER_REMOVE, disabled=not labels):
            _act(lambda a: acl.remove_member(rs, a, gpick, *labels[out]),
                 f"{gpick}: {out} removed.")
    with right.container(border=True):
        st.markdown("**Group**")
        st.caption("All users: " + ("yes: every dashboard user is a member" if g.all_users
                                     else "no: only the members listed"))
        if st.button("Members only" if g.all_users else "Make every user a member",
                     key=K.ACCESS_GROUP_TOGGLE_ALL):
            _act(lambda a: acl.set_all_users(rs, a, gpick, not g.all_users),
                 f"{gpick}: all users {'off' if g.all_users else 'on'}.")
        if st.button("Delete group", key=K.ACCESS_GROUP_DELETE, icon=":material/delete:"):
            _act(lambda a: acl.delete_group(rs, a, gpick), f"Deleted access group {gpick}.")

# ---- effective access ------------------------------------------------------------------------
st.subheader("What a user may read and write", anchor=False)
names = [u.username for u in auth.UserStore(auth_paths()).users()]
who = st.selectbox("User", names, key=K.ACCESS_WHO)
if who:
    try:
        eff = acl.effective_access(rs, "user", who)
    except RagscopeError as e:
        st.error(md_escape(str(e)))
    else:
        st.caption(f"{md_escape(eff.name)} ({md_escape(eff.role)}) · groups: "
                   f"{md_escape(', '.join(eff.groups) or 'none')}")
        if eff.scope.unrestricted:
            st.info("Admins read and write every collection.")
        elif not eff.collections:
            st.warning("This user may read no collection.")
        else:
            st.dataframe([{"collection": c.name, "knowledge base": c.knowledge_base,
                           "documents": c.documents,
                           "access": "write" if eff.scope.can_write(c.name) else "read"}
                          for c in eff.collections], hide_index=True)
