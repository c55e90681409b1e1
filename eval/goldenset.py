"""Goldenset files: YAML (`queries:` list) or JSONL (one query per line).
Each query: id, question, relevant [{doc, section?, grade}], optional reference_answer,
reference_contexts, tags, language. `doc` is a file name (or a BEIR document id)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from backend.errors import RagscopeError


class GoldensetError(RagscopeError):
    pass


@dataclass
class Relevant:
    doc: str
    grade: int = 1
    section: str | None = None


@dataclass
class GoldQuery:
    id: str
    question: str
    relevant: list[Relevant]
    language: str = ""
    tags: list[str] = field(default_factory=list)
    reference_answer: str | None = None
    reference_contexts: list[str] = field(default_factory=list)


@dataclass
class Goldenset:
    name: str
    queries: list[GoldQuery]
    description: str = ""

    def qrels(self) -> dict[str, dict[str, int]]:
        """ranx shape: {query_id: {doc: grade}} (the highest grade per doc)."""
        out: dict[str, dict[str, int]] = {}
        for q in self.queries:
            d = out.setdefault(q.id, {})
            for r in q.relevant:
                d[r.doc] = max(d.get(r.doc, 0), r.grade)
        return out


def _query(obj: dict, where: str) -> GoldQuery:
    if not isinstance(obj, dict):
        raise GoldensetError(f"{where}: expected a mapping, got {type(obj).__name__}")
    for key in ("id", "question", "relevant"):
        if key not in obj:
            raise GoldensetError(f"{where}: missing field '{key}'")
    rel = obj["relevant"]
    if not isinstance(rel, list) or not rel:
        raise GoldensetError(f"{where}: 'relevant' must be a non-empty list")
    relevant = []
    for r in rel:
        if isinstance(r, str):
            relevant.append(Relevant(r))
        elif isinstance(r, dict) and "doc" in r:
            relevant.append(Relevant(str(r["doc"]), int(r.get("grade", 1)), r.get("section")))
        else:
            raise GoldensetError(f"{where}: each relevant entry needs a 'doc'")
    return GoldQuery(id=str(obj["id"]), question=str(obj["question"]), relevant=relevant,
                     language=obj.get("language", ""), tags=list(obj.get("tags") or []),
                     reference_answer=obj.get("reference_answer"),
                     reference_contexts=list(obj.get("reference_contexts") or []))


def load_goldenset(path: str | Path) -> Goldenset:
    path = Path(path)
    if not path.exists():
        raise GoldensetError(f"{path}: no such goldenset file")
    if path.suffix == ".jsonl":
        queries = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise GoldensetError(f"{path.name} line {n}: malformed JSON ({e.msg})") from None
            queries.append(_query(obj, f"{path.name} line {n}"))
        name, desc = path.stem, ""
    else:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as e:
            raise GoldensetError(f"{path.name}: malformed YAML ({e})") from None
        queries = [_query(q, f"{path.name} query {i}")
                   for i, q in enumerate(data.get("queries") or [], 1)]
        name, desc = data.get("name", path.stem), data.get("description", "")
    if not queries:
        raise GoldensetError(f"{path.name}: the goldenset has no queries")
    ids = [q.id for q in queries]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise GoldensetError(f"{path.name}: duplicate query ids {sorted(dup)}")
    return Goldenset(name=name, queries=queries, description=desc)
