"""Widget values to set at the start of the next run. Streamlit refuses to change a widget's
value once the widget has been drawn in the current run, so an action that should clear a
form ("Create" done: empty name field) or select what it just made ("Add member": pick the
new member) records the values here and the page applies them before it draws its
widgets. No Streamlit import: `state` is st.session_state or a dict in tests."""
from __future__ import annotations

from typing import Any, MutableMapping

PENDING = "ui.pending"


def defer(state: MutableMapping[str, Any], values: dict[str, Any]) -> None:
    """Set `values` (key -> value) when the next run calls `apply`."""
    state[PENDING] = {**(state.get(PENDING) or {}), **values}


def apply(state: MutableMapping[str, Any]) -> None:
    """Write the deferred values into the session state (before any widget is drawn)."""
    for key, value in (state.pop(PENDING, None) or {}).items():
        state[key] = value


def keep_valid(state: MutableMapping[str, Any], key: str, options: list) -> None:
    """A selectbox whose options changed keeps a value that is no longer (or not yet) among
    them and shows nothing; make it the first option instead."""
    if options and state.get(key) not in options:
        state[key] = options[0]
