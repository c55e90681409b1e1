"""HTML: main content via trafilatura (XML output keeps h1-h6, lists, tables); a simple lxml
walk without script/style/nav/header/footer/aside is the fallback for small pages where
trafilatura finds nothing or loses the headings."""
from __future__ import annotations

import logging
import re

from backend.ingest.types import Block, RawDocument

from .text import decode_text

log = logging.getLogger(__name__)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_DROP_TAGS = (
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside",
    "iframe", "svg", "canvas", "button", "select", "object", "embed", "head",
)
_PAGE_CHROME = ("header", "footer")  # dropped unless inside the article itself
_BLOCK_TAGS = {"p", "li", "dt", "dd", "blockquote", "figcaption", "caption", "address"}
_HEADING_TAGS = {f"h{i}": i for i in range(1, 7)}


def extract_html(data: bytes, filename: str) -> RawDocument:
    m = _META_CHARSET.search(data[:4096])
    declared = m.group(1).decode("ascii", "ignore") if m else None
    text, encoding, warnings = decode_text(data, filename, declared=declared)
    text = _XML_DECL.sub("", text)
    tree = _parse(text)
    title = _page_title(tree)
    fallback = _fallback_blocks(tree) if tree is not None else []
    blocks = _trafilatura_blocks(text)
    if _prefer_fallback(blocks, fallback):
        blocks = fallback
    meta: dict = {"encoding": encoding}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=blocks, title=title, metadata=meta)


def _prefer_fallback(main: list[Block], fallback: list[Block]) -> bool:
    """Fallback when trafilatura found nothing, or lost the headings of a page of similar
    size (it merges the blocks of tiny pages)."""
    if not main:
        return True
    main_len = sum(len(b.text) for b in main)
    fb_len = sum(len(b.text) for b in fallback)
    lost_headings = not any(b.heading_level for b in main) and any(b.heading_level for b in fallback)
    return lost_headings and fb_len <= 1.5 * main_len + 200


def _parse(text: str):
    import lxml.html

    try:
        return lxml.html.document_fromstring(text)
    except Exception:  # lxml raises ParserError on empty/odd documents
        log.debug("lxml could not parse the page", exc_info=True)
        return None


def _page_title(tree) -> str | None:
    if tree is None:
        return None
    el = tree.find(".//title")
    title = " ".join(el.text_content().split()) if el is not None else ""
    if not title:
        h1 = tree.find(".//h1")
        title = " ".join(h1.text_content().split()) if h1 is not None else ""
    return title or None


def _trafilatura_blocks(text: str) -> list[Block]:
    import trafilatura
    from lxml import etree

    try:
        xml = trafilatura.extract(
            text, output_format="xml", include_tables=True, include_formatting=False,
            include_comments=False, include_images=False, include_links=False,
        )
    except Exception:
        log.debug("trafilatura failed", exc_info=True)
        return []
    if not xml:
        return []
    try:
        root = etree.fromstring(xml.encode("utf-8"))
    except etree.XMLSyntaxError:
        return []
    main = root.find("main")
    blocks: list[Block] = []
    _walk_xml(main if main is not None else root, blocks)
    return blocks


def _walk_xml(node, blocks: list[Block]) -> None:
    for child in node:
        tag = child.tag if isinstance(child.tag, str) else ""
        text = " ".join("".join(child.itertext()).split())
        if tag == "head":
            rend = child.get("rend", "h2")
            level = int(rend[1]) if re.fullmatch(r"h[1-6]", rend) else 2
            if text:
                blocks.append(Block(text, heading_level=level))
        elif tag == "table":
            rows = [
                " | ".join(" ".join("".join(c.itertext()).split()) for c in row.iter("cell"))
                for row in child.iter("row")
            ]
            rows = [r for r in rows if r.strip(" |")]
            if rows:
                blocks.append(Block("\n".join(rows), preformatted=True, kind="table"))
        elif tag == "list":
            items = [" ".join("".join(i.itertext()).split()) for i in child.iter("item")]
            items = [f"- {i}" for i in items if i]
            if items:
                blocks.append(Block("\n".join(items), preformatted=True))
        elif tag == "code":
            code = "".join(child.itertext()).strip("\n")
            if code.strip():
                blocks.append(Block(code, preformatted=True, kind="code"))
        elif tag in ("div", "main", "quote") and len(child):
            _walk_xml(child, blocks)
        elif text:
            blocks.append(Block(text))


def _fallback_blocks(tree) -> list[Block]:
    """Simple walk over <body> without page chrome and scripts."""
    for el in list(tree.iter(*_DROP_TAGS)):
        if el.getparent() is None:
            continue
        if el.tag in _PAGE_CHROME and any(a.tag in ("article", "main") for a in el.iterancestors()):
            continue
        el.drop_tree()
    body = tree.find(".//body")
    blocks: list[Block] = []
    buffer: list[str] = []
    _walk_html(body if body is not None else tree, blocks, buffer)
    _flush(blocks, buffer)
    return blocks


def _walk_html(el, blocks: list[Block], buffer: list[str]) -> None:
    if el.text:
        buffer.append(el.text)
    for child in el:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag in _HEADING_TAGS or tag in _BLOCK_TAGS or tag in ("pre", "table"):
            _flush(blocks, buffer)
            _leaf_block(child, tag, blocks)
        elif tag == "br":
            buffer.append("\n")
        elif tag:
            is_block = tag in ("div", "section", "article", "main", "ul", "ol", "dl")
            if is_block:
                _flush(blocks, buffer)
            _walk_html(child, blocks, buffer)
            if is_block:
                _flush(blocks, buffer)
        if child.tail:
            buffer.append(child.tail)


def _leaf_block(el, tag: str, blocks: list[Block]) -> None:
    if tag == "pre":
        code = el.text_content().strip("\n")
        if code.strip():
            blocks.append(Block(code, preformatted=True, kind="code"))
        return
    if tag == "table":
        rows = []
        for tr in el.iter("tr"):
            cells = [" ".join(c.text_content().split()) for c in tr if c.tag in ("td", "th")]
            if any(cells):
                rows.append(" | ".join(cells))
        if rows:
            blocks.append(Block("\n".join(rows), preformatted=True, kind="table"))
        return
    text = " ".join(el.text_content().split())
    if text:
        prefix = "- " if tag == "li" else ""
        blocks.append(Block(prefix + text, heading_level=_HEADING_TAGS.get(tag)))


def _flush(blocks: list[Block], buffer: list[str]) -> None:
    text = " ".join("".join(buffer).split())
    buffer.clear()
    if text:
        blocks.append(Block(text))
