"""The machinery that keeps the site's promise: every shown block is checked.

Used by the test suite (tests/harness) and the MkDocs hooks (hooks/), never by
the code a page shows. Modules, each with one job:
- embeds: the docs contract (how pages embed snippet sections)
- embed_roots: where a page may embed from, each root with its kind of check
- boxes: correction / caveat / "Not verified here" boxes and their quotes of the notes
- snippets: snippet files, their header directives and sections
- page_program: the code a page shows, in page order, as one program (and where each
  line comes from); shown_code: its static checks (hidden names, allowed imports, set-up)
- notebook: the page as a Jupyter notebook whose code cells are the page program
- verification: the report a test run writes and the site build reads
- paths: where things live in the repository
- machine, figures: describe the machine a measurement ran on; save a site figure
"""
