"""Answer goldensets (`eval/answers_sample.yaml`): questions with the answer a user should get.

YAML top level: name, description, collection, questions. Each question has an `id`, the
`question`, its `language` and a `type`:

* `answerable` (default): `answers` (acceptable answer strings, at least one) and `support`
  (at least one `{doc, section?, sentence}`: the supporting document, its section heading and
  the sentence, copied verbatim);
* `unanswerable`: the documents do not answer it; `reason` is out_of_corpus, nonsense or
  near_miss;
* `inventory`: a request for a document list; `documents` must all be listed, `also` may be.

Bad input is refused with a GoldensetError naming the file, the question and the field."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from eval.goldenset import GoldensetError

TYPES = ("answerable", "unanswerable", "inventory")
REASONS = ("out_of_corpus", "nonsense", "near_miss")
SPLITS = ("all", "tune", "test")


@dataclass(frozen=True)
class Support:
    doc: str
    sentence: str
    section: str | None = None


@dataclass
class AnswerQuestion:
    id: str
    question: str
    type: str = "answerable"
    language: str = ""
    answers: list[str] = field(default_factory=list)
    support: list[Support] = field(default_factory=list)
    reason: str = ""
    documents: list[str] = field(default_factory=list)
    also: list[str] = field(default_factory=list)
    split: str = "tune"  # set by the loader: alternating within each type, in file order

    def to_dict(self) -> dict:
        d = asdict(self)
        d["support"] = [asdict(s) for s in self.support]
        return d


@dataclass
class AnswerGoldenset:
    name: str
    questions: list[AnswerQuestion]
    description: str = ""
    collection: str | None = None

    def sha256(self) -> str:
        blob = json.dumps([q.to_dict() for q in self.questions], sort_keys=True,
                          ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def select(self, split: str = "all") -> list[AnswerQuestion]:
        if split not in SPLITS:
            raise GoldensetError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
        return [q for q in self.questions if split == "all" or q.split == split]


def _strings(value, where: str, key: str, *, required: bool) -> list[str]:
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
        raise GoldensetError(f"{where}: '{key}' must be a list of non-empty strings")
    if required and not value:
        raise GoldensetError(f"{where}: '{key}' must not be empty")
    return [x.strip() for x in value]


def parse_question(obj, where: str) -> AnswerQuestion:
    if not isinstance(obj, dict):
        raise GoldensetError(f"{where}: expected a mapping, got {type(obj).__name__}")
    for key in ("id", "question"):
        if not str(obj.get(key) or "").strip():
            raise GoldensetError(f"{where}: missing field '{key}'")
    where = f"{where} ({obj['id']})"
    qtype = obj.get("type", "answerable")
    if qtype not in TYPES:
        raise GoldensetError(f"{where}: type must be one of {', '.join(TYPES)}, got {qtype!r}")
    q = AnswerQuestion(id=str(obj["id"]), question=str(obj["question"]).strip(), type=qtype,
                       language=str(obj.get("language") or ""))
    if qtype == "answerable":
        q.answers = _strings(obj.get("answers"), where, "answers", required=True)
        sup = obj.get("support")
        if not isinstance(sup, list) or not sup:
            raise GoldensetError(f"{where}: 'support' must be a non-empty list of "
                                 f"{{doc, section?, sentence}}")
        for s in sup:
            if not isinstance(s, dict) or not s.get("doc") or not str(s.get("sentence") or "").strip():
                raise GoldensetError(f"{where}: each support entry needs 'doc' and 'sentence'")
            q.support.append(Support(str(s["doc"]), " ".join(str(s["sentence"]).split()),
                                     s.get("section")))
    elif qtype == "unanswerable":
        q.reason = str(obj.get("reason") or "")
        if q.reason not in REASONS:
            raise GoldensetError(f"{where}: reason must be one of {', '.join(REASONS)}")
    else:
        q.documents = _strings(obj.get("documents"), where, "documents", required=True)
        q.also = _strings(obj.get("also"), where, "also", required=False)
    return q


def load_answer_goldenset(path: str | Path) -> AnswerGoldenset:
    path = Path(path)
    if not path.is_file():
        raise GoldensetError(f"{path}: no such answer goldenset file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise GoldensetError(f"{path.name}: malformed YAML ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise GoldensetError(f"{path.name}: expected a mapping with a 'questions' list")
    questions = [parse_question(q, f"{path.name} question {i}")
                 for i, q in enumerate(data["questions"], 1)]
    if not questions:
        raise GoldensetError(f"{path.name}: the answer goldenset has no questions")
    seen: set[str] = set()
    dup = sorted({q.id for q in questions if q.id in seen or seen.add(q.id)})
    if dup:
        raise GoldensetError(f"{path.name}: duplicate question ids {dup}")
    counters: dict[str, int] = {}
    for q in questions:  # alternate tune/test within each type, in file order
        i = counters.get(q.type, 0)
        q.split = "tune" if i % 2 == 0 else "test"
        counters[q.type] = i + 1
    return AnswerGoldenset(str(data.get("name") or path.stem), questions,
                           str(data.get("description") or ""), data.get("collection"))
