"""No Streamlit deprecation warning in the log of a page run (issue 23, item 6: the Costs
page's charts and the chat sidebar used `use_container_width`, deprecated for `width`)."""
from __future__ import annotations

from tests.test_chat_pages import EVERYTHING, page
from tests.test_chat_pages import data, service, template  # noqa: F401  (fixtures)


def _deprecations(monkeypatch) -> list[str]:
    """Every deprecation warning Streamlit logs from now on (also one it logged before in
    this process: its show-once memory starts empty)."""
    from streamlit import deprecation_util

    logged: list[str] = []
    monkeypatch.setattr(deprecation_util, "_shown_warnings", set())
    monkeypatch.setattr(deprecation_util._LOGGER, "warning",
                        lambda msg, *a, **k: logged.append(str(msg)))
    return logged


def test_costs_and_chat_pages_log_no_deprecation_warning(monkeypatch, data, service):
    from backend.chat.service import ChatService
    from tests.test_chat import FakeProvider

    priced = ChatService(service.rs, provider_factory=lambda n: FakeProvider("Answer [1]."))
    s1 = priced.create_session("viewer", provider="anthropic", collections=["samples"])
    priced.ask(s1.uuid, "Which configuration key replaced gateway.maxConn?",
               scope=EVERYTHING)  # evidence found: the model is asked (and priced)
    logged = _deprecations(monkeypatch)

    costs = page(monkeypatch, data, "costs", user="admin")
    assert len(costs.get("plotly_chart")) == 3  # tokens, latency and cost charts rendered
    chat = page(monkeypatch, data, "chat", session=s1.uuid)
    assert [b for b in chat.sidebar.button if b.key.startswith("chat.open.")]
    assert logged == []
