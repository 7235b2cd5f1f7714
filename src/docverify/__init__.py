"""The machinery that keeps the site's promise: every shown block is checked.

Used by the test suite (tests/harness) and the MkDocs hooks (hooks/), never by
the code a page shows. Modules, each with one job:
- embeds: the docs contract (how pages embed snippet sections)
- snippets: snippet files, their header directives and sections
- verification: the report a test run writes and the site build reads
- paths: where things live in the repository
- machine, figures: describe the machine a measurement ran on; save a site figure
"""
