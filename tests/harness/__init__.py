"""The machinery that runs every snippet and checks every `#>` line.

Modules, each with one job:
- snippet_file: find snippet files and read their header directives and sections
- print_capture: record what a snippet prints; rewrite/compare its `#>` lines
- isolation: the sandbox one in-process run gets (seeds, warnings, network, time)
- run_snippet: run one snippet in-process or under torchrun, on one device
- plugin: pytest options and markers (registered by tests/conftest.py)
"""
