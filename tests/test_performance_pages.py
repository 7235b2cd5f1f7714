"""What docs/performance/index.md says of the section's code, checked here.

- "The test suite runs every code block of these pages and compares every line it
  prints to standard output": every code block of the section's pages is an embed
  of a snippet file that tests/test_snippets.py runs on a CPU (with
  tests/test_harness.py::test_stale_output_fails_with_diff_naming_file_and_line,
  which shows a line printed otherwise fails).
- "Timings are printed to standard error and never compared": a print to
  standard error is not recorded (so no `#>` line can check it), and the pages
  whose snippets print to standard error are exactly the two that give timings,
  each in its "Not verified here" box, as ratios measured on the machine it names.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from docverify.contract import boxes
from docverify.contract import snippets as snippet_file
from docverify.contract.embeds import find_embeds, page_problems
from docverify.paths import DOCS_DIR, REPO_ROOT
from docverify.run.run_snippet import run_in_process

PERFORMANCE_PAGES = sorted(p for p in (DOCS_DIR / "performance").glob("*.md"))
# page: (its box's title, how the box gives the ratio)
TIMING_BOXES = {
    "compile.md": (
        "Not verified here: how much faster the compiled function is",
        "of the eager time",
    ),
    "checkpointing.md": (
        "Not verified here: how much slower a checkpointed step is",
        "times as long",
    ),
}


def _embedded_files(page: Path) -> list[str]:
    found, _ = find_embeds(page.name, page.read_text(encoding="utf-8"))
    return sorted({e.path for e in found})


def _prints_to_stderr(source: str) -> bool:
    return any(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "print"
        and any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr" for k in node.keywords)
        for node in ast.walk(ast.parse(source))
    )


@pytest.mark.parametrize("page", PERFORMANCE_PAGES, ids=lambda p: p.name)
def test_every_code_block_is_a_snippet_the_suite_runs_on_a_cpu(page: Path) -> None:
    rel = page.relative_to(REPO_ROOT).as_posix()
    assert not page_problems(rel, page.read_text(encoding="utf-8"), REPO_ROOT)
    run = {p.relative_to(REPO_ROOT).as_posix() for p in snippet_file.discover()}
    for path in _embedded_files(page):
        assert path in run, f"{rel} embeds {path}, which tests/test_snippets.py does not run"
        assert not snippet_file.load(REPO_ROOT / path).needs_cuda, f"{path} runs on GPUs only"


def test_a_print_to_standard_error_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "timed.py"
    path.write_text(
        textwrap.dedent(
            """
            import sys
            print("checked")
            print("compiled / eager: 0.42", file=sys.stderr)
            """
        ),
        encoding="utf-8",
    )
    records = run_in_process(snippet_file.load(path), "cpu", tmp_path)
    assert [r.text for r in records] == ["checked"]


def test_the_pages_that_time_code_give_ratios_in_a_box() -> None:
    timed = []
    for page in PERFORMANCE_PAGES:
        sources = [(REPO_ROOT / p).read_text(encoding="utf-8") for p in _embedded_files(page)]
        if any(_prints_to_stderr(source) for source in sources):
            timed.append(page.name.replace(".zh.md", ".md"))
    assert sorted(set(timed)) == sorted(TIMING_BOXES)
    for name, (title, ratio) in TIMING_BOXES.items():
        page = DOCS_DIR / "performance" / name
        found = [
            b
            for b in boxes.find_boxes(name, page.read_text(encoding="utf-8"))
            if b.kind == boxes.UNVERIFIED and b.title == title
        ]
        assert len(found) == 1, f"{name}: no box {title!r}"
        text = " ".join(found[0].text.split())
        # The section index says: "ratios measured in several runs on the machine they name,
        # in a box that says what was checked instead".
        for words in (
            "standard error",
            ratio,
            "ten runs",
            "on the machine that checks this page",
            "Checked instead:",
        ):
            assert words in text, f"{name}: the box {title!r} does not say {words!r}"
