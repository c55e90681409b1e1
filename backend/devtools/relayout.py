"""Rewrite references to backend modules that moved in the layout change (issue 24) and in the
move of the answer path into backend/answer/ (issue 22, item 8).

    python -m backend.devtools.relayout [--check] [--root DIR] [PATH ...]

It rewrites, in every text file of the repository (git's file list; .py .md .yaml .ini
.toml .txt .sh .cfg and everything under .ci/):
- `import backend.x` / `from backend.x import ...` / `from backend import x, y` statements
  (a `from backend import ...` naming modules of several new packages becomes one statement
  per package; a module whose new file name differs keeps its local name with `as`);
- dotted names anywhere, e.g. `mock.patch("backend.documents.repo")`, monkeypatch targets,
  `python -m backend.stack`, `backend.embedding.Embedder` in prose;
- file paths `backend/x.py`;
- names that a split moved to a sibling module (SYMBOLS): `from M import a, b` splits by
  target module, `M.name` as a dotted string follows the name, and `alias.name` where `alias`
  is bound to M by an import gets an import of the target module.

Why a script: the coordinator reruns it on every branch written against the old layout, so
it must be idempotent (every pattern matches only old names; a second run changes nothing)
and standalone (standard library only, so `git show layout-moves:backend/devtools/relayout.py
> /tmp/relayout.py && python /tmp/relayout.py` works on a branch that lacks it).
`--check` changes nothing, lists every stale reference (file:line: old -> new) and every
place it cannot fix alone, and exits 1 when there is any."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# old module -> new module (docs/architecture.md explains the packages)
MODULES = {
    "backend.services": "backend.services.container",
    "backend.search_service": "backend.services.search",
    "backend.documents": "backend.services.documents",
    "backend.navigation": "backend.services.navigation",
    "backend.library": "backend.services.library",
    "backend.jobs": "backend.services.jobs",
    "backend.debug": "backend.services.debug",
    "backend.deletion": "backend.services.deletion",
    "backend.classification": "backend.services.classification",
    "backend.stack": "backend.deploy.stack",
    "backend.auth": "backend.security.auth",
    "backend.access": "backend.security.access",
    "backend.acl": "backend.security.acl",
    "backend.sessions": "backend.security.sessions",
    "backend.login_limit": "backend.security.login_limit",
    "backend.upload_gate": "backend.security.upload_gate",
    "backend.private_files": "backend.security.private_files",
    "backend.safe_markdown": "backend.security.safe_markdown",
    "backend.display": "backend.security.display",
    "backend.embedding": "backend.embed.embedder",
    # an earlier move (issue 13) that two benches still named
    "backend.ui_state": "backend.ui.state",
    # the answer path (issue 22, item 8)
    "backend.evidence": "backend.answer.evidence",
    "backend.llm.extractive": "backend.answer.extractive",
    "backend.analysis.intents": "backend.answer.intents",
    "backend.analysis.chat_route": "backend.answer.route",
    "backend.analysis.chat_answers": "backend.answer.analysis_answers",
    "backend.analysis.chat_compose": "backend.answer.compose",
}

# new module -> {name: the module it moved to} (splits of one file by concern)
_ACTIONS = ("supported_extensions", "_ingestor", "require_writable_document", "activate_version",
            "delete_document", "UPLOAD_IDENTITY", "ingest_uploads", "unretrievable_message",
            "reindex", "check_consistency")
_SYSTEM = ("SystemStatus", "system_status", "settings_table", "_hide_url_password")
SYMBOLS: dict[str, dict[str, str]] = {
    "backend.services.documents": {
        **{n: "backend.services.document_actions" for n in _ACTIONS},
        **{n: "backend.services.system" for n in _SYSTEM},
        # shared by security.acl and the services: moved down (no acl <-> documents cycle)
        "resolve_document": "backend.security.access",
    },
}

# file paths that are not one module's: a module that became a package of several, a package
# that moved, paths written below backend/ in prose ("analysis/chat_route.py")
PATHS = {"backend/config.py": "backend/config/", "backend/evidence/": "backend/answer/evidence/",
         "analysis/chat_route.py": "answer/route.py",
         "analysis/chat_answers.py": "answer/analysis_answers.py",
         "analysis/chat_compose.py": "answer/compose.py", "analysis/chat_*.py": "answer/",
         "analysis/intents.py": "answer/intents.py", "llm/extractive.py": "answer/extractive.py"}

# files whose text is the mapping itself
EXCLUDE = {"backend/devtools/relayout.py", "tests/test_relayout.py"}
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".ini", ".toml", ".txt", ".sh", ".cfg", ".mako"}

_OLD_ALT = "|".join(sorted((re.escape(m.split(".", 1)[1].replace(".", "/")) for m in MODULES),
                          key=len, reverse=True))
_DOTTED = re.compile(r"(?<![\w.])backend(?:\.\w+)+")
_PATH = re.compile(rf"(?<![\w\-.])backend/({_OLD_ALT})\.py(?!\w)")
# the names: one line, or in parentheses over several (comments inside may hold parentheses)
_NAMES = r"(\((?:[^)#]|#[^\n]*)*\)|[^\n#(]*?)"
_FROM_BACKEND = re.compile(rf"^([ \t]*)from backend import {_NAMES}[ \t]*(#[^\n]*)?$", re.M)
_FROM_ANY = re.compile(rf"^([ \t]*)from (backend(?:\.\w+)+) import {_NAMES}[ \t]*(#[^\n]*)?$",
                       re.M)
MAX_LINE = 99


def _new_children() -> dict[str, set[str]]:
    """For an old module that is now a package (backend.services): the names below it that
    are new modules, so `backend.services.search` is not taken for an attribute of it."""
    out: dict[str, set[str]] = {}
    news = set(MODULES.values()) | {t for m in SYMBOLS.values() for t in m.values()}
    for old in MODULES:
        kids = {n[len(old) + 1:].split(".")[0] for n in news if n.startswith(old + ".")}
        if kids:
            out[old] = kids
    return out


CHILDREN = _new_children()


def _follow_symbol(module: str, rest: str) -> str:
    """`module` + `rest` (".name..." or "") with a name that a split moved."""
    m = re.match(r"\.(\w+)", rest)
    if m and m.group(1) in SYMBOLS.get(module, {}):
        return SYMBOLS[module][m.group(1)]
    return module


def new_module(name: str) -> str:
    """The new dotted name for `name` (a module, or a module plus attribute path)."""
    for old in sorted(MODULES, key=len, reverse=True):
        if name == old or name.startswith(old + "."):
            rest = name[len(old):]
            head = rest[1:].split(".")[0] if rest else ""
            if head and head in CHILDREN.get(old, ()):
                break  # already new
            return _follow_symbol(MODULES[old], rest) + rest
    for mod in sorted(SYMBOLS, key=len, reverse=True):
        if name.startswith(mod + "."):
            rest = name[len(mod):]
            return _follow_symbol(mod, rest) + rest
    return name


def _split_names(body: str) -> list[tuple[str, str | None]]:
    body = body.strip()
    if body.startswith("("):
        body = body[1:-1]
    body = re.sub(r"#[^\n]*", "", body)
    out = []
    for part in body.replace("\n", " ").split(","):
        part = part.strip()
        if part:
            name, _, alias = part.partition(" as ")
            out.append((name.strip(), alias.strip() or None))
    return out


def _render(indent: str, module: str, names: list[tuple[str, str | None]], comment: str) -> str:
    items = [n if a is None or a == n else f"{n} as {a}" for n, a in names]
    line = f"{indent}from {module} import {', '.join(items)}"
    if comment:
        line += "  " + comment
    if len(line) <= MAX_LINE or len(items) == 1:
        return line
    inner = "".join(f"{indent}    {i},\n" for i in items)
    return f"{indent}from {module} import ({'  ' + comment if comment else ''}\n{inner}{indent})"


def _group(pairs: list[tuple[str, list[tuple[str, str | None]]]]):
    order: dict[str, list] = {}
    for module, names in pairs:
        order.setdefault(module, []).extend(names)
    return order


def _fix_from_backend(m: re.Match) -> str:
    """`from backend import a, b as c` with a or b moved: one statement per package."""
    indent, body, comment = m.group(1), m.group(2), m.group(3) or ""
    names = _split_names(body)
    if not names or not any(f"backend.{n}" in MODULES for n, _ in names):
        return m.group(0)
    pairs = []
    for name, alias in names:
        old = f"backend.{name}"
        if old in MODULES:
            parent, _, base = MODULES[old].rpartition(".")
            pairs.append((parent, [(base, alias or (name if base != name else None))]))
        else:
            pairs.append(("backend", [(name, alias)]))
    groups = _group(pairs)
    if len(groups) == 1 and all(a is None or a == n for n, a in next(iter(groups.values()))) \
            and [n for n, _ in next(iter(groups.values()))] == [n for n, _ in names]:
        return m.group(0).replace("from backend import", f"from {next(iter(groups))} import", 1)
    lines = [_render(indent, mod, ns, comment if i == 0 else "")
             for i, (mod, ns) in enumerate(groups.items())]
    return "\n".join(lines)


def _fix_from_module(m: re.Match) -> str:
    """`from backend.x import names`: the new module, split where names moved apart."""
    indent, module, body, comment = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    names = _split_names(body)
    pairs = []
    for name, alias in names:
        if module in CHILDREN and name in CHILDREN[module]:
            pairs.append((module, [(name, alias)]))  # `from backend.services import search`
            continue
        if f"{module}.{name}" in MODULES:  # `from backend.analysis import chat_route`
            parent, _, base = MODULES[f"{module}.{name}"].rpartition(".")
            pairs.append((parent, [(base, alias or (name if base != name else None))]))
            continue
        target = new_module(f"{module}.{name}")
        pairs.append((target.rpartition(".")[0], [(name, alias)]))
    groups = _group(pairs)
    if not names or list(groups) == [module]:
        return m.group(0)
    if len(groups) == 1 and next(iter(groups.values())) == names:  # keep its layout, comments
        return m.group(0).replace(f"from {module} import", f"from {next(iter(groups))} import", 1)
    return "\n".join(_render(indent, mod, ns, comment if i == 0 else "")
                     for i, (mod, ns) in enumerate(groups.items()))


def _fix_dotted(m: re.Match, text: str) -> str:
    start, end = m.span()
    if re.match(r"[ \t]+import\b", text[end:end + 12]) and \
            re.search(r"\bfrom[ \t]+$", text[max(0, start - 12):start]):
        return m.group(0)  # a from-import statement, already handled
    if m.group(0) in CHILDREN and not re.search(r"^[ \t]*import[ \t]+$", text[:start].rpartition(
            "\n")[2]):
        return m.group(0)  # bare `backend.services`: now the package (old: an `import` only)
    return new_module(m.group(0))


def _identifiers(tree) -> set[str]:
    """Every name the code under `tree` binds or reads (not words in strings and comments)."""
    import ast

    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
    return out


def _bindings(stmt) -> dict[str, str]:
    """name -> module for the modules an import statement binds."""
    import ast

    out = {}
    if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        for a in stmt.names:
            out[a.asname or a.name] = f"{stmt.module}.{a.name}"
    elif isinstance(stmt, ast.Import):
        for a in stmt.names:
            if a.asname:
                out[a.asname] = a.name
    return out


def _scopes(tree):
    """(imports per scope, attribute uses with their scope chain): a scope is the module or a
    function; an import inside a function binds there only."""
    import ast

    imports: dict[int, list] = {id(tree): []}
    uses = []

    def visit(node, chain):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                imports.setdefault(id(child), [])
                visit(child, chain + [child])
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                imports[id(chain[-1])].append(child)
            elif isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                uses.append((child, chain))
            visit(child, chain)

    visit(tree, [tree])
    return imports, uses


def _fix_attributes(text: str, problems: list[str]) -> str:
    """`docs.ingest_uploads` where `docs` is a module whose `ingest_uploads` moved: the use
    names the target module, imported beside the import that binds `docs` in the same
    function (or module), unless that scope already binds the target."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    imports, uses = _scopes(tree)
    module_names = {n for st in tree.body for n in _identifiers(st)
                    if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    module_names |= {st.name for st in tree.body if hasattr(st, "name")}
    renames = []      # (line, col, end_col, new name)
    inserts = {}      # id(import statement) -> (statement, target modules to import)
    moved = {}        # id(import statement) -> (statement, scope, alias, uses renamed)
    for node, chain in uses:
        alias, sym = node.value.id, node.attr
        for scope in reversed(chain):
            stmt = next((st for st in imports[id(scope)] if alias in _bindings(st)), None)
            if stmt is not None:
                break
        else:
            continue
        target = SYMBOLS.get(_bindings(stmt)[alias], {}).get(sym)
        if target is None:
            continue
        bound = [n for sc in reversed(chain) for st in imports[id(sc)]
                 for n, mod in _bindings(st).items() if mod == target]
        name = bound[0] if bound else target.rpartition(".")[2]
        if not bound:
            scope = next(sc for sc in reversed(chain) if stmt in imports[id(sc)])
            taken = _identifiers(scope) | module_names
            planned = inserts.setdefault(id(stmt), (stmt, set()))[1]
            if target not in planned and name in taken:
                problems.append(f"line {node.lineno}: `{alias}.{sym}` moved to {target}, but "
                                f"the name `{name}` is taken in this file; fix by hand")
                continue
            planned.add(target)
        renames.append((node.value.lineno, node.value.col_offset, node.value.end_col_offset,
                        name))
        scope = next(sc for sc in reversed(chain) if stmt in imports[id(sc)])
        moved[id(stmt)] = (stmt, scope, alias, moved.get(id(stmt), (0, 0, 0, 0))[3] + 1)
    if not renames:
        return text
    lines = text.splitlines(keepends=True)
    for line, col, end, name in sorted(renames, reverse=True):
        b = lines[line - 1].encode("utf-8")
        lines[line - 1] = (b[:col] + name.encode("utf-8") + b[end:]).decode("utf-8")
    # an import left with no use (every use moved) goes; its new imports take its place
    edits = {i: (st, ts, False) for i, (st, ts) in inserts.items()}
    for i, (stmt, scope, alias, n) in moved.items():
        uses_left = sum(isinstance(x, ast.Name) and x.id == alias for x in ast.walk(scope)) - n
        if uses_left == 0 and len(stmt.names) == 1:
            edits[i] = (stmt, inserts.get(i, (stmt, set()))[1], True)
    for stmt, targets, drop in sorted(edits.values(), key=lambda x: -x[0].end_lineno):
        indent = " " * stmt.col_offset
        add = "".join(f"{indent}from {t.rpartition('.')[0]} import {t.rpartition('.')[2]}\n"
                      for t in sorted(targets))
        lines[stmt.lineno - 1 if drop else stmt.end_lineno:stmt.end_lineno] = [add]
    return "".join(lines)


def rewrite(text: str, python: bool, problems: list[str] | None = None) -> str:
    """`text` with every old reference replaced (idempotent)."""
    problems = [] if problems is None else problems
    text = _FROM_BACKEND.sub(_fix_from_backend, text)
    text = _FROM_ANY.sub(_fix_from_module, text)
    text = _DOTTED.sub(lambda m: _fix_dotted(m, text), text)
    text = _PATH.sub(lambda m: MODULES["backend." + m.group(1).replace("/", ".")]
                     .replace(".", "/") + ".py", text)
    for old, new in PATHS.items():  # a folder's path goes on with the file's name
        end = "" if old.endswith("/") else r"(?!\w)"
        text = re.sub(rf"(?<![\w\-.]){re.escape(old)}{end}", new, text)
    if python and SYMBOLS:
        text = _fix_attributes(text, problems)
    return text


def repo_files(root: Path, paths: list[str]) -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=root, capture_output=True, text=True, check=True).stdout
        names = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                 and ".git" not in p.parts]
    wanted = [str(Path(p).resolve().relative_to(root.resolve())) for p in paths]
    files = []
    for name in sorted(set(names)):
        if name in EXCLUDE or not (Path(name).suffix in SUFFIXES or name.startswith(".ci/")):
            continue
        if wanted and not any(name == w or name.startswith(w.rstrip("/") + "/") or w == "."
                              for w in wanted):
            continue
        if (root / name).is_file():
            files.append(root / name)
    return files


