"""What Streamlit's Markdown renderer would make live in a piece of Markdown, for tests that
only have the Markdown source (AppTest gives element values, not rendered HTML).

A model of Streamlit 1.67's frontend pipeline (static/js/StreamlitMarkdown.*.js): the source's
`:material/` is rewritten to `:material_`; react-markdown parses CommonMark + GFM (tables,
strikethrough) + remark-directive + remark-math; then rules on *text nodes* (after backslash
escapes are resolved) turn `:material_x:` into icons, `:streamlit:` into a logo image, emoji
shortcodes into emoji and bare URLs, `www.` and e-mail addresses into links. The regular
expressions below are copied from that bundle. tests/test_browser_markdown.py checks the same
payloads in the real frontend, so this model is kept honest.
"""
from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from backend.security.safe_markdown import WORD_JOINER

TEXT_RULES = {
    "material icon": re.compile(r":material_(\w+):"),
    "streamlit logo": re.compile(r":streamlit:"),
    "emoji shortcode": re.compile(r":\+1:|:-1:|:[\w-]+:"),
    "url autolink": re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I),
    "email autolink": re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII),
}
_UNESCAPED_COLON_NAME = re.compile(r"(?<![\\:])((?:\\\\)*):([A-Za-z][\w-]*)(?=[\[{])")
_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)((?:\\\\)*)\$")
_LIVE_TOKENS = {"link_open": "link", "image": "image", "html_inline": "html",
                "html_block": "html", "math_inline": "math", "math_block": "math"}


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _strip_code(source: str) -> str:
    """The source without code spans and fences (nothing in them is live)."""
    source = re.sub(r"(?ms)^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[ \t]*$", "", source)
    return re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", source)


CITATION_LINK = re.compile(r"link: document\?doc=\d+&cited=\d+(?:&version_number=\d+)?"
                           r"(?:&quote_start=\d+&quote_end=\d+)?(?:&page=\d+)?")


def hazards(markdown: str, allowed_directives: frozenset[str] = frozenset(), *,
            citation_links: bool = False) -> list[str]:
    """Every construct in `markdown` Streamlit would render as something other than text:
    links, images, HTML, math, icons, logo, emoji, autolinks, colour/badge directives
    (except `allowed_directives`, which our own templates use). `citation_links`: the
    chat's own `[n]` links (numbers only, backend/ui/citations.py) are not reported."""
    source = markdown.replace(":material/", ":material_")
    found: list[str] = []
    bare = _strip_code(source)
    for m in _UNESCAPED_COLON_NAME.finditer(bare):
        if m.group(2) not in allowed_directives:
            found.append(f"directive :{m.group(2)}[…]")
    if _UNESCAPED_DOLLAR.search(bare):
        found.append("math $")
    tokens = _parser().parse(source)
    for tok in tokens:
        for t in [tok, *(tok.children or [])]:
            if t.type in _LIVE_TOKENS:
                found.append(f"{_LIVE_TOKENS[t.type]}: {t.content or t.attrGet('href') or ''}")
            if t.type == "text":
                for name, rule in TEXT_RULES.items():
                    for m in rule.finditer(t.content):
                        found.append(f"{name}: {m.group(0)}")
    return [f for f in found if not (citation_links and CITATION_LINK.fullmatch(f))]


def rendered_text(markdown: str) -> str:
    """The text a reader sees (tags dropped, entities resolved, word joiners removed)."""
    out = _parser().render(markdown)
    out = re.sub(r"<br\s*/?>\n?", "\n", out)
    out = re.sub(r"</p>\n(?=.)", "\n\n", out)
    out = re.sub(r"<[^>]+>", "", out)
    return html.unescape(out).replace(WORD_JOINER, "").strip()


def token_types(markdown: str) -> set[str]:
    """Block and inline token types of the parse (to check kept formatting)."""
    types = set()
    for tok in _parser().parse(markdown):
        types.add(tok.type)
        types.update(c.type for c in tok.children or [])
    return types
