"""A static check (ast, not regexes) that every Markdown-rendering Streamlit call in the
dashboard shows untrusted values only escaped.

A value interpolated into such a call's Markdown (f-string, str.format, %, +, str.join, or
passed as it is) must be one of:
- a literal;
- a call of an escaping helper (SAFE_HELPERS: md_escape and the few renderers built on it);
- a number: formatted with a numeric or date format spec (`{n:d}`, `{x:.2f}`, `{n:,}`,
  `{t:%H:%M}`: the spec raises for a string), or len()/int()/float()/round()/…;
- a name whose every assignment in scope is itself safe, or a call of a function of the same
  file whose every return value is safe (parameters, loop and `with`/`except` targets are
  untrusted).
Anything else is reported as `file:line: st.<call>: <expression>`.

Which arguments render Markdown was read off Streamlit's frontend (1.67): bodies of markdown,
caption, write, error/warning/info/success, title/header/subheader and toast; the label (and
`help`) of every widget, expander, popover, status, tab, page link and column config; a
metric's label, value and delta; radio/pills/segmented-control options and captions; progress
and spinner text; st.table cells. Selectbox/multiselect options and dataframes are plain text.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

# Functions whose result is safe Markdown, and why.
SAFE_HELPERS = {
    "md_escape": "escapes everything (backend/security/safe_markdown.py)",
    "md_text": "md_escape per line, line breaks kept",
    "answer_markdown": "chat answers: escaped, or re-rendered with links/images/HTML as text",
    "highlight_markdown": "keyword snippets: md_escape'd text plus the index's <b> marks",
    "md_link": "escaped label; http(s) or relative URL, percent-encoded",
    "stage_line": "numbers only (backend/retrieval/report.py)",
    "cited_markdown": "answer_markdown with each [n] a link of numbers (backend/ui/citations.py)",
    "source_heading": "md_escape'd title, section path; page as a number",
    "source_passage_markdown": "md_escape'd passage, the quote in a colour directive",
    "place_markdown": "md_escape'd document text around a quote in a colour directive",
    "diff_markdown": "version diff: md_escape'd text in colour directives (backend/analysis/views.py)",
    "web_source_markdown": "a question URL's page: md_escape'd title and quote, md_link to it",
    "confidence_caption": "the confidence hint: md_escape'd text in a badge (backend/ui/confidence.py)",
    "related_label": "md_escape'd label (backend/ui/confidence.py)",
    "related_markdown": "md_escape'd titles and passages; pages as numbers",
}
NUMERIC_FUNCS = {"len", "int", "float", "round", "sum", "abs", "bool"}
NOT_STREAMLIT = {"log", "logger", "logging", "warnings", "sys", "os", "re", "json", "math",
                 "Path", "path", "fig", "heat", "px", "go", "self"}

ALL_POSITIONAL = -1
_BODY = ((0,), ("body",))
_LABEL = ((0,), ("label",))
MARKDOWN_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    **dict.fromkeys(["markdown", "caption", "error", "warning", "info", "success", "title",
                     "header", "subheader", "toast"], _BODY),
    "write": ((ALL_POSITIONAL,), ()),
    "table": ((0,), ("data",)),
    **dict.fromkeys(["button", "download_button", "link_button", "form_submit_button",
                     "checkbox", "toggle", "selectbox", "multiselect", "select_slider", "slider",
                     "text_input", "text_area", "number_input", "date_input", "time_input",
                     "datetime_input", "file_uploader", "camera_input", "audio_input",
                     "color_picker", "feedback", "expander", "popover", "status", "dialog"],
                    _LABEL),
    "radio": ((0, 1), ("label", "options", "captions")),
    "pills": ((0, 1), ("label", "options")),
    "segmented_control": ((0, 1), ("label", "options")),
    "tabs": ((0,), ("tabs",)),
    "metric": ((0, 1, 2), ("label", "value", "delta")),
    "page_link": ((1,), ("label",)),
    "progress": ((1,), ("text",)),
    "spinner": ((0,), ("text",)),
}
FORMAT_FUNC_RENDERS_MARKDOWN = {"radio", "pills", "segmented_control"}
ALWAYS = ("help",)


@dataclass
class Scope:
    assigns: dict[str, list[ast.expr]] = field(default_factory=dict)
    appends: dict[str, list[ast.expr]] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)  # params, loop/with/except targets
    parent: "Scope | None" = None


@dataclass
class Finding:
    path: str
    line: int
    call: str
    expr: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: st.{self.call}(…): {self.expr}"


def _names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _collect(body: list[ast.stmt], scope: Scope, args: ast.arguments | None = None) -> None:
    """Assignments and opaque names of one function (or the module), without descending
    into nested function definitions."""
    if args is not None:
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            scope.opaque.add(a.arg)
        for a in (args.vararg, args.kwarg):
            if a is not None:
                scope.opaque.add(a.arg)
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    scope.assigns.setdefault(t.id, []).append(node.value)
                else:
                    scope.opaque.update(_names(t))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.value is not None:
                scope.assigns.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            scope.assigns.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            scope.opaque.update(_names(node.target))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    scope.opaque.update(_names(item.optional_vars))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.opaque.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            scope.opaque.add(node.target.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("append", "extend", "insert")
              and isinstance(node.func.value, ast.Name)):
            scope.appends.setdefault(node.func.value.id, []).extend(node.args[-1:])
        stack.extend(ast.iter_child_nodes(node))


def _numeric_spec(spec: ast.expr | None) -> bool:
    if not isinstance(spec, ast.JoinedStr) or not all(
            isinstance(v, ast.Constant) for v in spec.values):
        return False
    text = "".join(str(v.value) for v in spec.values)
    try:
        format("", text)
    except ValueError:
        return True  # a string cannot take this spec: the value is a number or a date
    return False


class FileScan:
    def __init__(self, path: Path, source: str | None = None, root: Path | None = None):
        self.path = path
        self.rel = str(path.relative_to(root)) if root else str(path)
        self.tree = ast.parse(source if source is not None else path.read_text("utf-8"))
        self.module = Scope()
        _collect(self.tree.body, self.module)
        self.functions: dict[str, tuple[ast.FunctionDef, Scope]] = {}
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = (node, self._scope_of(node, self.module))
        self.findings: list[Finding] = []

    @staticmethod
    def _scope_of(fn: ast.FunctionDef | ast.Lambda, parent: Scope) -> Scope:
        s = Scope(parent=parent)
        body = fn.body if isinstance(fn, ast.FunctionDef) else [ast.Expr(fn.body)]
        _collect(body, s, fn.args)
        return s

    # ---- safety of an expression ----------------------------------------------------

    def unsafe(self, e: ast.expr, scope: Scope, opaque: frozenset = frozenset(),
               seen: frozenset = frozenset()) -> list[ast.expr]:
        """The interpolated sub-expressions of `e` that are not proven safe."""
        u = lambda x, o=opaque: self.unsafe(x, scope, o, seen)  # noqa: E731
        if isinstance(e, ast.Constant):
            return []
        if isinstance(e, ast.JoinedStr):
            out = []
            for v in e.values:
                if isinstance(v, ast.FormattedValue) and not _numeric_spec(v.format_spec):
                    out += u(v.value)
            return out
        if isinstance(e, ast.BinOp):
            if isinstance(e.op, ast.Mod) and isinstance(e.left, ast.Constant):
                return sum((u(x) for x in (e.right.elts if isinstance(e.right, ast.Tuple)
                                           else [e.right])), [])
            if isinstance(e.op, ast.Mult) and any(isinstance(x, ast.Constant) and isinstance(
                    x.value, str) for x in (e.left, e.right)):
                return []  # "  " * depth: a repeated literal
            if isinstance(e.op, (ast.Add, ast.Mult, ast.Mod)):
                return u(e.left) + u(e.right)
            return []  # -, /, //, **: numbers
        if isinstance(e, (ast.Compare, ast.UnaryOp)):
            return []
        if isinstance(e, ast.IfExp):
            return u(e.body) + u(e.orelse)
        if isinstance(e, ast.BoolOp):
            return sum((u(v) for v in e.values), [])
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            return sum((u(x) for x in e.elts), [])
        if isinstance(e, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            inner = opaque | {n for g in e.generators for n in _names(g.target)}
            return u(e.elt, inner)
        if isinstance(e, ast.Lambda):
            return self.unsafe(e.body, self._scope_of(e, scope), opaque, seen)
        if isinstance(e, ast.Name):
            return [] if self._name_safe(e.id, scope, opaque, seen) else [e]
        if isinstance(e, ast.Call):
            return self._call_unsafe(e, scope, opaque, seen)
        return [e]

    def _name_safe(self, name: str, scope: Scope, opaque, seen) -> bool:
        if name in opaque:
            return False
        s = scope
        while s is not None:
            if name in s.opaque:
                return False
            if name in s.assigns:
                key = (id(s), name)
                if key in seen:
                    return True  # a cycle adds nothing new
                values = s.assigns[name] + s.appends.get(name, [])
                return not any(self.unsafe(v, s, frozenset(), seen | {key}) for v in values)
            s = s.parent
        return False

    def _call_unsafe(self, e: ast.Call, scope: Scope, opaque, seen) -> list[ast.expr]:
        f = e.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in SAFE_HELPERS:
            return []
        if isinstance(f, ast.Name) and name in NUMERIC_FUNCS:
            return []
        u = lambda x: self.unsafe(x, scope, opaque, seen)  # noqa: E731
        if isinstance(f, ast.Name) and name == "str" and len(e.args) == 1:
            return u(e.args[0])
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant):
            if name == "join" and len(e.args) == 1:
                return u(e.args[0])
            if name == "format":
                return sum((u(a) for a in e.args), []) + sum((u(k.value) for k in e.keywords), [])
        if isinstance(f, ast.Name) and name in self.functions and ("fn", name) not in seen:
            fn, fscope = self.functions[name]
            returns = [r.value for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value]
            if returns and not any(self.unsafe(r, fscope, frozenset(), seen | {("fn", name)})
                                   for r in returns):
                return []
        return [e]

    # ---- the calls ------------------------------------------------------------------

    def scan(self) -> list[Finding]:
        self._walk(self.tree, self.module)
        return self.findings

    def _walk(self, node: ast.AST, scope: Scope) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._walk(child, self._scope_of(child, scope))
                continue
            if isinstance(child, ast.Call):
                self._check_call(child, scope)
            self._walk(child, scope)

    @staticmethod
    def _root(e: ast.expr) -> str | None:
        while isinstance(e, (ast.Attribute, ast.Subscript, ast.Call)):
            e = e.func if isinstance(e, ast.Call) else e.value
        return e.id if isinstance(e, ast.Name) else None

    def _methods(self, f: ast.expr) -> list[tuple[str, bool]]:
        """(method name, is column config) of the Streamlit call(s) `f` may be."""
        if isinstance(f, ast.Attribute):
            if self._root(f) in NOT_STREAMLIT:
                return []
            chain = ast.unparse(f)
            if f.attr.endswith("Column") and "column_config" in chain:
                return [(f.attr, True)]
            return [(f.attr, False)]
        if isinstance(f, ast.IfExp):
            return self._methods(f.body) + self._methods(f.orelse)
        if isinstance(f, ast.BoolOp):
            return sum((self._methods(v) for v in f.values), [])
        if (isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id == "getattr"
                and f.args and isinstance(f.args[0], ast.Name) and f.args[0].id == "st"):
            return [("error", False)]  # getattr(st, level)(msg): a message call
        return []

    def _check_call(self, call: ast.Call, scope: Scope) -> None:
        for kw in call.keywords:
            if (kw.arg == "unsafe_allow_html" and not (
                    isinstance(kw.value, ast.Constant) and kw.value.value is False)):
                name = call.func.attr if isinstance(call.func, ast.Attribute) else "?"
                self.findings.append(Finding(self.rel, call.lineno, name,
                                             f"unsafe_allow_html={ast.unparse(kw.value)}"))
        reported: set[tuple[int, int]] = set()
        for method, is_column in self._methods(call.func):
            if is_column:
                positions, keywords = _LABEL
            elif method in MARKDOWN_ARGS:
                positions, keywords = MARKDOWN_ARGS[method]
            else:
                continue
            args = [a for i, a in enumerate(call.args)
                    if ALL_POSITIONAL in positions or i in positions]
            args += [k.value for k in call.keywords if k.arg in keywords + ALWAYS]
            if method in FORMAT_FUNC_RENDERS_MARKDOWN:
                args += [k.value for k in call.keywords if k.arg == "format_func"]
            for a in args:
                for bad in self.unsafe(a, scope):
                    where = (getattr(bad, "lineno", 0), getattr(bad, "col_offset", 0))
                    if where not in reported:  # (st.success if ok else st.error)(msg): once
                        reported.add(where)
                        self._report(call, method, bad)

    def _report(self, call: ast.Call, method: str, expr: ast.expr) -> None:
        self.findings.append(Finding(self.rel, getattr(expr, "lineno", call.lineno), method,
                                     ast.unparse(expr)))


def scan_files(paths: list[Path], root: Path) -> list[Finding]:
    out: list[Finding] = []
    for p in paths:
        out += FileScan(p, root=root).scan()
    return out


def scan_source(source: str, name: str = "<test>") -> list[Finding]:
    return FileScan(Path(name), source=source).scan()
