"""AppTest of the builder's admin parts (issue 26.8): the answer settings in the
configuration form (temperature per provider, min relevance, show sources), the test page's
statistics and deleting a bot after a confirmation (its collection stays)."""
from __future__ import annotations

import pytest

from backend.config import Settings
from backend.ui import crawl as crawl_ui
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    bare,
    components,
    errors,
    open_page,
    plain,
    shared_model,
    successes,
)

SLUG = "chatbot-for-ferry"


@pytest.fixture(autouse=True)
def _stop_consoles():
    yield
    from pages._chatbot_common import _bots
    from pages._crawl_common import _console

    crawl_ui.shutdown_all()
    _console.clear()
    _bots.clear()


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def _click(at, key):
    return _ok(at.button(key=key).click().run())


def _field(at, kind, name):
    return getattr(at, kind)(key=K.bots_field(SLUG, at.session_state[K.BOTS_NONCE], name))


def test_settings_statistics_and_delete(app, bare):
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=bare[0]))
    Ingestor(rs).ingest_bytes(b"A single ferry ticket for adults costs 7.50 euros; children "
                              b"under 12 travel for 3.20 euros.", "tickets.txt",
                              collection="ferry")
    rs.close()
    at = open_page(app(bare[0], "editor"), "chatbot_builder")
    _ok(at.radio(key=K.BOTS_SOURCE).set_value("collections").run())
    _ok(at.multiselect(key=K.BOTS_USE).select("ferry").run())
    _click(at, K.BOTS_CREATE)
    assert at.session_state[K.BOTS_SLUG] == SLUG and at.session_state[K.BOTS_STEP] == 3

    # step 3: 1.5 is too hot for Anthropic (1.0) and fine for the extractive answerer
    _field(at, "selectbox", "provider").set_value("anthropic")
    _field(at, "slider", "temperature").set_value(1.5)
    _field(at, "checkbox", "show_sources").uncheck()
    _click(at, K.BOTS_SAVE)
    assert any(e.startswith("temperature:") and "1.0" in e for e in errors(at)), errors(at)
    _field(at, "selectbox", "provider").set_value("extractive")
    _field(at, "slider", "temperature").set_value(1.5)
    _field(at, "checkbox", "show_sources").uncheck()
    _click(at, f"{K.BOTS_GOTO}.4")
    assert not errors(at), errors(at)
    assert at.session_state[K.BOTS_STEP] == 4

    # step 4: the answer without sources; the statistics count the conversation
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Conversations"], metrics["Fallback rate"]) == ("0", "–"), metrics
    at.text_input(key=K.BOTS_QUESTION).set_value("How much is a single ticket for adults?")
    _ok(next(b for b in at.button if b.label == "Ask").click().run())
    texts = "\n".join(plain(m.value) for m in at.markdown)
    assert "7.50 euros" in texts and "[1]" not in texts
    assert not at.dataframe and any("Sources are hidden" in c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Conversations"], metrics["Messages"], metrics["Fallback rate"]) == \
        ("1", "2", "0%"), metrics
    assert metrics["Avg. response time"].endswith(" s")

    # delete: asks first, "Keep it" keeps it; "Yes, delete" deletes, the collection stays
    _click(at, K.BOTS_DELETE)
    warning = " ".join(w.value for w in at.warning)
    assert "1 conversation(s)" in warning and "Its collections stay: ferry" in warning
    _click(at, K.BOTS_DELETE_NO)
    assert not at.warning and at.session_state[K.BOTS_SLUG] == SLUG
    _click(at, K.BOTS_DELETE)
    _click(at, K.BOTS_DELETE_YES)
    assert any("deleted with 1 conversation(s)" in s for s in successes(at)), successes(at)
    assert at.session_state[K.BOTS_SLUG] is None and at.session_state[K.BOTS_STEP] == 1
    rs = Ragscope(Settings(data_dir=bare[0]))
    try:
        from backend.store import repo

        with rs.store.session() as s:
            assert "ferry" in {c.name for c, _ in repo.list_collections(s)}
    finally:
        rs.close()
