"""Every Streamlit session-state key of the dashboard, in one place, prefixed by the page
that owns it (widget keys included). `init` (called by app.py and by every page's role
check) sets the defaults. No Streamlit import: `state` is any mutable mapping
(st.session_state in the app, a dict in tests)."""
from __future__ import annotations

from typing import Any, MutableMapping

# The session of the signed-in user (set by app.py at sign-in, checked on every run by
# pages/_common.current_user). The first five are streamlit-authenticator's own keys.
AUTH_STATUS = "authentication_status"
AUTH_USERNAME = "username"
AUTH_ROLES = "roles"
AUTH_NAME = "name"
AUTH_EMAIL = "email"
AUTH_BEGAN = "auth.began"  # when the session began (backend/security/sessions.py)

# app.py: sign-in form and cookie flags carried to the next run
LOGIN_USERNAME = "login.username"
LOGIN_PASSWORD = "login.password"
LOGIN_ATTEMPT = "login.attempt"  # {username, password (None once decided), message}
APP_SIGN_OUT = "app.sign_out"
APP_SET_COOKIE = "app.set_cookie"  # True until the browser has written the re-login cookie
APP_DELETE_COOKIE = "app.delete_cookie"
APP_REFUSED_TOKEN = "app.refused_token"  # a re-login cookie refused once in this session
# Reserved for streamlit-authenticator: its cookie components use the default keys of
# extra-streamlit-components, "init" (read), "set" (write) and "delete"; its logout sets
# "logout". No other widget may use them.
STAUTH_COOKIE_SET = "set"  # the writing component: True once the browser has written it

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
EXPLORER_TABLE = "explorer.table"  # + "." + EXPLORER_TABLE_N: the table (row selection opens)
EXPLORER_TABLE_N = "explorer.table_n"  # a new table after each opening: no stale selection
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
DOCUMENT_CITED = "document.cited"  # the container of a citation's cited place
DOCUMENT_TEXT = "document.text"  # the scrolling container of the version's text
DOCUMENT_TAB = "document.tab"  # "Text" or "Chunks": the open tab (only it is rendered)
DOCUMENT_META = "document.meta"  # the metadata expander (its table only when open)
DOCUMENT_SIGNALS = "document.signals"  # the classification details expander
DOCUMENT_LINKED = "document.linked"  # (version, section) of the URL last applied
DOCUMENT_PURGE_ANSWERS = "document.purge_answers"  # delete: also remove chat answers' text

# structure
STRUCTURE_PICK = "structure.pick"
STRUCTURE_SIZE_BY = "structure.size_by"
STRUCTURE_CHART = "structure.chart"
STRUCTURE_CHART_ON = "structure.chart_on"  # "Show chart" (off: Plotly's browser code is not loaded)
STRUCTURE_SECTION = "structure.section"
STRUCTURE_PLOT = "structure.plot"
STRUCTURE_PLOT_SEEN = "structure.plot_seen"
STRUCTURE_TABLE = "structure.table"  # + "." + version id + "." + STRUCTURE_TABLE_N
STRUCTURE_TABLE_N = "structure.table_n"  # a new table when the section is chosen elsewhere
STRUCTURE_TABLE_SEEN = "structure.table_seen"  # the row selection last applied
STRUCTURE_TEXT = "structure.text"  # the scrolling container of the section's text

# upload
UPLOAD_FILES = "upload.files"  # + "." + nonce (a new nonce empties the uploader)
UPLOAD_COLLECTION = "upload.collection"
UPLOAD_KNOWLEDGE_BASE = "upload.knowledge_base"
UPLOAD_RESULTS = "upload.results"
UPLOAD_NONCE = "upload.nonce"
UPLOAD_GO = "upload.go"
UPLOAD_IDENTITY = "upload.identity"
UPLOAD_VERSION_OF = "upload.version_of"

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
ADMIN_USERS_UNLOCK = "admin_users.unlock"

