"""Run the snippets on this interpreter's stack and record, per `#>` block, what it prints.

Run by scripts/matrix.py inside each stack's virtual environment as
`python -m docverify.matrix.record --stack NAME --out PATH` (this checkout's src/ and
tests/ on PYTHONPATH). Each snippet runs as the suite runs it (a fresh
`__main__` with the harness's print recorder and isolation guards, or under
torchrun with rank 0's prints), but one top-level statement at a time: a
statement that raises is recorded ("raises Type: message") and the next one
runs, so one early difference does not hide the rest. A block is compared with
the `#>` lines the file shows (the pinned stack's output, which the suite
checks): "same", or what this stack printed instead (docverify.matrix.records).
CUDA-only snippets are recorded as not run where there is no GPU.
"""

from __future__ import annotations
import __future__ as future_flags

import argparse
import ast
import contextlib
import datetime as dt
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict
from pathlib import Path
from unittest import mock

from docverify.contract import snippets as snippet_file
from docverify.contract.page_program import build, content_pages, covering_snippet
from docverify.contract.snippets import SnippetFile
from docverify.figures import FIGURES_DIR_VARIABLE
from docverify.matrix.records import (
    FileRecord,
    StackResult,
    StatementError,
    code_sha256,
    compare_blocks,
    error_text,
    load_stack,
    warning_text,
    write_stack,
)
from docverify.matrix.stacks import RUNTIME_PACKAGES, stacks
from docverify.paths import REPO_ROOT
from docverify.run.isolation import SnippetTimeoutError
from docverify.run.print_capture import PrintRecord
from docverify.run.run_snippet import SRC_DIR, isolated_main, run_launched

# What one run gives: rank 0's (or the process's) prints, the statements that raised,
# the warnings each statement emitted, and whether the time limit stopped it.
Run = tuple[list[PrintRecord], list[StatementError], list[StatementError], bool]


def statements(source: str, path: str) -> list[tuple[ast.stmt, object]]:
    """Each top-level statement with its code, compiled under `path` with its own line numbers."""
    tree = ast.parse(source, filename=path)
    flags = 0
    compiled = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(future_flags, alias.name).compiler_flag
        module = ast.Module(body=[node], type_ignores=[])
        compiled.append((node, compile(module, path, "exec", flags=flags, dont_inherit=True)))
    return compiled


def reader_warning_filters() -> None:
    """Record every warning that `python snippet.py` would print, once per statement.

    Python's default filters: DeprecationWarning only from `__main__` (the snippet's
    own code), no PendingDeprecationWarning, ImportWarning or ResourceWarning (so,
    for one, not 3.12's fork() warning from inside multiprocessing).
    """
    warnings.simplefilter("always")
    for hidden in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.filterwarnings("ignore", category=hidden)
    warnings.filterwarnings("always", category=DeprecationWarning, module="__main__")


def run_statements(
    namespace: dict, source: str, path: str
) -> tuple[list[StatementError], list[StatementError], bool]:
    """Execute each top-level statement in `namespace`: (errors, warnings, whether time ran out).

    Warnings are recorded, not raised: a reader's `python snippet.py` prints them and
    goes on (the suite turns them into errors so that none is missed on the pinned
    stack; on another stack a warning is one of the differences to show). Those a
    reader's Python hides by default are left out (reader_warning_filters).
    """
    errors: list[StatementError] = []
    warned: list[StatementError] = []
    for node, code in statements(source, path):
        where = (node.lineno, node.end_lineno or node.lineno)
        with warnings.catch_warnings(record=True) as caught:
            reader_warning_filters()
            try:
                exec(code, namespace)  # noqa: S102
            except SnippetTimeoutError as exc:
                errors.append(StatementError(*where, error_text(exc)))
                return errors, warned, True
            except (Exception, SystemExit) as exc:
                errors.append(StatementError(*where, error_text(exc)))
        for text in dict.fromkeys(warning_text(w) for w in caught):
            warned.append(StatementError(*where, text))
    return errors, warned, False


def record_in_process(snippet: SnippetFile, workdir: Path) -> Run:
    path = str(snippet.path.resolve())
    with isolated_main(snippet, "cpu", workdir) as (module, recorder):
        errors, warned, timed_out = run_statements(module.__dict__, snippet.source, path)
    return recorder.records, errors, warned, timed_out


