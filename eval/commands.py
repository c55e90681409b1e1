"""The commands of `python -m eval` (eval/cli.py parses the arguments and calls them):
each takes the parsed arguments, prints its results to stdout (progress and warnings to
stderr) and returns the exit status. They act as the operator: every collection
(`Scope.everything()`; the dashboard's evaluation page evaluates within the signed-in user's
scope)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import backend  # noqa: F401  (offline flags, RAGAS_DO_NOT_TRACK before anything heavy)
from backend.security.access import Scope
from backend.errors import ConfigError
from eval.cli_values import names as _names


def _rs():
    from backend.config import Settings
    from backend.services.container import Ragscope

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
    if getattr(a, "split", "all") != "all":
        from eval.goldenset import split_queries

        gs = split_queries(gs, a.split)
    configs = _names(a.config) or ["hybrid"]
    bar = _Progress(a.quiet, "query")
    report, run_ids = service.run(
        rs, gs, configs, scope=Scope.everything(), metrics=_names(a.metrics) or None,
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


def _answer_reports(a, rs) -> list:
    """The answer goldenset file, or the unseen benchmark (ingested into collection `unseen`
    first when needed), answered and scored by each provider on the same questions
    (eval/answer_runs.py)."""
    from eval.answer_runs import run

    return run(a, rs, lambda: _Progress(a.quiet, "question"))


def _print_misses(report) -> None:
    for r in report.results:
        bad = (r.metrics.get("correct") == 0.0 if r.question.type != "unanswerable"
               else not r.metrics["abstained"])
        if r.metrics.get("route_correct") == 0.0:
            bad = True
        if bad:
            route = f" [{getattr(r, 'route_taken', '')}]" if hasattr(r, "route_taken") else ""
            print(f"  {r.question.id:<6} {r.question.question[:60]:<60}{route} -> "
                  f"{' '.join(r.answer.text.split())[:90]}")


def _check_answer_args(a) -> None:
    """Before anything is opened: a goldenset file, or the unseen benchmark, not both."""
    if a.benchmark == "unseen" and (a.goldenset or a.collection):
        raise ConfigError("--benchmark unseen takes no goldenset file and no --collection "
                          "(it asks eval/unseen/*.yaml in collection 'unseen')")
    if a.benchmark is None and not a.goldenset:
        raise ConfigError("name an answer goldenset file, or use --benchmark unseen")


def cmd_answers(a) -> int:
    from eval.store import save_answer_report

    _check_answer_args(a)
    rs = _rs()
    reports = _answer_reports(a, rs)
    for report in reports:
        for w in report.warnings:
            _err(f"warning: {w}")
    run_ids = [None if a.no_store else save_answer_report(rs, r, label=a.label or "")
               for r in reports]
    if a.json:
        out = reports[0].metrics if len(reports) == 1 else {
            r.provider: r.metrics for r in reports}
        print(json.dumps(out, indent=2))
        return 0
    for report, run_id in zip(reports, run_ids):
        _print_answer_report(a, report, run_id)
    return 0


def _print_answer_report(a, report, run_id) -> None:
    gs, m = report.goldenset, report.metrics
    print(f"answer goldenset {gs.name}, provider {report.provider}, split {report.split}: "
          f"{int(m['questions'])} questions ({int(m['answerable'])} answerable, "
          f"{int(m['unanswerable'])} unanswerable, {int(m['inventory'])} inventory)")
    rows = [{"metric": k, "value": v} for k, v in m.items()
            if k not in ("questions", "answerable", "unanswerable", "inventory")]
    print(_table(rows, ["metric", "value"]))
    if a.misses:
        _print_misses(report)
    if run_id is not None:
        print(f"stored as run {run_id}")


def cmd_routing(a) -> int:
    from eval.routing import evaluate_routing, load_routing_set

    items = load_routing_set(a.routing_set)
    rs = _routing_rs(a)
    bar = _Progress(a.quiet, "question")
    report = evaluate_routing(rs, items, split=a.split, on_progress=bar)
    bar.close()
    m = report.metrics()
    if a.json:
        print(json.dumps(m, indent=2, ensure_ascii=False))
        return 0
    print(f"routing set, split {m['split']}: {m['questions']} questions; accuracy "
          f"{m['accuracy']:.4f} (route only {m['route_accuracy']:.4f}; reproductions "
          f"{m['reproductions']}; route p50 {m['route_ms_p50']} ms)")
    rows = [{"group": k, "n": v["n"], "accuracy": v["accuracy"]}
            for k, v in list(m["per_language"].items()) + list(m["per_route"].items())]
    print(_table(rows, ["group", "n", "accuracy"]))
    for x in m["misses"]:
        print(f"  {x['id']} {x['question'][:70]!r}: expected {x['expected']}"
              f"{' (' + x['expected_document'] + ')' if x['expected_document'] else ''}, got "
              f"{x['got']}{' (' + x['got_document'] + ')' if x['got_document'] else ''} - "
              f"{x['why'][:160]}")
    return 0


def _routing_rs(a):
    """The configured data dir, or with --samples the sample corpus ingested (once) into
    `--samples-dir` (default: a folder under the system's temp dir)."""
    if not a.samples:
        return _rs()
    import tempfile

    from backend.config import Settings
    from backend.services.container import Ragscope
    from eval.routing_corpus import SAMPLES, ingest_samples, missing_documents

    data = Path(a.samples_dir or Path(tempfile.gettempdir()) / "ragscope-routing-samples")
    rs = Ragscope(Settings(data_dir=data))
    if missing_documents(rs, [f.name for f in SAMPLES.iterdir()]):
        _err(f"note: ingesting the sample corpus into {data} (once)")
        ingest_samples(rs)
    return rs


def cmd_import_beir(a) -> int:
    from eval.beir import import_beir

    rs = _rs()
    bar = _Progress(a.quiet, "doc")

    def progress(p) -> None:  # documents, plus chunks embedded and the ETA
        bar(p.files_done, p.files_total or p.files_done)
        if bar.bar is not None:
            bar.bar.set_postfix_str(p.summary().split(", ", 1)[-1], refresh=p.item is None)

    r = import_beir(rs, a.dir, name=a.name, split=a.split, limit=a.limit, on_progress=progress)
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

    runs = list_runs(_rs(), a.goldenset, a.limit, kind=a.kind, scope=Scope.everything())
    metric = a.metric
    if a.json:
        print(json.dumps([{"id": r.id, "kind": r.kind, "goldenset": r.goldenset_name,
                           "config": r.config_name,
                           "created_at": r.created_at.isoformat(), "label": r.label,
                           "queries": r.n_queries, "metrics": r.metrics} for r in runs],
                         indent=2))
        return 0
    rows = [{"id": r.id, "created": r.created_at.strftime("%Y-%m-%d %H:%M"), "kind": r.kind,
             "goldenset": r.goldenset_name, "config": r.config_name, "queries": r.n_queries,
             metric: r.metrics.get(metric, r.metrics.get("accuracy", "-")
                                   if r.kind == "answers" else "-"),
             "label": r.label} for r in runs]
    print(_table(rows, ["id", "created", "kind", "goldenset", "config", "queries", metric,
                        "label"]) if rows else "no evaluation runs stored yet")
    return 0


def cmd_compare(a) -> int:
    from eval.compare import compare_runs
    from eval.store import get_run

    rs = _rs()
    ra = get_run(rs, a.run_a, scope=Scope.everything())
    rb = get_run(rs, a.run_b, scope=Scope.everything())
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
    from eval.gate import answer_violations, load_answer_floors, load_floors, violations

    fl = load_floors(a.floors) if a.floors else load_floors()
    rs = _rs()
    gs, _ = service.resolve_goldenset(rs, str(fl.goldenset))
    bar = _Progress(a.quiet, "query")
    report, _ = service.run(rs, gs, list(fl.floors), scope=Scope.everything(), metrics=[
        m for m in fl.metrics if "@" in m or m == "map"], collections=[fl.collection]
        if fl.collection else None, traces=False, store=not a.no_store, label="gate",
        on_progress=bar)
    bar.close()
    for w in report.warnings:
        _err(f"warning: {w}")
    bad = violations(report.summary(), fl)
    answer_floors = load_answer_floors(a.floors) if a.floors else load_answer_floors()
    if answer_floors is not None:
        from eval.answer_set import load_answer_goldenset
        from eval.answers import evaluate_answers

        ar = evaluate_answers(rs, load_answer_goldenset(answer_floors.goldenset),
                              provider=answer_floors.provider)
        bad += answer_violations(ar.metrics, answer_floors)
    for line in bad:
        print(f"FAIL {line}")
    if not bad:
        n = sum(len(f) for f in fl.floors.values()) + (
            len(answer_floors.floors) if answer_floors is not None else 0)
        print(f"gate passed: {n} metric floors held on goldenset {gs.name}"
              + (" and the answer benchmark" if answer_floors is not None else ""))
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
             "source": g.source} for g in list_goldensets(_rs(), scope=Scope.everything())]
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
