"""Loading the domain-rule files (`config/domain/*.yaml`; their shape: domain_schema.py) with
errors naming file, line and field, and reloading them without a restart.

    rules = domain_rules.current()      # the last good rules of the configured directory
    rules.repairs, rules.synonyms, rules.intents, ...

Why this shape:

* **Reload on access, cheaply.** `current()` stats the files (four `os.stat`, about 20 µs)
  at most every RELOAD_CHECK_S seconds; a changed mtime or size reloads all files
  together, so rules that refer to each other never come from two generations.
* **A bad edit keeps the last good rules.** The error (file, line, field, reason) is kept
  next to them and reported by `python -m backend status`, the Settings page and the trace
  stage `domain_rules`; nothing is applied half. At start, a bad file is an error only when
  no good generation exists yet - then the rules are empty and the error says why.
* **Lines from the YAML node tree.** PyYAML's composer keeps each node's start mark; a
  pydantic error location (`repairs.3.right`) is walked down that tree to the line of the
  deepest node that exists."""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from backend.config.domain_schema import FILES
from backend.errors import ConfigError

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "config" / "domain"
RELOAD_CHECK_S = 1.0  # how often `current()` looks at the files' mtimes at most


class DomainConfigError(ConfigError):
    """A domain-rule file that cannot be used: `file`, `line` (1-based, or None), `field`."""

    def __init__(self, file: str, line: int | None, field_: str, reason: str):
        self.file, self.line, self.field, self.reason = file, line, field_, reason
        where = f"{file}" + (f", line {line}" if line else "") + (f", field {field_}" if field_ else "")
        super().__init__(f"{where}: {reason}")

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "field": self.field, "reason": self.reason,
                "message": str(self)}


@dataclass(frozen=True, eq=False)
class DomainRules:
    """One generation of the rules: every file validated, loaded together."""
    directory: str
    models: dict[str, BaseModel]
    stamps: dict[str, tuple[float, int]]  # file -> (mtime, size) when loaded
    loaded_at: float

    @property
    def vocabulary(self):
        return self.models["vocabulary.yaml"]

    @property
    def search_repair(self):
        return self.models["search_repair.yaml"]

    @property
    def intents(self):
        return self.models["intents.yaml"]

    @property
    def domains(self):
        return self.models["domains.yaml"]

    @cached_property
    def generation(self) -> str:
        """Changes whenever a file changed: the key of caches built from the rules."""
        return f"{self.directory}@" + ",".join(f"{m:.6f}:{s}" for m, s in self.stamps.values())

    def counts(self) -> dict[str, int]:
        return {"synonym_groups": len(self.vocabulary.synonyms),
                "repairs": len(self.search_repair.repairs),
                "protected": len(self.search_repair.protected),
                "extract_cues": sum(len(v) for v in self.intents.extract_cues.values()),
                "doc_type_cues": sum(len(v) for v in self.intents.doc_type_cues.values()),
                "document_kinds": len(self.domains.document_kinds)}


