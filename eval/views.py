"""Tables the evaluation page shows, built from stored runs (plain data, no Streamlit). Every
function takes the reader's Scope: runs it may not see are left out (eval/store.py)."""
from __future__ import annotations

from dataclasses import dataclass

from backend.security.access import Scope
from eval.store import StoredRun, get_run, list_runs


@dataclass
class Batch:
    """The configurations evaluated together in one invocation."""

    id: str
    goldenset: str
    created_at: object
    label: str
    runs: list[StoredRun]

    @property
    def title(self) -> str:
        names = ", ".join(r.info.config_name for r in self.runs)
        lab = f" · {self.label}" if self.label else ""
        return f"{self.created_at:%Y-%m-%d %H:%M} · {names}{lab}"


def batches(rs, goldenset: str, limit: int = 30, *, scope: Scope) -> list[tuple[str, str]]:
    """(batch id, title) of a goldenset's recent batches, newest first."""
    seen: dict[str, list] = {}
    for r in list_runs(rs, goldenset, limit=limit * 6, scope=scope):
        seen.setdefault(r.batch, []).append(r)
    out = []
    for b, runs in list(seen.items())[:limit]:
        runs.sort(key=lambda r: r.id)
        lab = f" · {runs[0].label}" if runs[0].label else ""
        out.append((b, f"{runs[0].created_at:%Y-%m-%d %H:%M} · "
                       f"{', '.join(r.config_name for r in runs)}{lab}"))
    return out


def load_batch(rs, goldenset: str, batch: str, *, scope: Scope) -> Batch | None:
    infos = sorted((r for r in list_runs(rs, goldenset, limit=2000, scope=scope)
                    if r.batch == batch), key=lambda r: r.id)
    if not infos:
        return None
    runs = [get_run(rs, r.id, scope=scope) for r in infos]
    return Batch(batch, goldenset, infos[0].created_at, infos[0].label, runs)


def metrics_table(batch: Batch) -> list[dict]:
    return [{"run": r.info.id, "configuration": r.info.config_name, "queries": r.info.n_queries,
             **r.info.metrics, "seconds": round(r.info.duration_s, 1)} for r in batch.runs]


def metric_names(batch: Batch) -> list[str]:
    return list(dict.fromkeys(m for r in batch.runs for m in r.info.metrics))


def long_metrics(batch: Batch) -> list[dict]:
    """One row per (configuration, metric), for the grouped bar chart."""
    return [{"configuration": r.info.config_name, "metric": m, "value": v}
            for r in batch.runs for m, v in r.info.metrics.items()]


def heatmap(batch: Batch, metric: str) -> tuple[list[str], list[str], list[list[float | None]]]:
    """(query ids, configurations, values[query][configuration]); queries sorted by their
    mean value, weakest first."""
    configs = [r.info.config_name for r in batch.runs]
    qids = list(dict.fromkeys(q for r in batch.runs for q in r.results))
    z = [[r.results[q].metrics.get(metric) if q in r.results else None for r in batch.runs]
         for q in qids]
    order = sorted(range(len(qids)), key=lambda i: (
        sum(v for v in z[i] if v is not None) / max(1, sum(v is not None for v in z[i])),
        qids[i]))
    return [qids[i] for i in order], configs, [z[i] for i in order]


def query_rows(run: StoredRun, metrics: list[str]) -> list[dict]:
    rows = []
    for r in run.results.values():
        top = [d for d, _ in r.ranking[:5]]
        first = next((i for i, (d, _) in enumerate(r.ranking, 1) if d in r.relevant), None)
        rows.append({"query": r.query_id, "question": r.question,
                     **{m: r.metrics.get(m) for m in metrics},
                     "first relevant rank": first, "top documents": ", ".join(top),
                     "relevant": ", ".join(sorted(r.relevant)),
                     "ms": round(r.latency_ms, 1),
                     "trace": f"query_debug?trace={r.trace_id}" if r.trace_id else None})
    return rows


def history_rows(rs, goldenset: str, limit: int = 500, *, scope: Scope) -> list[dict]:
    return [{"run": r.id, "created_at": r.created_at, "configuration": r.config_name,
             "label": r.label, **r.metrics}
            for r in reversed(list_runs(rs, goldenset, limit, scope=scope))]


def run_choices(rs, goldenset: str, limit: int = 200, *, scope: Scope) -> dict[int, str]:
    return {r.id: f"#{r.id} · {r.config_name} · {r.created_at:%Y-%m-%d %H:%M}"
                  + (f" · {r.label}" if r.label else "")
            for r in list_runs(rs, goldenset, limit, scope=scope)}
