"""Escaped text in Streamlit's real frontend: a probe script renders every hostile construct
of tests/test_safe_markdown.py through md_escape/md_text (as Markdown, error, caption, button
and expander label), a quoted and a model chat answer and a keyword highlight; Chromium then
looks at the DOM. No link, image, icon, emoji, formula or colour may appear, and the text must
read as the original. This is the check that the technique (backslash escapes plus word
joiners, backend/security/safe_markdown.py) is one Streamlit's renderer respects, and it keeps
tests/streamlit_markdown.py (the model the AppTest tests use) honest."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from backend.security.safe_markdown import WORD_JOINER
from tests.browser_support import ARTIFACTS, CHROMIUM, _free_port, _wait_healthy, stop
from tests.test_safe_markdown import HOSTILE

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no /usr/bin/chromium")]

PROBE = '''
import streamlit as st
from backend.retrieval.report import highlight_markdown
from backend.security.safe_markdown import answer_markdown, md_escape, md_text
from tests.test_safe_markdown import HOSTILE, LINED_ANSWER, MODEL_ANSWER, QUOTED_ANSWER, SNIPPET_TEXT
import html

for i, name in enumerate(sorted(HOSTILE)):
    p = HOSTILE[name]
    with st.container(key=f"md-{i}"):
        st.markdown(md_escape(p))
    with st.container(key=f"text-{i}"):
        st.markdown(md_text(p))
    with st.container(key=f"err-{i}"):
        st.error(md_escape(p))
    with st.container(key=f"cap-{i}"):
        st.caption(md_escape(p))
    with st.container(key=f"btn-{i}"):
        st.button(md_escape(p), key=f"b{i}")
    with st.container(key=f"exp-{i}"):
        st.expander(md_escape(p))
with st.container(key="answer-text"):
    st.markdown(answer_markdown(QUOTED_ANSWER, rich=False))
with st.container(key="answer-lines"):
    st.markdown(answer_markdown(LINED_ANSWER, rich=False))
with st.container(key="answer-rich"):
    st.markdown(answer_markdown(MODEL_ANSWER, rich=True))
with st.container(key="highlight"):
    st.markdown(highlight_markdown(html.escape(SNIPPET_TEXT).replace("{pump}", "<b>pump</b>")))
with st.container(key="emoji-trigger"):  # a time in our own text loads the emoji plugin
    st.markdown("at 12:30:45 " + md_escape(":smile: :material/home: :streamlit: :tada:"))
with st.container(key="done"):
    st.markdown("probe complete")
'''

# Per container: what it shows and which live elements it has (a heading's own "#" anchor
# link is Streamlit's, not content).
INSPECT = """() => [...document.querySelectorAll('[class*="st-key-"]')].map(el => {
  const key = [...el.classList].find(c => c.startsWith('st-key-')).slice(7);
  const md = [...el.querySelectorAll(
    '[data-testid=stMarkdownContainer], [data-testid=stCaptionContainer]')];
  const q = s => md.reduce((n, m) => n + m.querySelectorAll(s).length, 0);
  return {key, text: md.map(m => m.textContent).join('\\n'),
          links: q('a:not([href^="#"])'), images: q('img, video, audio'), icons: q('span[role=img]'),
          math: q('.katex'), colours: q('.stMarkdownColoredText, .stMarkdownBadge'),
          backgrounds: q('.stMarkdownColoredBackground'), strong: q('strong'),
          headings: q('h1, h2, h3, h4, h5, h6'), lists: q('ul, ol'), tables: q('table'),
          code: q('pre'), mermaid: el.querySelectorAll('[data-testid=stMermaidChart]').length,
          emoji: /\\p{Extended_Pictographic}/u.test(md.map(m => m.textContent).join(''))};
})"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The probe script under `streamlit run` on 127.0.0.1, its rendered containers."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    script = tmp_path_factory.mktemp("probe") / "probe.py"
    script.write_text(PROBE, encoding="utf-8")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSCOPE_")}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    log = open(ARTIFACTS / "markdown_probe.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(180_000)
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(url)
            page.get_by_text("probe complete").wait_for()
            page.wait_for_load_state("networkidle")  # lazily loaded plugins (emoji, katex)
            page.locator(".st-key-answer-rich pre").nth(1).wait_for()  # code, not a diagram
            rendered = {r["key"]: r for r in page.evaluate(INSPECT)}
            page.screenshot(path=str(ARTIFACTS / "markdown_probe.png"), full_page=True)
            browser.close()
        yield rendered, requests
    finally:
        stop(proc)
        log.close()


LIVE = ("links", "images", "icons", "math", "colours", "backgrounds", "mermaid", "emoji")


def _live(r: dict, allow: tuple[str, ...] = ()) -> dict:
    return {k: r[k] for k in LIVE if r[k] and k not in allow}


def _reads(r: dict) -> str:
    return " ".join(r["text"].replace(WORD_JOINER, "").split())


@pytest.mark.parametrize("kind", ["md", "text", "err", "cap", "btn", "exp"])
def test_every_construct_renders_as_text(probe, kind):
    rendered, _ = probe
    for i, name in enumerate(sorted(HOSTILE)):
        r = rendered[f"{kind}-{i}"]
        assert not _live(r), (name, kind, r)
        assert not r["strong"] and not r["headings"] and not r["lists"] and not r["tables"], \
            (name, kind, r)
        assert _reads(r) == " ".join(HOSTILE[name].split()), (name, kind, r["text"])


def test_chat_answers_and_highlights(probe):
    from tests.test_safe_markdown import QUOTED_ANSWER, SNIPPET_TEXT

    rendered, requests = probe
    quoted = rendered["answer-text"]
    assert not _live(quoted) and not quoted["strong"], quoted
    assert _reads(quoted) == " ".join(QUOTED_ANSWER.split())

    lined = rendered["answer-lines"]  # a list and a table, not literal "- " and "|" lines
    assert not _live(lined) and lined["lists"] == 1 and lined["tables"] == 1, lined
    assert "- Handbook" not in lined["text"] and "[m](http://evil.example/m)" in _reads(lined)
    assert "Jonas Albrecht" in _reads(lined)

    rich = rendered["answer-rich"]
    assert not _live(rich), rich
    assert rich["strong"] and rich["headings"] and rich["lists"] and rich["tables"]
    assert rich["code"] == 2  # the mermaid block is plain code, not a diagram
    for literal in ("manual (http://evil.example/m)", "d (http://127.0.0.1:9/p.png)",
                    "www.evil.example", ":material/home:", ":red[alarm]", "$x^2$"):
        assert literal in _reads(rich), literal

    hl = rendered["highlight"]
    assert not _live(hl, allow=("backgrounds",)) and hl["backgrounds"] == 1 and hl["strong"] == 1
    assert _reads(hl) == " ".join(SNIPPET_TEXT.replace("{pump}", "pump").split())

    trigger = rendered["emoji-trigger"]
    assert not _live(trigger), trigger
    assert not [u for u in requests if "127.0.0.1:9" in u or "evil.example" in u]
