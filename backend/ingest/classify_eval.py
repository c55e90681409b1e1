"""Accuracy of the heuristic classifier on the labelled set data/classification/labels.yaml
(the sample corpus, the OCR fixtures and 28 generated documents of the seed's primary types).

    python -m backend.ingest.classify_eval            # accuracy, confusions
    python -m backend.ingest.classify_eval --record   # also write docs/classification.md's table

Each file goes through the ingestion pipeline's own steps (extract with OCR, normalise,
sections, classify with the built-in registry); nothing is stored."""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import backend  # noqa: F401  (offline flags)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
LABELS = DATA / "classification" / "labels.yaml"
DOC = ROOT / "docs" / "classification.md"
MARK_START = "<!-- classify_eval:start -->"
MARK_END = "<!-- classify_eval:end -->"


@dataclass
class Result:
    path: str
    expected: str
    got: str
    confidence: float
    secondary: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.expected == self.got


def classify_path(path: Path, rel: str, settings, types) -> tuple[str, float, list[str]]:
    from backend.ingest.classify import Subject, better_title, classify
    from backend.ingest.extract import extract
    from backend.ingest.extract.limits import ExtractLimits
    from backend.ingest.normalise import normalise
    from backend.ingest.ocr import OcrOptions
    from backend.ingest.structure import build_sections

    raw = extract(path.read_bytes(), path.name, limits=ExtractLimits.from_settings(settings),
                  ocr=OcrOptions.from_settings(settings))
    text = normalise(raw)
    sub = Subject(filename=path.name, text=text.text, sections=build_sections(text),
                  path=rel, fmt=str(text.metadata.get("format", "")), spans=text.spans,
                  meta=dict(text.metadata), page_count=raw.page_count)
    sub.title = better_title(sub, text.title)[0]
    c = classify(sub, types)
    return c.primary_type, c.confidence, c.secondary_types


def evaluate(labels: Path = LABELS) -> list[Result]:
    import yaml

    from backend.config import Settings
    from backend.ingest.doctypes import BUILTIN

    settings = Settings()
    wanted = yaml.safe_load(labels.read_text())
    out = []
    for rel, expected in sorted(wanted.items()):
        got, conf, sec = classify_path(DATA / rel, rel, settings, list(BUILTIN))
        out.append(Result(rel, expected, got, conf, sec))
    return out


def accuracy(results: list[Result]) -> float:
    return sum(r.ok for r in results) / len(results) if results else 0.0


def report(results: list[Result]) -> str:
    acc = accuracy(results)
    by_type: dict[str, list[Result]] = {}
    for r in results:
        by_type.setdefault(r.expected, []).append(r)
    generated = [r for r in results if r.path.startswith("classification/")]
    lines = [f"Measured {dt.date.today().isoformat()} with `python -m backend.ingest.classify_eval"
             f" --record`: **{sum(r.ok for r in results)} of {len(results)} documents "
             f"({acc:.1%})** get the labelled primary type; generated documents "
             f"{sum(r.ok for r in generated)} of {len(generated)} "
             f"({accuracy(generated):.1%}), samples and OCR fixtures "
             f"{sum(r.ok for r in results if r not in generated)} of "
             f"{len(results) - len(generated)}.", "",
             "| primary type | documents | correct |", "|---|---:|---:|"]
    for t in sorted(by_type):
        rs = by_type[t]
        lines.append(f"| {t} | {len(rs)} | {sum(r.ok for r in rs)} |")
    wrong = [r for r in results if not r.ok]
    lines += ["", "Misclassified:" if wrong else "No document is misclassified."]
    lines += [f"- `{r.path}`: labelled {r.expected}, got {r.got} (confidence {r.confidence:.2f})"
              for r in wrong]
    return "\n".join(lines)


def _record(text: str) -> None:
    doc = DOC.read_text()
    head, _, rest = doc.partition(MARK_START)
    _, _, tail = rest.partition(MARK_END)
    DOC.write_text(f"{head}{MARK_START}\n{text}\n{MARK_END}{tail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m backend.ingest.classify_eval")
    ap.add_argument("--record", action="store_true", help="write the table into "
                    "docs/classification.md")
    a = ap.parse_args(argv)
    results = evaluate()
    for r in results:
        mark = "ok " if r.ok else "XX "
        print(f"{mark}{r.path:55} {r.expected:22} {r.got:22} {r.confidence:.2f} "
              f"{','.join(r.secondary)}")
    text = report(results)
    print(text)
    confusions = Counter((r.expected, r.got) for r in results if not r.ok)
    for (e, g), n in confusions.most_common():
        print(f"  {e} -> {g}: {n}", file=sys.stderr)
    if a.record:
        _record(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())


