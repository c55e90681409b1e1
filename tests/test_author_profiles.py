"""Author profiles (issue 26, seed 000): stored style rules, validated field by field; a chat
session or chatbot that selects one gets its rules in the system prompt (after the fixed
rules, before the owner's instructions) and the format checker's rules it switches on
(forbidden words, sentence length, plain text); deleting a profile in use leaves no
dangling id."""
from __future__ import annotations

from typing import Iterator

import pytest
from sqlalchemy import select

from backend.chat.profiles import (
    SAMPLES,
    AuthorProfile,
    InvalidProfile,
    ProfileService,
    load_yaml,
    profile_for_session,
)
from backend.chat.prompt import STYLE_HEADER, SYSTEM_RULES
from backend.chat.service import ChatInputError, ChatService
from backend.errors import NotFound
from backend.llm.base import GenerationRequest, StreamEnd, TextDelta
from backend.security.access import Actor, Scope
from backend.security.auth import PermissionDenied
from backend.store.chat_models import ChatSession

EDITOR = Actor("erika", "editor")
ADMIN = Actor("anna", "admin")  # reads every collection: may build bots on "c"
EVERYTHING = Scope.everything()
FORMAL = {"name": "Sachlich (Sie)", "tone": "sachlich", "formality": "formal",
          "address": "sie", "max_sentence_words": 12, "forbidden_words": ["super", "toll"],
          "output_format": "markdown"}


class Recorder:
    """A provider that records the request and answers with fixed text."""

    name, local, default_model = "anthropic", False, "claude-sonnet-4-5-20250929"

    def __init__(self, text: str):
        self.text, self.requests = text, []

    def stream(self, request: GenerationRequest) -> Iterator:
        self.requests.append(request)
        yield TextDelta(self.text)
        yield StreamEnd(self.default_model, 100, 20, "end_turn")


def _ingest(rs):
    from backend.ingest.service import Ingestor

    doc = b"# Pumps\n\nThe intake pump is serviced every 90 days by the harbour crew.\n"
    assert Ingestor(rs).ingest_bytes(doc, "pumps.md", collection="c").ok


def _collection(rs, name: str = "c") -> None:
    from backend.store import repo

    with rs.store.session() as s:
        repo.get_or_create_collection(s, name)


def test_create_show_update_list_delete(rs):
    svc = ProfileService(rs)
    p = svc.create(EDITOR, **FORMAL)
    assert (p.name, p.address, p.max_sentence_words, p.forbidden_words, p.created_by) == (
        "Sachlich (Sie)", "sie", 12, ["super", "toll"], "erika")
    assert svc.show(p.id) == svc.show("sachlich (sie)") == p
    q = svc.update(EDITOR, p.id, output_format="reiner Text", forbidden_words="mega, Mega")
    assert (q.output_format, q.forbidden_words, q.tone) == ("plain", ["mega"], "sachlich")
    assert [x.name for x in svc.list()] == ["Sachlich (Sie)"]
    assert svc.delete(EDITOR, p.id).message().endswith("(it was not in use).")
    with pytest.raises(NotFound, match="does not exist"):
        svc.show(p.id)


@pytest.mark.parametrize("values, field, words", [
    ({"name": "  "}, "name", "must not be empty"),
    ({**FORMAL, "address": "ihr"}, "address", "choose one of sie, du, you, none"),
    ({**FORMAL, "formality": "posh"}, "formality", "choose one of"),
    ({**FORMAL, "output_format": "html"}, "output_format", "markdown, plain"),
    ({**FORMAL, "max_sentence_words": 2}, "max_sentence_words", "between 5 and 100"),
    ({**FORMAL, "max_sentence_words": "many"}, "max_sentence_words", "whole number"),
    ({**FORMAL, "forbidden_words": [3]}, "forbidden_words", "must hold words"),
    ({**FORMAL, "colour": "red"}, "colour", "unknown field"),
    ({**FORMAL, "name": "x" * 101}, "name", "at most 100 characters"),
])
def test_bad_input_names_the_field(rs, values, field, words):
    with pytest.raises(InvalidProfile, match=words) as e:
        ProfileService(rs).create(EDITOR, **values)
    assert e.value.field == field and str(e.value).startswith(f"{field}: ")
    assert ProfileService(rs).list() == []  # nothing half-stored


