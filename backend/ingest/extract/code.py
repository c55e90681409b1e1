"""Source code and configuration files -> code blocks that name their sections.

Python, JavaScript, TypeScript, Go, Java and Rust are parsed with tree-sitter (the grammar
wheels from PyPI; nothing is downloaded at run time): every top-level class, function, type,
impl block ... becomes a block whose `anchor` is its signature line, and a large class or
impl is split into its header and one block per method (level 2). Comments and decorators
directly above a symbol stay with it; imports and other top-level statements form blocks of
their own. The code text itself is kept (blocks are `kind="code"`), so the
`code_structured` profile can keep a function whole in one chunk.

Other languages, and files tree-sitter cannot parse, are split into blocks at blank lines
(about BLOCK_LINES lines each). Configuration files (YAML, TOML, INI, .properties, JSON) get
a section per top-level key or `[table]`."""
from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath

from backend.ingest.types import Block, RawDocument

from .text import decode_text

log = logging.getLogger(__name__)
BLOCK_LINES = 40
SPLIT_CHARS = 1500  # a class or impl longer than this is split into its members
MAX_SIGNATURE = 120

# extension -> (language, grammar module, function returning the language pointer)
PARSED = {
    ".py": ("python", "tree_sitter_python", "language"),
    ".pyi": ("python", "tree_sitter_python", "language"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tsx", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
}
BLOCKS_ONLY = {
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
    ".rb": "ruby", ".php": "php", ".kt": "kotlin", ".swift": "swift", ".scala": "scala",
    ".sh": "shell", ".bash": "shell", ".ps1": "powershell", ".sql": "sql", ".r": "r",
    ".lua": "lua", ".pl": "perl", ".dart": "dart", ".vue": "vue", ".css": "css",
    ".scss": "scss", ".proto": "protobuf", ".gradle": "groovy", ".tf": "terraform",
}
CONFIG = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
          ".conf": "ini", ".properties": "properties", ".json": "json"}
# files known by name (no or another extension)
BY_NAME = {"dockerfile": "dockerfile", "makefile": "make", "jenkinsfile": "groovy",
           "containerfile": "dockerfile", ".gitlab-ci.yml": "yaml"}

SYMBOLS = {
    "python": {"class_definition", "function_definition", "decorated_definition"},
    "javascript": {"class_declaration", "function_declaration", "generator_function_declaration",
                   "method_definition"},
    "typescript": {"class_declaration", "abstract_class_declaration", "function_declaration",
                   "generator_function_declaration", "interface_declaration",
                   "type_alias_declaration", "enum_declaration", "method_definition",
                   "module", "internal_module"},
    "go": {"function_declaration", "method_declaration", "type_declaration"},
    "java": {"class_declaration", "interface_declaration", "enum_declaration",
             "record_declaration", "method_declaration", "constructor_declaration",
             "annotation_type_declaration"},
    "rust": {"function_item", "struct_item", "enum_item", "trait_item", "impl_item", "mod_item",
             "macro_definition", "union_item", "type_item"},
}
SYMBOLS["tsx"] = SYMBOLS["typescript"]
BODIES = {"block", "class_body", "declaration_list", "interface_body", "enum_body",
          "statement_block"}
_COMMENTS = {"comment", "line_comment", "block_comment", "decorator"}
_CONFIG_KEY = {
    "yaml": re.compile(r"^([A-Za-z_][\w.\-]*)\s*:(?:\s|$)"),
    "toml": re.compile(r"^\[{1,2}\s*([^\]]+?)\s*\]{1,2}\s*(?:#.*)?$"),
    "ini": re.compile(r"^\[\s*([^\]]+?)\s*\]\s*(?:[#;].*)?$"),
    "json": re.compile(r'^ {2}"([^"]+)"\s*:'),
}


def language_of(filename: str) -> str | None:
    p = PurePath(filename)
    name, ext = p.name.lower(), p.suffix.lower()
    if name in BY_NAME:
        return BY_NAME[name]
    if ext in PARSED:
        return PARSED[ext][0]
    return BLOCKS_ONLY.get(ext) or CONFIG.get(ext)


def extract_code(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lang = language_of(filename) or "text"
    ext = PurePath(filename).suffix.lower()
    blocks: list[Block] | None = None
    how = "blocks"
    if ext in PARSED:
        blocks = _parsed_blocks(text, ext)
        how = "tree-sitter" if blocks is not None else "blocks"
    elif lang in _CONFIG_KEY or lang == "properties":
        blocks, how = _config_blocks(text, lang), "keys"
    if blocks is None:
        blocks = _plain_blocks(text)
    meta: dict = {"encoding": encoding, "code_language": lang, "code_sections": how,
                  "symbols": sum(1 for b in blocks if b.anchor)}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=[b for b in blocks if b.text.strip()], metadata=meta)


# ---- tree-sitter ----------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _parser(ext: str):
    import tree_sitter

    _lang, module, fn = PARSED[ext]
    grammar = importlib.import_module(module)
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, fn)()))


@dataclass
class _Piece:
    start: int  # byte offsets
    end: int
    anchor: str | None = None
    level: int | None = None


def _parsed_blocks(text: str, ext: str) -> list[Block] | None:
    try:
        parser = _parser(ext)
    except Exception:  # grammar wheel missing or incompatible: blocks instead
        log.warning("no tree-sitter grammar for %s; code is split into blocks", ext,
                    exc_info=True)
        return None
    src = text.encode("utf-8")
    tree = parser.parse(src)
    symbols = SYMBOLS[PARSED[ext][0]]
    pieces: list[_Piece] = []
    _collect(tree.root_node, src, symbols, pieces, level=1)
    if not any(p.anchor for p in pieces):
        return None
    return [Block(src[p.start:p.end].decode("utf-8", "replace").strip("\n"), preformatted=True,
                  kind="code", anchor=p.anchor, anchor_level=p.level) for p in pieces]


