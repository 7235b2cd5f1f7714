"""The machinery that keeps the site's promise: every shown block is checked.

Used by the test suite (tests/) and the MkDocs plugin (docverify.site), never by the
code a page shows. CONTRIBUTING.md's "Map of the machinery" says what each
module does (tests/test_project_setup.py keeps that map in step with the files).
"""
