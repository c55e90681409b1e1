"""Write a bench's report into docs/benchmarks.md: the section starting at its `## ` heading
is replaced up to the next `## ` or `### ` heading (the dated `### ` write-ups below a
bench's table are kept), or appended when the document has none yet."""
from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def record_section(heading: str, section: str, doc: Path = DOC) -> None:
    text = doc.read_text(encoding="utf-8")
    start = text.find(heading)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        ends = [i for i in (text.find("\n## ", start + len(heading)),
                            text.find("\n### ", start + len(heading))) if i >= 0]
        nxt = min(ends) if ends else -1
        text = text[:start] + section + ("\n" + text[nxt + 1:] if nxt >= 0 else "")
    doc.write_text(text, encoding="utf-8")
