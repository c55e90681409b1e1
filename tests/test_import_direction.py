"""The import directions docs/architecture.md names (issue 24): `api` never imports `cli` (the
CLI starts the API, and both share backend/bridge/), the Ingestor's parts never import the
Ingestor (they receive what they need), and `stack` never imports `cli`. Read from the
source with `ast`: imports anywhere in a file count, function-local ones too."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

BACKEND = ROOT / "backend"


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved)."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def offenders(files, forbidden: str, root: Path = ROOT) -> dict[str, list[str]]:
    """Files that import `forbidden` or anything below it."""
    found = {}
    for f in files:
        bad = sorted(m for m in imported_modules(f, root)
                     if m == forbidden or m.startswith(forbidden + "."))
        if bad:
            found[str(f.relative_to(root))] = bad
    return found


def test_the_api_never_imports_the_cli():
    assert offenders((BACKEND / "api").rglob("*.py"), "backend.cli") == {}


def test_the_shared_bridge_imports_neither_face():
    files = list((BACKEND / "bridge").rglob("*.py"))
    assert files
    assert offenders(files, "backend.cli") == {} and offenders(files, "backend.api") == {}


def test_the_stack_does_not_import_the_cli():
    stack = [f for f in BACKEND.rglob("stack.py") if "cli" not in f.parts]  # wherever it lives
    assert stack
    assert offenders(stack, "backend.cli") == {}


def test_the_ingestors_parts_do_not_import_the_ingestor():
    parts = [f for f in (BACKEND / "ingest").glob("*.py") if f.name != "service.py"]
    assert offenders(parts, "backend.ingest.service") == {}


def test_a_forbidden_import_is_found(tmp_path):
    """The check itself: function-local and relative imports of the CLI are caught."""
    (tmp_path / "backend" / "api").mkdir(parents=True)
    local = tmp_path / "backend" / "api" / "local.py"
    local.write_text("def f():\n    from backend.cli import bridge\n", encoding="utf-8")
    relative = tmp_path / "backend" / "api" / "relative.py"
    relative.write_text("from ..cli.bridge import find\n", encoding="utf-8")
    assert offenders([local, relative], "backend.cli", root=tmp_path) == {
        "backend/api/local.py": ["backend.cli", "backend.cli.bridge"],
        "backend/api/relative.py": ["backend.cli.bridge", "backend.cli.bridge.find"]}
