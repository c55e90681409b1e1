"""A small generated web site about a ferry service, served on 127.0.0.1 for the chatbot
tests (the server of tests/test_crawl_site.py), and a ChatbotService whose crawl guard
allow-lists it."""
from __future__ import annotations

from backend.security.access import Actor
from backend.chatbots.service import ChatbotService
from backend.crawl.service import CrawlService
from tests.crawl_site_support import Reply, Site

EDITOR = Actor("erika", "editor")
VIEWER = Actor("victor", "viewer")
FAST = dict(timeout_s=2.0, retries=0, backoff_s=0.01)
QUICK = {"delay_s": 0.0, "concurrency": 1, "use_sitemap": False}

TOPIC = {
    "/timetable": ("Ferry timetable", [
        ("Summer timetable", "The Lindholm ferry leaves Nordhafen pier every 40 minutes "
         "between 06:20 and 22:40 from May to September. The crossing to Lindholm island "
         "takes 25 minutes."),
        ("Winter timetable", "From October to April the Lindholm ferry runs every 90 "
         "minutes; the last crossing leaves Nordhafen at 20:10.")]),
    "/tickets": ("Tickets and fares", [
        ("Single tickets", "A single ferry ticket for adults costs 7.50 euros; children "
         "under 12 travel for 3.20 euros. Bicycles need a bicycle ticket of 2 euros."),
        ("Season pass", "Islanders buy the season pass at the Nordhafen ticket office; it "
         "covers unlimited crossings for twelve months.")]),
    "/vehicles": ("Cars and vehicles", [
        ("Car deck", "The car deck of the ferry Seeschwalbe carries 24 cars. Vehicle "
         "bookings close two hours before departure."),
        ("Dangerous goods", "Fuel canisters and gas bottles must be declared at the vehicle "
         "check-in lane.")]),
}


def article(title: str, sections: list[tuple[str, str]], links: list[str]) -> bytes:
    body = "".join(f"<h2>{h}</h2><p>{t}</p>" for h, t in sections)
    nav = " ".join(f'<a href="{href}">{href.strip("/")}</a>' for href in links)
    return (f"<html><head><title>{title} | Lindholm Ferry Service</title></head><body>"
            f"<nav>{nav}</nav><main><article><h1>{title}</h1>{body}</article></main>"
            "</body></html>").encode()


def build_ferry_site(site: Site, extra_pages: int = 0) -> list[str]:
    """The ferry site; `extra_pages` numbered notice pages for longer builds. Returns the
    paths of every page."""
    links = list(TOPIC) + [f"/notice/{i}" for i in range(extra_pages)]
    site.routes["/"] = Reply(200, article("Lindholm Ferry Service", [
        ("Welcome aboard", "The Lindholm Ferry Service connects Nordhafen harbour with "
         "Lindholm island all year round. Check the ferry timetable, buy tickets and book "
         "your car on the vehicle deck.")], links))
    for path, (title, sections) in TOPIC.items():
        site.routes[path] = Reply(200, article(title, sections, links))
    for i in range(extra_pages):
        site.routes[f"/notice/{i}"] = Reply(200, article(f"Service notice {i}", [
            (f"Notice {i}", f"Service notice number {i}: the ferry Seeschwalbe docks at "
             f"berth {i + 3} of Nordhafen harbour during the repair of pier {i * 7}.")], []))
    return ["/", *links]


def bot_service(rs, **kw) -> ChatbotService:
    return ChatbotService(rs, crawl=CrawlService(rs, **FAST), **kw)
