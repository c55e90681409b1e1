"""Web crawling, re-crawls with change detection, schedules and watched folders
(docs/crawling.md). Entry point: `backend.crawl.service.CrawlService`."""
