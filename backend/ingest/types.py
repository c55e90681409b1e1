"""Plain data passed between the ingestion stages:
extract (file -> RawDocument) -> normalise (RawDocument -> Text) -> structure (Text -> sections)
-> chunk (Text + sections -> chunks). All offsets are character offsets into the normalised
text of one document version; pages are 1-based."""
from __future__ import annotations

from dataclasses import dataclass, field

SECTION_KINDS = ("document", "chapter", "section", "agenda_item", "appendix", "paragraph", "page",
                 "symbol")


@dataclass
class Block:
    """One paragraph-like piece of extracted text, in reading order.
    `heading_level` is set (1 = top) when the source marks the block as a heading
    (Markdown `#`, DOCX heading style, HTML <h1>..<h6>)."""

    text: str
    page: int | None = None
    heading_level: int | None = None
    # True for table rows and code: normalise keeps the line breaks instead of re-flowing
    preformatted: bool = False
    # "code" (a code fence, <pre>, a source file's piece) or "table": recorded as a span of
    # the text that profiles may keep whole in one chunk
    kind: str | None = None
    # the block starts a section with this title without being a heading itself (a class or
    # function of a source file: the code stays the block's text, the symbol names the section)
    anchor: str | None = None
    anchor_level: int | None = None


@dataclass
class OutlineEntry:
    """A PDF outline (bookmark) entry: title, nesting level (1 = top) and 1-based page."""

    title: str
    level: int
    page: int


@dataclass
class RawDocument:
    blocks: list[Block]
    title: str | None = None
    outline: list[OutlineEntry] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    page_count: int | None = None


@dataclass
class PageSpan:
    number: int
    start: int
    end: int


@dataclass
class Heading:
    """A heading found in the normalised text: from markup, outline or numbering patterns."""

    title: str
    level: int
    start: int  # offset of the heading line in the normalised text
    end: int  # end of the heading line
    source: str = "markup"  # markup | outline | pattern | symbol


@dataclass
class Text:
    """Normalised text of a version with its page spans and markup headings."""

    text: str
    pages: list[PageSpan]
    headings: list[Heading]
    title: str | None = None
    metadata: dict = field(default_factory=dict)
    spans: list["Span"] = field(default_factory=list)  # code blocks and tables, in order


@dataclass(frozen=True)
class Span:
    """A code block or table in the normalised text ([start, end) offsets)."""

    start: int
    end: int
    kind: str


@dataclass
class SectionNode:
    """A node of the section tree. `parent` is the index of the parent node in the flat
    list returned by structure.build_sections (None for the root's children's parent = root).
    The first node (index 0) is the document root (kind "document", level 0) spanning all text."""

    kind: str
    level: int
    title: str
    start: int
    end: int
    page_start: int | None
    page_end: int | None
    parent: int | None
    number: str | None = None  # "3.2", "§ 4", "TOP 5", "Anlage 2", "A" ...


@dataclass
class ChunkSpec:
    ordinal: int
    start: int
    end: int
    text: str
    section: int  # index into the flat section list
    page: int | None
    page_end: int | None = None
