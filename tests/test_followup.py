"""Follow-up questions (issue 22, part 5; backend/chat/followup.py): the retrieval query of
a follow-up is rewritten from the conversation (subject carried over, "vorher" -> the earlier
value, pinned to the previous answer's document unless another one is named), shown in the
trace and the API; the session's context mode (regular 25 lines / full 500 lines) in the
service, the API and the CLI."""
from __future__ import annotations

import argparse
import json
import sqlite3

import pytest

from backend.security.access import Scope
from backend.chat import followup_context as fu
from backend.chat.followup import Turn, rewrite, signals
from backend.chat.service import ChatInputError, ChatService
from backend.retrieval.traces import load_result_dict

EVERYTHING = Scope.everything()
PRICE_Q = "Wie hoch ist der neue Arbeitspreis für Trinkwasser?"
BEFORE_Q = "Und wie hoch war er vorher?"
# the price before 1 January 2025 (data/sample_texts.py): net in the minutes, gross in the
# press release
EARLIER_PRICES = ("2,48", "2,65")


@pytest.fixture
def chat_rs(sample_rs, tmp_path):
    """A writable copy of the sample corpus's store reusing its indexes read-only."""
    from backend.config import Settings
    from backend.services.container import Ragscope

    data = tmp_path / "var"
    data.mkdir()
    src = sqlite3.connect(sample_rs.settings.data_dir / "ragscope.db")
    dst = sqlite3.connect(data / "ragscope.db")
    src.backup(dst)
    src.close()
    dst.close()
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = sample_rs.embedder
    rs.vector_index = sample_rs.vector_index
    rs.keyword_index = sample_rs.keyword_index
    yield rs
    rs.close()


def _doc_of(msg) -> str:
    cited = [s for s in msg.sources if s.get("cited")] or msg.sources
    return cited[0]["filename"] if cited else ""


# ---- the reproduction of issue 22 on the sample corpus ---------------------------------------

def test_earlier_drinking_water_price_is_answered_from_the_conversation(chat_rs):
    """`ask "Wie hoch ist der neue Arbeitspreis für Trinkwasser?"`, then `ask "Und wie hoch
    war er vorher?" --session …` answered a sentence about maintenance windows: the follow-up
    was retrieved as typed. Now it names the price before the change, from the document of
    the first answer, and the trace says how it was retrieved."""
    svc = ChatService(chat_rs)
    sess = svc.create_session(collections=["samples"])
    first = svc.ask(sess.uuid, PRICE_Q, scope=EVERYTHING).message
    assert any(p in first.content for p in ("2,69", "2,88")), first.content
    msg = svc.ask(sess.uuid, BEFORE_Q, scope=EVERYTHING).message
    assert any(p in msg.content for p in EARLIER_PRICES), msg.content
    assert "maintenance" not in msg.content.lower()
    assert not msg.citations.get("abstained") and msg.citations["cited"]
    assert _doc_of(msg) == _doc_of(first)
    assert msg.rewrite["followup"] and msg.rewrite["document_ids"]
    assert "Arbeitspreis" in msg.rewrite["query"]
    stages = load_result_dict(chat_rs.store, msg.trace_id, viewer=None, is_admin=True)["trace"]["stages"]
    names = [s["name"] for s in stages]
    assert names[:2] == ["route", "rewrite"]
    assert stages[1]["params"]["query"] == msg.rewrite["query"]
    assert "pinned" in stages[1]["note"]
    # the stored question is the one the user typed
    assert svc.messages(sess.uuid, scope=EVERYTHING)[-2].content == BEFORE_Q


def test_follow_up_naming_another_document_is_not_pinned_to_the_previous_one(chat_rs):
    svc = ChatService(chat_rs)
    sess = svc.create_session(collections=["samples"])
    svc.ask(sess.uuid, PRICE_Q, scope=EVERYTHING)
    msg = svc.ask(sess.uuid, "Und was steht dazu im Merkblatt Fernwärme?",
                  scope=EVERYTHING).message
    assert msg.rewrite["followup"] and msg.rewrite["document_ids"] is None
    assert "names another document" in msg.rewrite["why"]
    assert _doc_of(msg) == "merkblatt_fernwaerme.pdf"


def test_a_question_with_its_own_subject_is_retrieved_as_asked(chat_rs):
    svc = ChatService(chat_rs)
    sess = svc.create_session(collections=["samples"])
    svc.ask(sess.uuid, PRICE_Q, scope=EVERYTHING)
    msg = svc.ask(sess.uuid, "Welche Portnummer verwendet das Lumen Data Gateway "
                  "standardmäßig?", scope=EVERYTHING).message
    assert msg.rewrite is None
    stage = load_result_dict(chat_rs.store, msg.trace_id, viewer=None, is_admin=True)["trace"]["stages"][1]
    assert stage["name"] == "rewrite" and not stage["params"]["followup"]


