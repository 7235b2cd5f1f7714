"""The pytest side of the machinery: options, marks, the report, the order of tests.

The runner itself (print capture, isolation, in-process and torchrun runs) is in
src/docverify, shared with live verification; see CONTRIBUTING.md's map.
"""