# admin: settings and reindex
SETTINGS_CONFIRM_REINDEX = "settings.confirm_reindex"
SETTINGS_RESULT = "settings.result"
SETTINGS_CHECK = "settings.check"
SETTINGS_REINDEX = "settings.reindex"
SETTINGS_REINDEX_CANCEL = "settings.reindex_cancel"
SETTINGS_REINDEX_CONFIRM = "settings.reindex_confirm"
# the Settings page's run-time configuration (pages/_admin_config.py)
RUNTIME_FLASH = "settings.runtime_flash"  # the message of the last change, shown once
RUNTIME_FORM = "settings.runtime_form"
RUNTIME_NAME = "settings.runtime_name"
RUNTIME_VALUE = "settings.runtime_value"
PROMPTS_SCOPE = "settings.prompts_scope"
PROMPTS_PICK = "settings.prompts_pick"
PROMPTS_ACTIVATE = "settings.prompts_activate"
PROMPTS_FORM = "settings.prompts_form"
PROMPTS_TEXT = "settings.prompts_text"
PROMPTS_NOTE = "settings.prompts_note"
PROMPTS_MAKE_ACTIVE = "settings.prompts_make_active"

DEFAULTS: dict[str, Any] = {
    AUTH_STATUS: None,
    AUTH_USERNAME: None,
    AUTH_BEGAN: None,
    EXPLORER_PAGE: 1,
    EXPLORER_PAGE_SIZE: 25,
    EXPLORER_DOC_ID: None,
    EXPLORER_TABLE_N: 0,
    DOCUMENT_CONFIRM_DELETE: False,
    DOCUMENT_FLASH: None,
    STRUCTURE_SIZE_BY: "characters",
    STRUCTURE_TABLE_N: 0,
    STRUCTURE_CHART: "sunburst",
    STRUCTURE_CHART_ON: False,
    UPLOAD_RESULTS: None,
    UPLOAD_NONCE: 0,
    ADMIN_USERS_FLASH: None,
    SETTINGS_CONFIRM_REINDEX: False,
    SETTINGS_RESULT: None,
    RUNTIME_FLASH: None,
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

# admin: knowledge bases, access groups and memberships (pages/admin_access.py)
ACCESS_FLASH = "access.flash"  # (level, message) shown once on the next run
ACCESS_KB_NAME = "access.kb_name"
ACCESS_KB_DESCRIPTION = "access.kb_description"
ACCESS_KB_CREATE = "access.kb_create"
ACCESS_KB_DELETE_PICK = "access.kb_delete_pick"
ACCESS_KB_DELETE = "access.kb_delete"
ACCESS_MOVE_COLLECTION = "access.move_collection"
ACCESS_MOVE_KB = "access.move_kb"
ACCESS_MOVE = "access.move"
ACCESS_GROUP_NAME = "access.group_name"
ACCESS_GROUP_DESCRIPTION = "access.group_description"
ACCESS_GROUP_ALL_USERS = "access.group_all_users"
ACCESS_GROUP_CREATE = "access.group_create"
ACCESS_GROUP_PICK = "access.group_pick"
ACCESS_GROUP_DELETE = "access.group_delete"
ACCESS_GROUP_TOGGLE_ALL = "access.group_toggle_all"
ACCESS_GRANT_KB = "access.grant_kb"
ACCESS_GRANT_PERMISSION = "access.grant_permission"
ACCESS_GRANT = "access.grant"
ACCESS_REVOKE = "access.revoke"
ACCESS_MEMBER_KIND = "access.member_kind"
ACCESS_MEMBER_USER = "access.member_user"
ACCESS_MEMBER_PRINCIPAL = "access.member_principal"
ACCESS_MEMBER_ADD = "access.member_add"
ACCESS_MEMBER_PICK = "access.member_pick"
ACCESS_MEMBER_REMOVE = "access.member_remove"
ACCESS_WHO = "access.who"
DEFAULTS.update({ACCESS_FLASH: None})

# admin: API tokens (pages/admin_tokens.py)
TOKENS_FLASH = "tokens.flash"  # (level, message, plain token or None) shown once
TOKENS_FORM = "tokens.form"
TOKENS_PRINCIPAL = "tokens.principal"
TOKENS_SCOPES = "tokens.scopes"
TOKENS_EXPIRY = "tokens.expiry_days"
TOKENS_NO_EXPIRY = "tokens.no_expiry"
TOKENS_DESCRIPTION = "tokens.description"
TOKENS_REVOKE_PICK = "tokens.revoke_pick"
TOKENS_REVOKE = "tokens.revoke"
TOKENS_REVOKE_ASK = "tokens.revoke_ask"  # the token id whose revocation awaits confirmation
TOKENS_REVOKE_CONFIRM = "tokens.revoke_confirm"
TOKENS_REVOKE_CANCEL = "tokens.revoke_cancel"
DEFAULTS.update({TOKENS_FLASH: None, TOKENS_REVOKE_ASK: None})

# document analysis (pages/analysis.py)
ANALYSIS_PICK = "analysis.pick"
ANALYSIS_VERSION = "analysis.version"
ANALYSIS_TAB = "analysis.tab"  # the open tab's label (only the open tab is rendered)
ANALYSIS_LENGTH = "analysis.length"
ANALYSIS_SUMMARY_SECTION = "analysis.summary_section"
ANALYSIS_COMPARE_MODE = "analysis.compare_mode"
ANALYSIS_VERSION_A = "analysis.version_a"
ANALYSIS_OTHER_DOC = "analysis.other_doc"
ANALYSIS_XREF_SECTION = "analysis.xref_section"
ANALYSIS_XREF_GO = "analysis.xref_go"
ANALYSIS_XREF_RESULT = "analysis.xref_result"  # (document id, version id, section id, result)
ANALYSIS_OPEN = "analysis.open"  # + "." + extractor: the item whose section the link opens
ANALYSIS_DOWNLOAD = "analysis.download"  # + "." + what + "." + format
DEFAULTS.update({ANALYSIS_LENGTH: "medium", ANALYSIS_COMPARE_MODE: "versions",
                 ANALYSIS_XREF_RESULT: None})

# document page: classification, title, profile (pages/document.py); the document-type
# registry (pages/document_types.py)
DOCUMENT_TITLE_FORM = "document.title_form"
DOCUMENT_TITLE = "document.title"
DOCUMENT_TITLE_SAVE = "document.title_save"
DOCUMENT_TITLE_RESET = "document.title_reset"
DOCUMENT_PROFILE = "document.profile"
DOCUMENT_PROFILE_APPLY = "document.profile_apply"
DOCTYPES_FLASH = "doctypes.flash"
DOCTYPES_PICK = "doctypes.pick"  # the type in the edit form ("" = a new one)
DOCTYPES_FORM = "doctypes.form"
DOCTYPES_FIELD = "doctypes.field"  # + "." + type name + "." + form field
DOCTYPES_SAVE = "doctypes.save"
DOCTYPES_DELETE = "doctypes.delete"
DOCTYPES_RECLASSIFY = "doctypes.reclassify"
DOCTYPES_DRY_RUN = "doctypes.dry_run"
DEFAULTS.update({DOCTYPES_FLASH: None, DOCTYPES_PICK: ""})


def doctypes_field(name: str, field: str) -> str:
    """Widget key of a field of the document-type form (per type, so switching types shows
    that type's values)."""
    return f"{DOCTYPES_FIELD}.{name or 'new'}.{field}"

# chatbot builder wizard (pages/chatbot_builder.py) and published bot chat (pages/chatbot.py)
BOTS_SLUG = "bots.slug"  # the bot the wizard works on (also ?bot= in the URL), or None
BOTS_STEP = "bots.step"  # 1 source · 2 build · 3 configure · 4 test · 5 publish
BOTS_FLASH = "bots.flash"  # (level, message) shown once on the next run
BOTS_ERRORS = "bots.errors"  # {field: message} of the last refused create/save
BOTS_PICK = "bots.pick"  # "continue with" an existing bot
BOTS_URL = "bots.url"
BOTS_NAME = "bots.name"
BOTS_COLLECTION = "bots.collection"
BOTS_USE = "bots.use"  # existing collections
BOTS_SOURCE = "bots.source"  # "site" (crawl a URL) or "collections" (existing ones only)
BOTS_PAGES = "bots.max_pages"
BOTS_DEPTH = "bots.max_depth"
BOTS_CREATE = "bots.create"
BOTS_CANCEL = "bots.cancel"
BOTS_RESUME = "bots.resume"
BOTS_REBUILD = "bots.rebuild"
BOTS_GOTO = "bots.goto"  # + "." + step number
BOTS_FIELD = "bots.field"  # + "." + slug + "." + nonce + "." + config field
BOTS_DRAFT = "bots.draft"  # {"slug": …, "values": {field: value}}: the configuration edited
BOTS_NONCE = "bots.nonce"  # a new nonce gives the configuration form fresh widgets
BOTS_GENERATE = "bots.generate"  # + "." + field
BOTS_SAVE = "bots.save"
BOTS_QUESTION = "bots.question"
BOTS_ASK = "bots.ask"
BOTS_TEST_SESSION = "bots.test_session"  # the wizard's test conversation (uuid)
BOTS_TEST_LAST = "bots.test_last"  # the last test answer (BotAnswer) shown with its sources
BOTS_PUBLISH = "bots.publish"
BOTS_UNPUBLISH = "bots.unpublish"
BOTS_DELETE = "bots.delete"  # asks for confirmation (BOTS_DELETE_PENDING = the slug)
BOTS_DELETE_PENDING = "bots.delete_pending"
BOTS_DELETE_YES = "bots.delete_yes"
BOTS_DELETE_NO = "bots.delete_no"
BOT_CHAT_PICK = "bot_chat.pick"
BOT_CHAT_SESSIONS = "bot_chat.sessions"  # {slug: conversation uuid}
BOT_CHAT_INPUT = "bot_chat.input"
DEFAULTS.update({BOTS_SLUG: None, BOTS_STEP: 1, BOTS_FLASH: None, BOTS_ERRORS: None,
                 BOTS_TEST_SESSION: None, BOTS_TEST_LAST: None, BOT_CHAT_SESSIONS: None,
                 BOTS_DRAFT: None, BOTS_NONCE: 0, BOTS_SOURCE: "site",
                 BOTS_DELETE_PENDING: None})


def bots_field(slug: str, nonce: int, field: str) -> str:
    """Widget key of a configuration field of the wizard (per bot and form nonce)."""
    return f"{BOTS_FIELD}.{slug}.{nonce}.{field}"

# ---- background jobs (pages/_jobs.py) ----------------------------------------------------------
JOBS_WATCH = "jobs.watch"  # + "." + job kind: the running job this session follows
JOBS_CANCEL = "jobs.cancel"  # + "." + job id

# ---- author profiles (pages/profiles.py; issue 26) --------------------------------------------
PROFILES_FLASH = "profiles.flash"
PROFILES_PICK = "profiles.pick"  # the profile in the edit form (0 = a new one)
PROFILES_FORM = "profiles.form"
PROFILES_FIELD = "profiles.field"  # + "." + profile id + "." + form field
PROFILES_DELETE = "profiles.delete"
PROFILES_LANGUAGE = "profiles.language"  # the language of the rules preview
DEFAULTS.update({PROFILES_FLASH: None, PROFILES_PICK: 0})


def profiles_field(profile_id: int, field: str) -> str:
    """Widget key of a field of the profile form (per profile, so switching shows its values)."""
    return f"{PROFILES_FIELD}.{profile_id or 'new'}.{field}"


# ---- tags on documents (pages/_tags.py: document page and explorer) ------------------------------
TAGS_ADD = "tags.add"  # + "." + document id: the "add tags" text field
TAGS_ADD_GO = "tags.add_go"  # + "." + document id
TAGS_REMOVE = "tags.remove"  # + "." + document id + "." + tag key: remove that tag
TAGS_SUGGEST = "tags.suggest"  # + "." + document id + "." + suggestion: accept it (one click)
TAGS_ACCEPT_ALL = "tags.accept_all"  # + "." + document id
TAGS_FLASH = "tags.flash"
EXPLORER_TAGS = "explorer.tags"  # the explorer's tag filter
EXPLORER_TAG_DOCS = "explorer.tag_docs"  # documents of the page to tag
EXPLORER_TAG_NAMES = "explorer.tag_names"  # tags to add or remove, comma-separated
EXPLORER_TAG_ADD = "explorer.tag_add"
EXPLORER_TAG_REMOVE = "explorer.tag_remove"
DEFAULTS.update({TAGS_FLASH: None})
