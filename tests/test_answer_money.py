"""A question for an amount of money is answered by a sentence with one (issue 22): "How much
does a visitor pay for parking a whole day?" used to count any figure as the value asked
for, so "Car park P2 … has 1,200 parking spaces … 24 hours a day" beat "The charge for
parking a whole day is £12"."""
from __future__ import annotations

from pathlib import Path

import pytest

from backend.answer.evidence.crosslingual import CrossLingual
from backend.answer.evidence.question import analyse, has_money
from backend.answer.evidence.scoring import assess
from backend.llm.base import Evidence

FIXTURE = Path(__file__).parent / "fixtures" / "dictionary" / "ding_sample.txt"
EVIDENCE = [
    Evidence(1, "Visitor parking\n\nCar park P2 on Fenton Road has 1,200 parking spaces for "
             "visitors on 5 levels and is open 24 hours a day.", "Visitor parking",
             "Where to park", 1, 1.0),
    Evidence(2, "Charges\n\nVisitors pay at the machines on every level. The charge for "
             "parking a whole day is £12.", "Visitor parking", "Charges", 1, 0.9),
]


def test_the_sentence_with_the_amount_is_quoted():
    a = assess("How much does a visitor pay for parking a whole day in car park P2?", EVIDENCE,
               None, known=lambda w: 0.01, cross=CrossLingual(str(FIXTURE), model=False))
    assert not a.abstain
    assert a.top.candidate.text == "The charge for parking a whole day is £12."
    counts = {s.candidate.text[:8]: s.features["type"] for s in a.ranked}
    assert counts["Car park"] == 0.0  # a figure, but no amount of money


@pytest.mark.parametrize("question, money", [
    ("Was kostet eine Tageskarte?", True), ("How much is a resident charged?", True),
    ("Wie hoch ist die monatliche Miete?", True), ("How many parking spaces are there?", False),
    ("Wie hoch ist der Wasserverlust?", False)])
def test_which_questions_ask_for_money(question, money):
    assert analyse(question).money is money


@pytest.mark.parametrize("text, found", [
    ("Der Preis steigt auf 2,88 EUR je Kubikmeter.", True), ("The fee is GBP 620.", True),
    ("Parking is free for blue badge holders.", True), ("Die Teilnahme ist kostenlos.", True),
    ("Car park P2 has 1,200 spaces.", False), ("Euro 6 engines only", False)])
def test_an_amount_of_money(text, found):
    assert has_money(text) is found
