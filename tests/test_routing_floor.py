"""CI floor for the chat router (issue 22, item 2): the routing set's tune split routed by the
real router over the sample corpus (with the second versions, so version questions have two
versions) must stay at or above the floor in eval/floors.yaml (`routing:`). The router only:
no passage answer is generated, the corpus is ingested once for the module. Also: the
routing set keeps its promised size and mix, and a bad item is refused with its field named."""
from __future__ import annotations

from collections import Counter

import pytest
import yaml

from eval.goldenset import GoldensetError
from eval.routing import evaluate_routing, load_routing_set, split_of
from tests.conftest import ROOT

FLOORS = yaml.safe_load((ROOT / "eval" / "floors.yaml").read_text(encoding="utf-8"))["routing"]
ITEMS = load_routing_set(ROOT / FLOORS["set"])


@pytest.fixture(scope="module")
def routing_rs(tmp_path_factory, shared_embedder):
    from backend.config import Settings
    from backend.services.container import Ragscope
    from eval.routing_corpus import ingest_samples

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("routing") / "var"))
    rs.embedder = shared_embedder
    ingest_samples(rs)
    yield rs
    rs.close()


def test_the_router_holds_its_floor_on_the_tune_split(routing_rs):
    report = evaluate_routing(routing_rs, ITEMS, split=FLOORS["split"])
    m = report.metrics()
    assert m["questions"] == sum(1 for i in ITEMS if i.split == "tune")
    assert m["accuracy"] >= FLOORS["floors"]["accuracy"], m["misses"]


def test_size_mix_and_split_of_the_routing_set():
    assert len(ITEMS) >= 220
    langs = Counter(i.language for i in ITEMS)
    assert min(langs.values()) >= 0.4 * len(ITEMS), langs
    routes = Counter(i.route.split(":")[0] for i in ITEMS)
    for r in ("passage", "inventory", "extract", "summarize_document", "summarize_section",
              "compare_versions", "compare_documents", "cross_reference", "url"):
        assert routes[r] >= 8, (r, routes)
    assert sum(1 for i in ITEMS if i.previous) >= 15
    assert sum(1 for i in ITEMS if i.reproduction) >= 9
    tune = sum(1 for i in ITEMS if i.split == "tune")
    assert 0.28 < tune / len(ITEMS) < 0.38 and all(i.split == split_of(i.id) for i in ITEMS)


@pytest.mark.parametrize("item,message", [
    ({"id": "x1", "question": "Q?", "language": "de", "route": "summary", "split": "test"},
     "route 'summary'"),
    ({"id": "x1", "question": "Q?", "language": "fr", "route": "passage", "split": "test"},
     "language"),
    ({"id": "x1", "question": "Q?", "language": "de", "route": "passage", "split": "tune"},
     "split must be 'test'"),
    ({"id": "x1", "language": "de", "route": "passage"}, "needs 'id' and 'question'"),
])
def test_bad_items_are_refused_with_the_field_named(tmp_path, item, message):
    path = tmp_path / "routing.yaml"
    path.write_text(yaml.safe_dump({"questions": [item]}), encoding="utf-8")
    with pytest.raises(GoldensetError, match=message) as e:
        load_routing_set(path)
    assert str(path) in str(e.value) and "x1" in str(e.value)


def test_the_eval_routing_command_reports_per_route_and_language(routing_rs, capsys):
    """`python -m eval routing --samples --samples-dir DIR --split tune --json` on the
    already ingested corpus (no second ingest): the metrics a user reads."""
    import json

    from eval.cli import main

    assert main(["routing", "--samples", "--samples-dir", str(routing_rs.settings.data_dir),
                 "--split", "tune", "--json", "-q"]) == 0
    out = capsys.readouterr()
    m = json.loads(out.out)
    assert m["split"] == "tune" and m["questions"] == sum(1 for i in ITEMS if i.split == "tune")
    assert set(m["per_language"]) == {"de", "en"} and "passage" in m["per_route"]
    assert "ingesting" not in out.err  # the corpus was there already
    assert main(["routing", "--routing-set", str(ROOT / "missing.yaml")]) == 1
    assert "missing.yaml" in capsys.readouterr().err
