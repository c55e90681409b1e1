"""`python -m eval …`: evaluate retrieval configurations on goldensets, run the answer
benchmark, import BEIR datasets, list and compare stored runs. Errors from the RagscopeError
hierarchy become one line on stderr and exit status 1; progress and warnings go to stderr, results to stdout (`--json`
prints only the JSON there). It acts as the operator: every collection (`Scope.everything()`;
the dashboard's evaluation page evaluates within the signed-in user's scope)."""
from __future__ import annotations

import argparse
from pathlib import Path

import backend  # noqa: F401  (offline flags, RAGAS_DO_NOT_TRACK before anything heavy)
from backend.errors import RagscopeError
from eval.commands import (
    _err,
    cmd_answers,
    cmd_compare,
    cmd_configs,
    cmd_export,
    cmd_gate,
    cmd_goldensets,
    cmd_import_beir,
    cmd_routing,
    cmd_run,
    cmd_runs,
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m eval", description=(
        "Evaluate retrieval configurations on goldensets, benchmark answers, import BEIR "
        "datasets, list and compare stored runs, check the regression gate."))
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
    r.add_argument("--split", choices=["all", "tune", "test"], default="all",
                   help="all questions, or the tuning / held-out half (alternating in file "
                        "order)")
    r.add_argument("--no-store", action="store_true", help="do not store the runs")
    r.add_argument("--traces", action=argparse.BooleanOptionalAction, default=None,
                   help="store a retrieval trace per query for the query-debug page "
                        "(default: when at most 1,000 retrievals)")
    r.add_argument("--json", action="store_true",
                   help='print only {"<config>": {"<metric>": value}} on stdout')
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    r.set_defaults(fn=cmd_run)

    an = sub.add_parser("answers", help="answer benchmark: ask an answer goldenset through "
                        "the chat's answering path and score the answers")
    an.add_argument("goldenset", nargs="?",
                    help="an answer goldenset file, e.g. eval/answers_sample.yaml")
    an.add_argument("--benchmark", choices=["unseen"],
                    help="the unseen benchmark (eval/unseen/, issue 22) instead of a file: "
                         "its documents are ingested into collection 'unseen' when needed, "
                         "follow-ups asked turn by turn in one chat session")
    an.add_argument("--provider", "-p", default="extractive",
                    help="any registered answer provider (default: extractive); an "
                         "unavailable provider is an error, nothing is measured")
    an.add_argument("--split", choices=["all", "tune", "test"], default="all",
                    help="all questions, or the tuning / held-out half")
    an.add_argument("--collection", action="append",
                    help="answer from these collections (default: the goldenset's)")
    an.add_argument("--max-tokens", type=int, default=None,
                    help="answer length limit for generative providers (default: the chat "
                         "session default)")
    an.add_argument("--sample", type=int, default=None, metavar="N",
                    help="a deterministic subset of N questions of the split, stratified by "
                         "kind (answerable, near miss, inventory, follow-up) and language "
                         "pair; the same for every provider (eval/answer_subset.py)")
    an.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    an.add_argument("--compare", action="append", metavar="PROVIDER",
                    help="also answer the same questions with this provider (repeatable), "
                         "e.g. --provider local --compare extractive")
    an.add_argument("--context-limit", type=int, default=None, metavar="K",
                    help="sources given to the answerer (default: the session default, 5); "
                         "source length: RAGSCOPE_CHAT_SOURCE_CHARS")
    an.add_argument("--rows", metavar="FILE",
                    help="append one JSON line per answered question (metrics, answer, "
                         "flagged sentences) as it is answered")
    an.add_argument("--label", help="a note stored with the run")
    an.add_argument("--no-store", action="store_true", help="do not store the run")
    an.add_argument("--misses", action="store_true",
                    help="list the questions answered wrongly (or not declined)")
    an.add_argument("--json", action="store_true", help="print only the metrics as JSON")
    an.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    an.set_defaults(fn=cmd_answers)

    ro = sub.add_parser("routing", help="route accuracy of the chat's router on the labelled "
                        "routing set (eval/routing_set.yaml)")
    ro.add_argument("--routing-set", default=str(Path(__file__).with_name("routing_set.yaml")),
                    help="the routing set file (default: eval/routing_set.yaml)")
    ro.add_argument("--split", choices=["all", "tune", "test"], default="all",
                    help="all questions, or the tuning third / the held-out two thirds")
    ro.add_argument("--samples", action="store_true",
                    help="route over the sample corpus (data/samples + data/samples_v2), "
                         "ingested once into --samples-dir, instead of the configured data dir")
    ro.add_argument("--samples-dir", help="data dir for --samples (default: under the temp dir)")
    ro.add_argument("--json", action="store_true", help="print only the metrics as JSON")
    ro.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    ro.set_defaults(fn=cmd_routing)

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
    s.add_argument("--metric", default="ndcg@10",
                   help="metric column (default: ndcg@10; answer runs show accuracy)")
    s.add_argument("--kind", choices=["retrieval", "answers"], help="only runs of this kind")
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