def record_in_own_process(snippet: SnippetFile, workdir: Path) -> Run:
    """`# process: own`: as record_in_process, in a new interpreter of this stack (this
    recorder's process has run other snippets, whose autograd threads a fork inherits)."""
    out = workdir / "own-process.json"
    code = "import sys; from docverify.matrix.record import dump_run; dump_run(*sys.argv[1:])"
    command = [sys.executable, "-c", code, str(snippet.path.resolve()), str(out)]
    env = {
        **os.environ,
        # this recorder's docverify, first
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")])),
    }
    # A session of its own: ranks it forks and a time limit leaves waiting in a collective
    # go with it (they outlived the recorder once, parented to init, holding 370 MB each).
    child = subprocess.Popen(command, cwd=workdir, env=env, start_new_session=True)
    try:
        child.wait(timeout=snippet.timeout_s + 30)
    except subprocess.TimeoutExpired as exc:
        return [], [StatementError(1, 1, error_text(exc))], [], True
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    if not out.is_file():
        return [], [StatementError(1, 1, "its process ended before it wrote a record")], [], False
    found = json.loads(out.read_text(encoding="utf-8"))
    errors, warned = ([StatementError(**e) for e in found[k]] for k in ("errors", "warnings"))
    return [PrintRecord(**r) for r in found["prints"]], errors, warned, found["timed_out"]


def dump_run(path: str, out: str) -> None:
    """The other side of record_in_own_process: run one snippet, write what it gave."""
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        records, errors, warned, timed_out = record_in_process(
            snippet_file.load(Path(path)), Path(tmp)
        )
    found = {"prints": records, "errors": errors, "warnings": warned, "timed_out": timed_out}
    encoded = {k: v if k == "timed_out" else [asdict(x) for x in v] for k, v in found.items()}
    Path(out).write_text(json.dumps(encoded), encoding="utf-8")
    os._exit(0)  # no interpreter finalization: the ranks' gloo threads (see main)


def record_launched(snippet: SnippetFile, workdir: Path) -> Run:
    """Under torchrun (docverify.matrix.launch): rank 0's prints, errors and warnings."""
    try:
        result = run_launched(snippet, "cpu", workdir, launcher="docverify.matrix.launch")
    except SnippetTimeoutError as exc:
        return [], [StatementError(1, 1, error_text(exc))], [], True
    capture = workdir / "prints" / "errors0.json"
    if capture.is_file():
        found = json.loads(capture.read_text(encoding="utf-8"))
        errors = [StatementError(**e) for e in found["errors"]]
        warned = [StatementError(**w) for w in found["warnings"]]
    else:  # the launch failed before rank 0 ran the snippet: the recorder's fault, not
        # the stack's (recorded, it read as "every block prints nothing" on the page)
        raise RuntimeError(f"{snippet.rel}: torchrun failed before rank 0 ran it:\n{result.output}")
    return result.records.get(0, []), errors, warned, False


def record_file(snippet: SnippetFile, rel: str, has_cuda: bool) -> FileRecord:
    sha = code_sha256(snippet.source)
    if "cpu" not in snippet.devices and not has_cuda:
        return FileRecord(rel, sha, status="not run", reason="needs CUDA")
    if "checkout" in snippet.requires:
        # It reads the checkout's own environment (the .venv `make test` installs, with its
        # tools): a stack's environment holds the snippets' runtime packages only.
        return FileRecord(rel, sha, status="not run", reason="needs the checkout's .venv")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        runner = (
            record_launched
            if snippet.launched
            else record_in_own_process
            if snippet.own_process
            else record_in_process
        )
        records, errors, warned, timed_out = runner(snippet, Path(tmp))
    return FileRecord(
        rel,
        sha,
        status="timeout" if timed_out else "ran",
        duration_s=round(time.monotonic() - start, 2),
        blocks=tuple(compare_blocks(snippet.source, rel, records, errors)),
        errors=tuple(errors),
        warnings=tuple(warned),
    )


def _programs(root: Path, has_cuda: bool):
    """(page, program) of each page program the suite runs on its own (not covered by
    its snippet file's run), as it runs on this machine."""
    for page in content_pages(root):
        program = build(page, root)
        if program.needs_cuda and not has_cuda:
            program = program.without_cuda_parts()
        if program.parts and not covering_snippet(program)[0]:
            yield page, program


def timed_out(record: FileRecord) -> bool:
    """Whether a time limit stopped the run (the snippet's, or a subprocess's it starts):
    on a busy machine that says nothing about the stack, so it is recorded again."""
    return record.status == "timeout" or any("TimeoutExpired" in e.error for e in record.errors)


