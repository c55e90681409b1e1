"""Untrusted text in Streamlit Markdown (backend/security/safe_markdown.py): md_escape, md_text,
md_link, answer_markdown and the query-debug highlights show every hostile construct as
literal text. Checked against a model of Streamlit's renderer (tests/streamlit_markdown.py);
tests/test_browser_markdown.py checks the same payloads in Streamlit's real frontend."""
from __future__ import annotations

import pytest

from backend.retrieval.report import highlight_markdown
from backend.security.safe_markdown import (
    WORD_JOINER,
    answer_markdown,
    md_escape,
    md_link,
    md_text,
    renders_markdown,
    unescape,
)
from tests.streamlit_markdown import hazards, rendered_text, token_types

# Every construct Streamlit's Markdown turns into something other than text.
HOSTILE = {
    "material icon": "icon :material/home: here",
    "emoji shortcode": "smile :smile: and :+1: and :tada:",
    "streamlit logo": "logo :streamlit: here",
    "colour": "a :red[red alert] word",
    "background": "a :blue-background[blue box] word",
    "badge": "a :red-badge[urgent] word",
    "rainbow": ":rainbow[all colours]",
    "colour with attributes": ":color[x]{foreground=red background=blue}",
    "small and help": ":small[tiny] :help[tooltip] :shimmer[glow]",
    "inline latex": "costs $x^2 + 1$ dollars",
    "block latex": "$$\\int_0^1 x\\,dx$$",
    "link": "see [the manual](http://evil.example/m) now",
    "nested link": "see [[a](http://a.example)](http://b.example) now",
    "image": "![x](http://127.0.0.1:9/p.png)",
    "reference link": "[a][r]\n\n[r]: http://evil.example/ref",
    "angle autolink": "<http://evil.example/auto> and <mail@evil.example>",
    "bare url": "visit http://evil.example/path?q=1 or https://evil.example",
    "www url": "visit www.evil.example today, or WWW.Evil.Example",
    "email": "write to someone@evil.example please",
    "mailto and xmpp": "mailto:someone@evil.example xmpp:me@evil.example",
    "html": "<img src=x onerror=alert(1)> <script>alert(1)</script> <b>bold</b>",
    "html comment": "<!-- hidden --> text",
    "entity": "&lt;script&gt; &amp; &#58;smile&#58;",
    "emphasis and heading": "# Heading **bold** _it_ ~~strike~~ `code`",
    "list and quote": "- item\n> quote\n1. one",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |",
    "time": "at 12:30:45 :smile:",
}
# A quoted (extractive) answer, a model's Markdown answer and a keyword snippet, all hostile.
QUOTED_ANSWER = ("The manual is at [the manual](http://evil.example/m) [1]. The diagram "
                 "![d](http://127.0.0.1:9/p.png) shows <http://auto.example> [2]. Visit "
                 "www.evil.example or http://evil.example/v :material/home: :red[x] $x$ "
                 "<img src=x onerror=alert(1)> **not bold** [1][2].")
# An inventory answer (its "- " lines) and a table quoted as rows, with hostile text.
LINED_ANSWER = ("These documents cover “pumps” (2):\n- Handbook [m](http://evil.example/m) [1]\n"
                "- FAQ | Stadtwerke :red[x] [2]\n\nTask | Owner | Due\n"
                "Run a load test | Jonas Albrecht | 24 May 2024")
MODEL_ANSWER = ("## Summary\n\nThe pump is **checked daily** [1] and *logged* [2].\n\n"
                "- see [manual](http://evil.example/m) and [[a](http://a.example)](http://b)\n"
                "- image ![d](http://127.0.0.1:9/p.png) and <http://auto.example/x>\n"
                "- bare http://evil.example/v and www.evil.example and a@evil.example\n\n"
                "| key | value |\n|---|---|\n| url | [x](http://e.example) |\n\n"
                "Icons :material/home: :smile: :red[alarm] $x^2$ <b>html</b>\n\n"
                "```mermaid\ngraph TD; A-->B; click A href \"http://evil.example\"\n```\n\n"
                "```python\nprint('[1](http://x)')\n```\n\n"
                "[ref]: http://evil.example/ref\n\nUse [the ref][ref] too.")
SNIPPET_TEXT = ("see http://evil.example/x and {pump} [l](http://e) "
                "![i](http://127.0.0.1:9/p.png) <img src=x> :material/home: www.evil.example "
                "a@evil.example $x$ :red[x]")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_md_escape_shows_every_construct_as_text(name):
    text = HOSTILE[name]
    md = md_escape(text)
    assert hazards(md) == [], md
    assert rendered_text(md) == text.replace("\n", " ")
    assert unescape(md) == text.replace("\n", " ")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_md_text_keeps_line_breaks_and_stays_text(name):
    text = HOSTILE[name]
    md = md_text(text)
    assert hazards(md) == [], md
    assert rendered_text(md) == "\n".join(line.strip() for line in text.split("\n"))