def _collect(node, src: bytes, symbols: set[str], out: list[_Piece], level: int,
             start: int | None = None) -> None:
    """Split the children of `node` into pieces: runs of plain statements, and symbols with
    the comments/decorators directly above them."""
    children = list(node.children)
    pos = node.start_byte if start is None else start
    glue_start = pos
    i = 0
    while i < len(children):
        child = children[i]
        sym = _symbol(child, symbols)
        if sym is None:
            i += 1
            continue
        lead = i  # comments directly above the symbol belong to it
        while lead > 0 and children[lead - 1].type in _COMMENTS \
                and child.start_point[0] - children[lead - 1].end_point[0] <= 1:
            lead -= 1
        sym_start = children[lead].start_byte if lead < i else _line_start(src, child.start_byte)
        sym_start = max(sym_start, glue_start)
        if src[glue_start:sym_start].strip():
            out.append(_Piece(glue_start, sym_start))
        body = _body(sym)
        members = [c for c in (body.children if body is not None else [])
                   if _symbol(c, symbols) is not None]
        if members and child.end_byte - sym_start > SPLIT_CHARS and level < 3:
            first = members[0]
            head_end = _line_start(src, _lead_start(body.children, first, src))
            out.append(_Piece(sym_start, head_end, _signature(sym, src), level))
            _collect(body, src, symbols, out, level + 1, start=head_end)
        else:
            out.append(_Piece(sym_start, child.end_byte, _signature(sym, src), level))
        glue_start = child.end_byte
        i += 1
    end = node.end_byte
    if src[glue_start:end].strip():
        out.append(_Piece(glue_start, end))


def _lead_start(children, member, src: bytes) -> int:
    idx = children.index(member)
    while idx > 0 and children[idx - 1].type in _COMMENTS \
            and member.start_point[0] - children[idx - 1].end_point[0] <= 1:
        idx -= 1
    return children[idx].start_byte


def _symbol(node, symbols: set[str]):
    """The definition a top-level node stands for (unwrapping `export …`), or None. A
    `const f = () => …` counts as a function."""
    if node.type in symbols:
        return node
    if node.type == "export_statement":
        if any(_symbol(c, symbols) is not None for c in node.children):
            return node
    if node.type in ("lexical_declaration", "variable_declaration"):
        for decl in node.children:
            value = decl.child_by_field_name("value") if decl.type == "variable_declarator" else None
            if value is not None and value.type in ("arrow_function", "function_expression",
                                                    "function", "class"):
                return node
    return None


_CONTAINERS = {"class_definition", "class_declaration", "abstract_class_declaration",
               "interface_declaration", "impl_item", "trait_item", "mod_item", "module",
               "internal_module", "enum_declaration"}
_WRAPPERS = {"decorated_definition", "export_statement"}


def _body(node):
    """The member list of a class/impl/module (also when exported or decorated); None for
    functions and everything else, which are never split."""
    if node.type in _WRAPPERS:
        inner = next((c for c in node.children if c.type in _CONTAINERS), None)
        return _body(inner) if inner is not None else None
    if node.type not in _CONTAINERS:
        return None
    return next((c for c in node.children if c.type in BODIES), None)


def _signature(node, src: bytes) -> str:
    """The definition's first line (after decorators, annotations and comments)."""
    target = node
    if node.type == "decorated_definition":
        target = node.child_by_field_name("definition") or node
    line = src[target.start_byte:target.end_byte].decode("utf-8", "replace").split("\n", 1)[0]
    line = " ".join(line.split()).rstrip("{:").rstrip()
    return line[:MAX_SIGNATURE] or node.type


def _line_start(src: bytes, pos: int) -> int:
    return src.rfind(b"\n", 0, pos) + 1


# ---- fallbacks --------------------------------------------------------------------------------


def _plain_blocks(text: str) -> list[Block]:
    """Blank-line separated paragraphs grouped into blocks of about BLOCK_LINES lines."""
    blocks: list[Block] = []
    current: list[str] = []
    for para in re.split(r"\n[ \t]*\n", text):
        if not para.strip():
            continue
        if current and sum(x.count("\n") + 1 for x in current) + para.count("\n") > BLOCK_LINES:
            blocks.append(Block("\n\n".join(current), preformatted=True, kind="code"))
            current = []
        current.append(para.strip("\n"))
    if current:
        blocks.append(Block("\n\n".join(current), preformatted=True, kind="code"))
    return blocks


def _config_blocks(text: str, lang: str) -> list[Block]:
    """A block per top-level key (YAML, JSON) or table/section (TOML, INI); .properties and
    files without such keys are split into plain blocks."""
    pattern = _CONFIG_KEY.get(lang)
    if pattern is None:
        return _plain_blocks(text)
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if pattern.match(line)]
    if not starts:
        return _plain_blocks(text)
    blocks = []
    if starts[0] > 0 and "\n".join(lines[:starts[0]]).strip():
        blocks.append(Block("\n".join(lines[:starts[0]]).strip("\n"), preformatted=True,
                            kind="code"))
    for a, b in zip(starts, starts[1:] + [len(lines)]):
        key = pattern.match(lines[a]).group(1)
        blocks.append(Block("\n".join(lines[a:b]).strip("\n"), preformatted=True, kind="code",
                            anchor=key, anchor_level=1))
    return blocks