def warm_up() -> None:
    """Import what many snippets import before any time limit runs.

    The suite's workers import these once; a first import inside a snippet's
    time limit can take most of it on a cold, busy machine, and an import the
    limit interrupts leaves a half-initialised module (torch._dynamo) that breaks
    every later snippet of the run.
    """
    import matplotlib.pyplot  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torchvision.transforms.v2  # noqa: F401


def record_all(
    root: Path, only: str | None = None, previous: dict[str, FileRecord] | None = None
) -> dict[str, FileRecord]:
    """Every snippet file's and page program's record: recorded anew where `previous` has
    no current one (or its path contains `only`), else kept."""
    import torch

    warm_up()
    has_cuda = torch.cuda.is_available()
    previous = previous or {}
    results: dict[str, FileRecord] = {}

    def wanted(rel: str, source: str) -> bool:
        old = previous.get(rel)
        if only is not None:
            if only in rel:
                return True
            if old is not None:
                results[rel] = old  # outside -k: kept, current or not
            return False
        current = old is not None and old.sha256 == code_sha256(source)
        if current and not timed_out(old):
            results[rel] = old
            return False
        return True

    def record(snippet: SnippetFile, rel: str) -> FileRecord:
        found = record_file(snippet, rel, has_cuda)
        if timed_out(found):  # a busy machine, not the version: once more
            found = record_file(snippet, rel, has_cuda)
        return found

    for path in snippet_file.discover(root / "snippets"):
        rel = path.relative_to(root).as_posix()
        snippet = snippet_file.load(path)
        if wanted(rel, snippet.source):
            results[rel] = record(snippet, rel)
            print(f"  {rel}: {results[rel].summary()}", flush=True)
    for page, program in _programs(root, has_cuda):
        if not wanted(page, program.source):
            continue
        with tempfile.TemporaryDirectory(prefix="matrix-page-") as tmp:
            path = Path(tmp) / f"{program.stem}.py"
            path.write_text(program.source, encoding="utf-8")
            snippet = SnippetFile(
                path,
                program.source,
                launch=program.launch,
                timeout_s=program.timeout_s,
                own_process=program.own_process,
            )
            results[page] = record(snippet, page)
        print(f"  {page} (page program): {results[page].summary()}", flush=True)
    return results


def environment() -> dict[str, str]:
    import platform
    from importlib import metadata

    return {
        "python": sys.version.split()[0],
        **{name: metadata.version(name) for name in RUNTIME_PACKAGES},
        "machine": f"{platform.system()} {platform.machine()}",
        "cuda_available": str(__import__("torch").cuda.is_available()),
        "threads": str(os.cpu_count()),
    }


@contextlib.contextmanager
def figures_elsewhere():
    """The figures the snippets draw go to a temporary folder (the snippets' processes
    inherit the variable): this stack's matplotlib must not redraw the committed ones."""
    with (
        tempfile.TemporaryDirectory(prefix="matrix-figures-") as folder,
        mock.patch.dict(os.environ, {FIGURES_DIR_VARIABLE: folder}),
    ):
        yield Path(folder)


def main(argv: list[str]) -> int:
    """Record this interpreter's stack (run inside the stack's environment by scripts/matrix.py)."""
    parser = argparse.ArgumentParser(description="record the version matrix for one stack")
    parser.add_argument("--stack", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("-k", dest="only", help="only files whose path contains this")
    args = parser.parse_args(argv)
    stack = {s.name: s for s in stacks()}[args.stack]
    env = environment()
    installed = {p: env[p].split("+")[0] for p, _ in stack.packages}
    if installed != dict(stack.packages) or not env["python"].startswith(stack.python + "."):
        print(
            f"{args.stack}: this environment has {installed}, Python {env['python']}",
            file=sys.stderr,
        )
        return 2
    previous = load_stack(args.out) if args.out.is_file() else None
    if previous is not None and previous.environment != env:
        previous = None  # another environment (a package reinstalled): record everything
    with figures_elsewhere():
        files = record_all(REPO_ROOT, args.only, previous.files if previous else None)
    changed = previous is None or files != previous.files
    result = StackResult(
        stack=stack.name,
        python=stack.python,
        torch=stack.torch,
        environment=env,
        date=dt.datetime.now(dt.timezone.utc).date().isoformat() if changed else previous.date,
        duration_s=round(sum(f.duration_s for f in files.values()), 1),
        files=files,
    )
    write_stack(result, args.out)
    # On an older torch a statement can raise inside one forked rank while its partner
    # waits at a collective (seen on 2.6: dataparallel_vs_ddp's ranks, in a futex, for
    # minutes); multiprocessing's exit handler would join them forever. The record is
    # written: end them.
    for child in multiprocessing.active_children():
        child.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
