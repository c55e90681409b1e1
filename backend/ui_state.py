"""Every Streamlit session-state key of the dashboard, in one place, prefixed by the page
that owns it (widget keys included). `init` (called by app.py and by every page's role
check) sets the defaults. No Streamlit import: `state` is any mutable mapping
(st.session_state in the app, a dict in tests)."""
from __future__ import annotations

from typing import Any, MutableMapping

# Set by streamlit-authenticator; read by the auth gate (names fixed by the library).
AUTH_STATUS = "authentication_status"
AUTH_USERNAME = "username"
AUTH_ROLES = "roles"
AUTH_NAME = "name"

# app.py: sign-in form and cookie flags carried to the next run
LOGIN_USERNAME = "login.username"
LOGIN_PASSWORD = "login.password"
LOGIN_ATTEMPT = "login.attempt"  # {username, password (None once decided), message}
APP_SIGN_OUT = "app.sign_out"
APP_SET_COOKIE = "app.set_cookie"
APP_DELETE_COOKIE = "app.delete_cookie"

# home
HOME_REFRESH = "home.refresh"

# explorer
EXPLORER_PAGE = "explorer.page"  # the page shown
EXPLORER_PAGER = "explorer.pager"  # the pagination widget (copies into EXPLORER_PAGE)
EXPLORER_PAGE_SIZE = "explorer.page_size"
EXPLORER_COLLECTIONS = "explorer.collections"
EXPLORER_FILE_TYPES = "explorer.file_types"
EXPLORER_DOC_TYPES = "explorer.doc_types"
EXPLORER_SOURCE_KINDS = "explorer.source_kinds"
EXPLORER_STATUSES = "explorer.statuses"
EXPLORER_SEARCH = "explorer.search"
EXPLORER_SEARCH_TEXT = "explorer.search_text"
EXPLORER_PICK = "explorer.pick"
EXPLORER_OPEN_DETAILS = "explorer.open_details"
EXPLORER_OPEN_STRUCTURE = "explorer.open_structure"
# The document chosen in the explorer; the document and structure pages start from it.
EXPLORER_DOC_ID = "explorer.doc_id"

# document detail
DOCUMENT_PICK = "document.pick"
DOCUMENT_SECTION = "document.section"
DOCUMENT_VERSION_PICK = "document.version_pick"
DOCUMENT_CONFIRM_DELETE = "document.confirm_delete"
DOCUMENT_FLASH = "document.flash"
DOCUMENT_DOWNLOAD = "document.download"
DOCUMENT_ACTIVATE = "document.activate"
DOCUMENT_DELETE = "document.delete"
DOCUMENT_DELETE_CONFIRM = "document.delete_confirm"
DOCUMENT_DELETE_CANCEL = "document.delete_cancel"

# structure
STRUCTURE_PICK = "structure.pick"
STRUCTURE_SIZE_BY = "structure.size_by"
STRUCTURE_CHART = "structure.chart"
STRUCTURE_SECTION = "structure.section"
STRUCTURE_PLOT = "structure.plot"
STRUCTURE_PLOT_SEEN = "structure.plot_seen"
STRUCTURE_SHOW = "structure.show"  # + "." + section id

# upload
UPLOAD_FILES = "upload.files"  # + "." + nonce (a new nonce empties the uploader)
UPLOAD_COLLECTION = "upload.collection"
UPLOAD_RESULTS = "upload.results"
UPLOAD_NONCE = "upload.nonce"
UPLOAD_GO = "upload.go"

# admin: users
ADMIN_USERS_FLASH = "admin_users.flash"
ADMIN_USERS_ADD_FORM = "admin_users.add"
ADMIN_USERS_NEW_USERNAME = "admin_users.new_username"
ADMIN_USERS_NEW_NAME = "admin_users.new_name"
ADMIN_USERS_NEW_EMAIL = "admin_users.new_email"
ADMIN_USERS_NEW_ROLE = "admin_users.new_role"
ADMIN_USERS_NEW_PASSWORD = "admin_users.new_password"
ADMIN_USERS_TARGET = "admin_users.target"
ADMIN_USERS_ROLE = "admin_users.role"  # + "." + user name
ADMIN_USERS_SET_ROLE = "admin_users.set_role"
ADMIN_USERS_TOGGLE = "admin_users.toggle"
ADMIN_USERS_RESET_PASSWORD = "admin_users.reset_password"
ADMIN_USERS_RESET = "admin_users.reset"

