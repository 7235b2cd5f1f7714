"""Running snippets: in-process or under torchrun, their prints captured and compared.

Used by the test run (tests/), live verification under `mkdocs serve`, and `make verify-gpu`.
"""
