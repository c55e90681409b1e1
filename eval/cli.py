"""`python -m eval …`: evaluate retrieval configurations on goldensets, import BEIR datasets,
list and compare stored runs. Errors from the RagscopeError hierarchy become one line on
stderr and exit status 1; progress and warnings go to stderr, results to stdout (`--json`
prints only the JSON there)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import backend  # noqa: F401  (offline flags, RAGAS_DO_NOT_TRACK before anything heavy)
from backend.errors import RagscopeError


def _rs():
    from backend.config import Settings
    from backend.services import Ragscope

    return Ragscope(Settings())


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


class _Progress:
    """A tqdm bar on stderr, opened at the first report (so errors before it print cleanly)."""

    def __init__(self, quiet: bool, unit: str):
        self.quiet, self.unit, self.bar = quiet, unit, None

    def __call__(self, done: int, total: int, label: str = "") -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=self.unit, disable=self.quiet, file=sys.stderr,
                            dynamic_ncols=True)
        self.bar.total = total
        if label:
            self.bar.set_description_str(label[:24], refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _names(values: list[str] | None) -> list[str]:
    return [n.strip() for v in values or [] for n in v.split(",") if n.strip()]


def _fmt(v) -> str:
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def _table(rows: list[dict], cols: list[str]) -> str:
    cells = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) if cells else len(c)
              for i, c in enumerate(cols)]
    line = lambda xs: "  ".join(x.ljust(w) if i == 0 else x.rjust(w)  # noqa: E731
                                for i, (x, w) in enumerate(zip(xs, widths)))
    return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(x) for x in cells])


# ---- commands -----------------------------------------------------------------------------


def cmd_run(a) -> int:
    from eval import service

    rs = _rs()
    gs, notes = service.resolve_goldenset(rs, a.goldenset)
    configs = _names(a.config) or ["hybrid"]
    bar = _Progress(a.quiet, "query")
    report, run_ids = service.run(
        rs, gs, configs, metrics=_names(a.metrics) or None,
        collections=_names(a.collection) or None, traces=a.traces,
        judge=a.judge, store=not a.no_store, label=a.label or "", on_progress=bar)
    bar.close()
    for msg in notes + report.notes:
        _err(f"note: {msg}")
    for w in report.warnings:
        _err(f"warning: {w}")
    summary = report.summary()
    if a.json:
        print(json.dumps(summary, indent=2))
        return 0
    metrics = list(dict.fromkeys(m for v in summary.values() for m in v))
    n = len(next(iter(report.configs.values())).per_query)
    print(f"goldenset {gs.name}: {n} of {len(gs.queries)} queries evaluated")
    print(_table([{"config": c, **v} for c, v in summary.items()], ["config"] + metrics))
    if run_ids:
        print(f"stored as run(s) {', '.join(map(str, run_ids))}")
    return 0


def cmd_import_beir(a) -> int:
    from eval.beir import import_beir

    rs = _rs()
    bar = _Progress(a.quiet, "doc")
    r = import_beir(rs, a.dir, name=a.name, split=a.split, limit=a.limit, on_progress=bar)
    bar.close()
    for w in r.warnings:
        _err(f"warning: {w}")
    print(f"{r.documents} documents into collection {r.collection} ({r.new} new, "
          f"{r.unchanged} unchanged, {r.merged} merged duplicates, {r.failed} failed) in "
          f"{r.seconds:.1f}s ({r.docs_per_s:.1f} documents/s); goldenset '{r.name}' with "
          f"{r.queries} queries. Evaluate: python -m eval run {r.name}")
    return 1 if r.failed else 0


def cmd_runs(a) -> int:
    from eval.store import list_runs

    runs = list_runs(_rs(), a.goldenset, a.limit)
    metric = a.metric
    if a.json:
        print(json.dumps([{"id": r.id, "goldenset": r.goldenset_name, "config": r.config_name,
                           "created_at": r.created_at.isoformat(), "label": r.label,
                           "queries": r.n_queries, "metrics": r.metrics} for r in runs],
                         indent=2))
        return 0
    rows = [{"id": r.id, "created": r.created_at.strftime("%Y-%m-%d %H:%M"),
             "goldenset": r.goldenset_name, "config": r.config_name, "queries": r.n_queries,
             metric: r.metrics.get(metric, "-"), "label": r.label} for r in runs]
    print(_table(rows, ["id", "created", "goldenset", "config", "queries", metric, "label"])
          if rows else "no evaluation runs stored yet")
    return 0


def cmd_compare(a) -> int:
    from eval.compare import compare_runs
    from eval.store import get_run

    rs = _rs()
    ra, rb = get_run(rs, a.run_a), get_run(rs, a.run_b)
    c = compare_runs(ra, rb, _names(a.metrics) or None, alpha=a.alpha)
    for n in c.notes:
        _err(f"note: {n}")
    if a.json:
        print(json.dumps({"a": ra.info.id, "b": rb.info.id, "queries": len(c.queries),
                          "metrics": c.table(), "notes": c.notes}, indent=2, default=str))
        return 0
    print(f"A = run {ra.info.id} ({ra.info.config_name}, {ra.info.created_at:%Y-%m-%d %H:%M})"
          f"   B = run {rb.info.id} ({rb.info.config_name}, {rb.info.created_at:%Y-%m-%d %H:%M})"
          f"   {len(c.queries)} common queries")
    print(_table(c.table(), list(c.table()[0]) if c.metrics else ["metric"]))
    main_metric = next((m for m in c.metrics if m.metric == a.detail), None)
    if main_metric is not None:
        changed = [r for r in c.per_query if r[a.detail][0] != r[a.detail][1]]
        if changed:
            print(f"\nqueries whose {a.detail} changed (A -> B):")
            for r in sorted(changed, key=lambda r: r[a.detail][1] - r[a.detail][0]):
                va, vb = r[a.detail]
                print(f"  {r['query_id']:<12} {va:.3f} -> {vb:.3f}  {r['question'][:70]}")
    return 0


def cmd_gate(a) -> int:
    from eval import service
    from eval.gate import load_floors, violations

    fl = load_floors(a.floors) if a.floors else load_floors()
    rs = _rs()
    gs, _ = service.resolve_goldenset(rs, str(fl.goldenset))
    bar = _Progress(a.quiet, "query")
    report, _ = service.run(rs, gs, list(fl.floors), metrics=[
        m for m in fl.metrics if "@" in m or m == "map"], collections=[fl.collection]
        if fl.collection else None, traces=False, store=not a.no_store, label="gate",
        on_progress=bar)
    bar.close()
    for w in report.warnings:
        _err(f"warning: {w}")
    bad = violations(report.summary(), fl)
    for line in bad:
        print(f"FAIL {line}")
    if not bad:
        n = sum(len(f) for f in fl.floors.values())
        print(f"gate passed: {n} metric floors held on goldenset {gs.name}")
    return 1 if bad else 0


def cmd_configs(a) -> int:
    from eval.configs import load_configs

    for name, c in load_configs().items():
        params = c.params.model_dump(exclude_defaults=True)
        print(f"{name:<18} {c.description}  {json.dumps(params) if params else ''}")
    return 0


def cmd_goldensets(a) -> int:
    from eval.store import list_goldensets

    rows = [{"name": g.name, "queries": g.n_queries, "doc_key": g.doc_key,
             "collection": g.collection or "", "edited": "yes" if g.edited else "",
             "source": g.source} for g in list_goldensets(_rs())]
    print(_table(rows, ["name", "queries", "doc_key", "collection", "edited", "source"])
          if rows else "no goldensets stored yet")
    return 0


def cmd_export(a) -> int:
    from eval.store import get_goldenset

    gs = get_goldenset(_rs(), a.name)
    text = gs.to_jsonl() if a.format == "jsonl" else gs.to_yaml()
    if a.output:
        Path(a.output).write_text(text, encoding="utf-8")
        _err(f"wrote {len(gs.queries)} queries to {a.output}")
    else:
        sys.stdout.write(text)
    return 0


# ---- parser -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m eval", description=(
        "Evaluate retrieval configurations on goldensets, import BEIR datasets, list and "
        "compare stored runs, check the regression gate."))
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="evaluate configurations on a goldenset")
    r.add_argument("goldenset", help="a goldenset file (.yaml/.jsonl) or a stored goldenset name")
    r.add_argument("--config", "-c", action="append",
                   help="configuration name from eval/configs.yaml (repeat or comma-separate; "
                        "default: hybrid)")
    r.add_argument("--metrics", "-m", action="append",
                   help="IR metrics, e.g. ndcg@10,recall@10,hit@5,mrr@10,map (default: "
                        "hit@1,5,10 recall@5,10 mrr@10 ndcg@10 map)")
    r.add_argument("--collection", action="append",
                   help="evaluate within these collections (default: the goldenset's)")
    r.add_argument("--judge", choices=["ollama", "anthropic", "openai"],
                   help="LLM provider for faithfulness and answer relevancy (default: skipped)")
    r.add_argument("--label", help="a note stored with the runs")
    r.add_argument("--no-store", action="store_true", help="do not store the runs")
    r.add_argument("--traces", action=argparse.BooleanOptionalAction, default=None,
                   help="store a retrieval trace per query for the query-debug page "
                        "(default: when at most 1,000 retrievals)")
    r.add_argument("--json", action="store_true",
                   help='print only {"<config>": {"<metric>": value}} on stdout')
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    r.set_defaults(fn=cmd_run)

    b = sub.add_parser("import-beir", help="import a BEIR dataset folder")
    b.add_argument("dir", help="folder with corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    b.add_argument("--name", help="goldenset name (default: the folder name)")
    b.add_argument("--split", default="test", help="qrels split (default: test)")
    b.add_argument("--limit", type=int, help="import only the first N corpus documents")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    b.set_defaults(fn=cmd_import_beir)

    s = sub.add_parser("runs", help="list stored evaluation runs, newest first")
    s.add_argument("--goldenset", help="only runs of this goldenset")
    s.add_argument("--limit", type=int, default=50)
    s.add_argument("--metric", default="ndcg@10", help="metric column (default: ndcg@10)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_runs)

    c = sub.add_parser("compare", help="compare two stored runs with significance tests")
    c.add_argument("run_a", type=int)
    c.add_argument("run_b", type=int)
    c.add_argument("--metrics", "-m", action="append", help="metrics (default: all shared)")
    c.add_argument("--detail", default="ndcg@10",
                   help="list the queries whose value of this metric changed")
    c.add_argument("--alpha", type=float, default=0.05, help="significance level")
    c.add_argument("--json", action="store_true")
    c.set_defaults(fn=cmd_compare)

    g = sub.add_parser("gate", help="regression gate: fail when a metric is below its floor")
    g.add_argument("--floors", help="floors file (default: eval/floors.yaml)")
    g.add_argument("--no-store", action="store_true", help="do not store the runs")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    g.set_defaults(fn=cmd_gate)

    sub.add_parser("configs", help="list the named configurations").set_defaults(fn=cmd_configs)
    sub.add_parser("goldensets", help="list stored goldensets").set_defaults(fn=cmd_goldensets)
    e = sub.add_parser("export", help="write a stored goldenset as YAML or JSONL")
    e.add_argument("name")
    e.add_argument("--format", choices=["yaml", "jsonl"], default="yaml")
    e.add_argument("--output", "-o", help="file to write (default: stdout)")
    e.set_defaults(fn=cmd_export)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except RagscopeError as e:
        _err(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
