"""Dashboard helpers without Streamlit imports: session-state keys (`state`) and the crawl
page's console (`crawl`). Pages import these; tests drive them with plain dicts."""
