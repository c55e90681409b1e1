"""Untrusted text (from users, documents, crawled pages, exception messages) inside the
Markdown that Streamlit renders. No Streamlit import here: pages, report helpers and tests
share it.

Streamlit's Markdown (react-markdown with remark-gfm, remark-directive, remark-math and its own
plugins) does more than CommonMark, and several of its rules act on the *text* of the parsed
document, i.e. after backslash escapes have been resolved, so escaping alone cannot stop them:

- `:material/name:` becomes an icon (the source's `:material/` is rewritten to `:material_`
  before parsing, the icon rule then matches text), `:streamlit:` the Streamlit logo image, and
  emoji shortcodes (`:smile:`) emoji once any shortcode-like `:x:` appears in the source;
- bare `http://…`, `https://…`, `www.…` and e-mail addresses become links (GFM autolink
  literals are found in text nodes).

`md_escape` therefore does two things: it backslash-escapes every ASCII punctuation character
(no link, image, autolink, HTML, emphasis, heading, list, table, `$…$` LaTeX or `:name[…]`
colour/badge directive can start), and it puts an invisible WORD JOINER (U+2060) after every
`:` and `@` that is followed by a character, and between `www` and `.`, so that none of the
text rules above finds its pattern. The text looks the same; a copy of it contains the
invisible character. Checked against Streamlit's own frontend in tests/test_browser_markdown.py.

`answer_markdown` renders a chat answer: an answer quoting documents (the extractive provider)
or meant as plain text is escaped whole; a model's Markdown answer keeps its formatting
(emphasis, lists, headings, tables, code) while every link, image, autolink and HTML in it is
shown as text, and all of its text is escaped like `md_escape`. The extractive answer's bold
value (`**2,69 EUR**`, backend/answer/extractive_text.py, which drops the document's own
`**` from its quotes) is shown bold with `bold=True`: only whole `**…**` pairs become bold,
their inside stays escaped."""
from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import quote, urlsplit

WORD_JOINER = "\u2060"
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_JOIN_AFTER = re.compile(r"(?<=[:@])(?=\S)")
_WWW_DOT = re.compile(r"(?<=www)(?=\.)", re.IGNORECASE)
_URL_SAFE = "/:?#&=+%@!$',;~-._*"  # everything else (spaces, ()<>[]\\`"|) is percent-encoded
_MERMAID = "mermaid"
_LANG = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")


def _escape(text: str) -> str:
    text = _WWW_DOT.sub(WORD_JOINER, _JOIN_AFTER.sub(WORD_JOINER, text))
    return _PUNCT.sub(r"\\\1", text)


def md_escape(text: Any) -> str:
    """One line of untrusted text inside Markdown (labels, messages, captions): shown
    literally, nothing in it becomes a link, image, icon, emoji, colour, formula or HTML.
    Line breaks become spaces."""
    return _escape(str(text).replace("\r", "").replace("\n", " "))


def md_text(text: Any) -> str:
    """Untrusted multi-line text as Markdown: like md_escape, with its line breaks kept."""
    return "  \n".join(_escape(line.strip()) for line in str(text).replace("\r", "").split("\n"))


def md_link(label: Any, url: str) -> str:
    """A link we mean to show (a source's web page, a trace) whose label or URL comes from
    data: the label escaped, the URL percent-encoded so it cannot end the link early; only
    http(s) and relative URLs (no scheme, not //host) become links, anything else is shown
    as text."""
    url = str(url or "")
    scheme = urlsplit(url).scheme.lower() if ":" in url else ""
    if scheme not in ("", "http", "https") or not url or url.startswith(("//", "\\")):
        return md_escape(f"{label} ({url})" if url else label)
    return f"[{md_escape(label)}]({quote(url, safe=_URL_SAFE)})"


def unescape(markdown: str) -> str:
    """What md_escape'd text reads as (for tests and logs): backslash escapes resolved and
    the word joiners removed."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(WORD_JOINER, "")


# ---- chat answers ------------------------------------------------------------------------


def renders_markdown(provider: str | None, profile: str | None) -> bool:
    """Whether an answer is shown with its Markdown formatting. The extractive provider's
    answer and the analysis route's (backend/answer/route.py) are quoted document text,
    and a plain-text profile's answer is meant as text: all are escaped whole."""
    from backend.chat.format_check import is_plain

    return provider not in ("extractive", "analysis") and not is_plain(profile or "markdown")


def renders_bold(provider: str | None, profile: str | None) -> bool:
    """Whether an escaped answer keeps its bold value: the extractive answer's (a plain-text
    profile has dropped the marks already)."""
    from backend.chat.format_check import is_plain

    return provider == "extractive" and not is_plain(profile or "markdown")


_ESCAPED_BOLD = re.compile(r"\\\*\\\*((?:(?!\\\*\\\*)\S)(?:(?!\\\*\\\*).)*?(?<=\S))\\\*\\\*")


def answer_markdown(text: str, *, rich: bool, bold: bool = False) -> str:
    """A chat answer as safe Markdown. `rich=False`: the whole answer as text (line breaks
    kept; citation markers like [1] read the same), with `bold` its `**…**` pairs bold.
    `rich=True`: the model's own Markdown structure is kept, every link, image, autolink and
    piece of HTML becomes text."""
    if not rich:
        md = text_blocks(text)
        return _ESCAPED_BOLD.sub(r"**\1**", md) if bold else md
    try:
        return _sanitiser().render(text).rstrip("\n")
    except Exception:  # noqa: BLE001  a parser/renderer bug must not show the raw answer
        return md_text(text)


_BULLET = re.compile(r"^[-*•]\s+(?=\S)")
_NUMBERED = re.compile(r"^(\d{1,3})[.)]\s+(?=\S)")
_ROW_SPLIT = re.compile(r"\s+\|\s+")


