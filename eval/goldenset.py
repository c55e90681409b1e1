"""Goldenset files: YAML (`queries:` list) or JSONL (one query per line).
Each query: id, question, relevant [{doc, section?, grade}], optional reference_answer,
reference_contexts, tags, language. `doc` is a file name, or a BEIR document id when the
goldenset's `doc_key` is "beir" (YAML top level: name, description, doc_key, collection)."""
from __future__ import annotations

import hashlib
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


    def to_dict(self) -> dict:
        out: dict = {"id": self.id, "question": self.question}
        if self.language:
            out["language"] = self.language
        if self.tags:
            out["tags"] = list(self.tags)
        out["relevant"] = [{"doc": r.doc, "grade": r.grade,
                            **({"section": r.section} if r.section else {})}
                           for r in self.relevant]
        if self.reference_answer:
            out["reference_answer"] = self.reference_answer
        if self.reference_contexts:
            out["reference_contexts"] = list(self.reference_contexts)
        return out


DOC_KEYS = ("filename", "beir")


@dataclass
class Goldenset:
    name: str
    queries: list[GoldQuery]
    description: str = ""
    doc_key: str = "filename"  # what relevant[].doc names: a file name or a BEIR id
    collection: str | None = None  # evaluate within this collection by default

    def sha256(self) -> str:
        """Identifies the content (questions and judgements) a run was measured on."""
        blob = json.dumps([q.to_dict() for q in self.queries], sort_keys=True,
                          ensure_ascii=False)
        return hashlib.sha256(f"{self.doc_key}\n{blob}".encode()).hexdigest()

    def to_yaml(self) -> str:
        head = {"name": self.name, "description": self.description, "doc_key": self.doc_key}
        if self.collection:
            head["collection"] = self.collection
        return yaml.safe_dump({**head, "queries": [q.to_dict() for q in self.queries]},
                              allow_unicode=True, sort_keys=False, width=100)

    def to_jsonl(self) -> str:
        return "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in self.queries)

    def qrels(self) -> dict[str, dict[str, int]]:
        """ranx shape: {query_id: {doc: grade}} (the highest grade per doc)."""
        out: dict[str, dict[str, int]] = {}
        for q in self.queries:
            d = out.setdefault(q.id, {})
            for r in q.relevant:
                d[r.doc] = max(d.get(r.doc, 0), r.grade)
        return out


def parse_query(obj: dict, where: str = "query") -> GoldQuery:
    """A query from its dict form; GoldensetError names `where` on bad input."""
    if not isinstance(obj, dict):
        raise GoldensetError(f"{where}: expected a mapping, got {type(obj).__name__}")
    for key in ("id", "question", "relevant"):
        if key not in obj:
            raise GoldensetError(f"{where}: missing field '{key}'")
    if not str(obj["question"]).strip() or not str(obj["id"]).strip():
        raise GoldensetError(f"{where}: 'id' and 'question' must not be empty")
    rel = obj["relevant"]
    if not isinstance(rel, list) or not rel:
        raise GoldensetError(f"{where}: 'relevant' must be a non-empty list")
    relevant = []
    for r in rel:
        if isinstance(r, str):
            relevant.append(Relevant(r))
        elif isinstance(r, dict) and "doc" in r:
            try:
                grade = int(r.get("grade", 1))
            except (TypeError, ValueError):
                raise GoldensetError(f"{where}: grade must be an integer, got "
                                     f"{r.get('grade')!r}") from None
            relevant.append(Relevant(str(r["doc"]), grade, r.get("section")))
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
            queries.append(parse_query(obj, f"{path.name} line {n}"))
        name, desc, head = path.stem, "", {}
    else:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as e:
            raise GoldensetError(f"{path.name}: malformed YAML ({e})") from None
        queries = [parse_query(q, f"{path.name} query {i}")
                   for i, q in enumerate(data.get("queries") or [], 1)]
        if not isinstance(data, dict):
            raise GoldensetError(f"{path.name}: expected a mapping with a 'queries' list")
        name, desc, head = data.get("name", path.stem), data.get("description", ""), data
    return make_goldenset(str(name), queries, description=desc or "",
                          doc_key=head.get("doc_key") or "filename",
                          collection=head.get("collection"), where=path.name)


def make_goldenset(name: str, queries: list[GoldQuery], *, description: str = "",
                   doc_key: str = "filename", collection: str | None = None,
                   where: str | None = None) -> Goldenset:
    """Validate and build: at least one query, unique ids, a known doc_key."""
    where = where or name
    if not queries:
        raise GoldensetError(f"{where}: the goldenset has no queries")
    if doc_key not in DOC_KEYS:
        raise GoldensetError(f"{where}: doc_key must be one of {', '.join(DOC_KEYS)}")
    seen: set[str] = set()
    dup = sorted({q.id for q in queries if q.id in seen or seen.add(q.id)})
    if dup:
        raise GoldensetError(f"{where}: duplicate query ids {dup}")
    return Goldenset(name=name, queries=queries, description=description, doc_key=doc_key,
                     collection=collection)


SPLITS = ("all", "tune", "test")


def split_queries(gs: Goldenset, split: str = "all") -> Goldenset:
    """The goldenset's tuning or held-out half: alternating in file order (the 1st, 3rd, …
    question is `tune`, the 2nd, 4th, … `test`), so both halves span every topic the file
    groups together. Thresholds and weights are chosen on `tune` only (docs/tags.md)."""
    if split not in SPLITS:
        raise GoldensetError(f"split: must be one of {', '.join(SPLITS)}, not {split!r}")
    if split == "all":
        return gs
    keep = 0 if split == "tune" else 1
    from dataclasses import replace

    return replace(gs, queries=[q for i, q in enumerate(gs.queries) if i % 2 == keep])
