import os
import subprocess
import sys
from pathlib import Path

import pytest

# The snippet harness (tests/harness/plugin.py), the fix that makes
# `xdist_group` keep a group on one worker (tests/harness/xdist_groups.py), the
# longest tests first (tests/harness/scheduling.py), and
# pytest's own `pytester`, which tests/test_harness.py uses to run inner pytest
# sessions on bad snippets.
pytest_plugins = ["harness.plugin", "harness.xdist_groups", "harness.scheduling", "pytester"]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """The site as `mkdocs build --strict` writes it, built once per worker for the
    tests that read the built pages (they share the xdist group "browser")."""
    site = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=request.config.rootpath,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert build.returncode == 0, build.stderr[-4000:]
    return site
