"""Repository formats (backend/ingest/extract/code.py, textmarkup.py, table.py): source code of
the languages parsed with tree-sitter gets a section per class/function/type named by its
signature, other languages blocks, configuration files a section per key, reStructuredText
and AsciiDoc their headings and literal blocks, CSV tables whose every block repeats the
header; the code_structured profile keeps a function whole in one chunk."""
from __future__ import annotations

import pytest

from backend.ingest.chunking import chunk_text
from backend.ingest.extract import code as code_mod
from backend.ingest.extract import extract
from backend.ingest.normalise import normalise
from backend.ingest.profiles import PROFILES
from backend.ingest.structure import build_sections

CODE = PROFILES["code_structured"]

SOURCES = {
    "meter.js": ("""import fs from 'fs';

// Reads one meter.
export function readMeter(id) {
  return fs.readFileSync(id);
}

class MeterCache {
  constructor() { this.items = new Map(); }
  get(id) { return this.items.get(id); }
}

const parse = (line) => line.split(';');
""", ["export function readMeter(id)", "class MeterCache",
      "const parse = (line) => line.split(';');"]),
    "meter.ts": ("""export interface Reading {
  meter: string;
  value: number;
}

export type Unit = 'kWh' | 'm3';

export class Gateway {
  send(r: Reading): void {}
}

export function total(rs: Reading[]): number {
  return rs.reduce((a, r) => a + r.value, 0);
}
""", ["export interface Reading", "export type Unit = 'kWh' | 'm3';", "export class Gateway",
      "export function total(rs: Reading[]): number"]),
    "handler.go": ("""package meters

import "net/http"

// Reading is one value.
type Reading struct {
\tMeter string
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
\tw.WriteHeader(200)
}

func Total(rs []Reading) int {
\treturn len(rs)
}
""", ["type Reading struct", "func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request)",
      "func Total(rs []Reading) int"]),
    "Meter.java": ("""package org.example;

/** A meter. */
public class Meter {
    private final String id;

    public Meter(String id) { this.id = id; }

    public String id() { return id; }
}
""", ["public class Meter"]),
    "lib.rs": ("""use std::collections::HashMap;

/// A reading.
pub struct Reading {
    pub meter: String,
}

pub trait Source {
    fn read(&self) -> Reading;
}

impl Source for Reading {
    fn read(&self) -> Reading { Reading { meter: self.meter.clone() } }
}

pub fn total(rs: &[Reading]) -> usize { rs.len() }
""", ["pub struct Reading", "pub trait Source", "impl Source for Reading",
      "pub fn total(rs: &[Reading]) -> usize { rs.len() }"]),
}


def _text(name: str, src: str):
    return normalise(extract(src.encode(), name))


def _titles(text) -> list[tuple[str, str]]:
    return [(s.kind, s.title) for s in build_sections(text, CODE)[1:]]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_tree_sitter_languages_get_a_section_per_symbol(name):
    src, expected = SOURCES[name]
    text = _text(name, src)
    assert text.metadata["code_sections"] == "tree-sitter"
    assert _titles(text) == [("symbol", t) for t in expected]
    assert all(s.kind == "code" for s in text.spans)
    assert text.text.count("\n") >= src.strip().count("\n")  # lines and indentation kept
    # the comment directly above a symbol stays with it
    first = next(c for c in chunk_text(text, build_sections(text, CODE), 800, 120, CODE)
                 if expected[0] in c.text)
    assert first.text == text.text[first.start:first.end]


def test_a_large_python_class_is_split_into_its_methods_and_each_chunk_is_whole():
    methods = "\n".join(
        f"    def step_{i}(self, value):\n        \"\"\"Step {i} of the pipeline.\"\"\"\n"
        + "".join(f"        value = value * {j} + {i}  # stage {j}\n" for j in range(8))
        + "        return value\n" for i in range(8))
    src = f"import math\n\n\nclass Pipeline:\n    \"\"\"Runs the steps.\"\"\"\n\n{methods}"
    assert len(src) > code_mod.SPLIT_CHARS
    text = _text("pipeline.py", src)
    titles = _titles(text)
    assert titles[0] == ("symbol", "class Pipeline")
    assert [t for _, t in titles[1:]] == [f"def step_{i}(self, value)" for i in range(8)]
    chunks = chunk_text(text, build_sections(text, CODE), 800, 120, CODE)
    for i in range(8):  # every method whole in exactly one chunk
        body = text.text[text.text.index(f"def step_{i}("):].split("return value", 1)[0]
        assert sum(body in c.text for c in chunks) == 1, i


