"""Start the longest tests first, so that two workers finish together (loaded by conftest).

pytest-xdist hands tests out in collection order. A long test collected late
(a torchrun launch, the browser group) then runs while the other worker has
nothing left, and the suite waits for it. This hook moves, before anything
else, the browser group (one built site and one browser for all its tests) and
then the snippet cases by how long each took in the last verification report
(.reports/cpu.json). The order is the same on every worker (xdist requires
it): each reads the same report at collection. Without a report (a fresh
clone), snippets that declare a longer `# timeout:` go first.
"""

from __future__ import annotations

import pytest

from docverify import report
from docverify.snippets import DEFAULT_TIMEOUT_S


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reports_dir = getattr(config, "reports_dir", None)
    if reports_dir is None:
        return
    root = config.rootpath
    durations = {
        (r.snippet, r.device): r.duration_s
        for device in report.DEVICES
        for r in report.load_results(device, reports_dir, root=root).values()
    }

    def expected_seconds(item: pytest.Item) -> float:
        if any(item.iter_markers("xdist_group")):
            return float("inf")
        callspec = getattr(item, "callspec", None)
        snippet = callspec.params.get("snippet") if callspec else None
        if not hasattr(snippet, "rel"):  # not a snippet case (tests/test_snippets.py)
            return 0.0
        # Without a report (a fresh clone), a declared `# timeout:` marks the slow ones.
        guess = snippet.timeout_s / 10 if snippet.timeout_s != DEFAULT_TIMEOUT_S else 0.0
        return durations.get((snippet.rel, callspec.params.get("device")), guess)

    items.sort(key=expected_seconds, reverse=True)  # stable: ties keep collection order
