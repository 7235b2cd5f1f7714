"""The harness itself can fail: each guarantee of the snippet contract is tried on a bad snippet."""

from __future__ import annotations

import builtins
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import TEST_SNIPPETS, run_inner

from docverify.contract import snippets as snippet_file
from docverify.run import isolation
from docverify.run.print_capture import expected_source
from docverify.run.run_snippet import run_in_process, run_launched
from harness import plugin as harness_plugin

ROOT = Path(__file__).resolve().parents[1]  # the checkout under test


def write_snippet(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body).lstrip(), encoding="utf-8")
    return path


def run(path: Path, tmp_path: Path, device: str = "cpu"):
    return run_in_process(snippet_file.load(path), device, tmp_path)


# --- what is recorded is what print() writes --------------------------------------------


def test_2d_tensor_is_recorded_as_pytorch_prints_it(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "matrix.py",
        """
        import torch
        print(torch.arange(6).reshape(2, 3))
    """,
    )
    records = run(path, tmp_path)
    real = str(torch.arange(6).reshape(2, 3))
    assert [r.text for r in records] == [real]
    assert "\n" in real
    shown = expected_source(path.read_text(), path, records)
    assert shown.splitlines()[2:] == [f"#> {line}" for line in real.splitlines()]


def test_print_arguments_sep_and_nested_prints(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "seps.py",
        """
        def show(x):
            print("value", x, sep=" = ")

        for i in range(2):
            show(i)
        print(torch_size := (2, 3))
    """,
    )
    texts = [r.text for r in run(path, tmp_path)]
    assert texts == ["value = 0", "value = 1", str((2, 3))]


def test_end_and_sep_are_recorded_as_printed(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "ends.py",
        """
        print("a", end="")
        print("b")
        for i in range(3):
            print(i, end=" ")
        print()
        print("x", "y", sep="", end="!\\n")
        print("two", end="\\n\\n")
        print("tail", end="")
    """,
    )
    records = run(path, tmp_path)
    # One record per output line (or run of lines), under the print that ended it.
    assert [(r.line, r.text) for r in records] == [
        (2, "ab"),
        (5, "0 1 2 "),
        (6, "xy!"),
        (7, "two\n"),
        (8, "tail"),
    ]
    # Exactly what `python ends.py` writes.
    real = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "\n".join(r.text for r in records) == real
    assert expected_source(path.read_text(), path, records).splitlines() == [
        'print("a", end="")',
        'print("b")',
        "#> ab",
        "for i in range(3):",
        '    print(i, end=" ")',
        "print()",
        "#> 0 1 2",
        'print("x", "y", sep="", end="!\\n")',
        "#> xy!",
        'print("two", end="\\n\\n")',
        "#> two",
        "#>",
        'print("tail", end="")',
        "#> tail",
    ]


def test_outputs_are_written_anew_under_their_prints(tmp_path: Path) -> None:
    """A statement inserted between a print and its `#>` lines, and a print that no longer
    prints: the rewritten file has each output under its own print, and nothing stale."""
    path = write_snippet(
        tmp_path,
        "moved.py",
        """
        print(1)
        x = 2
        #> 1
        if x == 3:
            print("never")
            #> never
        print(x)
        #> 1
        #> 1
    """,
    )
    source = path.read_text(encoding="utf-8")
    assert expected_source(source, path, run(path, tmp_path)) == textwrap.dedent(
        """\
        print(1)
        #> 1
        x = 2
        if x == 3:
            print("never")
        print(x)
        #> 2
        """
    )


def test_addresses_and_temporary_paths_are_recorded_in_a_fixed_form(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "varying.py",
        """
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            print(Path(folder) / "model.pt")
        print(object())
        print("0xff is a byte, 0x12345678 an address")
    """,
    )
    assert [r.text for r in run(path, tmp_path)] == [
        "<tmp>/model.pt",
        "<object object at 0x…>",
        "0xff is a byte, 0x… an address",
    ]