# ---- rewrite rules ----------------------------------------------------------------------------

PRICE_TURN = Turn(PRICE_Q, "Arbeitspreis: 2,69 EUR/m³ netto (2,88 EUR/m³ brutto) [1]",
                  documents=(7,))


@pytest.mark.parametrize("q,lang", [
    (BEFORE_Q, "de"), ("Und Los 1?", "de"), ("Um wie viel Uhr beginnt sie?", "de"),
    ("Mit welchem Stimmenverhältnis wurde das beschlossen?", "de"),
    ("Und wie viele davon sind schon aktiviert?", "de"), ("Und im Jahr davor?", "de"),
    ("And who owns it?", "en"), ("And the year before?", "en"), ("Who fixed it?", "en"),
    ("Is broadband paid for as well?", "en"), ("And how many people are waiting for one?", "en"),
])
def test_follow_ups_are_recognised_in_german_and_english(q, lang):
    assert signals(q, lang)


@pytest.mark.parametrize("q,lang", [
    (PRICE_Q, "de"), ("Gibt es eine Frist für Löschungen?", "de"),
    ("Welche Beschlüsse wurden in der Sitzung des Werkausschusses gefasst?", "de"),
    ("What was Fenwick Instruments' revenue in 2024?", "en"),
    ("Is there a deadline for the Lumen migration?", "en"),
    ("Which port does this Lumen gateway use by default?", "en"),
])
def test_questions_with_their_own_subject_are_not_follow_ups(q, lang):
    assert not signals(q, lang)


def test_vorher_maps_to_the_earlier_value_in_the_document_in_focus():
    text = ("Der Arbeitspreis soll von 2,48 EUR auf 2,69 EUR je Kubikmeter (netto) steigen, "
            "der Grundpreis von 9,50 EUR pro Monat bleibt unverändert.")
    rw = rewrite(BEFORE_Q, [PRICE_TURN], language="de", document_texts=lambda d: [text])
    assert rw.earlier == "2,48 EUR" and "2,48 EUR" in rw.query
    assert "Arbeitspreis" in rw.query and "neue" not in rw.query.split()  # the new one
    assert rw.document_ids == [7] and "2,48 EUR" in rw.why


def test_before_takes_the_from_value_of_the_previous_answer_in_english():
    prev = Turn("What were the Scope 1 and 2 emissions in 2024?",
                "Scope 1 and 2 emissions fell to 2,140 tonnes CO2e in 2024 from 2,610 tonnes "
                "in 2023. [1]", documents=(3,))
    rw = rewrite("And the year before?", [prev], language="en")
    assert rw.earlier == "2,610 tonnes" and "2023" in rw.carried
    assert "before" not in rw.query.lower()  # would match "profit before tax"


def test_a_new_value_replaces_the_old_one_and_the_subject_is_carried():
    prev = Turn("Wie viele Kilometer Gehwege umfasst Los 2 der Winterdienst-Ausschreibung?",
                "Los 2: rund 35 Kilometer Gehwege [1]", documents=(4,))
    rw = rewrite("Und Los 1?", [prev], language="de")
    assert "Gehwege" in rw.carried and "Kilometer" in rw.carried and "2" not in rw.carried


def test_he_and_she_stand_for_the_person_the_previous_answer_named():
    prev = Turn("Wer ist Projektleiter der Sanierung des Waldfreibads Hollerbach?",
                "Projektsteuerung: Kramer Bauconsult GmbH, Projektleiter Benedikt Kramer [1]",
                documents=(5,))
    rw = rewrite("Für welches Risiko ist er verantwortlich?", [prev], language="de")
    assert "Benedikt Kramer" in rw.query and "Kramer Bauconsult GmbH" not in rw.query


def test_chains_continue_from_the_previous_rewrite():
    first = Turn("What is the weekly visitor parking pass at Westmoor Hospital?",
                 "Weekly visitor pass: £15.00 [1]", documents=(9,))
    second = Turn("And the daily one?", "Daily visitor pass: £4.00 [1]",
                  query=rewrite("And the daily one?", [first], language="en").query,
                  documents=(9,))
    rw = rewrite("And is it cheaper for blue badge holders?", [first, second], language="en")
    assert rw.document_ids == [9]
    assert "visitor" in second.query and "parking" in second.query


def test_naming_another_document_unpins():
    docs = [fu_doc(1, "Protokoll Werkausschuss", "protokoll_werkausschuss.txt"),
            fu_doc(2, "Lumen Handbuch", "lumen_handbuch.pdf")]
    assert fu.other_document(docs, "Und was sagt das Lumen-Handbuch dazu?", 1,
                             "Arbeitspreis Trinkwasser") == "Lumen Handbuch"
    # a title word that is also in the focus document is a topic, not a name
    assert fu.other_document(docs, "Und was kostet das Handbuch?", 1,
                             "Das Handbuch kostet nichts.") is None
    rw = rewrite("Und was sagt das Lumen-Handbuch dazu?", [PRICE_TURN], language="de",
                 names_other=lambda q, d: fu.other_document(docs, q, d, ""))
    assert rw.followup and rw.document_ids is None and "Lumen Handbuch" in rw.why