def test_duplicate_names_and_roles(rs):
    svc = ProfileService(rs)
    svc.create(EDITOR, **FORMAL)
    with pytest.raises(InvalidProfile, match="already exists") as e:
        svc.create(EDITOR, **{**FORMAL, "name": "SACHLICH  (Sie)"})
    assert e.value.field == "name"
    with pytest.raises(PermissionDenied, match="editor"):
        svc.create(Actor("vera", "viewer"), **{**FORMAL, "name": "Other"})
    with pytest.raises(PermissionDenied):
        svc.delete(Actor("vera", "viewer"), "Sachlich (Sie)")


def test_style_rules_text_in_both_languages():
    p = AuthorProfile(1, "Sachlich (Sie)", **{k: v for k, v in FORMAL.items() if k != "name"})
    de = p.style_rules_text("de")
    assert de.splitlines()[0] == "Autorenprofil „Sachlich (Sie)“:"
    assert "mit „Sie“ an, nie mit „du“" in de and "höchstens 12 Wörter" in de
    assert "nie: „super“, „toll“." in de
    en = p.style_rules_text("en")
    assert "German: “Sie”" in en and "Never use these words or forms: “super”, “toll”." in en
    assert "at most 12 words" in en and "Markdown is allowed" in en
    plain = AuthorProfile(2, "Plain", output_format="plain").style_rules_text("en")
    assert "plain text only" in plain and "Address" not in plain


def test_the_prompt_has_the_rules_after_the_fixed_rules(rs):
    _ingest(rs)
    p = ProfileService(rs).create(EDITOR, **FORMAL)
    fake = Recorder("The intake pump is serviced every 90 days [1].")
    chat = ChatService(rs, provider_factory=lambda name: fake)
    sess = chat.create_session(provider="anthropic", system_prompt="Be brief.", profile_id=p.id)
    chat.ask(sess.uuid, "How often is the intake pump serviced?", scope=EVERYTHING)
    system = fake.requests[-1].system
    assert system.startswith(SYSTEM_RULES + "\n\n" + STYLE_HEADER + "\n")
    assert p.style_rules_text("en") in system
    assert system.index(STYLE_HEADER) < system.index("Be brief.")
    # the German question gets the German rules
    chat.ask(sess.uuid, "Wie oft wird die Pumpe gewartet?", scope=EVERYTHING)
    assert p.style_rules_text("de") in fake.requests[-1].system
    # without a profile: no style block
    plain_sess = chat.create_session(provider="anthropic")
    chat.ask(plain_sess.uuid, "How often is the intake pump serviced?", scope=EVERYTHING)
    assert STYLE_HEADER not in fake.requests[-1].system


def test_forbidden_word_flagged_only_with_the_profile(rs):
    _ingest(rs)
    p = ProfileService(rs).create(EDITOR, **FORMAL)
    fake = Recorder("The pump is super reliable and serviced every 90 days [1].")
    chat = ChatService(rs, provider_factory=lambda name: fake)
    q = "How often is the intake pump serviced?"
    without = chat.ask(chat.create_session(provider="anthropic").uuid, q,
                       scope=EVERYTHING).message.format_check
    assert without["passed"] and "forbidden_words" not in without["rules"]
    sess = chat.create_session(provider="anthropic", profile_id=p.id)
    with_p = chat.ask(sess.uuid, q, scope=EVERYTHING).message.format_check
    assert not with_p["passed"] and with_p["author_profile"]["name"] == "Sachlich (Sie)"
    assert any(i.startswith("forbidden_words: 1 forbidden word(s) (super)")
               for i in with_p["issues"])
    assert {"sentence_too_long", "forbidden_words"} <= set(with_p["rules"])


