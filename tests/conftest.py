import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docverify.site import built_site as built_site_module

# The snippet harness (tests/harness/plugin.py), the longest tests first
# (tests/harness/scheduling.py), and pytest's own `pytester`, which
# tests/test_harness.py uses to run inner pytest sessions on bad snippets.
pytest_plugins = ["harness.plugin", "harness.scheduling", "pytester"]
TEST_SNIPPETS = Path(__file__).with_name("test_snippets.py")


def _site_paths(
    tmp_path_factory: pytest.TempPathFactory, config: pytest.Config
) -> tuple[Path, Path]:
    """The run's built site and its lock: in the temporary folder above each xdist worker's own."""
    run_dir = tmp_path_factory.getbasetemp()
    if hasattr(config, "workerinput"):
        run_dir = run_dir.parent
    return run_dir / "built-site", run_dir / "built-site.lock"


@pytest.fixture(scope="session", autouse=True)
def _site_build_started(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[None]:
    """Start building the site in the background when a test of this run will need it.

    harness.scheduling runs those tests after the snippet tests, so the build runs beside
    them instead of keeping a worker waiting on the lock (about 30 s of an idle core).
    """
    if not any("built_site" in getattr(item, "fixturenames", ()) for item in request.session.items):
        yield
        return
    site, lock = _site_paths(tmp_path_factory, request.config)
    process = built_site_module.start_building(site, lock, root=request.config.rootpath)
    yield
    process.wait()  # a failed build is reported by the built_site fixture, which tries again


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """The site as `mkdocs build --strict` writes it, built once per test run.

    The xdist workers share one build: the first to get here builds it (or the
    background build has) while the others wait on a lock, the way pytest-xdist
    documents for session fixtures.
    """
    site, lock = _site_paths(tmp_path_factory, request.config)
    built_site_module.build_once(site, lock, root=request.config.rootpath)
    return site


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site, served on 127.0.0.1 (each worker its own server)."""
    with built_site_module.served(built_site) as url:
        yield url


class SiteBrowser:
    """The browser, whose pages reach the address the site was built for on the test server.

    The built pages name their address in absolute links (canonical, hreflang), and
    Material's language switcher fetches a sitemap.xml beside each hreflang link; the
    shared build cannot know each worker's port, so every page routes that address
    (mkdocs.yml's site_url, read from the built home page) to its worker's server,
    with the CORS header a second origin needs. Nothing reaches the network for it.
    """

    def __init__(self, browser, built_for: str, site_url: str) -> None:
        self._browser = browser
        self.built_for = built_for  # ends in "/"
        self.site_url = site_url

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        page.route(f"{self.built_for}**", self._forward)
        return page

    def _forward(self, route) -> None:
        from playwright.sync_api import Error

        here = route.request.url.replace(self.built_for, f"{self.site_url}/", 1)
        try:
            response = route.fetch(url=here)
            route.fulfill(
                response=response,
                headers={**response.headers, "access-control-allow-origin": "*"},
            )
        except Error:
            # The page moved on (navigated, closed) while this was in flight. A request
            # left unanswered otherwise shows as still in flight (tests/test_site_console.py).
            pass

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser(site_url: str, built_site: Path):
    """Debian's chromium, driven by Playwright (no browser download): a SiteBrowser."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("chromium is not installed (`apt-get install chromium`; .ci/run installs it)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield SiteBrowser(browser, built_site_module.built_for(built_site), site_url)
        browser.close()


@pytest.fixture
def inner_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A throw-away project with our snippet test module and plugin, for inner pytest runs.

    Inner in-process runs import torch, and pytester unloads what was imported after
    it started; a C extension cannot be loaded twice in one process. So a module using
    this fixture imports torch itself, before pytester starts.
    """
    pytester.makeconftest('pytest_plugins = ["harness.plugin"]')
    pytester.makepyfile(test_inner_snippets=TEST_SNIPPETS.read_text(encoding="utf-8"))
    (pytester.path / "snippets").mkdir()
    return pytester


def run_inner(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An inner pytest session on the throw-away project's snippets."""
    return suite.runpytest_inprocess(
        f"--snippets-root={suite.path / 'snippets'}", "-p", "no:cacheprovider", *args
    )