def test_output_of_a_multi_line_print_goes_under_its_last_line(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "multi.py",
        """
        if True:
            print(
                "a",
                "b",
            )
            #> stale
        x = 1
    """,
    )
    records = run(path, tmp_path)
    assert [(r.line, r.text) for r in records] == [(2, "a b")]
    assert expected_source(path.read_text(), path, records).splitlines() == [
        "if True:",
        "    print(",
        '        "a",',
        '        "b",',
        "    )",
        "    #> a b",
        "x = 1",
    ]


# --- a stale `#>` line, a failing snippet, and --update-examples, seen from pytest ---------


def test_stale_output_fails_with_diff_naming_file_and_line(inner_suite: pytest.Pytester) -> None:
    write_snippet(
        inner_suite.path / "snippets",
        "stale.py",
        """
        print(1 + 1)
        #> 3
    """,
    )
    result = run_inner(inner_suite)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*stale.py:2: `#>` output lines differ*", "-#> 3", "+#> 2"])


def test_a_print_with_no_output_lines_fails(inner_suite: pytest.Pytester) -> None:
    """Every printed line is compared: a print with no `#>` line under it fails too."""
    write_snippet(
        inner_suite.path / "snippets",
        "unrecorded.py",
        """
        print(1 + 1)
        x = 1
    """,
    )
    result = run_inner(inner_suite)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*unrecorded.py:*`#>` output lines differ*", "+#> 2"])


def test_failing_snippet_is_one_clean_failure_at_its_own_line(inner_suite: pytest.Pytester) -> None:
    write_snippet(
        inner_suite.path / "snippets",
        "boom.py",
        """
        import torch

        x = torch.zeros(2, 3)
        x.view(7)
    """,
    )
    result = run_inner(inner_suite)
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*boom.py:4: RuntimeError*"])


def test_update_examples_rewrites_then_check_passes(inner_suite: pytest.Pytester) -> None:
    path = write_snippet(
        inner_suite.path / "snippets",
        "update.py",
        """
        print("hello")
        #> stale
        if False:
            print("never")
            #> left over
    """,
    )
    run_inner(inner_suite, "--update-examples").assert_outcomes(passed=1)
    assert path.read_text().splitlines() == [
        'print("hello")',
        "#> hello",
        "if False:",
        '    print("never")',
    ]
    run_inner(inner_suite).assert_outcomes(passed=1)