def test_a_plain_text_profile_post_processes_the_answer(rs):
    _ingest(rs)
    p = ProfileService(rs).create(EDITOR, name="Plain", output_format="plain")
    fake = Recorder("**Every** 90 days – says the „manual“ [1].")
    chat = ChatService(rs, provider_factory=lambda name: fake)
    sess = chat.create_session(provider="anthropic", profile_id=p.id)
    msg = chat.ask(sess.uuid, "How often is the pump serviced?", scope=EVERYTHING).message
    assert msg.content == 'Every 90 days - says the "manual" [1].'
    assert msg.format_check["passed"] and "markdown_forbidden" in msg.format_check["rules"]


def test_an_unknown_profile_id_is_refused(rs):
    chat = ChatService(rs)
    with pytest.raises(ChatInputError, match="profile_id: no author profile with id 99"):
        chat.create_session(profile_id=99)
    sess = chat.create_session()
    with pytest.raises(ChatInputError, match="profile_id"):
        chat.update_settings(sess.uuid, profile_id=99)
    assert chat.get_session(sess.uuid).settings.profile_id is None


def test_deleting_a_profile_in_use_falls_back_to_none(rs):
    from backend.chatbots.service import ChatbotService

    svc = ProfileService(rs)
    p = svc.create(EDITOR, **FORMAL)
    chat = ChatService(rs)
    a = chat.create_session(profile_id=p.id)
    b = chat.create_session(profile_id=p.id)
    assert profile_for_session(rs, a) == p and profile_for_session(rs, a.uuid) == p
    _collection(rs)
    bots = ChatbotService(rs, chat=chat)
    bot = bots.create(ADMIN, name="Harbour bot", collections=["c"], profile_id=p.id)
    assert bots.session_settings(bot)["profile_id"] == p.id
    assert svc.usage(p.id) == (2, 1)
    done = svc.delete(EDITOR, p.id)
    assert (done.sessions, done.chatbots) == (2, 1)
    assert "2 chat session(s) and 1 chatbot(s) that used it now use no profile" in done.message()
    assert chat.get_session(b.uuid).settings.profile_id is None
    assert profile_for_session(rs, a.uuid) is None
    assert bots.get(bot.slug).config.profile_id is None
    with rs.store.session() as s:
        assert s.scalars(select(ChatSession.profile_id)).all() == [None, None]


def test_a_chatbot_with_an_unknown_profile_names_the_field(rs):
    from backend.chatbots.service import ChatbotService
    from backend.errors import InvalidChatbot

    _collection(rs)
    bots = ChatbotService(rs)
    with pytest.raises(InvalidChatbot) as e:
        bots.create(ADMIN, name="Bot", collections=["c"], profile_id=42)
    assert e.value.errors == {"profile_id": "no author profile with id 42"}
    bot = bots.create(ADMIN, name="Bot", collections=["c"])
    with pytest.raises(InvalidChatbot, match="profile_id"):
        bots.update(ADMIN, bot.slug, profile_id="x")


def test_samples_are_made_once(rs):
    svc = ProfileService(rs)
    assert [p.name for p in svc.ensure_samples()] == [s["name"] for s in SAMPLES]
    assert svc.ensure_samples() == []
    assert svc.show("Plain English").output_format == "plain"


def test_yaml_files(tmp_path):
    good = tmp_path / "p.yaml"
    good.write_text("name: Kurz\naddress: du\nforbidden_words: [krass]\n", encoding="utf-8")
    assert load_yaml(good) == {"name": "Kurz", "address": "du", "forbidden_words": ["krass"]}
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(InvalidProfile, match=r"bad.yaml: not valid YAML \(line 2\)"):
        load_yaml(bad)
    (tmp_path / "list.yaml").write_text("- a\n", encoding="utf-8")
    with pytest.raises(InvalidProfile, match="list.yaml: must hold a mapping"):
        load_yaml(tmp_path / "list.yaml")
    with pytest.raises(InvalidProfile, match="missing.yaml: cannot be read"):
        load_yaml(tmp_path / "missing.yaml")
