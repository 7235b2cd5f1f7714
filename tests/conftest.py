import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docverify import built_site as built_site_module

# The snippet harness (tests/harness/plugin.py), the fix that makes
# `xdist_group` keep a group on one worker (tests/harness/xdist_groups.py), the
# longest tests first (tests/harness/scheduling.py), and
# pytest's own `pytester`, which tests/test_harness.py uses to run inner pytest
# sessions on bad snippets.
pytest_plugins = ["harness.plugin", "harness.xdist_groups", "harness.scheduling", "pytester"]


@pytest.fixture(scope="session")
def _built_and_served(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[Path, str]]:
    site = tmp_path_factory.mktemp("site")
    with built_site_module.built_and_served(site, root=request.config.rootpath) as url:
        yield site, url


@pytest.fixture(scope="session")
def built_site(_built_and_served: tuple[Path, str]) -> Path:
    """The site as `mkdocs build --strict` writes it, built once per worker for the
    tests that read the built pages (they share the xdist group "browser"), for the
    address it is served at (`site_url`)."""
    return _built_and_served[0]


@pytest.fixture(scope="session")
def site_url(_built_and_served: tuple[Path, str]) -> str:
    """The built site, served on 127.0.0.1 (tests in the xdist group "browser")."""
    return _built_and_served[1]


@pytest.fixture(scope="session")
def browser(site_url: str):
    """Debian's chromium, driven by Playwright (no browser download)."""
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
        yield browser
        browser.close()
