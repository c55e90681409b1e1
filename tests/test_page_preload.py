"""backend/ui/preload.py: the page shell preloads the Streamlit element chunks a page shows on
its first view (the data grid, plotly), found by name in the installed Streamlit. (In the
browser: tests/test_browser_page_load.py; the figures: docs/benchmarks.md.)"""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from backend.ui import preload


def test_every_preloaded_element_is_a_chunk_of_the_installed_streamlit():
    """A Streamlit upgrade that renames a chunk fails here instead of silently preloading
    nothing."""
    files = preload.chunk_files()
    names = {n for names in preload.PAGES.values() for n in names}
    assert names <= set(files), names - set(files)
    for name in names:
        assert (preload.static_js() / files[name]).is_file()
    grid = preload.dependencies(files["DataFrame"])
    # the data grid's Arrow code is a chunk of its own, not in the entry bundle
    assert any(f.startswith("arrowFormatUtils.") for f in grid), grid
    assert not any(f.startswith("index.") for f in grid)


def test_pages_preload_only_what_their_first_view_shows(tmp_path):
    for name in ("DataFrame.aB1.js", "PlotlyChart.cD2.js", "index.eF3.js", "dep.gH4.js",
                 "Slider.iJ5.js"):  # (no ChatInput chunk in this folder)
        (tmp_path / name).write_text("")
    (tmp_path / "DataFrame.aB1.js").write_text('import{a as b}from"./dep.gH4.js";x()')
    files = preload.chunk_files(tmp_path)
    assert files == {"DataFrame": "DataFrame.aB1.js", "PlotlyChart": "PlotlyChart.cD2.js",
                     "Slider": "Slider.iJ5.js"}  # index.* and dep.* are no elements
    assert preload.imports_of("DataFrame.aB1.js", tmp_path) == {"DataFrame.aB1.js",
                                                                 "dep.gH4.js"}
    chunks = preload.page_chunks(files)
    # the structure page's chart is behind "Show chart": Plotly's chunk is not preloaded
    assert chunks["structure"] == ["DataFrame.aB1.js"]
    assert chunks[""] == ["DataFrame.aB1.js"]  # Home: its tables (no Metric chunk here)
    assert chunks["chat"] == [] and "query_debug" not in chunks  # no grid on first view
    assert "upload" not in chunks  # its form's chunks: measured slower preloaded
    assert "evaluation" not in chunks  # its tables and charts sit in tabs and expanders


def _run(script: bytes, path: str) -> dict:
    """Run the preload script in node with a fake document: which links it adds at once and
    which modules it imports once the document is parsed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node")
    body = script.decode()[len("<script>"):-len("</script>")]
    body = body.replace("import(", "__import(")  # node cannot fake a dynamic import
    js = ("var links=[],imports=[],ready=[];"
          "var window={__streamlit:{BACKEND_BASE_URL:'http://h:1/rs/'}};"
          f"var location={{pathname:{json.dumps(path)}}};"
          "var document={readyState:'loading',head:{appendChild:function(l){links.push(l.href)}},"
          "createElement:function(){return {}},addEventListener:function(e,f){ready.push(f)}};"
          "function __import(u){imports.push(u);return {catch:function(){}}}"
          f"{body};var before=imports.length;ready.forEach(function(f){{f()}});"
          "setTimeout(function(){console.log(JSON.stringify({links:links,before:before,"
          "imports:imports}))},20);")
    out = subprocess.run([node, "-e", js], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_script_fetches_at_once_and_evaluates_after_the_bundle():
    files = preload.chunk_files()
    script = preload.preload_script(["explorer", "structure", "evaluation"])
    got = _run(script, "/rs/structure")
    base = "http://h:1/rs/static/js/"
    assert got["before"] == 0  # nothing evaluated while the document is still parsed
    assert got["imports"] == [base + files[n] for n in preload.PAGES["structure"]]
    assert base + files["Checkbox"] in got["imports"]  # the "Show chart" toggle
    assert base + files["PlotlyChart"] not in got["imports"] + got["links"]
    assert base + files["DataFrame"] in got["links"]
    assert any(re.match(re.escape(base) + r"arrowFormatUtils\.", u) for u in got["links"])
    assert _run(script, "/rs/evaluation") == {"links": [], "before": 0, "imports": []}
    assert _run(script, "/rs/")["imports"] == [base + files[n] for n in preload.PAGES[""]]
