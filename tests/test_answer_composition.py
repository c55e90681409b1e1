"""Extractive answers read like answers (issue 23, item 7): the sentence with the asked value
first, then its context sentence, the value in bold with its unit, every sentence cited, in
German and English; nothing but the source's own sentences. Checked on what a reader gets:
the answer text, the chat page's Markdown of it, and the checks the chat runs on it."""
from __future__ import annotations

import re

import pytest

from backend.answer.evidence.question import analyse
from backend.answer.extractive import answer_text
from backend.answer.values import value_span
from backend.chat.format_check import PROFILES, apply_profile, check_formatting
from backend.chat.prompt import check_citations
from backend.llm.base import Evidence
from backend.security.safe_markdown import answer_markdown, renders_bold
from eval.answers import contains_answer

PRICE = Evidence(1, document="Preisblatt Trinkwasser", section="Wasserpreise", score=0.9,
                 text="Der Aufsichtsrat hat den Arbeitspreis für Trinkwasser zum 1. Januar 2025 "
                      "angepasst. Der neue Arbeitspreis beträgt 2,15 EUR/m³ netto (bisher 1,98 "
                      "EUR/m³).")
KEY = Evidence(1, document="Lumen Gateway Handbuch", section="4.2 Verbindungen", score=0.9,
               text=(
    "The key gateway.max_connections limits the number of simultaneous connections per node. "
    "The default is 512."))
MINUTES = Evidence(1, document="Protokoll Werkausschuss", section="TOP 3: Wasserpreise", score=0.9,
                   text=(
    "Beschluss 2024/17: Der Werkausschuss empfiehlt dem Aufsichtsrat, den Arbeitspreis für "
    "Trinkwasser zum 1. Januar 2025 auf 2,69 EUR je Kubikmeter (netto) festzusetzen. Der "
    "Grundpreis bleibt unverändert.\n\nAbstimmung: 5 Ja-Stimmen, 1 Gegenstimme, 0 "
    "Enthaltungen."))
REPORT = Evidence(1, document="Annual Report 2023", section="Smart meters", score=0.9,
                  text=(
    "In accordance with the German Metering Point Operation Act, we began installing "
    "intelligent metering systems in March 2023. By the end of the year, 9,800 of the "
    "approximately 31,000 metering points in scope had been equipped."))


@pytest.fixture(scope="module")
def answer(shared_embedder):
    """The extractive answer as the chat computes it (MiniLM for the embedding signal)."""
    from backend.answer.evidence.scoring import MemoEncoder

    def ask(question: str, evidence: Evidence) -> str:
        return answer_text(question, [evidence], MemoEncoder(shared_embedder))
    return ask


def _sentences(answer: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=\])\s+", answer) if s.strip()]


def _bold(answer: str) -> list[str]:
    return re.findall(r"\*\*(.+?)\*\*", answer)


def _source_sentences(e: Evidence) -> str:
    return " ".join(e.text.split())


def test_a_german_price_answer_shows_the_value_bold_with_its_unit(answer):
    a = answer("Wie hoch ist der neue Arbeitspreis für Trinkwasser?", PRICE)
    assert a == "Der neue Arbeitspreis beträgt **2,15 EUR/m³** netto (bisher 1,98 EUR/m³). [1]"


def test_a_german_answer_leads_with_the_value_then_its_context_sentence(answer):
    """In the document the context sentence (since when) comes first."""
    a = answer("Wie hoch war der Arbeitspreis für Trinkwasser vorher?", PRICE)
    assert _sentences(a) == [
        "Der neue Arbeitspreis beträgt 2,15 EUR/m³ netto (bisher **1,98 EUR/m³**). [1]",
        "Der Aufsichtsrat hat den Arbeitspreis für Trinkwasser zum 1. Januar 2025 angepasst. [1]"]


def test_an_english_default_value_answer_leads_with_the_value_then_the_key_sentence(answer):
    a = answer("What is the default value of gateway.max_connections?", KEY)
    assert a == ("The default is **512**. [1] The key gateway.max_connections limits the "
                 "number of simultaneous connections per node. [1]")


def test_the_composed_answer_holds_only_the_sources_sentences(answer):
    for q, e in [("Wie hoch ist der neue Arbeitspreis für Trinkwasser?", PRICE),
                 ("What is the default value of gateway.max_connections?", KEY),
                 ("How many metering points had been equipped by the end of 2023?", REPORT)]:
        for s in _sentences(answer(q, e)):
            quoted = re.sub(r"\s*\[\d+\]$", "", s).replace("**", "")
            assert quoted in _source_sentences(e), quoted


def test_a_count_is_the_part_not_the_whole(answer):
    a = answer("How many metering points had been equipped by the end of 2023?", REPORT)
    assert _sentences(a)[0].startswith("By the end of the year, **9,800** of the approximately "
                                       "31,000 metering points")


