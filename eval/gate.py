"""The regression gate: pinned metric floors (eval/floors.yaml) checked against a fresh
evaluation — retrieval metrics per configuration, and (section `answers:`) the answer
benchmark's metrics. Used by `python -m eval gate`, tests/test_eval_gate.py and
tests/test_answer_quality.py."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from eval.goldenset import GoldensetError

FLOORS_FILE = Path(__file__).with_name("floors.yaml")
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Floors:
    goldenset: Path
    collection: str | None
    floors: dict[str, dict[str, float]]  # {config: {metric: floor}}

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(m for f in self.floors.values() for m in f))


def load_floors(path: str | Path = FLOORS_FILE) -> Floors:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise GoldensetError(f"{path}: cannot read floors ({e})") from None
    floors = data.get("floors")
    if not isinstance(floors, dict) or not floors or "goldenset" not in data:
        raise GoldensetError(f"{path}: needs 'goldenset' and a 'floors' mapping "
                             f"{{config: {{metric: floor}}}}")
    gs = Path(data["goldenset"])
    return Floors(gs if gs.is_absolute() else ROOT / gs, data.get("collection"),
                  {str(c): {str(m): float(v) for m, v in (f or {}).items()}
                   for c, f in floors.items()})


def violations(summary: dict[str, dict[str, float]], floors: Floors) -> list[str]:
    """Every metric below its floor (or missing), as one line each."""
    out = []
    for config, fl in floors.floors.items():
        got = summary.get(config, {})
        for metric, floor in fl.items():
            value = got.get(metric)
            if value is None:
                out.append(f"{config} {metric}: not measured (floor {floor})")
            elif value < floor:
                out.append(f"{config} {metric} fell to {value:.4f} (floor {floor})")
    return out


@dataclass
class AnswerFloors:
    goldenset: Path
    provider: str
    floors: dict[str, float]  # {metric: floor}


def load_answer_floors(path: str | Path = FLOORS_FILE) -> AnswerFloors | None:
    """The `answers:` section of the floors file (None when there is none)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise GoldensetError(f"{path}: cannot read floors ({e})") from None
    sec = data.get("answers")
    if sec is None:
        return None
    if not isinstance(sec, dict) or "goldenset" not in sec or not isinstance(
            sec.get("floors"), dict) or not sec["floors"]:
        raise GoldensetError(f"{path}: 'answers' needs 'goldenset' and a 'floors' mapping "
                             f"{{metric: floor}}")
    gs = Path(sec["goldenset"])
    return AnswerFloors(gs if gs.is_absolute() else ROOT / gs, str(sec.get("provider") or
                        "extractive"), {str(m): float(v) for m, v in sec["floors"].items()})


def answer_violations(metrics: dict[str, float], floors: AnswerFloors) -> list[str]:
    """Every answer metric below its floor (or missing), one line each."""
    out = []
    for metric, floor in floors.floors.items():
        value = metrics.get(metric)
        if value is None:
            out.append(f"answers/{floors.provider} {metric}: not measured (floor {floor})")
        elif value < floor:
            out.append(f"answers/{floors.provider} {metric} fell to {value:.4f} (floor {floor})")
    return out
