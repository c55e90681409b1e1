"""A sentence inherits the names of its document (issue 22): "How many days a week must
Ostrander & Paige employees work in the office?" over a hybrid-working policy whose title
does not carry the firm's name. The passages that repeat the name ("This policy sets out how
employees of Ostrander & Paige LLP may work …") used to win on the name alone, the rarest
words of the question; now every sentence of a document whose retrieved passages have the
name counts as having it, so the sentence with the days is quoted."""
from __future__ import annotations

from pathlib import Path

from backend.answer.evidence.crosslingual import CrossLingual
from backend.answer.evidence.question import analyse
from backend.answer.evidence.scoring import assess
from backend.llm.base import Evidence

FIXTURE = Path(__file__).parent / "fixtures" / "dictionary" / "ding_sample.txt"
TITLE = "Hybrid working policy"
EVIDENCE = [
    Evidence(1, "Hybrid working policy\n\nThis policy sets out how employees of Ostrander & "
             "Paige LLP may work away from our offices in London and Bristol. It applies to all "
             "employees who have completed their probationary period.", TITLE, "1 Purpose", 1,
             1.0),
    Evidence(2, "Our standard hybrid pattern is a minimum of three days per week in the office "
             "and up to two days working remotely. Team leaders agree the office days with "
             "their teams.", TITLE, "3 Working pattern", 2, 0.95),
    Evidence(3, "Ostrander & Paige LLP – People Team. Questions about this policy go to the "
             "People Team.", TITLE, "Contact", 4, 0.8),
]
QUESTION = "How many days a week must Ostrander & Paige employees work in the office?"


def _cross() -> CrossLingual:
    return CrossLingual(str(FIXTURE), model=False)


def test_the_sentence_with_the_answer_beats_the_one_that_repeats_the_name():
    a = assess(QUESTION, EVIDENCE, None, known=lambda w: 0.01, cross=_cross())
    assert not a.abstain
    assert a.top.candidate.text.startswith("Our standard hybrid pattern is a minimum of three"), \
        a.top.candidate.text


def test_names_are_the_capitalised_words_the_dictionary_lacks_in_english_questions_only():
    q = analyse(QUESTION, _cross())
    assert q.names == {"ostran", "paige"}  # as terms: "Ostrander" cut to its 6-letter stem
    # German capitalises every noun; a compound the dictionary lacks is no name
    assert analyse("Wer ist Sicherheitsbeauftragter des Instituts?", _cross()).names == set()
    assert analyse(QUESTION, None).names == set()  # without the dictionary: none
