"""A document the question names by a name beats sentences of other documents for a passage
answer (backend/answer/named_document.py): "Nach wie vielen fehlgeschlagenen
Anmeldeversuchen wird ein Konto bei Brightwater Logistics gesperrt?" over an English policy
of Brightwater Logistics and a German manual of another product was answered from the
manual's German lock-out sentence (unseen tune split, issue 22)."""
from __future__ import annotations

from pathlib import Path

import pytest

from backend.answer.named_document import named_document, proper_names
from backend.retrieval import dictionary
from backend.security.access import Scope

DING = Path("/usr/share/trans/de-en")

POLICY = """# Brightwater Logistics – IT Acceptable Use and Security Policy

Policy number IT-POL-002, version 5.0. Owner: Chief Information Security Officer.

## 1 Scope

This policy applies to all employees, temporary staff and contractors of Brightwater
Logistics who use the company's IT systems, devices or data.

## 4 Passwords and sign-in

Passwords must be at least 14 characters long. Accounts are locked after 10 failed sign-in
attempts within 15 minutes. A locked account is unlocked by the service desk.

## 7 Monitoring

Brightwater Logistics monitors the use of its systems to protect them from misuse.
"""

MANUAL = """# ClubNet 6 – Handbuch für Vereinsverwaltungen

## 2 Erste Schritte

Nach der Registrierung erhält die Vereinsadministratorin eine E-Mail mit einem
Aktivierungslink. Nach fünf fehlgeschlagenen Anmeldeversuchen wird das Konto für 15 Minuten
gesperrt. Ein gesperrtes Konto kann eine Administratorin sofort wieder freigeben.

## 5 Finanzen

Das Finanzmodul bildet eine Einnahmen-Überschuss-Rechnung ab.
"""

REPORT = """# Freiwillige Feuerwehr Oberwald – Jahresbericht für das Jahr 2024

Im Berichtsjahr wurden wir zu insgesamt 187 Einsätzen alarmiert, 41 mehr als im Vorjahr.
"""


def _dictionary(tmp_path) -> dictionary.Dictionary:
    f = tmp_path / "de-en"
    f.write_text("Jahr {n} | Jahre {pl} :: year | years\nServer {m} :: server\n"
                 "Logistik {f} :: logistics\n", encoding="utf-8")
    return dictionary.load(f)


def test_names_are_capitalised_words_the_dictionary_does_not_know(tmp_path):
    d = _dictionary(tmp_path)
    assert proper_names("Wie oft wird bei Brightwater Logistics gesperrt?", d) == {
        "brightwater"}  # "Logistics": an entry ("logistics")
    assert proper_names("Wie hoch war der Umsatz im Jahr 2024?", d) == {"umsatz"}
    assert proper_names("Brightwater: wie viele Jahre?", d) == set()  # the first word
    assert proper_names("who owns the lab course office?", None) == set()  # all lower case


@pytest.fixture
def three_docs(rs, tmp_path):
    from backend.ingest.service import Ingestor

    files = []
    for name, text in (("it_policy.md", POLICY), ("clubnet_handbuch.md", MANUAL),
                       ("jahresbericht_feuerwehr.md", REPORT)):
        f = tmp_path / name
        f.write_text(text, encoding="utf-8")
        files.append(f)
    outs = Ingestor(rs).ingest_paths(files, collection="c")
    assert all(o.ok for o in outs)
    return rs, {o.path.name if hasattr(o, "path") else str(o): o for o in outs}


def test_only_a_name_in_the_title_names_a_document(three_docs, monkeypatch):
    rs, _ = three_docs
    monkeypatch.setattr(dictionary, "get", lambda path: None)  # capitalisation alone
    doc = named_document(rs, "Nach wie vielen Versuchen wird ein Konto bei Brightwater "
                         "Logistics gesperrt?", ["c"], Scope.everything())
    assert doc is not None and doc[1].startswith("Brightwater Logistics")
    # "Jahr" is a word of the report's title, but no name: no document is named
    assert named_document(rs, "how many calls in the year 2024?", ["c"],
                          Scope.everything()) is None


@pytest.mark.skipif(not DING.is_file(), reason="needs Debian's trans-de-en (.ci/run installs it)")
def test_a_german_question_naming_an_english_policy_is_answered_from_it(three_docs,
                                                                          monkeypatch):
    from backend.chat.service import ChatService

    rs, _ = three_docs
    svc = ChatService(rs)
    uuid = svc.create_session(collections=["c"]).uuid
    msg = svc.ask(uuid, "Nach wie vielen fehlgeschlagenen Anmeldeversuchen wird ein Konto bei "
                  "Brightwater Logistics gesperrt?", scope=Scope.everything()).message
    assert "10 failed sign-in attempts" in msg.content
    assert "fünf" not in msg.content
    assert [s["filename"] for s in msg.sources if s.get("cited")] == ["it_policy.md"]
    assert "Searched again within “Brightwater Logistics" in (msg.notice or "")
