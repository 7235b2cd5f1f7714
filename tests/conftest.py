# The snippet harness (tests/harness/plugin.py) and pytest's own `pytester`,
# which tests/test_harness.py uses to run inner pytest sessions on bad snippets.
pytest_plugins = ["harness.plugin", "pytester"]
