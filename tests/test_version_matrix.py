"""The version matrix: its recorder, its records' staleness, and what the site shows from them.

`make matrix` records per stack and per `#>` block what the snippets print
(docverify.matrix.record); docverify.site.matrix_lines shows it under each block. These
tests run the recorder on small snippets of their own, and feed the hook records
that are current, stale or missing, in a checkout of their own (tmp_path).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from docverify.contract import proofs
from docverify.contract.snippets import load
from docverify.matrix import records as matrix
from docverify.matrix.records import (
    BlockResult,
    FileRecord,
    StackResult,
    compare_blocks,
    shown_blocks,
)
from docverify.matrix.stacks import stacks
from docverify.matrix.view import Matrix, Outcome, _runs
from docverify.paths import REPO_ROOT
from docverify.run.print_capture import PrintRecord
from docverify.site import matrix_lines as hook

SNIPPET = "snippets/demo/page.py"
DEMO = '''"""A demo page."""

# --8<-- [start:one]
x = 2
print(x)
#> 2
# --8<-- [end:one]

# --8<-- [start:two]
print(x + 1)
#> 3
# --8<-- [end:two]
'''


# --- the recorder ---------------------------------------------------------------------------


def test_the_recorder_carries_on_past_a_raising_statement(tmp_path: Path) -> None:
    from docverify.matrix.record import record_file

    # A library's DeprecationWarning (here from `noisy`), hidden from a reader by
    # Python's default filters, is not recorded; the snippet's own warnings are.
    (tmp_path / "noisy.py").write_text(
        "import warnings\n\ndef f():\n    warnings.warn('inner', DeprecationWarning)\n",
        encoding="utf-8",
    )
    path = tmp_path / "demo.py"
    path.write_text(
        "import warnings, noisy; noisy.f()\n"
        "x = 1\n"
        "print(x)\n"
        "#> 1\n"
        "y = missing_name\n"  # line 5 raises: the rest still runs
        "print(x + 1)\n"
        "#> 3\n"  # prints 2: a difference
        "print(y)\n"  # line 8: raises NameError itself
        "#> 7\n"
        "warnings.warn('old API', FutureWarning); warnings.warn('mine', DeprecationWarning)\n"
        "print('end')\n"
        "#> end\n",
        encoding="utf-8",
    )
    record = record_file(load(path), "demo.py", has_cuda=False)
    blocks = {b.line: b for b in record.blocks}
    assert blocks[3] == BlockResult(3, "same")
    assert blocks[6] == BlockResult(6, "prints", "2")
    assert blocks[8].kind == "raises"
    assert blocks[8].error == "NameError: name 'y' is not defined"
    assert blocks[11] == BlockResult(11, "same")  # after two errors and a warning
    assert [(e.line, e.error.split(":")[0]) for e in record.errors] == [
        (5, "NameError"),
        (8, "NameError"),
    ]
    assert [(w.line, w.error) for w in record.warnings] == [
        (10, "FutureWarning: old API"),
        (10, "DeprecationWarning: mine"),
    ]


def test_a_snippet_that_reads_the_checkouts_environment_is_not_run(tmp_path: Path) -> None:
    from docverify.matrix.record import record_file

    # A stack's environment holds the runtime packages only: a snippet that checks the
    # checkout's pinned tools (environment/conda.py) would fail there, not on torch's account.
    path = tmp_path / "env.py"
    path.write_text('"""Doc."""\n# requires: checkout\nprint(1)\n#> 1\n', encoding="utf-8")
    record = record_file(load(path), "env.py", has_cuda=False)
    assert (record.status, record.reason, record.blocks) == (
        "not run",
        "needs the checkout's .venv",
        (),
    )
    zh = hook._reason(Outcome("not run", reason=record.reason), "zh")  # said in 中文 too
    assert zh == "它读取检出目录自己的环境 .venv"


def test_a_snippet_of_its_own_process_is_recorded_in_a_new_interpreter(tmp_path: Path) -> None:
    import os

    from docverify.matrix.record import record_file

    path = tmp_path / "own.py"
    path.write_text(
        f'"""Doc."""\n# process: own\nimport os\nprint(os.getpid() == {os.getpid()})\n#> False\n'
        "print(missing)\n#> 1\n",
        encoding="utf-8",
    )
    record = record_file(load(path), "own.py", has_cuda=False)
    assert record.blocks[0] == BlockResult(4, "same")  # not this process
    assert record.blocks[1].kind == "raises" and "NameError" in record.blocks[1].error


def test_what_an_own_process_snippet_forks_does_not_outlive_its_record(tmp_path: Path) -> None:
    """Ranks that a snippet forks and leaves waiting (a time limit in a collective) were
    once left running after `make matrix`, parented to init."""
    import os
    import time

    from docverify.matrix.record import record_file

    pid_file = tmp_path / "child.pid"
    path = tmp_path / "forks.py"
    path.write_text(
        '"""Doc."""\n# process: own\nimport os\nimport time\n\nchild = os.fork()\n'
        "if child == 0:\n    time.sleep(600)\n    os._exit(0)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child))\nprint(1)\n#> 1\n",
        encoding="utf-8",
    )
    record_file(load(path), "forks.py", has_cuda=False)
    child = int(pid_file.read_text())
    for _ in range(50):  # init reaps it once it is killed
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, 9)
    raise AssertionError(f"the forked process {child} was still running after the record")


def test_a_block_whose_print_never_ran_says_why() -> None:
    source = "def f():\n    print('in f')\n    #> in f\n\n\nraise ValueError('no')\nf()\n"
    errors = [matrix.StatementError(6, 6, "ValueError: no")]
    assert shown_blocks(source, "x.py") == {2: "in f"}
    [block] = compare_blocks(source, "x.py", [], errors)
    assert (block.kind, block.error) == ("not_reached", "ValueError: no")


def test_blocks_sit_where_the_suite_writes_them_print_under_another_name_included() -> None:
    # The suite writes a multi-line call's output under its last line, and a print made
    # through another name (distributed pages' `print_rank0 = print`) under its own line.
    source = "say = print\nsay('a')\n#> a\nprint(\n    'b',\n)\n#> b\n"
    assert shown_blocks(source, "x.py") == {2: "a", 4: "b"}
    printed = [PrintRecord(2, "a"), PrintRecord(4, "b")]
    assert [b.kind for b in compare_blocks(source, "x.py", printed, [])] == ["same", "same"]


def test_records_round_trip_and_a_broken_file_is_named(tmp_path: Path) -> None:
    record = FileRecord(
        SNIPPET,
        "ab" * 32,
        blocks=(BlockResult(5, "same"), BlockResult(10, "prints", "tensor([1])")),
        errors=(matrix.StatementError(12, 13, "TypeError: x"),),
    )
    assert FileRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    broken = tmp_path / "py3.11-torch2.4.1.json"
    broken.write_text('{"schema": 1, "stack": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"py3\.11-torch2\.4\.1\.json: not a version-matrix"):
        matrix.load_stack(broken)


# --- what the site shows ----------------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout with one snippet file and the real requirements (hence stacks)."""
    shutil.copy(REPO_ROOT / "requirements.txt", tmp_path)
    shutil.copy(REPO_ROOT / "requirements-docs.txt", tmp_path)
    (tmp_path / "snippets" / "demo").mkdir(parents=True)
    (tmp_path / SNIPPET).write_text(DEMO, encoding="utf-8")
    return tmp_path


