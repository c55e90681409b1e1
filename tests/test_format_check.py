"""The deterministic format checker (seed 001): every rule on and off by configuration
(English and the seed's German keys), exact positions, the feedback format, the seed's
example, and the plain-text post-processing."""
from __future__ import annotations

import pytest

from backend.chat.format_check import (
    PROFILES,
    active_rules,
    apply_profile,
    check_dashes,
    check_emojis,
    check_formatting,
    strip_markdown,
)

ALL_ON = ({"output": {"format": "plain text"},
           "formatting": {"emojis": False, "bold": False, "hashtags": "none"}},
          {"grammar_and_syntax": {"dashes": "forbidden"},
           "formatting": {"exclamation_marks": "sparing"}})
FEEDBACK_KEYS = {"rating", "score", "passed", "issues", "suggestions", "summary",
                 "deterministic"}


def test_the_seed_example_has_no_dashes():
    # "LLM: 6/10 - 2 Gedankenstriche gefunden (FALSCH!)"; the code finds none.
    r = check_formatting("Vertrauen ist keine Eigenschaft, sondern eine Beziehung.", *ALL_ON)
    assert FEEDBACK_KEYS <= set(r)
    assert (r["rating"], r["score"], r["passed"], r["issues"], r["deterministic"]) == (
        10, 10, True, [], True)
    assert r["summary"] == "No errors" and r["suggestions"] == []


def test_dashes_exact_characters_and_positions():
    text = "a – b — c - d"
    assert check_dashes(text) == [{"type": "en_dash", "position": 2, "text": "–"},
                                  {"type": "em_dash", "position": 6, "text": "—"}]
    r = check_formatting(text, {}, {"grammar_and_syntax": {"dashes": "forbidden"}})
    assert not r["passed"] and r["rating"] == 8
    assert r["issues"] == ["dashes_forbidden: 1 en dash(es) (–) and 1 em dash(es) (—) at "
                           "position(s) 2, 6"]
    assert [d["position"] for d in r["details"]] == [2, 6]


@pytest.mark.parametrize("text,rule", [
    ("Great result ✅ and 🚀", "emojis_forbidden"),
    ("👉 first point", "emojis_forbidden"),
    ("This is **bold** text", "bold_forbidden"),
    ("This is __bold__ text", "bold_forbidden"),
    ("# Heading\nbody", "markdown_forbidden"),
    ("an *italic* word", "markdown_forbidden"),
    ("**bold**", "markdown_forbidden"),
    ("Join us #Stadtwerke today", "hashtags_forbidden"),
    ("Wow! Great! Really!", "exclamation_marks_sparing"),
])
def test_each_rule_finds_its_violation(text, rule):
    r = check_formatting(text, *ALL_ON)
    assert not r["passed"]
    assert any(i.startswith(rule + ":") for i in r["issues"]), r["issues"]
    assert len(r["suggestions"]) == len(r["issues"])


@pytest.mark.parametrize("text", [
    "Port 8443 is the default [1].",
    "2 * 3 = 6 and a*b*c stay untouched.",
    "Issue #42 and C# and page.html#anchor are no hashtags.",
    "One! Two!",  # at most two exclamation marks
    "A hyphen - is not a dash.",
    "Ein „Zitat“ ist erlaubt.",
])
def test_clean_text_passes_every_rule(text):
    r = check_formatting(text, *ALL_ON)
    assert r["passed"], r["issues"]


def test_rules_follow_the_configuration():
    assert active_rules(None, None) == []
    assert check_formatting("**x** – ✅ #tag !!!")["passed"]  # nothing configured, no check
    assert active_rules({"output": {"format": "markdown"}}, {}) == []
    assert active_rules({"formatting": {"emojis": True, "bold": True, "hashtags": "allowed"}},
                        {"grammar_and_syntax": {"dashes": "allowed"}}) == []
    assert set(active_rules(*ALL_ON)) == {"emojis_forbidden", "markdown_forbidden",
                                          "bold_forbidden", "dashes_forbidden",
                                          "hashtags_forbidden", "exclamation_marks_sparing"}


def test_the_seeds_german_keys_work_too():
    structure = {"ausgabe": {"format": "reiner Text"},
                 "formatierung": {"emojis": "verboten", "fettschrift": False,
                                  "hashtags": "keine"}}
    profile = {"grammatik_und_satzbau": {"gedankenstriche": "verboten"},
               "formatierung": {"ausrufezeichen": "sparsam"}}
    assert set(active_rules(structure, profile)) == set(active_rules(*ALL_ON))


def test_rating_drops_two_points_per_violated_rule():
    r = check_formatting("**Achtung** – sofort! Jetzt! Los! 🚀 #eilig", *ALL_ON)
    assert len(r["issues"]) == 6 and r["rating"] == 0 and r["score"] == 0
    assert r["summary"].startswith("6 of 6 format rule(s) violated")


def test_strip_markdown_is_the_seeds_post_processing():
    assert strip_markdown("A – B — C") == "A - B - C"
    assert strip_markdown("„Zitat“ und ‚halb‘ und “en” ’s") == "\"Zitat\" und 'halb' und \"en\" 's"
    assert strip_markdown("**fett**, __auch__ und *kursiv*") == "fett, auch und kursiv"
    assert strip_markdown("2 * 3 = 6 [1]") == "2 * 3 = 6 [1]"


def test_profiles():
    text, r = apply_profile("**Port** 8443 – Standard [1].", "plain")
    assert text == "Port 8443 - Standard [1]." and r["passed"] and r["profile"] == "plain"
    text, r = apply_profile("**Port** 8443 – Standard [1].", "markdown")
    assert text == "**Port** 8443 – Standard [1]." and r["passed"]
    _, r = apply_profile("Done ✅", "markdown")
    assert not r["passed"] and r["issues"][0].startswith("emojis_forbidden")
    assert set(PROFILES) == {"markdown", "plain"}


def test_arrows_stars_and_shapes_are_no_emojis():
    """Unicode's emoji definition, not code-point ranges: ragscope's own compare answers
    ("5“ → „4") were flagged "emojis_forbidden: 9 emoji(s) (→)"."""
    text = "Abstimmung: 5 → 4 ⇒ ★ ✓ ► ▪ ↔ © ® ™ ❤ 1. Punkt [1]"
    _, r = apply_profile(text, "markdown")
    assert r["passed"], r["issues"]
    found = check_emojis("ok 👍🏽, family 👨‍👩‍👧, flag 🇩🇪, keycap 1️⃣, warning ⚠️, ✅")
    assert [f["text"] for f in found] == ["👍🏽", "👨\u200d👩\u200d👧", "🇩🇪", "1️⃣", "⚠️", "✅"]