def _changes(old: str, new: str) -> list[str]:
    """`line: old -> new` per changed line (a statement split in several shown as one)."""
    import difflib

    a, b = old.splitlines(), new.splitlines()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if i2 - i1 == j2 - j1:
            out += [f"{i1 + k + 1}: {a[i1 + k].strip()}  ->  {b[j1 + k].strip()}"
                    for k in range(i2 - i1) if a[i1 + k] != b[j1 + k]]
        else:
            out.append(f"{i1 + 1}: {' / '.join(x.strip() for x in a[i1:i2])}  ->  "
                       f"{' / '.join(x.strip() for x in b[j1:j2])}")
    return out


def run(root: Path, paths: list[str], check: bool, out=sys.stdout) -> int:
    """Rewrite (or with `check` only list) the files; the number of stale places."""
    stale = 0
    for path in repo_files(root, paths):
        try:
            old = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        problems: list[str] = []
        new = rewrite(old, path.suffix == ".py", problems)
        rel = path.relative_to(root)
        for p in problems:
            print(f"{rel}: {p}", file=out)
        stale += len(problems)
        if new == old:
            continue
        changes = _changes(old, new)
        stale += len(changes)
        if check:
            for c in changes:
                print(f"{rel}:{c}", file=out)
        else:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {rel} ({len(changes)} places)", file=out)
    return stale


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m backend.devtools.relayout",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="list stale references, exit 1 if any")
    p.add_argument("--root", type=Path, default=None, help="repository root (default: cwd)")
    p.add_argument("paths", nargs="*", help="files or folders (default: the whole repository)")
    a = p.parse_args(argv)
    root = (a.root or Path.cwd()).resolve()
    n = run(root, a.paths, a.check)
    if a.check:
        print(f"{n} stale reference(s)" if n else "no stale references")
        return 1 if n else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
