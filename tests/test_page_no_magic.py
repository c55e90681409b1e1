"""Streamlit's "magic" is off (.streamlit/config.toml, runner.magicEnabled: it re-parsed
app.py and the page on direct loads): a bare expression statement in a page would now show
nothing, so no page or app.py may have one (a call, a docstring is fine)."""
import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)
SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def bare_expressions(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            for i, stmt in enumerate(body if isinstance(body, list) else ()):
                if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, SKIP):
                    continue
                docstring = i == 0 and isinstance(node, SCOPES) and \
                    isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
                if not docstring:
                    found.append(stmt.lineno)
    return found


def test_magic_is_off_and_no_page_relies_on_it(tmp_path):
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    assert {f.name: bare_expressions(f) for f in files if bare_expressions(f)} == {}
    probe = tmp_path / "probe.py"
    probe.write_text('"""doc"""\nimport streamlit as st\nx = 1\nx\nst.write(x)\n')
    assert bare_expressions(probe) == [4]  # the check finds what magic would have shown
