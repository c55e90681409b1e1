"""Evaluation of retrieval (docs/evaluation.md): goldensets (goldenset.py, store.py), the runner
with ranx IR metrics and RAGAS metrics (runner.py, context_metrics.py, judge.py), named
configurations (configs.py/.yaml), BEIR import (beir.py), stored runs and their comparison
(store.py, compare.py), the regression gate (gate.py, floors.yaml) and `python -m eval` (cli.py)."""
