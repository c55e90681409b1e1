"""A follow-up after a question with a URL reuses the page that question fetched (issue
26.4): not fetched again, cited as the web source, the trace says `reused`; a question that
is no follow-up does not get the page."""
from __future__ import annotations

from backend.chat.service import ChatService
from backend.ingest.service import Ingestor
from backend.security.access import Scope
from backend.store.models import RetrievalTrace
from tests.crawl_site_support import Reply, Site, page

PARKING = page("Parkhaus Am Markt", "Das Parkhaus Am Markt hat 420 Stellplätze. Die maximale "
               "Fahrzeughöhe beträgt 2,10 m. Geöffnet ist täglich von 6 bis 23 Uhr.")
DOC = (b"Pressemitteilung der Stadtwerke: Der neue Arbeitspreis fuer Trinkwasser betraegt ab "
       b"1. Januar 2025 2,37 EUR je Kubikmeter. Die Wartungsfenster liegen dienstags.")


def _stage(rs, trace_id) -> dict:
    with rs.store.session() as s:
        stages = s.get(RetrievalTrace, trace_id).trace["trace"]["stages"]
    return next(x for x in stages if x["name"] == "question URL")


def test_a_follow_up_reuses_the_page_of_the_previous_question(make_rs):
    with Site() as site:
        site.routes["/info.html"] = Reply(body=PARKING)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}", crawl_timeout_s=2.0)
        Ingestor(rs).ingest_bytes(DOC, "pressemitteilung.txt", collection="public")
        svc = ChatService(rs)
        sess = svc.create_session("alice")
        url = site.base + "/info.html"
        ask = lambda q: svc.ask(sess.uuid, q, scope=Scope.everything()).message
        first = ask(f"Wie viele Stellplätze hat das Parkhaus laut {url}?")
        assert "420" in first.content and first.sources[0]["kind"] == "web", first.content
        fetched = [p for _, p in site.log if p == "/info.html"]
        assert len(fetched) == 1

        again = ask("Und die maximale Fahrzeughöhe?")
        assert "2,10 m" in again.content, again.content
        web = again.sources[0]
        assert web["kind"] == "web" and web["url"] == url and web["cited"]
        assert [p for _, p in site.log if p == "/info.html"] == fetched  # not fetched again
        stage = _stage(rs, again.trace_id)
        assert stage["params"]["outcome"] == "reused" and "previous question" in stage["note"]
        assert again.rewrite and again.rewrite["followup"]

        other = ask("Wie hoch ist der Arbeitspreis für Trinkwasser?")  # its own subject
        assert "2,37" in other.content
        assert all(s.get("kind") != "web" for s in other.sources)
