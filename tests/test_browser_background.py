"""In a real browser (Debian chromium via Playwright): an evaluation run started on the
Evaluation page runs as a background job. Its progress shows at once; a second tab shows the
same job (and a second click there names it instead of starting another run); the page stays
usable (another page opens and the evaluation page comes back with the job still followed);
when the job has finished the page lands on its results. The dashboard runs under
`streamlit run` on 127.0.0.1 with a temporary data dir prepared in this process; it is
stopped in teardown. All waits are on conditions (generous: CI is loaded), none is a sleep."""
from __future__ import annotations

import os
import re

import pytest

from tests.browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _nav,
    _settled,
    _shot,
    _sign_in,
    _wait_for_cookie,
    streamlit_app,
)

PASSWORD = "browser-background-pw-1"
TOPICS = 12  # documents; QUESTIONS_PER_TOPIC each: enough steps that the run takes seconds
QUESTIONS_PER_TOPIC = 5
GOLDENSET = "background"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


def corpus() -> dict[str, bytes]:
    """Small distinct documents: station n has its own pump, valve, pressure and schedule."""
    return {f"station_{n:02d}.md": (
        f"# Station {n}\n\nStation {n} runs pump P-{n} at {100 + n} cubic metres an hour.\n\n"
        f"## Maintenance\n\nValve V-{n} is tested every {n % 7 + 1} weeks; the seals of pump "
        f"P-{n} are replaced after {n + 3} years.\n\n## Pressure\n\nThe outlet pressure of "
        f"station {n} is {2 + n / 10:.1f} bar.\n").encode() for n in range(1, TOPICS + 1)}


def goldenset():
    from eval.goldenset import GoldQuery, Relevant, make_goldenset

    asks = ["How much water does pump P-{n} move?", "When is valve V-{n} tested?",
            "After how many years are the seals of pump P-{n} replaced?",
            "What is the outlet pressure of station {n}?", "Which pump runs at station {n}?"]
    qs = [GoldQuery(f"q{n:02d}{i}", a.format(n=n), [Relevant(f"station_{n:02d}.md", 2)])
          for n in range(1, TOPICS + 1) for i, a in enumerate(asks[:QUESTIONS_PER_TOPIC])]
    return make_goldenset(GOLDENSET, qs)


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope
    from eval.store import save_goldenset

    data = tmp_path_factory.mktemp("browser_background") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    docs = corpus()
    outs = Ingestor(rs).ingest_many(list(docs.items()), total=len(docs))
    assert all(o.ok for o in outs), [o.error for o in outs]
    save_goldenset(rs, goldenset(), source="test")
    rs.close()
    with streamlit_app(data, PASSWORD, "server_background.log") as url:
        yield url


def test_evaluation_runs_in_the_background_with_progress(server):
    from playwright.sync_api import expect, sync_playwright

    url = server
    expect.set_options(timeout=180_000)  # a loaded machine: script runs take their time
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1100})
        page = context.new_page()
        page.set_default_timeout(180_000)
        second = None
        try:
            page.goto(url)
            _settled(page)
            _sign_in(page, "admin", PASSWORD)
            expect(page.get_by_text("Signed in as")).to_be_visible()
            _wait_for_cookie(page, "admin", timeout=60)
            page.goto(f"{url}/evaluation")
            _settled(page)
            page.get_by_role("button", name="Run evaluation").click()
            # the page returns at once and shows the job's progress
            bar = page.get_by_test_id("stProgress")
            expect(bar).to_be_visible()
            expect(bar).to_contain_text(re.compile(r"An evaluation: \d+ of \d+ steps"))
            _shot(page, "background_1_progress")
            # a second tab follows the same job; a second click names it, no second run
            second = context.new_page()
            second.set_default_timeout(180_000)
            second.goto(f"{url}/evaluation")
            expect(second.get_by_test_id("stProgress")).to_contain_text("An evaluation:")
            second.get_by_role("button", name="Run evaluation").click()
            expect(second.get_by_text(re.compile(r"An evaluation is already running: job \d+"))
                   ).to_be_visible()
            _shot(second, "background_2_second_tab")
            second.close()
            second = None
            # the first tab stays usable: another page, and back
            _nav(page, "Explorer")
            expect(page.get_by_role("heading", name="Document explorer")).to_be_visible()
            _nav(page, "Evaluation")
            # it lands on the results once the job is done
            expect(page.get_by_text(re.compile(rf"3 runs of goldenset {GOLDENSET} stored"))
                   ).to_be_visible(timeout=600_000)
            expect(page.get_by_test_id("stProgress")).to_have_count(0)
            results = page.get_by_role("tabpanel", name="Results")
            expect(results).to_be_visible()
            expect(results.get_by_test_id("stDataFrame").first).to_be_visible()
            _shot(page, "background_3_results")
        except Exception:
            _shot(page, "background_failure")
            if second is not None:
                _shot(second, "background_failure_second_tab")
            raise
        finally:
            context.close()
            browser.close()