def _line(node: yaml.Node | None, loc: tuple) -> int | None:
    """The 1-based line of the deepest node on the path `loc` (pydantic's error location)."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if k.value == str(part)), None)
            if nxt is None:
                return line
            node = nxt
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and 0 <= part < len(node.value):
            node = node.value[part]
        else:
            return line
        line = node.start_mark.line + 1
    return line


def load_file(path: Path, model: type[BaseModel], name: str | None = None) -> BaseModel:
    """One file validated into its model; DomainConfigError naming file, line and field."""
    name = name or path.name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DomainConfigError(name, None, "", f"cannot be read ({e})") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise DomainConfigError(name, mark.line + 1 if mark else None, "",
                                f"not valid YAML ({e.problem or e.context})") from None
    if not isinstance(data, dict):
        raise DomainConfigError(name, 1, "", "the file must be a mapping of field: value")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        reason = err["msg"].removeprefix("Value error, ")
        more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
        raise DomainConfigError(name, _line(node, loc), ".".join(str(p) for p in loc),
                                reason + more) from None


def _stamps(directory: Path) -> dict[str, tuple[float, int]]:
    out = {}
    for name in FILES:
        try:
            st = os.stat(directory / name)
            out[name] = (st.st_mtime, st.st_size)
        except OSError:
            out[name] = (0.0, -1)
    return out


def load(directory: Path | str) -> DomainRules:
    """Every file of `directory`, validated; the first bad one raises DomainConfigError."""
    directory = Path(directory)
    stamps = _stamps(directory)
    models = {}
    for name, model in FILES.items():
        if stamps[name][1] < 0:
            raise DomainConfigError(name, None, "", f"missing in {directory}")
        models[name] = load_file(directory / name, model)
    return DomainRules(str(directory), models, stamps, time.time())


def _empty(directory: Path) -> DomainRules:
    """Rules that change nothing, for a directory that never loaded: intents.yaml has no
    usable empty form, so the shipped defaults stand in for it."""
    models = {n: m.model_construct() for n, m in FILES.items()}
    for name in ("intents.yaml", "domains.yaml"):
        models[name] = load_file(DEFAULT_DIR / name, FILES[name])
    for name in ("vocabulary.yaml", "search_repair.yaml"):
        models[name] = FILES[name]()
    return DomainRules(str(directory), models, {n: (0.0, -2) for n in FILES}, time.time())


@dataclass
class _Holder:
    directory: Path
    rules: DomainRules | None = None
    error: DomainConfigError | None = None
    error_stamps: dict[str, tuple[float, int]] | None = None
    checked: float = 0.0
    reloads: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, force: bool = False) -> DomainRules:
        now = time.monotonic()
        if not force and self.rules is not None and now - self.checked < RELOAD_CHECK_S:
            return self.rules
        with self.lock:
            self.checked = now
            stamps = _stamps(self.directory)
            if self.rules is not None and stamps == self.rules.stamps:
                self.error = None  # an edit was undone
                return self.rules
            if self.error is not None and stamps == self.error_stamps and self.rules is not None:
                return self.rules  # the bad edit is still there: keep the last good rules
            try:
                self.rules = load(self.directory)
                self.error, self.error_stamps = None, None
                self.reloads += 1
            except DomainConfigError as e:
                self.error, self.error_stamps = e, stamps
                if self.rules is None:
                    self.rules = _empty(self.directory)
            return self.rules


_holders: dict[str, _Holder] = {}
_holders_lock = threading.Lock()
_configured: list[Path] = [DEFAULT_DIR]  # the process's directory (RAGSCOPE_DOMAIN_CONFIG_DIR)


def configure(directory: Path | str | None) -> None:
    """The directory `current()` reads without an argument: set from the setting
    RAGSCOPE_DOMAIN_CONFIG_DIR when the services are built (backend/services/container.py);
    empty: config/domain of the repository."""
    _configured[0] = Path(directory) if directory else DEFAULT_DIR


def _holder(directory: Path | str | None) -> _Holder:
    d = Path(directory) if directory else _configured[0]
    h = _holders.get(str(d))  # per question: no lock, no file system call
    if h is not None:
        return h
    with _holders_lock:
        key = str(d.resolve())
        h = _holders.get(key) or _Holder(d)
        _holders[key] = _holders[str(d)] = h
        return h


def current(directory: Path | str | None = None) -> DomainRules:
    """The rules of `directory` (empty: config/domain of the repository), reloaded when a
    file changed; after a bad edit, the last good ones (see `last_error`)."""
    return _holder(directory).get()


def last_error(directory: Path | str | None = None) -> DomainConfigError | None:
    """The error of the current files, when they do not load (the rules in use are older)."""
    h = _holder(directory)
    h.get()
    return h.error


def status(directory: Path | str | None = None, *, force: bool = True) -> dict[str, Any]:
    """What `python -m backend status` and the Settings page show: the directory, the files
    with their load time, the counts, and the error of a bad edit (the rules in use then
    are the last good ones, loaded at `loaded_at`)."""
    h = _holder(directory)
    rules = h.get(force=force)
    loaded = rules.stamps
    return {"directory": str(h.directory), "loaded_at": rules.loaded_at,
            "files": {n: {"mtime": m, "loaded": s >= 0} for n, (m, s) in loaded.items()},
            "counts": rules.counts(), "reloads": h.reloads,
            "ok": h.error is None, "error": h.error.to_dict() if h.error else None}
