"""Session-state keys of the evaluation page (pages/evaluation.py), prefixed "evaluation.".
They belong in backend/ui/state.py (one module for every key); kept here until the lead merges
them, with `init` setting the page's defaults. No Streamlit import."""
from __future__ import annotations

from typing import Any, MutableMapping

EVAL_GOLDENSET = "evaluation.goldenset"
EVAL_BUNDLED = "evaluation.bundled"
EVAL_IMPORT = "evaluation.import"
EVAL_CONFIGS = "evaluation.configs"
EVAL_METRICS = "evaluation.metrics"
EVAL_JUDGE = "evaluation.judge"
EVAL_TRACES = "evaluation.traces"
EVAL_LABEL = "evaluation.label"
EVAL_RUN = "evaluation.run"
EVAL_LAST = "evaluation.last"  # {"runs": [ids], "warnings": [...], "notes": [...]}
EVAL_BATCH = "evaluation.batch"  # the batch whose results are shown
EVAL_HEAT_METRIC = "evaluation.heat_metric"
EVAL_QUERY = "evaluation.query"
EVAL_QUERY_CONFIG = "evaluation.query_config"
EVAL_HISTORY_METRIC = "evaluation.history_metric"
EVAL_RUN_A = "evaluation.run_a"
EVAL_RUN_B = "evaluation.run_b"
EVAL_DETAIL_METRIC = "evaluation.detail_metric"
EVAL_EDIT_QID = "evaluation.edit_qid"
EVAL_EDIT_NEXT = "evaluation.edit_next"  # question to select on the next run (after a save)
EVAL_EDIT = "evaluation.edit"  # + "." + question id + "." + field
EVAL_EDIT_REL = "evaluation.edit_rel"  # + "." + question id: relevant rows being edited
EVAL_EDIT_NONCE = "evaluation.edit_nonce"
EVAL_SEARCH = "evaluation.search"
EVAL_SEARCH_GO = "evaluation.search_go"
EVAL_SEARCH_HITS = "evaluation.search_hits"
EVAL_MARK = "evaluation.mark"
EVAL_MARK_GRADE = "evaluation.mark_grade"
EVAL_MARK_ADD = "evaluation.mark_add"
EVAL_SAVE = "evaluation.save"
EVAL_DELETE = "evaluation.delete"
EVAL_FLASH = "evaluation.flash"
# rated answers (answer feedback, issue 23): filters, the answer picked, its goldenset draft
EVAL_FB_RATING = "evaluation.fb_rating"
EVAL_FB_TEXT = "evaluation.fb_text"
EVAL_FB_WHO = "evaluation.fb_who"
EVAL_FB_DAYS = "evaluation.fb_days"
EVAL_FB_PICK = "evaluation.fb_pick"
EVAL_FB_DRAFT = "evaluation.fb_draft"  # + "." + message id + "." + field
EVAL_FB_SAVE = "evaluation.fb_save"
EVAL_TAB = "evaluation.tab"  # the selected tab (set to "Results" when a run lands)

DEFAULTS: dict[str, Any] = {
    EVAL_CONFIGS: ["hybrid", "semantic_only", "lexical_only"],
    EVAL_TRACES: True,
    EVAL_LAST: None,
    EVAL_EDIT_NONCE: 0,
    EVAL_SEARCH_HITS: None,
    EVAL_FLASH: None,
}


def init(state: MutableMapping[str, Any]) -> None:
    for key, value in DEFAULTS.items():
        if key not in state:
            state[key] = list(value) if isinstance(value, list) else value