def test_broken_code_is_still_read_and_a_missing_grammar_falls_back_to_blocks(monkeypatch):
    text = _text("broken.py", "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n")
    assert "def broken(:" in text.text and ("symbol", "def ok()") in _titles(text)
    code_mod._parser.cache_clear()

    def no_grammar(ext):
        raise ImportError("no grammar wheel")

    monkeypatch.setattr(code_mod, "_parser", no_grammar)
    text = _text("meter.js", SOURCES["meter.js"][0])
    assert text.metadata["code_sections"] == "blocks" and "readMeter" in text.text


@pytest.mark.parametrize("name, src, keys", [
    ("config.yaml", "# gateway\nserver:\n  port: 8080\n\ndatabase:\n  url: sqlite://\n",
     ["server", "database"]),
    ("pyproject.toml", "[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 100\n",
     ["project", "tool.ruff"]),
    ("setup.ini", "[gateway]\nport = 1\n\n[logging]\nlevel = info\n", ["gateway", "logging"]),
    ("app.json", '{\n  "name": "x",\n  "scripts": {\n    "start": "node ."\n  }\n}\n',
     ["name", "scripts"]),
])
def test_configuration_files_get_a_section_per_top_level_key(name, src, keys):
    text = _text(name, src)
    assert text.metadata["code_sections"] == "keys"
    assert _titles(text) == [("symbol", k) for k in keys]


def test_other_languages_and_known_file_names_are_read_in_blocks():
    c = _text("main.c", "#include <stdio.h>\n\nint main(void) {\n    return 0;\n}\n")
    assert c.metadata["code_language"] == "c" and c.metadata["code_sections"] == "blocks"
    assert "    return 0;" in c.text
    docker = _text("Dockerfile", "FROM python:3.11\nRUN pip install gw\n")
    assert docker.metadata["code_language"] == "dockerfile" and "RUN pip install gw" in docker.text


def test_restructuredtext_and_asciidoc_headings_and_literal_blocks():
    rst = _text("guide.rst", "Gateway guide\n=============\n\nIntro text.\n\nInstall\n-------\n\n"
                "Run this::\n\n    pip install gw\n    gw serve --port 8080\n\nDone.\n")
    assert _titles(rst) == [("chapter", "Gateway guide"), ("section", "Install")]
    assert [s.kind for s in rst.spans] == ["code"]
    span = rst.spans[0]
    assert "pip install gw\n" in rst.text[span.start:span.end]
    adoc = _text("guide.adoc", "= Gateway guide\n\nIntro.\n\n== Install\n\n----\npip install gw\n"
                 "gw serve\n----\n\n== Run\n\nText.\n")
    assert _titles(adoc) == [("chapter", "Gateway guide"), ("section", "Install"),
                             ("section", "Run")]
    assert "pip install gw\ngw serve" in adoc.text


def test_csv_blocks_repeat_the_header_and_rows_are_never_cut():
    rows = "".join(f"M{i:03d};Eichberg;{i * 7}\n" for i in range(120))
    text = _text("zaehler.csv", "meter;site;value\n" + rows)
    assert [s.kind for s in text.spans] == ["table"] * 3  # 50 rows a block
    for s in text.spans:
        assert text.text[s.start:s.end].startswith("meter | site | value\n")
    table = PROFILES["table_structured"]
    chunks = chunk_text(text, build_sections(text, table), 800, 120, table)
    assert len(chunks) > 1
    for c in chunks:  # a cut row would leave a line with fewer cells
        assert all(line.count(" | ") == 2 for line in c.text.split("\n") if line.strip())
