"""Answer goldensets (`eval/answers_sample.yaml`): questions with the answer a user should get.

YAML top level: name, description, collection, questions. Each question has an `id`, the
`question`, its `language` and a `type`:

* `answerable` (default): `answers` (acceptable answer strings, at least one) and `support`
  (at least one `{doc, section?, sentence}`: the supporting document, its section heading and
  the sentence, copied verbatim);
* `unanswerable`: the documents do not answer it; `reason` is out_of_corpus, nonsense or
  near_miss;
* `inventory`: a request for a document list; `documents` must all be listed, `also` may be;
* `followup` (the unseen benchmark, eval/unseen_set.py): a dialogue, `turns` a list of 2-3
  `{question, answers, support}` or `{question, unanswerable: true}`, asked in one chat session;
  only the last turn is scored (the question's `question`, `answers` and `support` are the last
  turn's; `question` may be left out at the top).

Optional on every question: `route`, the route the chat should take (ROUTES: passage, inventory,
extract:<kind>, summarize_document, …, url), and `near`, the document an unanswerable question
is near to (its split follows that document).

Bad input is refused with a GoldensetError naming the file, the question and the field."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from eval.goldenset import GoldensetError

TYPES = ("answerable", "unanswerable", "inventory", "followup")
ROUTES = ("passage", "inventory", "extract:decisions", "extract:meeting_actions",
          "extract:deadlines", "extract:requirements", "extract:risks", "summarize_document",
          "summarize_section", "compare_versions", "compare_documents", "cross_reference", "url")
REASONS = ("out_of_corpus", "nonsense", "near_miss")
SPLITS = ("all", "tune", "test")


@dataclass(frozen=True)
class Support:
    doc: str
    sentence: str
    section: str | None = None


@dataclass
class Turn:
    """One turn of a follow-up dialogue: answerable (`answers`, `support`) or not."""

    question: str
    answers: list[str] = field(default_factory=list)
    support: list[Support] = field(default_factory=list)
    unanswerable: bool = False


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
    route: str = ""
    near: str = ""
    turns: list[Turn] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The new fields only when set: a goldenset without them keeps its sha256."""
        d = asdict(self)
        for k in ("route", "near", "turns"):
            if not d[k]:
                del d[k]
        return d

    @property
    def scored_type(self) -> str:
        """What the scored (last) turn is: a follow-up counts as answerable or unanswerable."""
        if self.type != "followup":
            return self.type
        return "unanswerable" if self.turns[-1].unanswerable else "answerable"


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


def _support(sup, where: str) -> list[Support]:
    if not isinstance(sup, list) or not sup:
        raise GoldensetError(f"{where}: 'support' must be a non-empty list of "
                             f"{{doc, section?, sentence}}")
    out = []
    for s in sup:
        if not isinstance(s, dict) or not s.get("doc") or not str(s.get("sentence") or "").strip():
            raise GoldensetError(f"{where}: each support entry needs 'doc' and 'sentence'")
        out.append(Support(str(s["doc"]), " ".join(str(s["sentence"]).split()), s.get("section")))
    return out


def _turns(value, where: str) -> list[Turn]:
    if not isinstance(value, list) or not 2 <= len(value) <= 3:
        raise GoldensetError(f"{where}: 'turns' must be a list of 2-3 turns")
    turns = []
    for i, t in enumerate(value, 1):
        at = f"{where} turn {i}"
        if not isinstance(t, dict) or not str(t.get("question") or "").strip():
            raise GoldensetError(f"{at}: missing field 'question'")
        turn = Turn(str(t["question"]).strip())
        if t.get("unanswerable") is True:
            if t.get("answers") or t.get("support"):
                raise GoldensetError(f"{at}: an unanswerable turn has no 'answers'/'support'")
            turn.unanswerable = True
        else:
            turn.answers = _strings(t.get("answers"), at, "answers", required=True)
            turn.support = _support(t.get("support"), at)
        turns.append(turn)
    return turns


def parse_question(obj, where: str) -> AnswerQuestion:
    if not isinstance(obj, dict):
        raise GoldensetError(f"{where}: expected a mapping, got {type(obj).__name__}")
    if not str(obj.get("id") or "").strip():
        raise GoldensetError(f"{where}: missing field 'id'")
    where = f"{where} ({obj['id']})"
    qtype = obj.get("type", "answerable")
    if qtype not in TYPES:
        raise GoldensetError(f"{where}: type must be one of {', '.join(TYPES)}, got {qtype!r}")
    if qtype != "followup" and not str(obj.get("question") or "").strip():
        raise GoldensetError(f"{where}: missing field 'question'")
    route = str(obj.get("route") or "")
    if route and route not in ROUTES:
        raise GoldensetError(f"{where}: route must be one of {', '.join(ROUTES)}, got {route!r}")
    near = obj.get("near") or ""
    if not isinstance(near, str):
        raise GoldensetError(f"{where}: 'near' must be a document path")
    q = AnswerQuestion(id=str(obj["id"]), question=str(obj.get("question") or "").strip(),
                       type=qtype, language=str(obj.get("language") or ""), route=route,
                       near=near.strip())
    if qtype == "answerable":
        q.answers = _strings(obj.get("answers"), where, "answers", required=True)
        q.support = _support(obj.get("support"), where)
    elif qtype == "unanswerable":
        q.reason = str(obj.get("reason") or "")
        if q.reason not in REASONS:
            raise GoldensetError(f"{where}: reason must be one of {', '.join(REASONS)}")
    elif qtype == "inventory":
        q.documents = _strings(obj.get("documents"), where, "documents", required=True)
        q.also = _strings(obj.get("also"), where, "also", required=False)
    else:
        q.turns = _turns(obj.get("turns"), where)
        last = q.turns[-1]
        q.question, q.answers, q.support = last.question, list(last.answers), list(last.support)
        if last.unanswerable:
            q.reason = "near_miss"
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
