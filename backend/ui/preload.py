"""Streamlit's element code, fetched while the browser waits for the server's script run.

Streamlit's frontend loads the code of most elements lazily: the data grid (1.7 MB of
JavaScript in 31 files), a chart, even a button, select box or page link is a chunk of its
own that the browser fetches and evaluates only when the first message with that element
has arrived, i.e. after the server's script run has sent it. On a direct page load the
browser is idle in between (the WebSocket is open, the server runs app.py and the page:
0.5-1.5 s on the shared 2-core machine, docs/benchmarks.md); the page shell
(backend/ui/shell.py) fetches the chunks a page shows on its first view, with all their
dependencies at once, and imports them in that idle time, so the frontend's own lazy
import later finds them in the browser's module map (same URL, the same module) instead
of starting the fetch then.

The chunk files carry a content hash in their name (`DataFrame.-f9-1zS0.js`); they are
looked up by element name in the installed Streamlit's static folder once per process. A
name Streamlit no longer has is left out (nothing fails; the page loads as without it)."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

# page path ("" = Home, the default page) -> the heavy chunks (by the element's name in
# Streamlit's bundle) its first view shows, so it waits for them on every direct load.
# Only those: a chunk the page does not show (the data grid on the chat page) costs the
# browser the same main-thread time to evaluate, on a machine where that is the scarce part.
# Widgets are small chunks, each one more fetch after the frame that shows it; preloading
# the forms of Upload and Query debug (pages without a table) measured slower, not faster
# (docs/benchmarks.md, run 6), so those two preload nothing.
GRID = "DataFrame"
PAGES: dict[str, tuple[str, ...]] = {
    "": (GRID, "Metric"), "chat": ("ChatInput",), "explorer": (GRID,),
    "document": (GRID, "Selectbox"), "structure": (GRID, "Checkbox", "Selectbox"),
    "analysis": (GRID, "Selectbox"), "admin_users": (GRID,), "admin_access": (GRID,),
    "admin_tokens": (GRID,), "document_types": (GRID,), "settings": (GRID,),
}


def static_js() -> Path:
    """The installed Streamlit's JavaScript folder (found without importing Streamlit)."""
    import importlib.util

    return Path(importlib.util.find_spec("streamlit").origin).parent / "static" / "static" / "js"


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


# a static import in Streamlit's (vite) chunks: `import{a as b}from"./x.js"`, `import"./x.js"`
STATIC_IMPORT = re.compile(r'(?:\bfrom|\bimport)\s*"\./([^"/]+\.js)"')
HEAD = 64 * 1024  # a module's static imports open it (reading 4.6 MB of plotly took seconds)


@lru_cache(maxsize=None)
def imports_of(file: str, folder: Path | None = None) -> frozenset[str]:
    """`file` and every chunk it imports statically, transitively: what the browser fetches
    before it can evaluate it (level by level, unless it is told them all at once)."""
    folder = folder or static_js()
    seen, todo = set(), [file]
    while todo:
        f = todo.pop()
        if f in seen or not (folder / f).is_file():
            continue
        seen.add(f)
        with open(folder / f, encoding="utf-8", errors="replace") as fh:
            todo += STATIC_IMPORT.findall(fh.read(HEAD))
    return frozenset(seen)


def dependencies(file: str, folder: Path | None = None) -> list[str]:
    """The chunks `file` needs that Streamlit's entry bundle does not load anyway."""
    folder = folder or static_js()
    entry = next(iter(sorted(folder.glob("index.*.js"), key=lambda f: -f.stat().st_size)), None)
    loaded = imports_of(entry.name, folder) if entry else frozenset()
    return sorted(imports_of(file, folder) - loaded - {file})


def page_chunks(files: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Page path -> the chunk files its shell preloads (names the installed Streamlit
    does not have are left out)."""
    files = chunk_files() if files is None else files
    return {page: [files[n] for n in names if n in files] for page, names in PAGES.items()}


def preload_script(page_paths: list[str], files: dict[str, str] | None = None) -> bytes:
    """The inline script: the current page's chunks and their dependencies are fetched at
    once (modulepreload links, from the server's root that backend/ui/shell.py's first
    script set); once the document is parsed (Streamlit's bundle has run) and the main
    thread is idle, the chunks are imported (evaluated). Other addresses preload nothing."""
    chunks = {p: f for p, f in page_chunks(files).items() if f and (p in page_paths or not p)}
    deps = {p: sorted({d for x in f for d in dependencies(x)}) for p, f in chunks.items()}
    return (
        "<script>(function(){var m=" + json.dumps(chunks, sort_keys=True) + ",d="
        + json.dumps(deps, sort_keys=True) + ";"
        "var b=(window.__streamlit||{}).BACKEND_BASE_URL;if(!b)return;"
        # the page: the address below the server's root ("" = Home)
        "var p=location.pathname.slice(new URL(b).pathname.length).replace(/\\/+$/,'');"
        "var f=m.hasOwnProperty(p)?m[p]:[];if(!f.length)return;"
        # fetched and compiled at once, in parallel (not level by level as imports appear)
        "f.concat(d[p]).forEach(function(x){var l=document.createElement('link');"
        "l.rel='modulepreload';l.href=b+'static/js/'+x;document.head.appendChild(l);});"
        # evaluated once the bundle has run and the main thread waits for the server
        "function go(){f.forEach(function(x){import(b+'static/js/'+x).catch(function(){});});}"
        "function idle(){(window.requestIdleCallback||function(g){setTimeout(g,0);})"
        "(go,{timeout:1000});}"
        "if(document.readyState==='loading')"
        "document.addEventListener('DOMContentLoaded',idle);else idle();})();</script>"
    ).encode()
