"""The unseen answer benchmark (issue 22): questions about documents nobody tuned for, with a
frozen `test` split that only reports.

Files: eval/unseen/documents/{de,en}/ (the documents, collection `unseen`) and
eval/unseen/{de,en}_{tune,test}.yaml (the questions, written by two writers; format:
eval/answer_set.py, with `route`, `near` and `type: followup`). A whole document belongs to one
split (`doc_split`): `test` when int(sha256(doc_path), 16) % 3 != 0, else `tune`, doc_path being
the path below eval/unseen/documents/ ("de/werkausschuss_2025-03-12.txt"). A question goes with
its first support document (of its first answerable turn), else its `near` document (an
unanswerable question), else its first listed document (an inventory question).

Two ways in, so that the tuning code cannot read the test split:

* `load_unseen(split)` — the reporting path (`python -m eval answers --benchmark unseen`) only;
* `load_unseen_for_tuning()` and `tuning_goldenset(path)` — for eval/answer_tuning.py and any
  other script that chooses a weight, threshold or rule: they refuse the test split and every
  *_test.yaml file. tests/test_unseen_split.py fails when a tuning module or anything under
  backend/ reads a *_test.yaml path or calls `load_unseen`."""
from __future__ import annotations

import hashlib
from pathlib import Path

from eval.answer_set import AnswerGoldenset, AnswerQuestion, load_answer_goldenset
from eval.goldenset import GoldensetError

UNSEEN_DIR = Path(__file__).resolve().parent / "unseen"
DOCUMENTS_DIR = UNSEEN_DIR / "documents"
LANGUAGES = ("de", "en")
COLLECTION = "unseen"


class FrozenSplitError(GoldensetError):
    """Tuning code asked for the frozen test split."""


def doc_split(doc_path: str) -> str:
    """The split of a document, by the hash rule above."""
    return "test" if int(hashlib.sha256(doc_path.encode()).hexdigest(), 16) % 3 != 0 else "tune"


def split_document(q: AnswerQuestion) -> str:
    """The document whose split a question follows."""
    for turn in q.turns or []:
        if turn.support:
            return turn.support[0].doc
    if q.support:
        return q.support[0].doc
    return q.near or (q.documents[0] if q.documents else "")


def question_files(split: str, root: Path = UNSEEN_DIR) -> list[Path]:
    """The question files of a split ("all": both) that exist, German first."""
    splits = ("tune", "test") if split == "all" else (split,)
    return [p for lang in LANGUAGES for s in splits
            if (p := root / f"{lang}_{s}.yaml").is_file()]


def _checked(path: Path, split: str) -> AnswerGoldenset:
    """One question file, each question checked: its split document is named, exists and
    belongs to the file's split."""
    gs = load_answer_goldenset(path)
    for q in gs.questions:
        where = f"{path.name} question {q.id}"
        doc = split_document(q)
        if not doc:
            raise GoldensetError(f"{where}: no support document and no 'near' document to "
                                 f"decide its split")
        if not (path.parent / "documents" / doc).is_file():
            raise GoldensetError(f"{where}: document {doc!r} is not in "
                                 f"eval/unseen/documents/")
        if doc_split(doc) != split:
            raise GoldensetError(f"{where}: its document {doc} belongs to the "
                                 f"{doc_split(doc)} split, not to {split}")
        q.split = split
    return gs


def _load(split: str, root: Path) -> AnswerGoldenset:
    if split not in ("tune", "test", "all"):
        raise GoldensetError(f"unknown split {split!r}; choose one of tune, test, all")
    files = question_files(split, root)
    if not files:
        raise GoldensetError(f"no question files for split {split!r} in {root}")
    questions: list[AnswerQuestion] = []
    for path in files:
        questions += _checked(path, path.stem.split("_", 1)[1]).questions
    seen: set[str] = set()
    dup = sorted({q.id for q in questions if q.id in seen or seen.add(q.id)})
    if dup:
        raise GoldensetError(f"unseen benchmark: duplicate question ids {dup}")
    return AnswerGoldenset(f"unseen_{split}", questions,
                           "The unseen answer benchmark (eval/unseen/)", COLLECTION)


def load_unseen(split: str, root: Path = UNSEEN_DIR) -> AnswerGoldenset:
    """The reporting path: the questions of `split` (tune, test or all) of both writers."""
    return _load(split, root)


def load_unseen_for_tuning(split: str = "tune", root: Path = UNSEEN_DIR) -> AnswerGoldenset:
    """For tuning: the tune split only; the test split (and "all") is refused."""
    if split != "tune":
        raise FrozenSplitError(f"the unseen benchmark's {split!r} split is not for tuning: "
                               f"only 'tune' may choose a weight, threshold or rule")
    return _load("tune", root)


def tuning_goldenset(path: str | Path) -> AnswerGoldenset:
    """Any answer goldenset a tuning script may read: a *_test.yaml file is refused."""
    path = Path(path)
    if path.name.endswith("_test.yaml"):
        raise FrozenSplitError(f"{path.name}: a frozen test split cannot be used for tuning")
    return load_answer_goldenset(path)
