"""CSV and TSV: one table block per ROWS_PER_BLOCK rows, each starting with the header row
(so every block can be read on its own), cells joined with " | "."""
from __future__ import annotations

import csv
import io

from backend.errors import ExtractionError
from backend.ingest.types import Block, RawDocument

from .text import decode_text

ROWS_PER_BLOCK = 50


def extract_csv(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    sample = text[:20000]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if filename.lower().endswith(".tsv") else csv.excel
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ExtractionError(filename, f"not a readable CSV file ({exc})") from None
    if not rows:
        raise ExtractionError(filename, "file is empty")
    header, body = rows[0], rows[1:]

    def line(r: list[str]) -> str:
        return " | ".join(" ".join(c.split()) for c in r)

    blocks = []
    for i in range(0, max(1, len(body)), ROWS_PER_BLOCK):
        part = [header] + body[i:i + ROWS_PER_BLOCK]
        blocks.append(Block("\n".join(line(r) for r in part), preformatted=True, kind="table"))
    meta: dict = {"encoding": encoding, "rows": len(body), "columns": len(header)}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=blocks, metadata=meta)
