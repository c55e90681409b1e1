"""The module import graph of the repository's Python code, read from the source (AST; no
import is executed), and its cycles. tests/test_layering.py checks the layering rule of
docs/architecture.md with it.

    python -m backend.devtools.imports [--root DIR]   prints every cycle, one per line

An import anywhere in a file counts (at the top, inside a function, under TYPE_CHECKING):
a lazy import still ties the two modules together for a reader and for a move. An import of
a module's own ancestor package (`backend.services` from `backend.services.search`) is no
edge: Python runs the package's __init__ either way."""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

# where the project's modules are: folders that are packages, and loose top-level files
SOURCES = ("backend", "pages", "app.py")


def module_files(root: Path, sources=SOURCES) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under `sources` (relative to `root`)."""
    mods: dict[str, Path] = {}
    for src in sources:
        base = root / src
        files = [base] if base.is_file() else sorted(base.rglob("*.py")) if base.is_dir() else []
        for f in files:
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    return mods


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[list[str]]:
    """Per import statement the dotted names it may mean: `import a.b` -> [a.b];
    `from a import b, c` -> [a, a.b, a.c] (a.b is a module or a name in a)."""
    base = module if is_package else module.rpartition(".")[0]
    out: list[list[str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend([a.name] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            name = node.module or ""
            if node.level:
                up = base.split(".")[: len(base.split(".")) - (node.level - 1)]
                name = ".".join(up + ([name] if name else []))
            out.append([name] + [f"{name}.{a.name}" for a in node.names])
    return out


def import_graph(root: Path, sources=SOURCES) -> dict[str, set[str]]:
    """module -> the project modules it imports (`from a import b` with b a module: a.b
    only; with b a name defined in a: a)."""
    mods = module_files(root, sources)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        for names in _imports(tree, m, f.name == "__init__.py"):
            subs = [n for n in names[1:] if n in mods]
            wanted = subs if names[1:] and len(subs) == len(names) - 1 else names
            for name in wanted:
                t = resolve(name)
                if t and t != m and not m.startswith(t + "."):
                    graph[m].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m backend.devtools.imports")
    p.add_argument("--root", type=Path, default=Path.cwd())
    a = p.parse_args(argv)
    for comp in sorted(cycles(import_graph(a.root.resolve())), key=sorted):
        print(" ".join(sorted(comp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
