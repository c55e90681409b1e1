"""Follow-up failure classes found by the error analysis of the unseen tune dialogues
(eval/followup_tuning.py, docs/chat.md "Follow-ups"): each test is one class, on a small
fixture text, and fails without its fix."""
from __future__ import annotations

from backend.answer.evidence.candidates import candidates
from backend.answer.evidence.question import analyse
from backend.answer.extractive import answer_text
from backend.answer.values import value_span
from backend.chat.followup import Turn, rewrite
from backend.llm.base import Evidence


def _ev(text: str, n: int = 1, doc: str = "Fixture") -> Evidence:
    return Evidence(n=n, text=text, document=doc, section="", score=1.0)


def test_it_stands_for_the_code_the_previous_answer_quoted():
    """'Who fixed it?' after a log row: the fault code F28 of the answer joins the query,
    so the same row (with its technician) is found, not another fault's row."""
    prev = Turn("Which fault code caused the lockout of boiler B2 in March 2025?",
                "Date: 14/03/2025; Unit: B2; Technician: K. Adeyemi; Work done: Lockout "
                "fault F28, gas valve coil replaced; Hours: 2.0. [1]", documents=(7,))
    rw = rewrite("Who fixed it?", [prev], language="en")
    assert "F28" in rw.query.split() and rw.document_ids == [7]


def test_davon_carries_the_substance_of_the_previous_answer():
    prev = Turn("Welches Kältemittel verwenden die Norrvik-AirFlow-Wärmepumpen?",
                "All models use the natural refrigerant R290 (propane). [1]", documents=(3,))
    rw = rewrite("Und wie viel davon enthält die HP-9?", [prev], language="de")
    assert "R290" in rw.query.split()
    assert "HP-9" not in rw.carried  # the follow-up's own code is not carried again


def test_model_codes_are_header_labels_and_the_named_column_is_the_value():
    table = ("Parameter | HP-6 | HP-9 | HP-12\n"
             "Refrigerant charge (R290) | 0.9 kg | 1.3 kg | 1.6 kg\n"
             "Weight | 98 kg | 121 kg | 146 kg")
    rows = [c.text for c in candidates([_ev(table)])]
    assert "Parameter: Refrigerant charge (R290); HP-6: 0.9 kg; HP-9: 1.3 kg; HP-12: 1.6 kg." \
        in rows
    q = analyse("How much refrigerant does the HP-9 contain? R290")
    text = rows[0]
    span = value_span(q, text)
    assert span is not None and span.text == "1.3 kg"


def test_a_labelled_paragraph_is_quoted_with_its_label():
    """'Für welches Risiko ist er verantwortlich?' -> the label sentence of the paragraph
    ("Lieferverzug der Edelstahlbecken: …") is quoted with the sentence naming the person."""
    text = ("4 Risiken\n\nLieferverzug der Edelstahlbecken: Der Hersteller Aquinox hat den "
            "Liefertermin von Januar auf Februar 2026 verschoben. Verantwortlich für die "
            "Nachverfolgung ist Benedikt Kramer.\n\nFrost im Winter: Bei Dauerfrost können die "
            "Fliesenarbeiten nicht ausgeführt werden.")
    out = answer_text("Für welches Risiko ist Benedikt Kramer verantwortlich?", [_ev(text)])
    assert "Lieferverzug der Edelstahlbecken" in out and "Benedikt Kramer" in out


def test_a_season_is_a_date_and_kilometer_a_length():
    text = ("Der erste Bauabschnitt zwischen Talheim und Wendlingen ist 5,2 Kilometer lang und "
            "soll im Herbst 2026 für den Verkehr freigegeben werden.")
    when = value_span(analyse("Wann soll der erste Bauabschnitt freigegeben werden?"), text)
    long = value_span(analyse("Und wie lang ist der erste Bauabschnitt?"), text)
    assert when is not None and when.text == "Herbst 2026"
    assert long is not None and long.text == "5,2 Kilometer"


def test_before_leaves_no_dangling_words_in_the_query():
    prev = Turn("What was the revenue in 2024?",
                "Revenue rose from GBP 135.9 million to GBP 148.6 million. [1]", documents=(2,))
    rw = rewrite("And the year before?", [prev], language="en")
    assert "  " not in rw.query and " ?" not in rw.query
    assert "2023" in rw.query.split()
