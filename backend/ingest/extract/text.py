"""Plain text files, and the byte -> str decoding shared by the text-like formats. Columns
aligned with spaces or tabs become table blocks (aligned.py)."""
from __future__ import annotations

import codecs
import re

from backend.errors import ExtractionError
from backend.ingest.types import RawDocument

from .aligned import table_blocks

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Non-ASCII characters that are common in German/English/Western European text. A cp1252
# decoding whose non-ASCII characters are mostly these is taken as right.
_WESTERN = set("ÄÖÜäöüßéèêëàâáçñóòôíìîïúùûÿÉÈÀÇ€„“”‚‘’–—…°§«»±×·²³µ¼½¾©®™•¢£¥")
_BINARY_CTRL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_PARA_SPLIT = re.compile(r"\n[ \t]*\n+")


def decode_text(data: bytes, filename: str, declared: str | None = None) -> tuple[str, str, list[str]]:
    """Decode bytes to str: BOM, then UTF-8, then a declared charset (HTML), then cp1252 for
    Western text, then charset_normalizer. Returns (text, encoding, warnings).
    Binary content raises ExtractionError."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(enc), enc.replace("-sig", ""), []
            except UnicodeDecodeError:
                break
    if b"\x00" in data:
        raise ExtractionError(filename, "binary content (NUL bytes); not a text file")
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError:
        pass
    text, enc = _decode_fallback(data, declared)
    if text is None:
        raise ExtractionError(filename, "binary or undecodable content; not a text file")
    if len(_BINARY_CTRL.findall(text[:20000])) > max(8, len(text[:20000]) // 100):
        raise ExtractionError(filename, "binary content (control characters); not a text file")
    return text, enc, [f"decoded as {enc} (not valid UTF-8)"]


def _decode_fallback(data: bytes, declared: str | None) -> tuple[str | None, str]:
    if declared:
        try:
            codecs.lookup(declared)
            return data.decode(declared), declared.lower()
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        text = data.decode("cp1252")
        non_ascii = [c for c in text if ord(c) > 127]
        if non_ascii and sum(c in _WESTERN for c in non_ascii) >= 0.6 * len(non_ascii):
            return text, "cp1252"
    except UnicodeDecodeError:
        pass
    import charset_normalizer

    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        return None, ""
    return str(best), best.encoding


def split_paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs, stripped, empty ones dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [p.strip("\n") for p in _PARA_SPLIT.split(text) if p.strip()]


def extract_txt(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    paragraphs = split_paragraphs(text)
    if not paragraphs:
        raise ExtractionError(filename, "file is empty")
    meta: dict = {"encoding": encoding}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=[b for p in paragraphs for b in table_blocks(p)], metadata=meta)