def test_who_voted_against_is_answered_by_the_vote_line_then_the_decision(answer):
    a = answer("Wer hat gegen den Beschluss 2024/17 gestimmt?", MINUTES)
    first, second = _sentences(a)[:2]
    assert first == "Abstimmung: 5 Ja-Stimmen, **1 Gegenstimme**, 0 Enthaltungen. [1]"
    assert second.startswith("Beschluss 2024/17: Der Werkausschuss empfiehlt")


def test_a_vote_line_chosen_itself_shows_the_asked_count_bold(answer):
    e = Evidence(1, document="Minutes", section="Item 4", score=0.9,
                 text="Vote on decision 2025/15: 5 in favour, 2 against, 1 abstention.")
    a = answer("How many trustees voted against decision 2025/15?", e)
    assert _bold(a) == ["2 against"], a


def test_a_sentence_leaning_on_the_one_before_does_not_lead(answer):
    """"Er beträgt …" after its context sentence, though it holds the value."""
    e = Evidence(1, document="Preisblatt", section="Wasserpreise", score=0.9,
                 text="Die Preise für Trinkwasser werden zum 1. Januar 2025 angepasst. Er "
                      "beträgt dann 2,15 EUR/m³ netto.")
    a = answer("Wie hoch ist der neue Arbeitspreis für Trinkwasser?", e)
    assert _sentences(a) == ["Die Preise für Trinkwasser werden zum 1. Januar 2025 angepasst. [1]",
                             "Er beträgt dann **2,15 EUR/m³** netto. [1]"]


def test_the_value_is_the_chosen_sentences_not_its_contexts(answer):
    """"Das Unternehmen …" starts a noun, not a reference: the sentence stands alone, and a
    figure of a context sentence is never bold in its place."""
    e = Evidence(1, document="Pressemitteilung", section="Über uns", score=0.9,
                 text="Die Stadtwerke Birkenau GmbH versorgt rund 41.200 Haushalte mit Strom. "
                      "Das Unternehmen beschäftigt 264 Mitarbeiterinnen und Mitarbeiter.")
    a = answer("Wie viele Mitarbeiterinnen und Mitarbeiter beschäftigen die Stadtwerke?", e)
    assert _sentences(a)[0] == ("Das Unternehmen beschäftigt **264 Mitarbeiterinnen** und "
                                "Mitarbeiter. [1]")
    assert _bold(a) == ["264 Mitarbeiterinnen"]


def test_the_documents_own_bold_marks_are_dropped_so_only_the_value_is_bold(answer):
    e = Evidence(1, document="Readme", section="Limits", score=0.9,
                 text="The **hard** limit is 512 connections per node.")
    a = answer("How many connections per node are allowed at most?", e)
    assert a == "The hard limit is **512 connections per node**. [1]"


@pytest.mark.parametrize("question,text,value", [
    ("Wann tritt die Benutzungsordnung in Kraft?",
     "Diese Benutzungsordnung tritt am 1. Februar 2024 in Kraft.", "1. Februar 2024"),
    ("When will the production cluster be upgraded?",
     "The production cluster will be upgraded on Saturday, 8 June 2024, 06:00–10:00.",
     "Saturday, 8 June 2024, 06:00–10:00"),
    ("Wer hatte den Vorsitz?", "Vorsitz: Bürgermeister Thomas Reinhardt",
     "Bürgermeister Thomas Reinhardt"),
    ("Who chaired the meeting?", "The meeting was chaired by Priya Raman, Head of Operations.",
     "Priya Raman"),
    ("Welche Firma erhielt den Auftrag?", "Das wirtschaftlichste Angebot legte die Hartmann Bau "
     "GmbH vor.", "Hartmann Bau GmbH"),
    ("Wie viele Angebote gingen ein?", "Es gingen vier Angebote ein.", "vier Angebote"),
    ("What was the revenue in 2023?", "Revenue rose to EUR 84.6 million in 2023 (2022: EUR "
     "79.1 million).", "EUR 84.6 million"),
    ("How much drinking water was produced in 2023?", "Our wells produced 3.4 million cubic "
     "metres of drinking water in 2023.", "3.4 million cubic metres"),
    ("Wie hoch sind die jährlichen Mehrkosten brutto?", "Das bedeutet Mehrkosten von 26,96 EUR "
     "brutto pro Jahr, also rund 2,25 EUR im Monat.", "26,96 EUR"),
    ("How long are access logs kept?", "Access logs are kept for 90 days.", "90 days"),
    ("Was kostet jeder weitere Meter Leitung?", "Der Hausanschluss kostet pauschal 2.400 EUR "
     "für bis zu 15 Meter Leitung; jeder weitere Meter kostet 180 EUR.", "180 EUR"),
    ("Wie hoch darf die Rücklauftemperatur aus der Hausanlage höchstens sein?", "Damit das Netz "
     "wirtschaftlich arbeitet, darf die Rücklauftemperatur aus Ihrer Hausanlage 50 °C nicht "
     "überschreiten.", "50 °C"),
    ("Und wie hoch war er im Vorjahr?", "Der Jahresüberschuss beträgt 2,14 Millionen Euro; im "
     "Vorjahr waren es 2,61 Millionen Euro.", "2,61 Millionen Euro"),
    ("Und wie viele Hausanschlüsse sind davon schon aktiviert?", "Bisher wurden 412 "
     "Hausanschlüsse gebaut und 286 davon aktiviert.", "286"),
    ("Wie viele Hausanschlüsse wurden bisher gebaut? Und wie viele davon sind aktiviert?",
     "Bisher wurden 412 Hausanschlüsse gebaut und 286 davon aktiviert.", "286"),
    ("Um wie viel Prozent steigen die Mieten?", "DECISION 2025/15: The Board approved a rent "
     "increase of 2.7 % from 1 July 2025.", "2.7 %"),
    ("Was kostet das Parken?", "Parkbüro 0147 555 0101: Parken kostet £5.40 für bis zu 4 "
     "Stunden.", "£5.40"),
    ("When did the committees decide?", "In March 2024 the committees decided to adjust the "
     "price.", "March 2024"),
])
def test_the_value_of_the_asked_type_is_found(question, text, value):
    span = value_span(analyse(question), text)
    assert span is not None and span.text == value


