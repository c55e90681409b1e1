"""Candidate rows for the learned sentence ranker (eval/ranker_tuning.py), TUNE splits only.

Every question of the unseen benchmark's tune split (a dialogue's turns in one chat session,
as `python -m eval answers --benchmark unseen` asks them) and of the sample benchmark (both
halves, each row with its `split`; only the tuning half is fitted on) is asked through the
chat with the hand weights (no learned ranker, the old abstention rule), and the assessment of
its scored turn is recorded: every candidate with its features (scoring.FEATURES and
ranker.EXTRA, as the chat computes them) and its label — would the answer be right if this
candidate were the one quoted (the composed answer, with the sentence before or after it as
the answerer adds them, contains an acceptable answer). The question's documents (its
supporting sentences' files) are the groups of the cross-validation.
It never reads a test split: the goldensets come from `load_unseen_for_tuning()` and
`tuning_goldenset()`."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from eval.unseen_set import load_unseen_for_tuning, tuning_goldenset  # refuse the test split

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "eval" / "answers_sample.yaml"


def _group(q) -> str:
    docs = [s.doc for s in q.support] or list(q.documents)
    return docs[0].split("/")[-1] if docs else f"q:{q.id}"


def candidate_rows(a, answers: list[str], support: list[str]) -> list[dict]:
    """Each ranked candidate of an assessment: features, label, a short text."""
    from backend.answer.extractive import compose
    from eval.answers import contains_answer, squash

    out = []
    for s in a.ranked:
        text = compose(replace(a, ranked=[s] + [x for x in a.ranked if x is not s],
                               abstain=False))
        out.append({"f": {k: round(float(v), 5) for k, v in s.features.items()},
                    "y": bool(answers) and contains_answer(text, answers),
                    "sup": any(x and x in squash(s.candidate.text) for x in support),
                    "n": s.candidate.n, "kind": s.candidate.kind,
                    "lang": s.candidate.language, "text": s.candidate.text[:200]})
    return out


class Recorder:
    """Patches the chat's and the answerer's `assess` to use the hand weights and the old
    abstention rule and to keep every assessment of the current question."""

    def __init__(self):
        import backend.answer.evidence.scoring as scoring
        import backend.chat.service as chat_service

        self.scoring, self.chat = scoring, chat_service
        self.seen: list = []

    def __enter__(self):
        self.orig = (self.chat.assess, self.scoring.load_model, self.scoring.load_ranker)
        assess = self.orig[0]

        def recording(*a, **k):
            out = assess(*a, **{**k, "model": None, "ranker": None})
            self.seen.append(out)
            return out

        self.chat.assess = recording
        self.scoring.load_model = lambda: None
        self.scoring.load_ranker = lambda: None
        return self

    def __exit__(self, *exc):
        self.chat.assess, self.scoring.load_model, self.scoring.load_ranker = self.orig


def _row(q, sq, answer, a, which: str) -> dict:
    from eval.answers import is_abstention, squash
    from eval.answers import contains_answer

    row = {"id": q.id, "set": which, "split": getattr(q, "split", "tune") or "tune",
           "type": sq.type, "lang": q.language, "group": _group(sq),
           "mode": answer.mode or "", "declined": bool(answer.abstained or
                                                       is_abstention(answer.text)),
           "correct": bool(sq.type == "answerable" and contains_answer(answer.text,
                                                                       sq.answers)),
           "cands": []}
    if a is not None and a.top is not None and answer.mode != "analysis":
        row["cands"] = candidate_rows(a, list(sq.answers) if sq.type == "answerable" else [],
                                      [squash(s.sentence) for s in sq.support])
    return row


def collect_unseen(rs) -> list[dict]:
    from backend.chat.service import ChatService
    from eval.unseen_bench import ask_dialogue, ensure_ingested, scored_question

    ensure_ingested(rs)
    rows = []
    with Recorder() as rec:
        svc = ChatService(rs)
        ask = svc.ask_stream

        def ask_turn(*a, **k):  # only the scored (last) turn's assessments count
            rec.seen.clear()
            yield from ask(*a, **k)

        svc.ask_stream = ask_turn
        settings = {"provider": "extractive", "collections": ["unseen"], "temperature": 0.0}
        for q in load_unseen_for_tuning().questions:
            sq = scored_question(q)
            if sq.type not in ("answerable", "unanswerable"):
                continue
            answer, _ = ask_dialogue(svc, q, settings)
            rows.append(_row(q, sq, answer, rec.seen[-1] if rec.seen else None, "unseen"))
    return rows


def collect_sample(rs, path: Path = SAMPLE) -> list[dict]:
    from backend.chat.service import ChatService, SessionSettings
    from eval.answers import chat_answer

    gs = tuning_goldenset(path)
    rows = []
    with Recorder() as rec:
        svc = ChatService(rs)
        cfg = SessionSettings(provider="extractive", collections=[gs.collection or "samples"],
                              temperature=0.0)
        for q in gs.questions:
            if q.type not in ("answerable", "unanswerable"):
                continue
            rec.seen.clear()
            answer = chat_answer(svc, q.question, cfg)
            rows.append(_row(q, q, answer, rec.seen[-1] if rec.seen else None, "sample"))
    return rows


def load_rows(path: str | None, data_dir: str | None, which: str) -> list[dict]:
    """Rows from `path` when it exists, else collected from `data_dir` (and written)."""
    p = Path(path) if path else None
    if p is not None and p.is_file():
        return json.loads(p.read_text(encoding="utf-8"))
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(**({"data_dir": Path(data_dir)} if data_dir else {})))
    try:
        rows = collect_unseen(rs) if which == "unseen" else collect_sample(rs)
    finally:
        rs.close()
    if p is not None:
        p.write_text(json.dumps(rows), encoding="utf-8")
    return rows
