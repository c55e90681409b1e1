"""Source texts of the ragscope sample corpus (data/samples/), loaded from data files.

The document texts are files in texts/, their metadata is catalogue.yaml; this module turns
them into the Python values data/make_samples.py renders into PDF/DOCX/ODT/HTML/Markdown/TXT
files, so that `make_samples.py --check` can verify the goldenset (eval/goldenset_sample.yaml)
against the very same strings.

Markup of the texts/*.dsl files of pdf/docx/odt/html documents (a tiny line-based DSL):
    = Title                 document title (not a section heading)
    # Heading               heading level 1 (## level 2, ### level 3)
    - item                  bullet list item (one line each)
    | a | b | c |           table row (first row = header row)
    ```  ...  ```           code block (verbatim lines)
    other lines             paragraph text; consecutive lines are joined with a space,
                            a blank line ends the paragraph
Markdown (`md`) and plain-text (`txt`) documents are stored verbatim as texts/<name>, and so
are the texts of data/bad/ (altbestand_latin1.txt, notes.xyz, fake.docx); the web-page chrome
of the HTML documents is sites.yaml.

Everything is fictional: Stadtwerke Birkenau GmbH (a municipal utility), Lumen Systems GmbH
and its product "Lumen Data Gateway", all persons, phone numbers and *.example addresses.
"""
from __future__ import annotations

from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
TEXTS = HERE / "texts"
VERBATIM_FORMATS = ("md", "txt")


def read_text(name: str) -> str:
    """A text file exactly as stored (bytes decoded, no newline translation)."""
    return (TEXTS / name).read_bytes().decode("utf-8")


def text_file(doc: dict) -> str:
    """texts/<name> for verbatim formats, texts/<stem>.dsl for rendered ones."""
    if doc["fmt"] in VERBATIM_FORMATS:
        return doc["name"]
    return doc["name"].rsplit(".", 1)[0] + ".dsl"


def _load_doc(meta: dict) -> dict:
    """A catalogue entry with its text as `src` (placed after `fmt`) and `date` as a tuple."""
    doc: dict = {}
    for key, value in meta.items():
        doc[key] = tuple(value) if key == "date" else value
        if key == "fmt":
            doc["src"] = read_text(text_file(meta))
    return doc


_CATALOGUE = yaml.safe_load((HERE / "catalogue.yaml").read_text(encoding="utf-8"))

# Catalogue. `src` is DSL for pdf/docx/odt/html, verbatim text for md/txt.
DOCS: list[dict] = [_load_doc(meta) for meta in _CATALOGUE["docs"]]
# Words the PDF renderer may hyphenate at a line end (word -> part before the hyphen).
HYPHENATION: dict[str, str] = _CATALOGUE["hyphenation"]
# The documents that get a second version in data/samples_v2/ (same file name): their
# (old, new) edits, and the date used for a version's file metadata (txt files have none).
V2: dict[str, list[tuple[str, str]]] = {
    name: [(e["old"], e["new"]) for e in v["edits"]] for name, v in _CATALOGUE["versions"].items()}
V2_DATE: dict[str, tuple] = {
    name: tuple(v["date"]) for name, v in _CATALOGUE["versions"].items() if "date" in v}
# The web-page chrome of the HTML documents per site (sites.yaml): title, header, navigation,
# aside, footer, scripts around the document's own text.
SITES: dict[str, dict[str, str]] = yaml.safe_load((HERE / "sites.yaml").read_text(encoding="utf-8"))
# Latin-1 encoded legacy text for data/bad/altbestand_latin1.txt (stored as UTF-8 here).
ALTBESTAND_LATIN1: str = read_text("altbestand_latin1.txt")
