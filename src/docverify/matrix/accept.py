"""On a declared stack other than the pinned one, the suite expects what the matrix recorded.

The `#>` lines show the pinned stack's output. `make test` on another declared
stack (Python 3.10, 3.12 or 3.13 with the pinned torch, say) runs the same
snippets; where that stack prints something else (Python 3.13's argparse raising
instead of exiting), the page already shows it, from the committed version-matrix
record of that stack (docverify.site.matrix_lines). So tests/test_snippets.py accepts a
run that prints exactly what the record says this stack prints, and only while the
record is current (recorded from the file's bytes as they are now): a stale record
accepts nothing, and any other difference still fails.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

from docverify.matrix.records import is_current, load_stack, result_path, shown_blocks
from docverify.matrix.stacks import Stack, stacks
from docverify.run.print_capture import PrintRecord, expected_source


def running_stack(root: Path) -> Stack | None:
    """The declared stack this interpreter is, if any but the pinned one (None also for a
    folder that is no checkout, such as the harness tests' throw-away ones)."""
    if not (root / "requirements.txt").is_file():
        return None
    python = "{}.{}".format(*sys.version_info[:2])
    installed = {}
    for name in ("torch", "torchvision"):
        try:
            installed[name] = importlib.metadata.version(name).split("+")[0]
        except importlib.metadata.PackageNotFoundError:
            return None
    declared = stacks(root / "requirements.txt")
    for stack in declared[1:]:
        if stack.python == python and all(stack.version(p) == v for p, v in installed.items()):
            return stack
    return None


def recorded_source(snippet_rel: str, source: str, path: Path, root: Path) -> str | None:
    """The snippet with its `#>` lines as this stack's current record says it prints them.

    None when this is not a declared non-pinned stack, or it has no current record
    of the file (then the file's own `#>` lines are what must print).
    """
    stack = running_stack(root)
    if stack is None:
        return None
    results = result_path(stack.name, root / "docs" / "assets" / "generated" / "matrix")
    if not results.is_file():
        return None
    record = load_stack(results).files.get(snippet_rel)
    if record is None or record.status != "ran" or not is_current(record, root):
        return None
    shown = shown_blocks(source, str(path))
    prints = []
    for block in record.blocks:
        if block.kind == "same":
            prints.append(PrintRecord(block.line, shown[block.line]))
        elif block.kind == "prints" and block.text:
            prints.append(PrintRecord(block.line, block.text))
    return expected_source(source, path, prints)