def test_the_model_sees_what_the_old_escaping_let_through():
    """The hazards model itself: backslash-escaping alone (the old md_escape) leaves the
    rules on text nodes live."""
    import re

    def old(t: str) -> str:
        return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:])", r"\\\1", t)

    assert any("material icon" in h for h in hazards(old(HOSTILE["material icon"])))
    assert any("url autolink" in h for h in hazards(old(HOSTILE["bare url"])))
    assert any("url autolink" in h for h in hazards(old(HOSTILE["www url"])))
    assert any("email" in h for h in hazards(old(HOSTILE["email"])))
    assert any("emoji" in h for h in hazards(old(HOSTILE["emoji shortcode"])))
    assert hazards("[a](http://e)") and hazards(":red[x]") and hazards("$x$")


def test_word_joiners_only_where_a_rule_could_match():
    assert md_escape("file.exe: unsupported") == "file\\.exe\\: unsupported"
    assert md_escape("a:b") == f"a\\:{WORD_JOINER}b"
    assert md_escape("www.x") == f"www{WORD_JOINER}\\.x"
    assert md_escape("a@b") == f"a\\@{WORD_JOINER}b"
    assert md_escape("line\nbreak") == "line break"


# ---- links we mean to show ---------------------------------------------------------------


def test_md_link_keeps_our_links_and_refuses_other_schemes():
    assert md_link("original", "document?doc=7") == "[original](document?doc=7)"
    evil = md_link("web page", "https://ex.example/a b)(c<d>[e]`f\\g")
    assert token_types(evil) >= {"link_open"} and evil.count("](") == 1
    assert evil.endswith("(https://ex.example/a%20b%29%28c%3Cd%3E%5Be%5D%60f%5Cg)")
    assert hazards(md_link("x", "javascript:alert(1)")) == []
    assert hazards(md_link("x", "data:text/html,hi")) == []
    assert hazards(md_link("x", "//evil.example/p")) == []  # another host, no scheme
    assert "link_open" not in token_types(md_link("[t](http://e)", "document?doc=1")
                                          .split("](")[0] + "]")


# ---- chat answers ------------------------------------------------------------------------


def test_which_answers_keep_their_markdown():
    assert renders_markdown("ollama", "markdown") and renders_markdown("anthropic", None)
    assert not renders_markdown("extractive", "markdown")  # quoted document text
    assert not renders_markdown("openai", "plain")  # meant as plain text


def test_quoted_answer_is_text_with_its_citations():
    md = answer_markdown(QUOTED_ANSWER, rich=False)
    assert hazards(md) == [], md
    assert rendered_text(md) == QUOTED_ANSWER
    assert "strong_open" not in token_types(md)


def test_model_answer_keeps_its_formatting_but_no_link_image_or_html():
    md = answer_markdown(MODEL_ANSWER, rich=True)
    assert hazards(md) == [], md
    kept = token_types(md)
    assert {"heading_open", "strong_open", "em_open", "bullet_list_open", "table_open",
            "fence"} <= kept
    shown = rendered_text(md)
    for literal in ("manual (http://evil.example/m)", "d (http://127.0.0.1:9/p.png)",
                    "http://auto.example/x", "www.evil.example", "a@evil.example",
                    ":material/home:", ":red[alarm]", "$x^2$", "<b>html</b>", "[1]",
                    "the ref (http://evil.example/ref)"):
        assert literal in shown, literal
    assert "```mermaid" not in md and "```python" in md  # a diagram could carry links


def test_answer_markdown_streams_partial_text():
    partial = "The **pump** is at [the man"
    md = answer_markdown(partial, rich=True)
    assert hazards(md) == [] and "strong_open" in token_types(md)


# ---- query-debug highlights --------------------------------------------------------------


def test_highlight_markdown_bolds_only_the_index_marks():
    import html

    text = SNIPPET_TEXT
    snippet = html.escape(text).replace("{pump}", "<b>pump</b>")
    md = highlight_markdown(snippet)
    assert hazards(md, allowed_directives=frozenset({"orange-background"})) == [], md
    assert ":orange-background[**pump**]" in md
    assert rendered_text(md.replace(":orange-background[**pump**]", "pump")) == \
        text.replace("{pump}", "pump")


def test_quoted_answer_keeps_its_lists_and_table_rows():
    """An inventory answer's "- " lines are a list, numbered lines an ordered list, a run
    of "a | b | c" rows a table; their text stays escaped (was: literal "- " and "|")."""
    answer = ("These documents cover “pumps” (2):\n- Handbook [the manual](http://e.example) "
              "(handbook.pdf) [1]\n- FAQ | Stadtwerke (faq.html) [2]\n\n1. first :red[x] [1]\n"
              "2. second [2]\n\nTask | Owner | Due\nRun a load test | Jonas | 24 May 2024")
    md = answer_markdown(answer, rich=False)
    assert hazards(md) == [], md
    kinds = token_types(md)
    assert {"bullet_list_open", "ordered_list_open", "table_open"} <= kinds, md
    shown = rendered_text(md)
    for literal in ("Handbook [the manual](http://e.example) (handbook.pdf) [1]",
                    "FAQ | Stadtwerke (faq.html) [2]", "first :red[x] [1]", "Run a load test"):
        assert literal in shown, literal
    assert "- Handbook" not in shown and "Task | Owner" not in shown
