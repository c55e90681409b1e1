"""The CI floor of the classifier: primary_type accuracy on the labelled set
data/classification/labels.yaml (samples, OCR fixtures, 28 generated documents of the seed's
primary types in data/classification/). Measured figures: docs/classification.md."""
from __future__ import annotations

import yaml

from backend.ingest.classify_eval import LABELS, accuracy, evaluate

FLOOR = 0.90  # measured 0.978 (45 of 46) on 2026-12-01; the issue asks for >= 0.9
SEED_TYPES = {"generic_text", "web_article", "documentation_website", "book",
              "scientific_paper", "technical_report", "meeting_minutes", "policy", "contract",
              "code_documentation", "source_code_file", "api_reference", "runbook_or_ops_doc",
              "requirement_spec", "pdf_scanned"}


def test_labelled_set_covers_the_seeds_types():
    labels = yaml.safe_load(LABELS.read_text())
    generated = [p for p in labels if p.startswith("classification/")]
    assert len(generated) >= 20
    assert SEED_TYPES <= set(labels.values())
    assert len([p for p in labels if p.startswith("samples/")]) == 15


def test_every_document_of_the_set_is_labelled_and_every_label_has_its_file():
    labels = yaml.safe_load(LABELS.read_text())
    data = LABELS.parent.parent
    files = {str(p.relative_to(data)) for p in LABELS.parent.rglob("*")
             if p.is_file() and p != LABELS}
    assert files - set(labels) == set(), "documents of data/classification/ without a label"
    assert [p for p in labels if not (data / p).is_file()] == [], "labels without their file"


def test_primary_type_accuracy_holds_its_floor():
    results = evaluate()
    acc = accuracy(results)
    wrong = [(r.path, r.expected, r.got) for r in results if not r.ok]
    assert acc >= FLOOR, f"accuracy {acc:.3f} < {FLOOR}: {wrong}"
