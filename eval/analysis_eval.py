"""Score the analysis extractors against the hand-written goldenset
(eval/analysis_goldenset.yaml): precision and recall per extractor, and how often a matched
item's normalised field (date, owner, due, status, vote, default) is right.

    python -m eval.analysis_eval [--json] [--details]

Documents are built from data/samples/ (version 1) and data/samples_v2/ (version 2) with the
ingest stages (extract -> normalise -> structure), the same section tree the store holds;
no store and no embedding model are needed. Matching rules: see the goldenset's header."""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
GOLDENSET = ROOT / "eval" / "analysis_goldenset.yaml"
FOLDERS = {1: ROOT / "data" / "samples", 2: ROOT / "data" / "samples_v2"}
VALUE_KEYED = {"entities": "value", "config_keys": "key", "api_surface": "value"}


def _norm(s) -> str:
    return " ".join(str(s).split())


@dataclass
class Gold:
    doc: str
    version: int
    kind: str
    data: dict
    optional: bool
    entry: int  # index of the document entry in the goldenset

    def matches(self, item) -> bool:
        if item.extractor != self.kind:
            return False
        if self.kind in VALUE_KEYED:
            if self.kind != "config_keys" and item.fields.get("type") != self.data.get("type"):
                return False
            key = VALUE_KEYED[self.kind]
            return _norm(item.fields.get(key, "")).casefold() == _norm(self.data[key]).casefold()
        text = _norm(item.text)
        if not any(_norm(q) in text for q in [self.data["quote"], *self.data.get("also", [])]):
            return False
        want = (self.data.get("section") or "").lower()
        return not want or item.section.lower().startswith(want) or any(
            p.lower().startswith(want) for p in item.section_path)


@dataclass
class Score:
    tp: int = 0  # gold items found
    fn: int = 0  # gold items missed
    correct: int = 0  # predictions that match a (non-optional) gold item
    fp: int = 0  # predictions that match nothing
    fields: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # name -> [ok, n]
    misses: list = field(default_factory=list)
    false: list = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / (self.correct + self.fp) if self.correct + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def to_dict(self) -> dict:
        return {"precision": round(self.precision, 3), "recall": round(self.recall, 3),
                "gold": self.tp + self.fn, "found": self.tp, "predicted": self.correct + self.fp,
                "false_positives": self.fp,
                "fields": {k: round(ok / n, 3) for k, (ok, n) in sorted(self.fields.items()) if n}}


