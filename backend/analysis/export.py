"""Every analysis result as CSV (one row per item / sentence / change) and JSON, for the
download buttons of the page and the CLI's --csv/--json."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Iterable

from backend.analysis.types import DocumentAnalysis, Item, Summary


def _csv(rows: Iterable[dict], columns: list[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _flat(r.get(k)) for k in columns})
    return buf.getvalue()


def _flat(v):
    if v is None:
        return ""
    if isinstance(v, dict):
        return "; ".join(f"{k}={x}" for k, x in v.items() if x is not None and x != "" and x is not False)
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return v


def items_csv(items: list[Item], fields: Iterable[str] = ()) -> str:
    fields = list(fields) or sorted({k for i in items for k in i.fields})
    cols = ["extractor", *fields, "section", "page", "text", "confidence", "signals", "start",
            "end", "section_id", "origin"]
    return _csv(({"extractor": i.extractor, **i.row()} for i in items), cols)


def analysis_csv(res: DocumentAnalysis) -> str:
    from backend.analysis.extractors import EXTRACTORS

    fields: list[str] = []
    for name in res.results:
        fields += [f for f in EXTRACTORS[name].fields if f not in fields]
    items = [i for r in res.results.values() for i in r.items]
    return items_csv(items, fields)


def to_json(obj) -> str:
    data = obj.to_dict() if hasattr(obj, "to_dict") else asdict(obj)
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def summary_csv(s: Summary) -> str:
    return _csv(({"n": n, **asdict(x)} for n, x in enumerate(s.sentences, 1)),
                ["n", "text", "section", "page", "start", "end", "section_id", "score"])


def version_comparison_dict(c) -> dict:
    return {
        "document_a": asdict(c.document_a), "document_b": asdict(c.document_b),
        "counts": c.counts(),
        "sections": [{**{k: v for k, v in asdict(s).items() if k != "ops"},
                      "ops": [asdict(o) for o in s.ops if o.op != "equal"]}
                     for s in c.sections],
        "items": [{"extractor": i.extractor, "status": i.status, "section": i.section,
                   "a": i.a.to_dict() if i.a else None, "b": i.b.to_dict() if i.b else None}
                  for i in c.items],
    }


def version_comparison_csv(c) -> str:
    rows = [{"kind": "section", "status": s.status, "section": s.label,
             "a": s.text_a[:2000], "b": s.text_b[:2000], "similarity": s.similarity}
            for s in c.sections if s.status != "unchanged"]
    rows += [{"kind": i.extractor, "status": i.status, "section": i.section,
              "a": i.a.text if i.a else "", "b": i.b.text if i.b else ""} for i in c.items]
    return _csv(rows, ["kind", "status", "section", "a", "b", "similarity"])


def document_comparison_dict(c) -> dict:
    return {
        "document_a": asdict(c.document_a), "document_b": asdict(c.document_b),
        "topic_similarity": c.topic_similarity, "shared_topics": c.shared_topics,
        "topics_only_a": c.topics_only_a, "topics_only_b": c.topics_only_b,
        "overlaps": {n: {"shared": [[x.text, y.text] for x, y in o.shared],
                         "only_a": [x.text for x in o.only_a],
                         "only_b": [y.text for y in o.only_b]} for n, o in c.overlaps.items()},
    }


def document_comparison_csv(c) -> str:
    rows = [{"kind": "topic", "status": "shared", "a": w, "b": w} for w in c.shared_topics]
    rows += [{"kind": "topic", "status": "only_a", "a": w, "b": ""} for w in c.topics_only_a]
    rows += [{"kind": "topic", "status": "only_b", "a": "", "b": w} for w in c.topics_only_b]
    for n, o in c.overlaps.items():
        rows += [{"kind": n, "status": "shared", "a": x.text, "b": y.text} for x, y in o.shared]
        rows += [{"kind": n, "status": "only_a", "a": x.text, "b": ""} for x in o.only_a]
        rows += [{"kind": n, "status": "only_b", "a": "", "b": y.text} for y in o.only_b]
    return _csv(rows, ["kind", "status", "a", "b"])


def xref_csv(x) -> str:
    return _csv((asdict(h) for h in x.hits),
                ["rank", "title", "filename", "section", "page", "score", "reason",
                 "shared_terms", "snippet", "document_id", "section_id"])