def test_no_pin_after_a_declined_answer():
    prev = Turn(PRICE_Q, "Dazu habe ich in den Dokumenten nichts gefunden.", documents=(7,),
                abstained=True)
    rw = rewrite(BEFORE_Q, [prev], language="de")
    assert rw.followup and rw.document_ids is None and "Trinkwasser" in rw.query


def fu_doc(i, title, filename):
    from backend.answer.route import DocInfo

    return DocInfo(i, title, filename, "", 1)


# ---- context mode -----------------------------------------------------------------------------

def test_context_mode_sets_how_many_lines_of_the_conversation_are_read(rs):
    svc = ChatService(rs)
    sess = svc.create_session()
    assert sess.settings.context_mode == "regular"
    for i in range(20):  # 20 pairs, 2 lines each at least
        svc.store_turn(sess.uuid, f"Frage {i}?", sess.settings, content=f"Antwort {i}.")
    regular = fu.conversation(rs, sess.uuid, fu.context_lines(rs.settings, "regular"))
    full = fu.conversation(rs, sess.uuid, fu.context_lines(rs.settings, "full"))
    assert len(regular) == 12 and regular[-1].question == "Frage 19?"
    assert len(full) == 20 and full[0].question == "Frage 0?"
    sess = svc.update_settings(sess.uuid, context_mode="full")
    assert svc.get_session(sess.uuid).settings.context_mode == "full"
    with pytest.raises(ChatInputError, match="context_mode"):
        svc.update_settings(sess.uuid, context_mode="everything")


def test_full_context_sends_the_longer_conversation_to_the_model(rs):
    from tests.test_chat import FakeProvider

    fake = FakeProvider("Answer [1].", name="ollama", local=True, usage=(None, None))
    svc = ChatService(rs, provider_factory=lambda name: fake)
    sess = svc.create_session(provider="ollama")
    for i in range(20):
        svc.store_turn(sess.uuid, f"Frage {i}?", sess.settings, content=f"Antwort {i}.")
    svc.ask(sess.uuid, "Noch eine Frage?", scope=EVERYTHING)
    assert len(fake.requests[-1].messages) == 2 * 12 + 1
    svc.update_settings(sess.uuid, context_mode="full")
    svc.ask(sess.uuid, "Und noch eine?", scope=EVERYTHING)
    assert len(fake.requests[-1].messages) == 2 * 21 + 1


def test_cli_ask_context_full_is_stored_with_the_session(make_rs, monkeypatch, capsys,
                                                         shared_embedder):
    import backend.embed.embedder
    from backend.cli import chat as cli_chat

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    rs = make_rs()
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    parser = argparse.ArgumentParser()
    cli_chat.register(parser.add_subparsers(dest="cmd"))
    a = parser.parse_args(["ask", "Anything about pumps?", "--json", "--local"])
    assert a.fn(a) == 0
    uuid = json.loads(capsys.readouterr().out)["session"]
    assert ChatService(rs).get_session(uuid).settings.context_mode == "regular"
    a = parser.parse_args(["ask", "And valves?", "--session", uuid, "--context", "full",
                           "--json", "--local"])
    assert a.fn(a) == 0
    assert ChatService(rs).get_session(uuid).settings.context_mode == "full"
    with pytest.raises(SystemExit):
        parser.parse_args(["ask", "x", "--context", "huge"])


def test_api_context_setting_and_the_rewrite_in_the_answer_event(chat_rs):
    """POST /api/ask's body takes `context` (validated); the session keeps it; the `answer`
    event carries the follow-up's rewrite and the trace id."""
    from pydantic import ValidationError

    from backend.services import search as search_service
    from backend.security.access import Actor
    from backend.api.routes_search import _events
    from backend.api.schemas import AskRequest

    assert AskRequest(question="x", context="full").context == "full"
    with pytest.raises(ValidationError, match="context"):
        AskRequest(question="x", context="huge")
    actor = Actor.system("tests")
    events = list(search_service.ask_stream(chat_rs, actor, PRICE_Q, collections=["samples"],
                                            context="full"))
    sess = events[-1].session
    assert sess.settings.context_mode == "full"
    out = list(_events(search_service.ask_stream(chat_rs, actor, BEFORE_Q,
                                                 session=sess.uuid)))
    answer = json.loads(out[-1].split("data: ", 1)[1])
    assert answer["context"] == "full" and answer["trace_id"]
    assert answer["rewrite"]["followup"] and "Arbeitspreis" in answer["rewrite"]["query"]
    assert any(p in answer["text"] for p in EARLIER_PRICES)
