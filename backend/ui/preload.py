"""Streamlit's element code, fetched while the browser waits for the server's script run.

Streamlit's frontend loads the code of most elements lazily: the data grid (with Arrow, about
1.3 MB of JavaScript), a chart, even a button, select box or page link is a chunk of its own
that the browser fetches and evaluates only when the first message with that element has
arrived, i.e. after the server's script run has sent it. On a direct page load the browser
is idle in between (the WebSocket is open, the server runs app.py and the page: 0.5-1.5 s
on the shared 2-core machine, docs/benchmarks.md); the page shell (backend/ui/shell.py)
imports the chunks the dashboard's pages use on first view in that idle time, so the
frontend's own lazy import later finds them in the browser's module map (same URL, the
same module) instead of starting the fetch then.

The chunk files carry a content hash in their name (`DataFrame.-f9-1zS0.js`); they are
looked up by element name in the installed Streamlit's static folder once per process. A
name Streamlit no longer has is left out (nothing fails; the page loads as without it)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

# chunks (by the element's name in Streamlit's bundle) used on nearly every page's first
# view: the dashboard's tables and its common widgets (sidebar: page links, sign-out button)
COMMON = ("DataFrame", "Button", "PageLink", "Selectbox", "TextInput", "Checkbox", "Radio",
          "Multiselect", "NumberInput", "DownloadButton", "Metric", "Progress")
# heavier chunks only where the page's first view shows them: page path -> chunk names
PAGES: dict[str, tuple[str, ...]] = {
    "structure": ("PlotlyChart",),  # the sunburst beside the section table
    "query_debug": ("Slider",),  # the parameter form's vector weight
    "upload": ("FileUploader",),
    "chat": ("ChatInput",),
    "chatbot": ("ChatInput",),
}


def static_js() -> Path:
    import streamlit

    return Path(streamlit.__file__).parent / "static" / "static" / "js"


@lru_cache(maxsize=None)
def chunk_files(folder: Path | None = None) -> dict[str, str]:
    """Element name -> its chunk's file name in Streamlit's static/js folder (`Name.hash.js`;
    shared chunks such as `index.esm.hash.js` have more dots and are not elements)."""
    out: dict[str, str] = {}
    for f in (folder or static_js()).glob("*.js"):
        parts = f.name.split(".")
        if len(parts) == 3 and parts[0][:1].isupper():
            out[parts[0]] = f.name
    return out


def page_chunks(files: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Page path ("" = the default page) -> the chunk files its shell preloads."""
    files = chunk_files() if files is None else files
    common = [files[n] for n in COMMON if n in files]
    out = {"": common}
    for page, names in PAGES.items():
        out[page] = common + [files[n] for n in names if n in files]
    return out


def preload_script(page_paths: list[str], files: dict[str, str] | None = None) -> bytes:
    """The inline script: once the document is parsed (Streamlit's bundle has run) and the
    main thread is idle, import the current page's chunks from the server's root (set by
    backend/ui/shell.py's first script). An address that is no page of the dashboard gets
    the common chunks."""
    chunks = page_chunks(files)
    known = {p: chunks.get(p, chunks[""]) for p in page_paths}
    known[""] = chunks[""]
    return (
        "<script>(function(){var m=" + json.dumps(known, sort_keys=True) + ";"
        "var p=location.pathname.replace(/\\/+$/,'').split('/').pop()||'';"
        "var f=m[p]||m[''];"
        "function go(){var b=(window.__streamlit||{}).BACKEND_BASE_URL||'./';"
        "f.forEach(function(x){import(b+'static/js/'+x).catch(function(){});});}"
        "function idle(){(window.requestIdleCallback||function(g){setTimeout(g,0);})"
        "(go,{timeout:1000});}"
        "if(document.readyState==='loading')"
        "document.addEventListener('DOMContentLoaded',idle);else idle();})();</script>"
    ).encode()
