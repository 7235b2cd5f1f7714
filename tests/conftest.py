# The snippet harness (tests/harness/plugin.py), the fix that makes
# `xdist_group` keep a group on one worker (tests/harness/xdist_groups.py), and
# pytest's own `pytester`, which tests/test_harness.py uses to run inner pytest
# sessions on bad snippets.
pytest_plugins = ["harness.plugin", "harness.xdist_groups", "pytester"]