# admin: settings and reindex
SETTINGS_CONFIRM_REINDEX = "settings.confirm_reindex"
SETTINGS_RESULT = "settings.result"
SETTINGS_CHECK = "settings.check"
SETTINGS_REINDEX = "settings.reindex"
SETTINGS_REINDEX_CANCEL = "settings.reindex_cancel"
SETTINGS_REINDEX_CONFIRM = "settings.reindex_confirm"

DEFAULTS: dict[str, Any] = {
    EXPLORER_PAGE: 1,
    EXPLORER_PAGE_SIZE: 25,
    EXPLORER_DOC_ID: None,
    DOCUMENT_CONFIRM_DELETE: False,
    DOCUMENT_FLASH: None,
    STRUCTURE_SIZE_BY: "characters",
    STRUCTURE_CHART: "sunburst",
    UPLOAD_RESULTS: None,
    UPLOAD_NONCE: 0,
    ADMIN_USERS_FLASH: None,
    SETTINGS_CONFIRM_REINDEX: False,
    SETTINGS_RESULT: None,
}


def init(state: MutableMapping[str, Any]) -> None:
    for key, value in DEFAULTS.items():
        if key not in state:
            state[key] = value


# query debug (pages/query_debug.py)
DEBUG_QUERY = "debug.query"
DEBUG_COMPARE = "debug.compare"
DEBUG_RESULT_A = "debug.result_a"
DEBUG_RESULT_B = "debug.result_b"
DEBUG_PAST = "debug.past"
DEBUG_FORM = "debug.form"
DEBUG_PARAM = "debug.param"  # + "." + config letter + "." + parameter name
DEFAULTS.update({DEBUG_COMPARE: False, DEBUG_RESULT_A: None, DEBUG_RESULT_B: None})

# crawl sources, schedules and runs (pages/crawl.py)
CRAWL_PICK = "crawl.pick"  # the source shown: None (a new source) or a source id
CRAWL_FLASH = "crawl.flash"  # (level, message) shown once on the next run
CRAWL_NONCE = "crawl.nonce"  # a new nonce gives the source form fresh widgets
CRAWL_FORM = "crawl.form"
CRAWL_FIELD = "crawl.field"  # + "." + source id or "new" + "." + nonce + "." + form field
CRAWL_ERRORS = "crawl.errors"  # {"target": source id or "new", "errors": {field: message}}
CRAWL_SAVE = "crawl.save"
CRAWL_RUN_NOW = "crawl.run_now"
CRAWL_CONFIRM_DELETE = "crawl.confirm_delete"  # source id awaiting confirmation, or None
CRAWL_DELETE = "crawl.delete"
CRAWL_DELETE_CONFIRM = "crawl.delete_confirm"
CRAWL_DELETE_CANCEL = "crawl.delete_cancel"
CRAWL_CANCEL = "crawl.cancel"  # + "." + run id
CRAWL_RESUME = "crawl.resume"  # + "." + run id
CRAWL_REFRESH = "crawl.refresh"
CRAWL_EVENTS_RUN = "crawl.events_run"
CRAWL_EVENTS_OUTCOMES = "crawl.events_outcomes"
DEFAULTS.update({CRAWL_PICK: None, CRAWL_FLASH: None, CRAWL_NONCE: 0, CRAWL_ERRORS: None,
                 CRAWL_CONFIRM_DELETE: None})


def crawl_field(target: int | str, nonce: int, field: str) -> str:
    """Widget key of a crawl source form field (target: a source id or "new")."""
    return f"{CRAWL_FIELD}.{target}.{nonce}.{field}"