def _kind(line: str) -> str:
    if _BULLET.match(line):
        return "bullet"
    if _NUMBERED.match(line):
        return "numbered"
    return "row" if " | " in line.strip("| ") else "text"


def _block(kind: str, lines: list[str]) -> str:
    """One run of same-kind lines as Markdown; every piece of text in it escaped."""
    if kind == "bullet":
        return "\n".join("- " + _escape(_BULLET.sub("", x)) for x in lines)
    if kind == "numbered":
        return "\n".join(f"{_NUMBERED.match(x).group(1)}. " + _escape(_NUMBERED.sub("", x))
                         for x in lines)
    if kind == "row":
        rows = [_ROW_SPLIT.split(x.strip("| ")) for x in lines]
        width = max(len(r) for r in rows)
        if len(rows) >= 2:  # the first row is the table's header, as in the document
            rows = [r + [""] * (width - len(r)) for r in rows]
            out = ["| " + " | ".join(_escape(c) for c in rows[0]) + " |",
                   "|" + "---|" * width]
            return "\n".join(out + ["| " + " | ".join(_escape(c) for c in r) + " |"
                                    for r in rows[1:]])
        if width >= 3:  # one row ("A-24-07 | Run a load test | Jonas Albrecht"): its cells
            return "\n".join("- " + _escape(c) for c in rows[0])
    return "  \n".join(_escape(x) for x in lines)


def text_blocks(text: Any) -> str:
    """A quoted or plain-text answer as Markdown that keeps its line structure and nothing
    else: "- " lines a bullet list, "1. " lines a numbered list, runs of "a | b | c" rows a
    table (one row of three or more cells: its cells as a list), other lines text with
    their line breaks; every piece of text escaped like md_escape. (md_text showed lists
    and rows as literal "- " and "|" lines.)"""
    lines = [x.strip() for x in str(text).replace("\r", "").split("\n")]
    blocks: list[tuple[str, list[str]]] = []
    for line in lines:
        kind = _kind(line) if line else "blank"
        if blocks and blocks[-1][0] == kind and kind != "blank":
            blocks[-1][1].append(line)
        else:
            blocks.append((kind, [line]))
    return "\n\n".join(_block(k, ls) for k, ls in blocks if k != "blank")


class _SafeRenderers:
    """mdformat renderers for every text-carrying node: text escaped, links, images,
    autolinks and HTML turned into text. They replace mdformat-gfm's own renderers."""

    @staticmethod
    def _text(node, context) -> str:
        return _escape(node.content.replace("\n", " "))

    @staticmethod
    def _link(node, context) -> str:
        href = str(node.attrs.get("href") or "")
        if node.info == "auto":  # <http://…> or <a@b.c>
            label = node.children[0].content if node.children else href
            return _escape(label)
        label = "".join(child.render(context) for child in node.children)
        return f"{label} ({_escape(href)})" if href else label

    @staticmethod
    def _image(node, context) -> str:
        alt = "".join(_plain(c) for c in node.children).strip()
        src = _escape(str(node.attrs.get("src") or ""))
        return f"{_escape(alt)} ({src})" if alt else f"({src})"

    @staticmethod
    def _autolink(node, context) -> str:
        return _escape(node.meta.get("source_text") or node.content)

    @staticmethod
    def _html_inline(node, context) -> str:
        return _escape(node.content.replace("\n", " "))

    @staticmethod
    def _html_block(node, context) -> str:
        return md_text(node.content.strip("\n"))

    @staticmethod
    def _fence(node, context) -> str:
        """Code stays code (nothing in a code block is live), but only a plain language name
        is kept: a `mermaid` block would become a diagram, with clickable links."""
        lang = (node.info.strip().split(maxsplit=1) or [""])[0]
        if not _LANG.fullmatch(lang) or lang.lower() == _MERMAID:
            lang = ""
        code = node.content
        fence = "`" * max(3, _longest_run(code, "`") + 1)
        return f"{fence}{lang}\n{code}{fence}"

    RENDERERS = {"text": _text, "link": _link, "image": _image, "gfm_autolink": _autolink,
                 "html_inline": _html_inline, "html_block": _html_block, "fence": _fence}


def _plain(node) -> str:
    """The text of an inline node and its children (image descriptions)."""
    if node.type in ("text", "code_inline", "html_inline"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    return "".join(_plain(c) for c in node.children)


def _longest_run(s: str, ch: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(ch)}+", s)), default=0)


class _Sanitiser:
    def __init__(self):
        import mdformat.plugins
        from markdown_it import MarkdownIt
        from mdformat.renderer import MDRenderer

        mdit = MarkdownIt(renderer_cls=MDRenderer)  # as mdformat's own build_mdit does
        mdit.options["mdformat"] = {"wrap": "keep", "number": True, "end_of_line": "lf"}
        mdit.options["store_labels"] = True
        mdit.options["codeformatters"] = {}
        mdit.options["parser_extension"] = []
        gfm = mdformat.plugins.PARSER_EXTENSIONS["gfm"]
        plugin = type("SafeGfm", (), {
            "update_mdit": staticmethod(gfm.update_mdit),
            "RENDERERS": {**gfm.RENDERERS, **_SafeRenderers.RENDERERS},
            "POSTPROCESSORS": dict(getattr(gfm, "POSTPROCESSORS", {}))})
        mdit.options["parser_extension"].append(plugin)
        plugin.update_mdit(mdit)  # GFM: tables, strikethrough, task lists, autolink literals
        self._mdit = mdit

    def render(self, text: str) -> str:
        return self._mdit.render(text)


@functools.cache
def _sanitiser() -> _Sanitiser:
    return _Sanitiser()