def test_cuda_only_snippet_is_skipped_with_reason_without_cuda(
    inner_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The harness asks harness.plugin.cuda_available(); answering "no" here checks the
    # skip on a GPU machine too.
    monkeypatch.setattr(harness_plugin, "cuda_available", lambda: False)
    write_snippet(
        inner_suite.path / "snippets",
        "gpu.py",
        """
        # requires: cuda
        import torch
        print(torch.ones(1, device="cuda").device)
    """,
    )
    result = run_inner(inner_suite, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs CUDA: no CUDA device on this machine*"])


def test_cuda_only_snippet_runs_where_cuda_is_present(
    inner_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other half: where the harness finds CUDA, a `# requires: cuda` file is run and
    checked like any other (its stale `#>` line fails it), not skipped. CUDA's presence is
    the harness's answer, stood in for here, so a machine without a GPU checks this too;
    the snippet itself needs no GPU."""
    monkeypatch.setattr(harness_plugin, "cuda_available", lambda: True)
    snippet = write_snippet(
        inner_suite.path / "snippets",
        "gpu.py",
        """
        # requires: cuda
        print("ran")
        #> stale
    """,
    )
    result = run_inner(inner_suite, "-rs")
    result.assert_outcomes(failed=1)
    snippet.write_text(snippet.read_text().replace("#> stale", "#> ran"))
    run_inner(inner_suite).assert_outcomes(passed=1)


def test_throw_away_snippets_stay_out_of_the_verification_report(
    inner_suite: pytest.Pytester,
) -> None:
    write_snippet(inner_suite.path / "snippets", "outside.py", "print(1)\n#> 1\n")
    reports = inner_suite.path / "reports"
    run_inner(inner_suite, f"--reports-dir={reports}").assert_outcomes(passed=1)
    assert not reports.exists()


def test_no_snippets_is_an_error_not_a_pass(inner_suite: pytest.Pytester) -> None:
    result = run_inner(inner_suite)
    # A collection error (exit 2), never exit 0 and never the ambiguous exit 5.
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*no snippet files under*"])


def test_a_syntax_error_is_one_failing_snippet_not_a_stopped_collection(
    inner_suite: pytest.Pytester,
) -> None:
    snippets = inner_suite.path / "snippets"
    (snippets / "good.py").write_text("print(1)\n#> 1\n")
    (snippets / "broken.py").write_text('"""Saved mid-edit."""\n# timeout: 30\nprint(1\n')
    result = run_inner(inner_suite)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*broken.py*line 3*", "*SyntaxError*"])


# --- the sandbox: network, warnings, time, randomness, leaks ------------------------------


def test_network_is_blocked_but_loopback_works(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "download.py",
        """
        import urllib.request
        urllib.request.urlopen("http://example.com", timeout=5)
    """,
    )
    # urllib wraps the error in URLError (an OSError), keeping our message.
    with pytest.raises(OSError, match="snippets must not use the network.*example.com"):
        run(path, tmp_path)
    path = write_snippet(
        tmp_path,
        "ip.py",
        """
        import socket
        socket.create_connection(("93.184.216.34", 80), timeout=5)
    """,
    )
    with pytest.raises(isolation.NetworkBlockedError, match="93.184.216.34"):
        run(path, tmp_path)
    path = write_snippet(
        tmp_path,
        "loopback.py",
        """
        import socket
        with socket.create_server(("127.0.0.1", 0)) as server:
            with socket.create_connection(server.getsockname(), timeout=5) as client:
                print(client.getpeername()[0])
    """,
    )
    assert [r.text for r in run(path, tmp_path)] == ["127.0.0.1"]


def test_warnings_are_errors_unless_caught(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "warns.py",
        """
        import warnings
        warnings.warn("old API", DeprecationWarning)
    """,
    )
    with pytest.raises(DeprecationWarning, match="old API"):
        run(path, tmp_path)
    path = write_snippet(
        tmp_path,
        "caught.py",
        """
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("old API", DeprecationWarning)
        print(caught[0].category.__name__)
    """,
    )
    assert [r.text for r in run(path, tmp_path)] == ["DeprecationWarning"]


def test_time_limit_stops_a_runaway_snippet(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "forever.py",
        """
        # timeout: 1
        while True:
            pass
    """,
    )
    with pytest.raises(isolation.SnippetTimeoutError, match="1 s limit"):
        run(path, tmp_path)


def test_unseeded_randomness_shows_up_seeded_does_not(tmp_path: Path) -> None:
    # index.md: the harness seeds the generators of Python, NumPy and torch from fresh entropy,
    # each on its own (a script drawing from any one of them unseeded prints other numbers).
    for name, draw in [
        ("torch", "import torch\nprint(torch.rand(4))"),
        ("numpy", "import numpy as np\nprint(np.random.rand(4))"),
        ("random", "import random\nprint([random.random() for _ in range(4)])"),
    ]:
        unseeded = write_snippet(tmp_path, f"unseeded_{name}.py", draw)
        outputs = []
        for _ in range(2):  # the same state before each run: only the harness's seeding differs
            random.seed(0), np.random.seed(0), torch.manual_seed(0)
            outputs.append(run(unseeded, tmp_path))
        assert outputs[0] != outputs[1], name
    seeded = write_snippet(
        tmp_path,
        "seeded.py",
        """
        import torch
        torch.manual_seed(0)
        print(torch.rand(4))
    """,
    )
    assert run(seeded, tmp_path) == run(seeded, tmp_path)


def test_nothing_leaks_out_of_a_run(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "leaky.py",
        """
        import os, sys, torch
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.set_printoptions(precision=1)
        os.environ["LEAK"] = "1"
        sys.argv.append("--leak")
        assert __name__ == "__main__"
        os.chdir("/")
    """,
    )
    cwd, argv, main = Path.cwd(), sys.argv[:], sys.modules["__main__"]
    run(path, tmp_path)
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()
    assert str(torch.tensor([0.123456])) == "tensor([0.1235])"
    assert "LEAK" not in __import__("os").environ
    assert (Path.cwd(), sys.argv, sys.modules["__main__"]) == (cwd, argv, main)
    assert builtins.print is print


def numeric_settings() -> dict[str, object]:
    cudnn, matmul = torch.backends.cudnn, torch.backends.cuda.matmul
    return {
        "numpy print options": np.get_printoptions(),
        "cudnn.enabled": cudnn.enabled,
        "cudnn.benchmark": cudnn.benchmark,
        "cudnn.deterministic": cudnn.deterministic,
        "cudnn.allow_tf32": cudnn.allow_tf32,
        "cuda.matmul.allow_tf32": matmul.allow_tf32,
        "float32 matmul precision": torch.get_float32_matmul_precision(),
    }


def test_a_helper_next_to_a_snippet_is_imported_afresh_by_the_next_one(tmp_path: Path) -> None:
    """Two pages' folders each hold a `_helper.py`: each snippet gets its own, as in a new
    interpreter, and the helper is gone from sys.modules after the run."""
    for folder, value in (("a", 1), ("b", 2)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "_helper.py").write_text(f"VALUE = {value}\n", encoding="utf-8")
        write_snippet(tmp_path / folder, "page.py", "import _helper\nprint(_helper.VALUE)\n")
    assert [r.text for r in run(tmp_path / "a" / "page.py", tmp_path)] == ["1"]
    assert [r.text for r in run(tmp_path / "b" / "page.py", tmp_path)] == ["2"]
    assert "_helper" not in sys.modules


def test_numeric_settings_do_not_leak_out_of_a_run(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "flags.py",
        """
        import numpy as np
        import torch

        cudnn, matmul = torch.backends.cudnn, torch.backends.cuda.matmul
        np.set_printoptions(precision=2, linewidth=20)
        cudnn.enabled = not cudnn.enabled
        cudnn.benchmark = not cudnn.benchmark
        cudnn.deterministic = not cudnn.deterministic
        cudnn.allow_tf32 = not cudnn.allow_tf32
        matmul.allow_tf32 = not matmul.allow_tf32
        was = torch.get_float32_matmul_precision()
        torch.set_float32_matmul_precision("medium" if was != "medium" else "highest")
        print(np.array([0.123456]))
        #> [0.12]
    """,
    )
    before = numeric_settings()
    assert [r.text for r in run(path, tmp_path)] == ["[0.12]"]
    after = numeric_settings()
    changed = {k: (before[k], after[k]) for k in before if after[k] != before[k]}
    assert not changed, f"leaked out of the run (before, after): {changed}"
    assert str(np.array([0.123456])) == "[0.123456]"


def test_section_markers_must_balance(tmp_path: Path) -> None:
    path = write_snippet(
        tmp_path,
        "sections.py",
        """
        # --8<-- [start:a]
        x = 1
        # --8<-- [end:b]
    """,
    )
    with pytest.raises(snippet_file.SnippetFormatError, match=r"sections.py:3: section `b` ends"):
        snippet_file.load(path)


def test_a_shown_line_no_run_reaches_fails_the_snippet(inner_suite: pytest.Pytester) -> None:
    """An assert in a branch no run takes proves nothing: naming its line fails the snippet.
    A line marked `# requires: cuda` (or in a block whose header is) is left to the GPU run,
    one marked with a version to where that version runs;
    lines run in a DataLoader worker (a forked process) count as run."""
    (inner_suite.path / "snippets" / "branches.py").write_text(
        textwrap.dedent(
            """
            import sys

            import torch
            from torch.utils.data import DataLoader, Dataset

            # --8<-- [start:shown]
            class Squares(Dataset):
                def __len__(self):
                    return 2

                def __getitem__(self, i):
                    return torch.tensor(i * i)  # runs in the worker process only


            print(sorted(int(x) for x in DataLoader(Squares(), num_workers=1)))
            #> [0, 1]
            if torch.cuda.is_available():  # requires: cuda
                assert torch.ones(1, device="cuda").sum() == 1
            if 1 + 1 == 3:
                assert False, "never checked"
            if sys.version_info >= (99, 0):  # requires: python>=99.0
                assert False, "checked where that Python runs"
            # --8<-- [end:shown]
            """
        ).lstrip()
    )
    result = run_inner(inner_suite)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*Shown lines no run executes:*", "*branches.py:20: a shown line*"]
    )
    assert "branches.py:12:" not in result.stdout.str()  # the worker's line ran
    assert "branches.py:18:" not in result.stdout.str()  # left to the GPU run
    assert "branches.py:22:" not in result.stdout.str()  # left to a Python to come


def test_sections_are_read_as_pymdownx_renders_them(tmp_path: Path) -> None:
    """Marker spelling pymdownx accepts (`-8<-`, spaces), a nested section's markers
    dropped, an escaped marker shown as text, dedent: the page program, the downloads
    and sections_module all get pymdownx's own text, with each line's file line."""
    import markdown

    from docverify.contract.sections import render, sections_module

    path = write_snippet(
        tmp_path,
        "marks.py",
        """
        if True:
            # -8<- [ start : outer ]
            values = [1]
            # --8<-- [start:inner]
            values.append(2)
            # --8<-- [end:inner]
            note = ";--8<-- [start:not-a-marker]"
            # --8<-- [end:outer]
    """,
    )
    shown = render(tmp_path, "marks.py", "outer")
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={
            "pymdownx.snippets": {"base_path": [str(tmp_path)], "dedent_subsections": True}
        },
    )
    assert shown.code.split("\n") == md.preprocessors["snippet"].run(['--8<-- "marks.py:outer"'])
    assert shown.code.split("\n") == [
        "values = [1]",
        "values.append(2)",
        'note = "--8<-- [start:not-a-marker]"',
    ]
    assert shown.lines == (3, 5, 7) and shown.dedented
    assert vars(sections_module(path, "outer"))["values"] == [1, 2]
    # pymdownx's pattern matches `[START:x]`, but its reader skips it: refused, not misread.
    path.write_text("# --8<-- [START:x]\n# --8<-- [end:x]\n", encoding="utf-8")
    with pytest.raises(snippet_file.SnippetFormatError, match=r"marks.py:1: write `\[start:x\]`"):
        snippet_file.load(path)


# --- the checkout under test: its own snippets, with its own machinery ---------------------


def copy_of_this_checkout(folder: Path, *paths: str) -> Path:
    """`folder` holding these files of this checkout (what a clone would have)."""
    for rel in paths:
        source, target = ROOT / rel, folder / rel
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder.resolve()


def test_a_second_checkout_checks_its_own_snippets_with_its_own_code(tmp_path: Path) -> None:
    """A checkout run with a virtual environment made elsewhere (whose editable install
    points at another src/) still verifies its own tree with its own machinery."""
    second = copy_of_this_checkout(
        tmp_path / "second",
        *("pyproject.toml", "mkdocs.yml", "src/docverify", "tests/conftest.py", "tests/harness"),
    )
    (second / "snippets").mkdir()
    (second / "snippets" / "x.py").write_text('print("printed")\n#> not what it prints\n')
    marker = "print('its own docverify', flush=True)\n"
    init = second / "src" / "docverify" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + marker, encoding="utf-8")
    shutil.copy2(TEST_SNIPPETS, second / "tests" / "test_snippets.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-s"],
        cwd=second,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert "its own docverify" in done.stdout
    assert "snippets/x.py:2: `#>` output lines differ" in done.stdout


def test_a_plugin_from_another_checkout_stops_the_build(tmp_path: Path) -> None:
    """A virtual environment shared between checkouts points its editable install at one
    of them: `mkdocs build` in another checkout would build its pages with that checkout's
    plugin. The plugin says so and stops; `make build` (PYTHONPATH=src) builds."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "src" / "docverify").mkdir(parents=True)  # that checkout's own machinery
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - notes\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert f"the plugin comes from {ROOT / 'src' / 'docverify'}" in done.stderr, done.stderr[-2000:]
    assert f"not from {tmp_path / 'src'}" in done.stderr


# --- torchrun-launched snippets ------------------------------------------------------------


@pytest.mark.torchrun
def test_launched_ranks_share_a_warm_launcher_and_a_hung_launch_is_stopped(tmp_path: Path) -> None:
    def launch(name: str, body: str):
        path = write_snippet(tmp_path, f"{name}.py", body)
        return run_launched(snippet_file.load(path), "cpu", tmp_path / name)

    def stat(pid: int) -> list[str]:  # /proc/PID/stat after the command name: state, ppid, ...
        path = Path(f"/proc/{pid}/stat")
        return path.read_text().rsplit(")", 1)[1].split() if path.is_file() else ["X"]

    parent = """
        # launch: torchrun --nproc_per_node=2
        import os, sys
        print("rank", os.environ["RANK"], "of", os.environ["WORLD_SIZE"])
        print(os.getppid())
        print("torch" in sys.modules, "TORCHELASTIC_RUN_ID" in os.environ)  # before any import here
        print(open(f"/proc/{os.getppid()}/cmdline").read().replace("\\0", " "))
        import importlib.util
        print(importlib.util.find_spec("snippets"))  # a folder of this checkout, as python SNIPPET sees it
    """
    first, second = launch("first", parent), launch("second", parent)
    assert first.returncode == 0, first.output
    assert {rank: first.records[rank][0].text for rank in first.records} == {
        0: "rank 0 of 2",
        1: "rank 1 of 2",
    }
    # Started by torchrun's agent, forked from a forkserver that had imported torch...
    assert first.records[0][2].text == "True True"
    assert "multiprocessing.forkserver import main" in first.records[0][3].text
    assert first.records[0][4].text == "None"  # (the checkout is not on a rank's sys.path)
    # ...the same forkserver for both launches: torch was imported once for both.
    parents = {result.records[rank][1].text for result in (first, second) for rank in (0, 1)}
    assert len(parents) == 1
    failing = launch(
        "failing",
        """
        # launch: torchrun --nproc_per_node=2
        import os
        if os.environ["RANK"] == "1":
            raise ValueError("rank 1 fails here")
        """,
    )
    assert failing.returncode == 1
    assert 'failing.py", line 4' in failing.output and "rank 1 fails here" in failing.output
    unparsed = launch("unparsed", "# launch: torchrun --nproc_per_node=2 --no-such-option\n")
    assert (
        unparsed.returncode == 1 and "unrecognized arguments: --no-such-option" in unparsed.output
    )
    hung = """
        # launch: torchrun --nproc_per_node=2
        # timeout: 2
        import os, time
        forkserver = os.getppid()
        server = open(f"/proc/{forkserver}/stat").read().rsplit(")", 1)[1].split()[1]
        open(f"pids{os.environ['RANK']}", "w").write(f"{os.getpid()} {forkserver} {server}")
        time.sleep(60)
    """
    with pytest.raises(isolation.SnippetTimeoutError, match="ran longer than 2 s"):
        launch("hung", hung)
    pids = {
        int(p) for rank in (0, 1) for p in (tmp_path / "hung" / f"pids{rank}").read_text().split()
    }
    assert len(pids) == 4  # two ranks, their forkserver, its launcher
    deadline = time.monotonic() + 5  # a killed process may stay a zombie until its reaper runs
    while any(stat(pid)[0] not in "ZX" for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(stat(pid)[0] in "ZX" for pid in pids)  # all stopped
    after = launch("after", parent)  # a new launcher and forkserver
    assert after.returncode == 0 and after.records[0][1].text not in parents | {
        str(p) for p in pids
    }


# --- scheduling: the longest tests first -----------------------------------------------------


def test_slowest_snippets_then_built_site_tests_are_collected_first() -> None:
    from types import SimpleNamespace

    from harness import scheduling

    def item(name: str, snippet: str | None = None, site: bool = False, timeout: int = 60):
        params = {"snippet": SimpleNamespace(rel=snippet, timeout_s=timeout), "device": "cpu"}
        return SimpleNamespace(
            name=name,
            callspec=SimpleNamespace(params=params) if snippet else None,
            fixturenames=["built_site"] if site else [],
        )

    items = [
        item("other"),
        item("fast", "snippets/fast.py"),
        item("unreported", "snippets/new.py", timeout=240),  # not in the report yet
        item("slow", "snippets/slow.py"),
        item("browser", site=True),
    ]
    durations = {"snippets/fast.py[cpu]": 0.1, "snippets/slow.py[cpu]": 9.0}
    config = SimpleNamespace(workerinput={"snippet_durations": durations})
    scheduling.pytest_collection_modifyitems(config, items)
    assert [i.name for i in items] == ["unreported", "slow", "fast", "browser", "other"]


def test_workers_order_tests_alike_though_the_report_changes(inner_suite: pytest.Pytester) -> None:
    """`mkdocs serve` may write the report while a test run starts: the workers must not each
    read their own version of it (xdist aborts when their collections differ)."""
    from sample_results import sample_result

    from docverify.results import report

    for name in ("a", "b", "c"):
        (inner_suite.path / "snippets" / f"{name}.py").write_text("x = 1\n")
    reports = inner_suite.path / ".reports"
    slow_first = [sample_result(f"snippets/{n}.py", duration_s=d) for n, d in (("a", 9), ("c", 1))]
    report.merge_results(slow_first, reports, root=inner_suite.path)
    swapped = [sample_result(f"snippets/{n}.py", duration_s=d) for n, d in (("a", 1), ("c", 9))]
    inner_suite.makeconftest(
        f"""
        import os
        from pathlib import Path
        from docverify.results import report

        pytest_plugins = ["harness.plugin", "harness.scheduling"]

        def pytest_configure(config):
            if os.environ.get("PYTEST_XDIST_WORKER") == "gw1":  # a live write, just before gw1 reads
                report.merge_results({swapped!r}, Path({str(reports)!r}), root=Path({str(inner_suite.path)!r}))
        """.replace("SnippetResult(", "report.SnippetResult(")
    )
    result = run_inner(inner_suite, "-n", "2", f"--reports-dir={reports}")
    result.assert_outcomes(passed=3)


def test_the_longest_snippets_go_to_every_worker(inner_suite: pytest.Pytester) -> None:
    """Longest first pays only if xdist hands tests out one at a time: its default first chunk,
    a quarter of a worker's share (5 of these 40), would give gw0 all four long snippets."""
    from sample_results import sample_result

    from docverify.results import report

    names = [f"s{i:02d}" for i in range(40)]
    files = [inner_suite.path / "snippets" / f"{name}.py" for name in names]
    for file in files:
        file.write_text("x = 1\n")
    long = names[-4:]  # collected last, ordered first
    reports = inner_suite.path / ".reports"
    # Keyed by absolute path: a snippet in no checkout has no shorter name (`Snippet.rel`).
    timed = [sample_result(str(f), duration_s=9 if f.stem in long else 0.01) for f in files]
    report.merge_results(timed, reports, root=inner_suite.path)
    ran = inner_suite.path / "ran.txt"
    inner_suite.makeconftest(
        f"""
        import os

        pytest_plugins = ["harness.plugin", "harness.scheduling"]

        def pytest_runtest_setup(item):
            with open({str(ran)!r}, "a", encoding="utf-8") as out:
                out.write(os.environ["PYTEST_XDIST_WORKER"] + " " + item.name + "\\n")
        """
    )
    result = run_inner(inner_suite, "-n", "2", f"--reports-dir={reports}")
    result.assert_outcomes(passed=40)
    lines = ran.read_text(encoding="utf-8").splitlines()
    workers = [line.split()[0] for line in lines if any(f"/{n}.py" in line for n in long)]
    assert len(workers) == 4 and workers.count("gw0") == workers.count("gw1") == 2, lines


# --- `# process: own` ------------------------------------------------------------------------

FORKS_AND_BACKWARDS = """
    # process: own
    import os
    import torch
    read, write = os.pipe()
    if os.fork() == 0:  # a child that runs autograd, as DDP's forked ranks do
        x = torch.ones(2, requires_grad=True)
        try:
            (x * 3).sum().backward()
            said = str(x.grad.tolist())
        except RuntimeError as error:
            said = str(error)[:40]
        os.write(write, said.encode())
        os._exit(0)
    os.wait()
    print(os.read(read, 100).decode())
    #> [3.0, 3.0]
"""


@pytest.mark.torchrun
def test_a_snippet_of_its_own_process_runs_outside_the_suites_process(tmp_path: Path) -> None:
    # Seen in the suite (2026-12-07): DDP's forked ranks in dataparallel_vs_ddp.py failed with
    # "Unable to handle autograd's threading in combination with fork-based multiprocessing"
    # when the scheduler ran some other snippets first in the same process.
    body = textwrap.dedent(FORKS_AND_BACKWARDS) + f"print(os.getpid() == {os.getpid()})\n#> False\n"
    snippet = snippet_file.load(write_snippet(tmp_path, "forks.py", body))
    assert snippet.runs_apart and not snippet.launched  # a reader runs it with plain python
    result = run_launched(snippet, "cpu", tmp_path / "run")
    assert result.returncode == 0, result.output
    assert [r.text for r in result.records[0]] == ["[3.0, 3.0]", "False"]
    inside = snippet_file.load(
        write_snippet(tmp_path, "inside.py", body.replace("# process: own", ""))
    )
    assert not inside.runs_apart  # without the directive: in this process, as every snippet


def test_process_takes_own_only(tmp_path: Path) -> None:
    path = write_snippet(tmp_path, "bad.py", "# process: fresh\nprint(1)\n")
    with pytest.raises(snippet_file.SnippetFormatError, match="`# process:` takes `own`"):
        snippet_file.load(path)


def test_the_launcher_s_path_entry_is_src_and_hides_no_standard_module() -> None:
    """The launch server gets SRC_DIR on PYTHONPATH. It was src/docverify once, whose
    `site` package hid the standard library's on Python 3.10: the server ran without its
    virtual environment, and every torchrun snippet of that stack failed to start."""
    from docverify.run.run_snippet import SRC_DIR

    assert (SRC_DIR / "docverify" / "__init__.py").is_file()
    top_level = {p.stem for p in SRC_DIR.iterdir() if p.suffix == ".py" or p.is_dir()}
    assert not top_level & set(sys.stdlib_module_names), sorted(
        top_level & set(sys.stdlib_module_names)
    )