def test_a_value_the_question_names_itself_is_not_the_answer():
    q = analyse("Was gilt ab dem 1. Januar 2025 für den Arbeitspreis von 2,69 EUR?")
    assert value_span(q, "Ab dem 1. Januar 2025 gilt der Arbeitspreis von 2,69 EUR.") is None


def test_the_answer_passes_the_citation_and_format_checks(answer):
    a = answer("Wie hoch ist der neue Arbeitspreis für Trinkwasser?", PRICE)
    c = check_citations(a, 1)
    assert not c["invalid"] and not c["uncited_sentences"], c
    md = PROFILES["markdown"]
    assert check_formatting(a, md["structure"], md["profile"])["passed"]
    text, fmt = apply_profile(a, "plain")  # a plain-text profile: the marks are dropped
    assert fmt["passed"] and "**" not in text and "2,15 EUR/m³ netto" in text


def test_the_benchmark_reads_the_bold_value_as_the_value(answer):
    a = answer("Wie hoch ist der neue Arbeitspreis für Trinkwasser?", PRICE)
    assert "**2,15 EUR/m³** netto" in a
    assert contains_answer(a, ["2,15 EUR/m³ netto"]) and contains_answer(a, ["2,15"])


def test_the_chat_page_shows_the_value_bold_and_the_quote_as_text():
    from markdown_it import MarkdownIt

    a = ("Der Arbeitspreis beträgt **2,15 EUR/m³** netto [1]. Siehe [Link](http://evil.example) "
         "und <b>x</b> [1].")
    assert renders_bold("extractive", "markdown") and not renders_bold("extractive", "plain")
    assert not renders_bold("ollama", "markdown")
    md = answer_markdown(a, rich=False, bold=True)
    tokens = [t for b in MarkdownIt().parse(md) for t in (b.children or [])]
    strong = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "strong_open"]
    assert strong == ["2,15 EUR/m³"]
    assert not any(t.type in ("link_open", "html_inline") for t in tokens)
    assert "**" in answer_markdown("a **b** c", rich=False, bold=False).replace("\\*", "*")


def test_the_date_two_sentences_on_is_quoted_with_the_sentence_between():
    """"Wann findet die Infoveranstaltung … in Moosach statt?" (unseen tune): the sentence
    naming the event has no date; the date stands two lines on ("Termin: 22. Mai 2025, 19
    Uhr."), after a sentence about the venue. Both are quoted, the date first and in bold."""
    from backend.answer.extractive import answer_text
    from backend.llm.base import Evidence

    ev = [Evidence(1, "3. Vermarktung\n\nMelanie: Die Vorvermarktungsquote liegt in Moosach bei "
                   "39 %. Die Wirtschaftlichkeitsschwelle liegt bei 40 %. Für Moosach soll "
                   "deshalb eine zusätzliche Infoveranstaltung stattfinden.\n\nFrank bietet "
                   "dafür das Bürgerhaus Moosach an.\n\nTermin: 22. Mai 2025, 19 Uhr.",
                   "Projektrunde Glasfaser Riedland", "3. Vermarktung", 1, 1.0)]
    text = answer_text("Wann findet die Infoveranstaltung zum Glasfaserausbau in Moosach statt?",
                       ev, known=lambda w: 0.01)
    assert text.startswith("Termin: **22. Mai 2025, 19 Uhr**. [1]"), text
    assert "Für Moosach soll deshalb eine zusätzliche Infoveranstaltung stattfinden. [1]" in text
    assert "Frank bietet dafür das Bürgerhaus Moosach an. [1]" in text
