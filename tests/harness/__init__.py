"""The machinery that runs every snippet and checks every `#>` line.

Snippet files and their directives are read by docverify.snippets (shared with
the MkDocs hooks). Modules here, each with one job:
- print_capture: record what a snippet prints; rewrite/compare its `#>` lines
- isolation: the sandbox one in-process run gets (seeds, warnings, network, time)
- run_snippet: run one snippet in-process or under torchrun, on one device
- plugin: pytest options and markers (registered by tests/conftest.py)
"""
