"""Feedback on answers (issue 23 item 4): a thumbs up or down with a note is stored with
the answer (its trace id and sources stay on the message), listed with its question for the
Evaluation page, and refused for answers the rater may not see: another user's chat, another
visitor's chatbot conversation, a bot the visitor no longer sees. The conversations are
stored through the chat's own `store_turn` (no retrieval needed to rate)."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from backend.chat.service import ChatService
from backend.chat.types import ChatInputError, SessionSettings
from backend.errors import NotFound
from backend.security import acl
from backend.security.access import Actor
from backend.services import feedback
from backend.store.chatbot_models import Chatbot, ChatbotCollection
from backend.store import repo

ANNA = Actor("anna", "viewer")
BEN = Actor("ben", "viewer")
ADMIN = Actor("root", "admin")
TOKEN = Actor("robot", "viewer", kind="principal")


def _answer(rs, user: str | None, question: str, text: str, *, chatbot_id: int | None = None,
            trace: str = "t" * 36) -> int:
    chat = ChatService(rs)
    sess = chat.create_session(user, chatbot_id=chatbot_id)
    ev = chat.store_turn(sess.uuid, question, SessionSettings(), content=text, sources=[],
                         citations={}, provider="extractive", model="extractive",
                         trace_id=trace)
    return ev.message.id


def _bot(rs, collection: str = "ferry") -> int:
    with rs.store.session() as s:
        c = repo.get_or_create_collection(s, collection)
        bot = Chatbot(name="Ferry bot", slug="ferry-bot", status="published")
        s.add(bot)
        s.flush()
        s.add(ChatbotCollection(chatbot_id=bot.id, collection_id=c.id, position=0))
        return bot.id


def test_a_rating_is_stored_with_the_answer_and_listed_with_its_question(rs):
    mid = _answer(rs, "anna", "Which port does the gateway use?", "Port 8443 [1].")
    fb = feedback.rate(rs, ANNA, mid, "down", "  it is 8444 since version 2  ")
    assert (fb.rating, fb.note, fb.user) == ("down", "it is 8444 since version 2", "anna")
    assert feedback.feedback_of(rs, ANNA, [mid])[mid].rating == "down"
    (row,) = feedback.rated_answers(rs, ANNA)
    assert row.question == "Which port does the gateway use?"
    assert row.answer == "Port 8443 [1]." and row.trace_id == "t" * 36
    assert row.feedback.note == "it is 8444 since version 2" and row.chatbot is None
    feedback.rate(rs, ANNA, mid, "up")  # changed, not a second row
    (row,) = feedback.rated_answers(rs, ANNA)
    assert row.feedback.rating == "up" and row.feedback.note == ""
    assert feedback.rate(rs, ANNA, mid, None) is None  # withdrawn
    assert feedback.rated_answers(rs, ANNA) == []


def test_only_answers_one_may_see_can_be_rated(rs):
    mid = _answer(rs, "anna", "Q?", "A.")
    with pytest.raises(NotFound, match=f"answer {mid} does not exist"):
        feedback.rate(rs, BEN, mid, "up")  # another user's chat
    with pytest.raises(NotFound):
        feedback.rate(rs, TOKEN, mid, "up")  # an API token: its own /api/ask sessions only
    with pytest.raises(NotFound):
        feedback.rate(rs, ANNA, mid - 1, "up")  # the question, not an answer
    with pytest.raises(NotFound):
        feedback.rate(rs, ANNA, 10**6, "up")
    assert feedback.rate(rs, ADMIN, mid, "up").user == "root"  # admins open any chat
    api = _answer(rs, "api:robot", "Q?", "A.")
    assert feedback.rate(rs, TOKEN, api, "down").user == "api:robot"


def test_bad_rating_or_note_is_named(rs):
    mid = _answer(rs, "anna", "Q?", "A.")
    with pytest.raises(ChatInputError, match="rating: must be 'up' or 'down'"):
        feedback.rate(rs, ANNA, mid, "meh")
    with pytest.raises(ChatInputError, match="note: 2,001 characters"):
        feedback.rate(rs, ANNA, mid, "up", "x" * 2001)
    assert feedback.rated_answers(rs, ANNA) == []  # nothing stored


def test_a_chatbot_visitor_rates_only_their_own_conversation(rs):
    bot = _bot(rs)
    mine = _answer(rs, "anna", "When does the ferry leave?", "At 20:10 [1].", chatbot_id=bot)
    with pytest.raises(NotFound):
        feedback.rate(rs, BEN, mine, "up", chatbot="ferry-bot")
    with pytest.raises(NotFound):
        feedback.rate(rs, ADMIN, mine, "up")  # a visitor's conversation is theirs alone
    with pytest.raises(NotFound):
        feedback.rate(rs, ANNA, mine, "up", chatbot="other-bot")
    chat = _answer(rs, "anna", "Q?", "A.")
    with pytest.raises(NotFound):  # the bot page rates its own conversations only
        feedback.rate(rs, ANNA, chat, "up", chatbot="ferry-bot")
    assert feedback.rate(rs, ANNA, mine, "up", chatbot="ferry-bot").rating == "up"
    # the bot's collection moves to a knowledge base no group of anna's reads: the bot and
    # its conversation are no longer hers to see
    acl.create_knowledge_base(rs, ADMIN, "private")
    acl.assign_collection(rs, ADMIN, "ferry", "private")
    with pytest.raises(NotFound):
        feedback.rate(rs, ANNA, mine, "down", chatbot="ferry-bot")
    root_bot = _answer(rs, "root", "When?", "At 20:10.", chatbot_id=bot)
    fb = feedback.rate(rs, ADMIN, root_bot, "up", "right", chatbot="ferry-bot")
    assert fb.note == "right"
    rows = feedback.rated_answers(rs, ADMIN)
    assert [(r.chatbot, r.question, r.feedback.rating) for r in rows] == [
        ("ferry-bot", "When?", "up"), ("ferry-bot", "When does the ferry leave?", "up")]


def test_the_list_filters_and_shows_admins_everything_others_their_own(rs):
    a = _answer(rs, "anna", "Which port does the gateway use?", "Port 8443.")
    b = _answer(rs, "ben", "Who signs the invoice?", "The treasurer.")
    feedback.rate(rs, ANNA, a, "down", "outdated port")
    feedback.rate(rs, BEN, b, "up")
    assert [r.feedback.user for r in feedback.rated_answers(rs, BEN)] == ["ben"]
    every = feedback.rated_answers(rs, ADMIN)
    assert {r.feedback.user for r in every} == {"anna", "ben"}
    assert [r.answer for r in feedback.rated_answers(rs, ADMIN, rating="down")] == ["Port 8443."]
    assert [r.answer for r in feedback.rated_answers(rs, ADMIN, text="OUTDATED")] == \
        ["Port 8443."]  # the note
    assert [r.answer for r in feedback.rated_answers(rs, ADMIN, text="invoice")] == \
        ["The treasurer."]  # the question
    assert [r.answer for r in feedback.rated_answers(rs, ADMIN, who="be")] == ["The treasurer."]
    today = date.today()
    assert len(feedback.rated_answers(rs, ADMIN, since=today, until=today)) == 2
    assert feedback.rated_answers(rs, ADMIN, until=today - timedelta(days=2)) == []


def test_deleting_the_conversation_deletes_its_feedback(rs):
    mid = _answer(rs, "anna", "Q?", "A.")
    feedback.rate(rs, ANNA, mid, "up")
    chat = ChatService(rs)
    (sess,) = chat.list_sessions("anna")
    chat.delete_session(sess.uuid, user="anna")
    assert feedback.rated_answers(rs, ADMIN) == []


def test_the_text_filter_matches_literally(rs):
    a = _answer(rs, "anna", "Is 100% of the fee refunded?", "Yes.")
    b = _answer(rs, "anna", "Is the fee refunded?", "No.")
    feedback.rate(rs, ANNA, a, "up")
    feedback.rate(rs, ANNA, b, "up")
    assert [r.answer for r in feedback.rated_answers(rs, ANNA, text="100%")] == ["Yes."]
    assert feedback.rated_answers(rs, ANNA, text="_") == []  # no LIKE wildcard