def stack_name(root: Path, python: str, torch: str | None = None) -> str:
    """The declared stack of that Python (and torch), as the pins of `root` name it."""
    found = stacks(root / "requirements.txt")
    return next(s.name for s in found if s.python == python and torch in (None, s.torch))


def write_results(root: Path, differ: dict[str, list[BlockResult]] | None = None) -> None:
    """A record of the file as it is now on every stack: same, or `differ[stack]`."""
    sha = matrix.code_sha256((root / SNIPPET).read_text(encoding="utf-8"))
    for stack in stacks(root / "requirements.txt"):
        blocks = (differ or {}).get(stack.name) or [BlockResult(5, "same"), BlockResult(10, "same")]
        record = FileRecord(SNIPPET, sha, blocks=tuple(blocks))
        result = StackResult(stack.name, stack.python, stack.torch, {}, "2026-01-02", 1.0, {})
        result = dataclasses.replace(result, files={SNIPPET: record})
        matrix.write_stack(result, root / "docs/assets/generated/matrix" / f"{stack.name}.json")


def lines_under(root: Path, section_lines: tuple[int, int], lang: str = "en") -> str:
    found = Matrix.load(root)
    return "\n".join(hook.block_lines(found, SNIPPET, *section_lines, [5], lang=lang))


def test_a_current_record_gives_the_versions_where_the_block_holds(checkout: Path) -> None:
    write_results(checkout)
    text = lines_under(checkout, (3, 7))
    assert "Same output on every tested version: torch 2.4–2.15 · Python 3.10–3.13" in text
    assert 'id="matrix-snippets-demo-page-py-5"' in text  # a link can point at the block
    assert "??? version-differs" not in text


