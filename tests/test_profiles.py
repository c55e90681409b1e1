"""Processing profiles drive sectioning and chunking (backend/ingest/profiles.py): code and
tables kept whole, whole sections, line-only cuts, page bounds, numbered headings off; the
generic profile reproduces the chunks ragscope made before profiles."""
from __future__ import annotations

import pytest

from backend.ingest.chunking import chunk_text
from backend.ingest.extract import extract
from backend.ingest.normalise import normalise
from backend.ingest.profiles import PROFILES, get_profile
from backend.ingest.structure import build_sections
from backend.ingest.types import Text

INTRO = ("The gateway reads meter data from the field devices and forwards it to the sinks. "
         * 3).strip()  # the code block starts before half the chunk size and ends after it
CODE = "\n".join(f"gateway-ctl set option_{i:02d}=value_{i:02d}  # step {i}" for i in range(16))
MARKDOWN = f"# Runbook\n\n{INTRO}\n\n```bash\n{CODE}\n```\n\nAfter the steps, check the log.\n"


def _text(name: str, data: str) -> Text:
    return normalise(extract(data.encode(), name))


def _chunks(text: Text, profile=None, size=800, overlap=120):
    return chunk_text(text, build_sections(text, profile), size, overlap, profile)


def test_every_issue_profile_exists():
    assert {"meeting_structured", "policy_legal", "book_hierarchical", "code_structured",
            "table_structured", "ocr_resilient", "generic_text", "web_structured"} <= set(PROFILES)
    assert get_profile("generic_text").variant() == ""  # old chunk ids stay valid
    assert all(PROFILES[p].variant() for p in PROFILES if p != "generic_text")


def test_code_fence_is_cut_by_generic_but_kept_whole_by_code_structured():
    text = _text("runbook.md", MARKDOWN)
    assert [s.kind for s in text.spans] == ["code"]
    generic = _chunks(text)
    code = _chunks(text, PROFILES["code_structured"])
    assert not any(CODE in c.text for c in generic)  # the generic cut falls inside the block
    assert sum(CODE in c.text for c in code) == 1
    for c in code:  # offsets stay exact
        assert c.text == text.text[c.start:c.end]


def test_a_code_block_longer_than_the_limit_is_cut_at_line_ends():
    huge = "\n".join(f"line {i:03d} = compute({i})" for i in range(150))  # ~3,700 chars
    text = _text("big.md", f"# Big\n\n```\n{huge}\n```\n")
    chunks = _chunks(text, PROFILES["code_structured"])
    assert len(chunks) > 1
    assert all(c.text.endswith(")") for c in chunks)  # every cut at a line end
    assert all(len(c.text) <= 3 * 800 for c in chunks)


def test_policy_keeps_a_paragraph_whole_up_to_175_percent():
    body = " ".join(f"Satz {i} regelt die Nutzung des Portals im Einzelnen." for i in range(24))
    text = _text("ordnung.txt", f"Benutzungsordnung\n\n§ 1 Geltungsbereich\n\n{body}\n\n"
                 "§ 2 Registrierung\n\nDie Registrierung ist kostenlos.\n")
    assert 800 < len(body) < 1400
    para = [c for c in _chunks(text, PROFILES["policy_legal"]) if "Satz 0 " in c.text]
    assert len(para) == 1 and "Satz 23 " in para[0].text
    assert len([c for c in _chunks(text) if "Satz" in c.text]) == 2


def test_meeting_profile_does_not_take_numbered_list_lines_for_headings():
    minutes = ("Protokoll der Sitzung\n\nTOP 1: Begrüßung\n\nDie Vorsitzende eröffnet.\n\n"
               "TOP 2: Aufgaben\n\nOffene Aufgaben:\n\n1 Angebot einholen\n\n2 Termin abstimmen\n\n"
               "3 Bericht verschicken\n")
    text = _text("protokoll.txt", minutes)
    meeting = [(s.kind, s.title) for s in build_sections(text, PROFILES["meeting_structured"])[1:]]
    assert meeting == [("agenda_item", "TOP 1: Begrüßung"), ("agenda_item", "TOP 2: Aufgaben")]


def test_ocr_resilient_chunks_never_cross_a_page():
    from tests.conftest import SAMPLES

    data = (SAMPLES / "merkblatt_fernwaerme.pdf").read_bytes()  # a paragraph runs over the page
    text = normalise(extract(data, "merkblatt_fernwaerme.pdf"))
    assert any(c.page != c.page_end for c in _chunks(text))
    ocr = _chunks(text, PROFILES["ocr_resilient"])
    assert all(c.page == c.page_end for c in ocr)
    assert "".join(c.text for c in ocr).count("Wärmemengenzähler") >= 2


def test_table_rows_are_never_cut():
    rows = "\n".join(f"| {i} | Zähler {i:03d} | Eichberg | {i * 7} m³ |" for i in range(60))
    text = _text("tabelle.md", f"# Verbrauch\n\n| Nr | Zähler | Ort | Menge |\n|---|---|---|---|\n{rows}\n")
    for c in _chunks(text, PROFILES["table_structured"]):
        assert all(line.count("|") >= 3 for line in c.text.split("\n") if line.strip()
                   and line != "Verbrauch")


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_profile_sizes_respect_the_settings(name):
    size, overlap = PROFILES[name].sizes(800, 120)
    assert 100 <= size <= 2 * 800 and 0 <= overlap < size // 2
