"""An evaluation run from the dashboard as a background job (backend/services/background.py):
the page returns at once, the job records "n of m steps" (queries embedded, then retrieved
per configuration), and its result names the stored runs and their batch, which the page
lands on. `python -m eval run` keeps running in the foreground (eval/cli.py)."""
from __future__ import annotations

from backend.retrieval import TraceOwner
from backend.security.access import Scope
from backend.services import background
from eval import service
from eval.configs import resolve
from eval.goldenset import Goldenset
from eval.store import get_run

EVAL = "eval"
MAX_LISTED = 200  # goldenset warnings kept in the job's result


def running(rs):
    """The evaluation running on this data dir, or None."""
    return background.running(rs.store, EVAL)


def latest(rs):
    return background.latest(rs.store, EVAL)


def start_eval(rs, gs: Goldenset, config_names: list[str], *, scope: Scope, by: str,
               metrics: list[str] | None = None, traces: bool | None = None,
               judge: str | None = None, label: str = "", wait: bool = False) -> int:
    """Start the run of `config_names` over `gs` (one evaluation at a time per data dir:
    both cores go to it); returns the job id. A cancel stops it before the next query and
    nothing is stored."""
    resolve(config_names)  # an unknown configuration is refused now, not in the job

    def work(task: background.Task) -> dict:
        report, ids = service.run(
            rs, gs, config_names, scope=scope, metrics=metrics, traces=traces, judge=judge,
            label=label, owner=TraceOwner.user(by),
            on_progress=lambda done, total, what: task.progress(done, total, what))
        batch = get_run(rs, ids[0], scope=scope).info.batch if ids else None
        return {"goldenset": gs.name, "run_ids": ids, "batch": batch,
                "summary": f"{len(ids)} run{'' if len(ids) == 1 else 's'} of goldenset "
                           f"{gs.name} stored.",
                "notes": list(report.notes),
                "warnings": list(report.warnings[:MAX_LISTED]),
                "warnings_total": len(report.warnings)}

    return background.start(rs.store, EVAL, work, title="An evaluation", by=by,
                            unit="steps", wait=wait,
                            params={"goldenset": gs.name, "configs": list(config_names)})