def test_a_stale_record_is_shown_as_stale_never_as_current(checkout: Path) -> None:
    write_results(checkout)
    assert "Same output" in lines_under(checkout, (3, 7))
    # The file changes after `make matrix`: every stack's record is of other bytes.
    (checkout / SNIPPET).write_text(DEMO.replace("x = 2", "x = 3"), encoding="utf-8")
    text = lines_under(checkout, (3, 7))
    assert "Same output" not in text
    assert "the code changed since it was recorded (run `make matrix`)" in text
    assert 'class="version-range stale"' in text


def test_one_stale_stack_is_named_and_left_out_of_the_ranges(checkout: Path) -> None:
    write_results(checkout)
    py313 = stack_name(checkout, "3.13")
    stale = checkout / f"docs/assets/generated/matrix/{py313}.json"
    data = json.loads(stale.read_text(encoding="utf-8"))
    data["files"][0]["sha256"] = "0" * 64  # recorded from other bytes
    stale.write_text(json.dumps(data), encoding="utf-8")
    text = lines_under(checkout, (3, 7))
    assert "Same output on torch 2.4–2.15 · Python 3.10–3.12; changed since recorded on" in text
    assert py313 in text


def test_stacks_that_differ_get_a_fold_with_what_they_printed(checkout: Path) -> None:
    raises = BlockResult(5, "raises", "", "AttributeError: module 'torch' has no attribute 'x'")
    write_results(
        checkout,
        {
            "py3.11-torch2.4.1": [raises, BlockResult(10, "same")],
            "py3.11-torch2.6.0": [raises, BlockResult(10, "same")],
            stack_name(checkout, "3.13"): [
                BlockResult(5, "prints", "2*x_[1]"),
                BlockResult(10, "same"),
            ],
        },
    )
    text = lines_under(checkout, (3, 7))
    assert "Same output on torch 2.8–2.15 · Python 3.10–3.12" in text
    assert '??? version-differs "torch 2.4–2.6 raises:"' in text
    assert '??? version-differs "Python 3.13 prints:"' in text
    # Recorded text is shown as it is: no Markdown emphasis or link from `*`, `_`, `[`.
    assert "2&#42;x&#95;&#91;1&#93;" in text
    # The second section holds everywhere.
    assert "Same output on every tested version" in lines_under(checkout, (9, 12))
    zh = lines_under(checkout, (3, 7), lang="zh")
    assert "输出相同的版本：torch 2.8–2.15 · Python 3.10–3.12" in zh
    assert '"torch 2.4–2.6 抛出异常："' in zh


def test_a_page_says_where_all_its_blocks_hold(checkout: Path) -> None:
    write_results(checkout, {"py3.11-torch2.4.1": [BlockResult(5, "prints", "0")]})
    found = Matrix.load(checkout)
    page = 'Title\n\n```python\n--8<-- "snippets/demo/page.py:one"\n```\n'
    markdown, holds = hook.add_block_lines("docs/demo/page.md", page, found, "en", checkout)
    assert hook.page_line(found, holds, "en") == (
        '<p class="version-holds">Holds on torch 2.6–2.15 · Python 3.10–3.13; '
        "on other versions see the marked blocks.</p>"
    )
    assert markdown.index("```\n") < markdown.index("Same output on")


def test_ranges_join_neighbouring_tested_versions() -> None:
    points = [("2.4", True), ("2.6", True), ("2.8", False), ("2.11", True), ("2.15", False)]
    assert _runs(points) == "2.4–2.6, 2.11"
    assert _runs([("3.10", False)]) == ""


