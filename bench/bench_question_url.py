"""What a URL in a chat question costs (backend/chat/question_url.py): the same question asked
N times with a URL of a page on a site on 127.0.0.1 (allowed through crawl_allowed_hosts) and
without it, extractive answerer, one small document; reports the median answer latency of each,
the median `question URL` stage (robots.txt + page fetch + extraction) and the load.

    OPENBLAS_NUM_THREADS=1 HF_HUB_OFFLINE=1 nice -n 10 python -m bench.bench_question_url [N]"""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from backend.chat.service import ChatService
from backend.config import Settings
from backend.ingest.service import Ingestor
from backend.security.access import Scope
from backend.services.container import Ragscope
from backend.store.models import RetrievalTrace
from bench.machine import uptime
from tests.crawl_site_support import Reply, Site, page

TEXT = ("Das Parkhaus Am Markt hat 420 Stellplätze. Die maximale Fahrzeughöhe beträgt 2,10 m. "
        "Geöffnet ist täglich von 6 bis 23 Uhr. ") * 20  # ~2.6 KB of text, several passages
DOC = (b"Pressemitteilung der Stadtwerke: Der neue Arbeitspreis fuer Trinkwasser betraegt "
       b"2,37 EUR je Kubikmeter.")


def _stage_ms(rs, trace_id: str) -> float:
    with rs.store.session() as s:
        stages = s.get(RetrievalTrace, trace_id).trace["trace"]["stages"]
    return next(x["ms"] for x in stages if x["name"] == "question URL")


def main(n: int = 10) -> None:
    with Site() as site, tempfile.TemporaryDirectory() as tmp:
        site.routes["/info.html"] = Reply(body=page("Parkhaus Am Markt", TEXT))
        rs = Ragscope(Settings(data_dir=Path(tmp) / "var",
                               crawl_allowed_hosts=f"127.0.0.1:{site.port}"))
        assert Ingestor(rs).ingest_bytes(DOC, "pm.txt", collection="c").ok
        svc = ChatService(rs)
        sess = svc.create_session("bench")
        asks = {"with URL": f"Wie hoch ist die maximale Fahrzeughöhe laut {site.base}/info.html?",
                "without": "Wie hoch ist die maximale Fahrzeughöhe?"}
        svc.ask(sess.uuid, asks["without"], scope=Scope.everything())  # warm the model
        out: dict[str, list[float]] = {k: [] for k in asks}
        stage: list[float] = []
        for _ in range(n):
            for label, q in asks.items():
                m = svc.ask(sess.uuid, q, scope=Scope.everything()).message
                out[label].append(m.latency_ms)
                if label == "with URL":
                    assert "2,10" in m.content and m.sources[0].get("kind") == "web"
                    stage.append(_stage_ms(rs, m.trace_id))
        rs.close()
    for label, xs in out.items():
        print(f"{label:9s} median answer latency {statistics.median(xs):7.1f} ms (n={n})")
    print(f"question URL stage median {statistics.median(stage):.1f} ms, "
          f"max {max(stage):.1f} ms")
    print(uptime())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
