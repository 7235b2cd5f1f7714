"""Start the longest tests first, so that two workers finish together (loaded by conftest).

pytest-xdist hands tests out in collection order. A long test collected late
(a torchrun launch, the built-site tests) then runs while the other worker has
nothing left, and the suite waits for it. This hook moves the snippet cases
first, by how long each took in the last verification reports (.reports/<device>.json),
then the tests that need the built site, which is built in the background while
the snippets run (tests/conftest.py), then the rest.

xdist requires every worker to collect the same tests in the same order, and
the report can change during the run (`mkdocs serve` writes it on a save). So
the controller reads it once and hands the durations to each worker
(`pytest_configure_node`, xdist's public hook); a run without xdist reads it
itself. A snippet that no report has timed (a fresh clone, a new file) is guessed
from its declared `# timeout:`: a tenth of it, or 0 s for the default.

The order holds only if xdist hands tests out one at a time. By default its load
scheduler first gives each worker a chunk of consecutive tests, a quarter of that
worker's share (410 of the suite's 3,283 with two workers): gw0's chunk then held
every snippet and the built-site tests, and gw1 sat idle for the last 110 s of a
240 s run (2026-12-08). So a run with xdist sends tests one at a time
(`--maxschedchunk=1`) unless the command line says otherwise.
"""

from __future__ import annotations

import pytest

from docverify.contract.snippets import DEFAULT_TIMEOUT_S
from docverify.results import report


def durations(config: pytest.Config) -> dict[str, float]:
    """`snippet[device]` -> seconds, from the report as the run started."""
    if hasattr(config, "workerinput"):
        return config.workerinput["snippet_durations"]
    root = config.rootpath
    return {
        f"{r.snippet}[{r.device}]": r.duration_s
        for device in report.load_all(config.reports_dir, root=root).values()
        for r in device.values()
    }


def pytest_configure(config: pytest.Config) -> None:
    # xdist reads the option when it makes its scheduler, after every plugin's configure;
    # xdist itself sets `config.option.dist` the same way.
    if config.pluginmanager.hasplugin("xdist") and config.getoption("maxschedchunk") is None:
        config.option.maxschedchunk = 1


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    node.workerinput["snippet_durations"] = durations(node.config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seconds = durations(config)

    def order(item: pytest.Item) -> tuple[int, float]:
        callspec = getattr(item, "callspec", None)
        snippet = callspec.params.get("snippet") if callspec else None
        if hasattr(snippet, "rel"):  # a snippet case (tests/test_snippets.py)
            # Without a report (a fresh clone), a declared `# timeout:` marks the slow ones.
            guess = snippet.timeout_s / 10 if snippet.timeout_s != DEFAULT_TIMEOUT_S else 0.0
            return 2, seconds.get(f"{snippet.rel}[{callspec.params.get('device')}]", guess)
        # The site is built in the background meanwhile (conftest: _site_build_started).
        return (1 if "built_site" in getattr(item, "fixturenames", ()) else 0), 0.0

    items.sort(key=order, reverse=True)  # stable: ties keep collection order