# --- the suite on another stack ----------------------------------------------------------------


def test_the_suite_accepts_only_a_current_record_of_its_own_stack(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docverify.matrix import accept as matrix_accept

    py313 = next(s for s in stacks(checkout / "requirements.txt") if s.python == "3.13")
    write_results(checkout, {py313.name: [BlockResult(5, "prints", "two")]})
    monkeypatch.setattr(matrix_accept, "running_stack", lambda root: py313)
    path = checkout / SNIPPET
    recorded = matrix_accept.recorded_source(SNIPPET, DEMO, path, checkout)
    assert recorded == DEMO.replace("#> 2", "#> two").replace(
        "print(x + 1)\n#> 3\n", "print(x + 1)\n"
    )
    path.write_text(DEMO + "# edited\n", encoding="utf-8")  # the record is stale now
    assert matrix_accept.recorded_source(SNIPPET, DEMO, path, checkout) is None


# --- the committed results ---------------------------------------------------------------------


def test_every_declared_stack_has_a_committed_result() -> None:
    found = matrix.load_all()
    assert sorted(found) == sorted(s.name for s in stacks())


def test_the_recorder_takes_every_snippet_file_and_each_stack_ran_in_its_own_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docverify.matrix import record as recorder

    (tmp_path / "snippets" / "a").mkdir(parents=True)
    (tmp_path / "snippets" / "b").mkdir()
    for rel in ("a/one.py", "a/two.py", "b/three.py"):
        (tmp_path / "snippets" / rel).write_text('"""Doc."""\nprint(1)\n#> 1\n', encoding="utf-8")
    monkeypatch.setattr(recorder, "warm_up", lambda: None)
    monkeypatch.setattr(recorder, "_programs", lambda root, has_cuda: [])
    monkeypatch.setattr(
        recorder, "record_file", lambda snippet, rel, has_cuda: FileRecord(rel, "sha")
    )
    found = recorder.record_all(tmp_path)
    assert sorted(found) == ["snippets/a/one.py", "snippets/a/two.py", "snippets/b/three.py"]
    monkeypatch.undo()
    gpu = tmp_path / "gpu.py"  # a CUDA-only file, on a machine without CUDA
    gpu.write_text('"""Doc."""\n# devices: cuda\nprint(1)\n#> 1\n', encoding="utf-8")
    gpu_record = recorder.record_file(load(gpu), "gpu.py", has_cuda=False)
    assert (gpu_record.status, gpu_record.reason) == ("not run", "needs CUDA")
    # Each committed result was recorded in an environment holding its stack's versions.
    results = matrix.load_all()
    for stack in stacks():
        recorded = results[stack.name].environment
        assert recorded["python"].startswith(f"{stack.python}."), stack.name
        assert {name: recorded[name] for name, _ in stack.packages} == dict(stack.packages)
    assert len({s.torch for s in stacks()}) > 1 and len({s.python for s in stacks()}) > 1


def test_on_the_pinned_stack_the_recorder_agrees_with_the_suite() -> None:
    # The pinned stack prints exactly the `#>` lines (the suite checks that): a current
    # record of it that says otherwise is a recorder bug.
    pinned = stacks()[0]
    result = matrix.load_all()[pinned.name]
    for record in result.files.values():
        if record.status == "ran" and matrix.is_current(record):
            differ = [b for b in record.blocks if b.kind != "same"]
            assert not differ and not record.errors and not record.warnings, record.path


def test_a_comment_keeps_a_record_current_a_code_edit_makes_it_stale(checkout: Path) -> None:
    write_results(checkout)
    record = Matrix.load(checkout).results
    path = checkout / SNIPPET
    stacked = next(iter(record.values())).files[SNIPPET]
    assert matrix.is_current(stacked, checkout)
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    code = next(
        i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")
    )
    lines[code] += "  # ✓ a-proof-link"  # a comment: same code, same lines
    path.write_text("\n".join(lines), encoding="utf-8")
    assert matrix.is_current(stacked, checkout)
    path.write_text(source.replace("\n", "\nx = 0\n", 1), encoding="utf-8")  # a line of code added
    assert not matrix.is_current(stacked, checkout)


def test_a_launch_that_never_reached_rank_0_stops_the_recorder(monkeypatch, tmp_path) -> None:
    """Recorded as a run, a failed launch read on the page as "every block prints nothing"
    on that stack (py3.10's four torchrun snippets once): it is an error of the recorder."""
    from docverify.matrix import record
    from docverify.run.run_snippet import LaunchResult

    failed = LaunchResult(
        returncode=1, output="ModuleNotFoundError: No module named 'pymdownx'", records={}
    )
    monkeypatch.setattr(record, "run_launched", lambda *args, **kwargs: failed)
    snippet = load(REPO_ROOT / "snippets" / "distributed" / "collectives.py")
    with pytest.raises(RuntimeError, match="torchrun failed before rank 0 ran it:\n.*pymdownx"):
        record.record_launched(snippet, tmp_path)


def test_the_recorder_draws_the_figures_outside_the_checkout() -> None:
    """`make matrix` once left the committed figures redrawn by another stack's matplotlib."""
    from matplotlib.figure import Figure

    from docverify.figures import save_figure
    from docverify.matrix.record import figures_elsewhere
    from docverify.paths import GENERATED_DIR

    with figures_elsewhere() as folder:
        drawn = save_figure(Figure(figsize=(1, 1)), "matrix-probe/figure")
        assert drawn == folder / "matrix-probe" / "figure.png" and drawn.is_file()
    assert not (GENERATED_DIR / "matrix-probe").exists()


# --- links into the matrix ------------------------------------------------------------------


def stale_versions_links(root: Path) -> list[str]:
    """Each `{✓ versions:name}` link (page:line) whose check's file has a stale record on a
    stack: the fold it points at says "changed since it was recorded", which proves nothing
    about the versions the sentence names. (The twin has the same links: test_translations.)"""
    results = matrix.load_all(root / matrix.RESULTS_DIR.relative_to(REPO_ROOT))
    problems = []
    for md in sorted((root / "docs").rglob("*.md")):
        markdown = md.read_text(encoding="utf-8")
        if md.name.endswith(".zh.md") or "versions:" not in markdown:
            continue
        page = md.relative_to(root).as_posix()
        resolved, _ = proofs.resolve(page, markdown, root)
        for marker, targets in resolved.items():
            for check in (t.check for t in targets if t.versions):
                stale = [
                    name
                    for name, result in results.items()
                    if check.file in result.files
                    and not matrix.is_current(result.files[check.file], root)
                ]
                if stale:
                    problems.append(
                        f"{page}:{marker.line}: versions:{check.name}: the record of {check.file}"
                        f" is stale on {', '.join(stale)}: run `make matrix K={Path(check.file).stem}`"
                    )
    return problems


def test_every_versions_link_lands_on_current_records() -> None:
    problems = stale_versions_links(REPO_ROOT)
    assert not problems, "\n".join(problems)


def test_a_versions_link_into_a_file_edited_since_its_record_is_named(tmp_path: Path) -> None:
    page = "docs/topic/page.md"
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    snippet = tmp_path / "snippets" / "topic" / "page.py"
    snippet.write_text(
        "# --8<-- [start:sum]\nassert 1 + 1 == 2  # ✓ sums\n# --8<-- [end:sum]\n", encoding="utf-8"
    )
    (tmp_path / page).write_text(
        '# Topic\n\n```python\n--8<-- "snippets/topic/page.py:sum"\n```\n\n'
        "It holds on every tested torch. {✓ versions:sums}\n",
        encoding="utf-8",
    )
    record = FileRecord("snippets/topic/page.py", matrix.code_sha256(snippet.read_text()))
    result = StackResult("py3.11-torch2.4.1", "3.11", "2.4.1", {}, "2026-01-02", 1.0, {})
    results = tmp_path / matrix.RESULTS_DIR.relative_to(REPO_ROOT)
    matrix.write_stack(dataclasses.replace(result, files={record.path: record}), results / "a.json")
    assert stale_versions_links(tmp_path) == []
    snippet.write_text(snippet.read_text().replace("1 + 1 == 2", "2 + 2 == 4"), encoding="utf-8")
    [problem] = stale_versions_links(tmp_path)
    assert problem.startswith(f"{page}:7: versions:sums: the record of snippets/topic/page.py")
    assert "stale on py3.11-torch2.4.1: run `make matrix K=page`" in problem