def load(path: Path = GOLDENSET) -> tuple[list[dict], list[Gold]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    docs, golds = data["documents"], []
    for n, d in enumerate(docs):
        for it in d["items"]:
            golds.append(Gold(d["file"], int(d.get("version", 1)), it["kind"], it,
                              bool(it.get("optional")), n))
    return docs, golds


def _labelled(doc: dict) -> dict[str, set[str] | None]:
    """extractor -> entity types labelled (None: every item of the extractor counts)."""
    out: dict[str, set[str] | None] = {}
    for lab in doc["labelled"]:
        name, _, sub = lab.partition(":")
        if sub:
            out.setdefault(name, set()).add(sub)  # type: ignore[union-attr]
        else:
            out[name] = None
    return out


def source_of(doc: dict):
    from backend.analysis.source import source_from_file

    if doc.get("path"):
        return source_from_file(ROOT / doc["path"])
    return source_from_file(FOLDERS[int(doc.get("version", 1))] / doc["file"])


SPLITS = ("dev", "heldout", "all")


def evaluate(path: Path = GOLDENSET) -> dict[str, dict[str, Score]]:
    """{split: {extractor: Score}} for the splits "dev", "heldout" and "all"."""
    from backend.analysis.extractors import run_extractor

    docs, golds = load(path)
    scores: dict[str, dict[str, Score]] = {s: defaultdict(Score) for s in SPLITS}
    sources: dict = {}
    for n, doc in enumerate(docs):
        key = doc.get("path") or (doc["file"], int(doc.get("version", 1)))
        src = sources.get(key) or sources.setdefault(key, source_of(doc))
        version = int(doc.get("version", 1))
        for name, types in _labelled(doc).items():
            preds = [p for p in run_extractor(name, src)
                     if types is None or p.fields.get("type") in types]
            gold = [g for g in golds if g.entry == n and g.kind == name
                    and (types is None or g.data.get("type") in types)]
            for split in (doc.get("split", "dev"), "all"):
                _score(scores[split][name], doc, version, name, preds, gold)
    return {k: dict(v) for k, v in scores.items()}


def _score(sc: "Score", doc: dict, version: int, name: str, preds: list, gold: list) -> None:
    for g in gold:
        if g.optional:
            continue
        hits = [p for p in preds if g.matches(p)]
        if hits:
            sc.tp += 1
            _check_fields(sc, g, hits)
        else:
            sc.fn += 1
            sc.misses.append(f"{doc['file']} v{version}: {_show(g)}")
    for p in preds:
        matched = [g for g in gold if g.matches(p)]
        if any(not g.optional for g in matched):
            sc.correct += 1
        elif not matched:
            sc.fp += 1
            what = (f" ({p.fields.get('type')}={p.fields.get('value') or p.fields.get('key')})"
                    if name in VALUE_KEYED else "")
            sc.false.append(f"{doc['file']} v{version} [{p.section}]: {_norm(p.text)[:140]}{what}")


def _show(g: Gold) -> str:
    return g.data.get("quote") or f"{g.data.get('type', '')}={g.data.get('value') or g.data.get('key')}"


def _surname(s) -> str:
    return _norm(s).split(" ")[-1].casefold() if s else ""


def _check_fields(sc: Score, g: Gold, hits: list) -> None:
    d = g.data

    def check(name: str, ok: bool) -> None:
        sc.fields[name][1] += 1
        sc.fields[name][0] += int(ok)

    if "date" in d:
        want = str(d["date"])
        check("date", any(want == p.fields.get("due") or want in (p.fields.get("dates") or [])
                          for p in hits))
    if "duration" in d:
        check("duration", any(d["duration"] in (p.fields.get("durations") or []) for p in hits))
    if "owner" in d:
        check("owner", any(_surname(p.fields.get("owner")) == _surname(d["owner"]) for p in hits))
    if "due" in d:
        check("due", any(str(d["due"]) == str(p.fields.get("due")) for p in hits))
    if "status" in d:
        check("status", any(d["status"] == p.fields.get("status") for p in hits))
    if "vote" in d:
        check("vote", any(all((p.fields.get("vote") or {}).get(k) == v for k, v in d["vote"].items())
                          for p in hits))
    if "default" in d:
        check("default", any(str(p.fields.get("default")) == str(d["default"]) for p in hits))
    if "step" in d:
        check("step", any(p.fields.get("step") == d["step"] for p in hits))


def check_goldenset(path: Path = GOLDENSET) -> list[str]:
    """Problems with the goldenset itself: a quote that does not occur in its document, a
    section that no section label starts with, an unknown extractor."""
    from backend.analysis.extractors import EXTRACTORS

    docs, golds = load(path)
    problems = []
    sources = [source_of(d) for d in docs]
    for g in golds:
        src = sources[g.entry]
        if g.kind not in EXTRACTORS:
            problems.append(f"{g.doc}: unknown extractor {g.kind}")
        text = _norm(src.text)
        for q in [g.data.get("quote"), *g.data.get("also", [])]:
            if q and _norm(q) not in text:
                problems.append(f"{g.doc} v{g.version}: quote not in the text: {q!r}")
        want = (g.data.get("section") or "").lower()
        if want and not any(s.label.lower().startswith(want) for s in src.sections):
            problems.append(f"{g.doc} v{g.version}: no section starts with {want!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.analysis_eval", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--details", action="store_true", help="list misses and false positives")
    a = ap.parse_args(argv)
    problems = check_goldenset()
    for p in problems:
        print(f"goldenset: {p}", file=sys.stderr)
    scores = evaluate()
    if a.json:
        print(json.dumps({sp: {k: v.to_dict() for k, v in sc.items()} for sp, sc in scores.items()},
                         indent=2))
    else:
        for split in SPLITS:
            print(f"\n{split}\n{'extractor':<18} {'P':>6} {'R':>6} {'gold':>5} {'pred':>5}  fields")
            for k, v in scores[split].items():
                d = v.to_dict()
                print(f"{k:<18} {d['precision']:>6.3f} {d['recall']:>6.3f} {d['gold']:>5} "
                      f"{d['predicted']:>5}  "
                      + ", ".join(f"{f} {x:.2f}" for f, x in d["fields"].items()))
    if a.details:
        for split in ("dev", "heldout"):
            for k, v in scores[split].items():
                for m in v.misses:
                    print(f"MISS  {split} {k}: {m}")
                for f in v.false:
                    print(f"FALSE {split} {k}: {f}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
