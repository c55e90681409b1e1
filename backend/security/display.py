"""Untrusted names (file names, titles, source URIs, error messages quoting them) shown on a
terminal or a page. A file may be called `a.txt\\nSKIPPED b.txt: …` (a forged output line),
`\\x1b[2J.txt` (clears the screen) or `report\\u202etxt.exe` (shown as `reportexe.txt`).
`safe_text` writes every control character (C0, DEL, C1), line/paragraph separator and
bidirectional formatting character as a visible escape (`\\n`, `\\x1b`, `\\u202e`), so one
value stays one line and reads in its stored order. The stored value and the API's JSON stay
exact (the API offers `display_name` beside `filename`); every output goes through here:
the CLI per value and, for whatever else it prints, `TerminalGuard` on its streams."""
from __future__ import annotations

import re
from typing import Any, TextIO

# bidi embeddings/overrides/isolates and marks; line and paragraph separators
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_IN_STREAM = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")  # keep \t\n\r
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def safe_text(value: Any) -> str:
    """`value` as one display-safe line: control and bidi characters as visible escapes."""
    text = "" if value is None else str(value)
    return _UNSAFE.sub(_escape, text)


def has_unsafe(value: Any) -> bool:
    return bool(_UNSAFE.search("" if value is None else str(value)))


class TerminalGuard:
    """A text stream that escapes terminal control sequences (ESC, other C0/C1 controls, bidi
    overrides) in whatever is written through it; newline, tab and carriage return (progress
    bars) pass. The CLI wraps stdout and stderr in it when they are a terminal, so a value
    printed without `safe_text` still cannot drive the terminal."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    @classmethod
    def over(cls, stream: TextIO) -> "TextIO | TerminalGuard":
        """The guard over a terminal; a file or pipe gets the bytes as they are (a CSV export
        keeps its text; the values that matter went through `safe_text` anyway)."""
        try:
            return cls(stream) if stream.isatty() else stream
        except (AttributeError, ValueError):
            return stream

    def write(self, s: str) -> int:
        self._stream.write(_UNSAFE_IN_STREAM.sub(_escape, s))
        return len(s)

    def __getattr__(self, name: str):  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self._stream, name)
