"""The layering rule of docs/architecture.md, checked on the source (backend/devtools/imports.py
reads every import with the AST; imports inside functions count too):

1. Only the front doors import the front doors: nothing but pages/, app.py, backend/__main__.py
   (`python -m backend`), backend/api, backend/cli, backend/deploy and backend/ui (the pages'
   helpers) imports one of them.
2. The lower layers never import the service layer: core (config, errors, batching), store,
   index, embed, llm, security, retrieval and evidence do not import backend/services.
3. No import cycle, except among backend/store's ORM models (SQLAlchemy models that refer to
   each other are one registry) and the cycles listed in KNOWN_CYCLES, which must only shrink."""
from __future__ import annotations

from pathlib import Path

from backend.devtools.imports import cycles, import_graph

ROOT = Path(__file__).resolve().parent.parent

FRONT_DOORS = ("pages", "app", "backend.__main__", "backend.api", "backend.cli", "backend.deploy", "backend.ui")
SERVICES = ("backend.services",)
BELOW_SERVICES = ("backend.config", "backend.errors", "backend.batching", "backend.store",
                  "backend.index", "backend.embed", "backend.llm", "backend.security",
                  "backend.retrieval", "backend.answer.evidence")

# Cycles that other branches of issue 24 are removing, named with the new module paths. The
# test fails when a cycle not in this list appears, when one grows, and when a listed one is
# gone or has shrunk (then write down what is left, or delete the line): the list only shrinks.
KNOWN_CYCLES: set[frozenset[str]] = set()


def _under(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def layering_violations(graph: dict[str, set[str]]) -> list[str]:
    """`importer -> imported: rule` for every import that breaks rule 1 or 2."""
    out = []
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            if _under(t, FRONT_DOORS) and not _under(m, FRONT_DOORS):
                out.append(f"{m} -> {t}: only a front door may import a front door")
            elif _under(t, SERVICES) and _under(m, BELOW_SERVICES):
                out.append(f"{m} -> {t}: a layer below the services imports the services")
    return out


def is_model_registry(cycle: frozenset[str]) -> bool:
    return all(m.startswith("backend.store.") and m.endswith("models") for m in cycle)


def cycle_problems(found: list[frozenset[str]], known=KNOWN_CYCLES) -> list[str]:
    """What is wrong with the cycles `found`, given the `known` ones."""
    found = [c for c in found if not is_model_registry(c)]
    out = []
    for c in found:
        if not any(c <= k for k in known):
            out.append(f"new import cycle: {' <-> '.join(sorted(c))}")
    for k in known:
        if k not in found:
            left = [sorted(c) for c in found if c <= k]
            out.append(f"KNOWN_CYCLES lists {sorted(k)}, which is gone; what is left of it: "
                       f"{left or 'nothing'}: update the list")
    return out


def test_no_lower_layer_imports_a_higher_one():
    assert layering_violations(import_graph(ROOT)) == []


def test_no_import_cycle_but_the_known_ones():
    assert cycle_problems(cycles(import_graph(ROOT))) == []


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_deliberate_cycle_is_reported(tmp_path):
    """The test of the test: a cycle through a lazy import in a temporary package."""
    root = _package(tmp_path, {
        "backend/__init__.py": "",
        "backend/store/__init__.py": "",
        "backend/store/models.py": "from backend.store import chat_models\n",
        "backend/store/chat_models.py": "from backend.store.models import Base\n",
        "backend/retrieval/__init__.py": "",
        "backend/retrieval/engine.py": "from backend.retrieval.types import Hit\n",
        "backend/retrieval/types.py": "def f():\n    from . import engine\n",
        "backend/retrieval/lookup.py": "from backend.retrieval import types\n",
    })
    found = cycles(import_graph(root, ("backend",)))
    assert sorted(map(sorted, found)) == [
        ["backend.retrieval.engine", "backend.retrieval.types"],
        ["backend.store.chat_models", "backend.store.models"]]
    assert cycle_problems(found, known=set()) == [
        "new import cycle: backend.retrieval.engine <-> backend.retrieval.types"]
    known = {frozenset({"backend.retrieval.engine", "backend.retrieval.types",
                        "backend.retrieval.lookup"})}
    assert cycle_problems(found, known) == [
        "KNOWN_CYCLES lists ['backend.retrieval.engine', 'backend.retrieval.lookup', "
        "'backend.retrieval.types'], which is gone; what is left of it: "
        "[['backend.retrieval.engine', 'backend.retrieval.types']]: update the list"]


def test_a_deliberate_upward_import_is_reported(tmp_path):
    root = _package(tmp_path, {
        "backend/__init__.py": "",
        "backend/store/__init__.py": "",
        "backend/store/repo.py": "def f():\n    from backend.services import documents\n",
        "backend/services/__init__.py": "",
        "backend/services/documents.py": "from backend.store import repo\n",
        "backend/security/__init__.py": "",
        "backend/security/acl.py": "import backend.cli.main\n",
        "backend/cli/__init__.py": "",
        "backend/cli/main.py": "from backend.services import documents\n",
    })
    assert layering_violations(import_graph(root, ("backend",))) == [
        "backend.security.acl -> backend.cli.main: only a front door may import a front door",
        "backend.store.repo -> backend.services.documents: a layer below the services imports "
        "the services"]
