"""What a sample document says (data/sample_texts/): its source with the version-2 edits
applied, its blocks in the line DSL of the texts/*.dsl files, its logical plain text and its
headings; data/make_samples.py renders from the first two, data/check_samples.py verifies the
goldenset against the last two."""
from __future__ import annotations

import re

import sample_texts as T


def parse_dsl(src: str) -> list[tuple]:
    """Parse the line DSL of sample_texts into blocks:
    ('title', text) ('h', level, text) ('p', text) ('ul', [items]) ('table', [rows]) ('code', text)."""
    blocks: list[tuple] = []
    para: list[str] = []
    lines = src.split("\n")
    i = 0

    def flush():
        if para:
            blocks.append(("p", " ".join(s.strip() for s in para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            flush()
        elif s.startswith("```"):
            flush()
            code = []
            i += 1
            while not lines[i].strip().startswith("```"):
                code.append(lines[i])
                i += 1
            blocks.append(("code", "\n".join(code)))
        elif s.startswith("= "):
            flush()
            blocks.append(("title", s[2:].strip()))
        elif re.match(r"^#{1,3} ", s):
            flush()
            level = len(s) - len(s.lstrip("#"))
            blocks.append(("h", level, s[level:].strip()))
        elif s.startswith("- "):
            flush()
            if blocks and blocks[-1][0] == "ul" and lines[i - 1].strip().startswith("- "):
                blocks[-1][1].append(s[2:].strip())
            else:
                blocks.append(("ul", [s[2:].strip()]))
        elif s.startswith("|"):
            flush()
            cells = [c.strip() for c in s.strip("|").split("|")]
            if blocks and blocks[-1][0] == "table" and lines[i - 1].strip().startswith("|"):
                blocks[-1][1].append(cells)
            else:
                blocks.append(("table", [cells]))
        else:
            para.append(s)
        i += 1
    flush()
    return blocks


def doc_src(doc: dict, version: int = 1) -> str:
    src = doc["src"]
    if version == 2:
        for old, new in T.V2[doc["name"]]:
            assert src.count(old) == 1, f"v2 edit does not apply exactly once: {old[:60]!r}"
            src = src.replace(old, new)
    return src


def source_text(doc: dict, version: int = 1) -> str:
    """The logical plain text of a document (what an ideal extractor would return)."""
    src = doc_src(doc, version)
    if doc["fmt"] in ("md", "txt"):
        return src
    out = []
    for b in parse_dsl(src):
        if b[0] in ("title", "p", "code"):
            out.append(b[1])
        elif b[0] == "h":
            out.append(b[2])
        elif b[0] == "ul":
            out.extend(b[1])
        elif b[0] == "table":
            out.extend(" | ".join(r) for r in b[1])
            out.extend(c for r in b[1] for c in r)
    return "\n".join(out)


def source_headings(doc: dict, version: int = 1) -> list[str]:
    src = doc_src(doc, version)
    if doc["fmt"] == "md":
        heads, fence = [], False
        for line in src.split("\n"):
            if line.strip().startswith("```"):
                fence = not fence
            elif not fence and re.match(r"^#{1,6} ", line):
                heads.append(line.lstrip("#").strip())
        return heads
    if doc["fmt"] == "txt":
        return [ln.strip() for ln in src.split("\n")
                if re.match(r"^(TOP \d+|Anlage \d+)\s*:", ln.strip())]
    return [b[2] for b in parse_dsl(src) if b[0] == "h"]
