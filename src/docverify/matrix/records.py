"""The version matrix's data: per stack, per snippet file, per `#>` block, what it printed.

`make matrix` (scripts/matrix.py) runs the snippets on every stack declared in
docverify.matrix.stacks and writes one file per stack, docs/assets/generated/matrix/<stack>.json
(committed). In it, each snippet file (and each page program the suite runs on its
own, keyed by its page) has the sha256 of the bytes that ran, and each `#>` block,
named by the line of its print call, is

- "same": printed exactly the `#>` lines the file shows (the pinned stack's output,
  which the suite checks);
- "prints": printed `text` instead (an empty text: printed nothing);
- "raises": the statement holding the print raised `error` (after printing `text`);
- "not_reached": its print did not run because an earlier statement raised `error`.

Statements that raised are listed too (an `assert` that fails on a stack is a claim
that is false there). A record is current only while the file's sha256 is the one
recorded (`is_current`); the site shows a stale record as stale, never as a result.
A block is addressed as `<file>:<line>` on a stack: the anchor `matrix_anchor` makes
each one linkable on its page.

No torch here: the site build and the tests read this module. The recording itself
is docverify.matrix.record, run in each stack's environment.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import re
import tokenize
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from docverify.paths import GENERATED_DIR, REPO_ROOT
from docverify.results.report import content_sha256
from docverify.run.print_capture import OUTPUT_LINE

RESULTS_DIR = GENERATED_DIR / "matrix"
SCHEMA = 1
KINDS = ("same", "prints", "raises", "not_reached")


@dataclass(frozen=True)
class StatementError:
    line: int  # first line of the top-level statement that raised
    end_line: int
    error: str  # "Type: first line of the message"


@dataclass(frozen=True)
class BlockResult:
    line: int  # line of the print call whose `#>` lines this is
    kind: str  # one of KINDS
    text: str = ""  # what it printed (prints, raises)
    error: str = ""  # raises, not_reached

    def describe(self) -> str:
        """One line for a summary: `prints …`, `raises …`."""
        if self.kind == "prints":
            return "prints nothing" if not self.text else f"prints {self.text!r}"
        if self.kind == "raises":
            return f"raises {self.error}"
        return f"not reached ({self.error})" if self.kind == "not_reached" else "same"


@dataclass(frozen=True)
class FileRecord:
    path: str  # snippets/<section>/<page>.py, or docs/<section>/<page>.md for a page program
    sha256: str
    status: str = "ran"  # "ran", "timeout", "not run"
    reason: str = ""  # why not run
    duration_s: float = 0.0
    blocks: tuple[BlockResult, ...] = ()
    errors: tuple[StatementError, ...] = field(default=())
    warnings: tuple[StatementError, ...] = field(default=())  # `error` holds the warning

    def summary(self) -> str:
        if self.status == "not run":
            return f"not run ({self.reason})"
        differ = [b for b in self.blocks if b.kind != "same"]
        text = f"{len(self.blocks) - len(differ)}/{len(self.blocks)} blocks same"
        if self.errors:
            text += f", {len(self.errors)} statement(s) raised"
        if self.warnings:
            text += f", {len(self.warnings)} warning(s)"
        return (
            text + (" (time limit)" if self.status == "timeout" else "") + f", {self.duration_s} s"
        )

    def block(self, line: int) -> BlockResult | None:
        return next((b for b in self.blocks if b.line == line), None)

    def to_json(self) -> dict:
        data = {"path": self.path, "sha256": self.sha256, "status": self.status}
        if self.reason:
            data["reason"] = self.reason
        data["duration_s"] = self.duration_s
        data["same"] = [b.line for b in self.blocks if b.kind == "same"]
        data["differ"] = [
            {k: v for k, v in asdict(b).items() if v != ""} for b in self.blocks if b.kind != "same"
        ]
        data["errors"] = [asdict(e) for e in self.errors]
        data["warnings"] = [asdict(w) for w in self.warnings]
        return data

    @classmethod
    def from_json(cls, data: dict) -> FileRecord:
        blocks = [BlockResult(line, "same") for line in data.get("same", [])]
        blocks += [BlockResult(**b) for b in data.get("differ", [])]
        return cls(
            path=data["path"],
            sha256=data["sha256"],
            status=data.get("status", "ran"),
            reason=data.get("reason", ""),
            duration_s=data.get("duration_s", 0.0),
            blocks=tuple(sorted(blocks, key=lambda b: b.line)),
            errors=tuple(StatementError(**e) for e in data.get("errors", [])),
            warnings=tuple(StatementError(**w) for w in data.get("warnings", [])),
        )


@dataclass(frozen=True)
class StackResult:
    stack: str  # docverify.matrix.stacks.Stack.name
    python: str  # "3.11": the stack's declared Python
    torch: str  # "2.4.1": the stack's declared torch
    environment: dict  # installed versions and machine, as recorded
    date: str
    duration_s: float
    files: dict[str, FileRecord]

    def record(
        self, path: str, root: Path = REPO_ROOT, source: str | None = None
    ) -> FileRecord | None:
        """The record of `path` if it is current (the file's bytes are the ones recorded)."""
        record = self.files.get(path)
        return record if record and is_current(record, root, source) else None


@functools.lru_cache(maxsize=512)  # per snippet text: the site asks once per block and stack
def code_sha256(source: str) -> str:
    """The hash of what a file runs: its text with every comment cut, line by line.

    A comment changes no output and moves no line (a proof link `# ✓ name`, a `#>`
    line rewritten for a new pin), so it does not make a stack's record stale; a
    changed or added line of code does.
    """
    lines = source.split("\n")
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                row, column = token.start
                lines[row - 1] = lines[row - 1][:column].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass  # saved mid-edit: the whole text counts, comments too
    return content_sha256("\n".join(lines).encode("utf-8"))


def is_current(record: FileRecord, root: Path = REPO_ROOT, source: str | None = None) -> bool:
    """Whether the recorded file's code is unchanged. `source`: its text now, for a page program."""
    if source is None:
        path = root / record.path
        if not path.is_file():
            return False
        source = path.read_text(encoding="utf-8")
    return bool(record.sha256) and code_sha256(source) == record.sha256


MESSAGE_CHARS = 200  # a recorded message's first line is cut here (some are a paragraph long)


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= MESSAGE_CHARS else first[: MESSAGE_CHARS - 1] + "…"


def error_text(exc: BaseException) -> str:
    """`Type: first line of the message`, as a block or a statement that raised shows it."""
    first = _first_line(str(exc))
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def warning_text(caught: warnings.WarningMessage) -> str:
    """`Category: first line of the message` of a warning a statement emitted."""
    return f"{caught.category.__name__}: {_first_line(str(caught.message))}"


def matrix_anchor(path: str, line: int) -> str:
    """The HTML id of a block's version note: `matrix-snippets-tensors-shapes-py-42`."""
    return "matrix-" + re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") + f"-{line}"


# --- comparing a run with the file's `#>` lines ---------------------------------------------


@functools.lru_cache(maxsize=512)  # per snippet text (read-only): asked once per block
def shown_blocks(source: str, path: str) -> dict[int, str]:
    """Line whose print a `#>` block shows -> the block's text.

    The suite's own placement (print_capture.print_call_end), read backwards: a
    block under the last line of a `print(...)` call belongs to the call's first
    line; one under any other line (print under another name, such as a
    `print_rank0 = print`) belongs to that line.
    """
    tree = ast.parse(source, filename=path)
    starts: dict[int, int] = {}  # last line of a print call -> its first line (the outermost)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            end = node.end_lineno or node.lineno
            starts[end] = min(starts.get(end, node.lineno), node.lineno)
    lines = source.splitlines()
    shown: dict[int, str] = {}
    for index, line in enumerate(lines):
        if not OUTPUT_LINE.match(line) or index == 0 or OUTPUT_LINE.match(lines[index - 1]):
            continue  # not the first line of a block
        texts = []
        for following in lines[index:]:
            found = OUTPUT_LINE.match(following)
            if not found:
                break
            texts.append(found["text"] or "")
        owner = starts.get(index, index)  # index: the 1-based number of the line above
        shown[owner] = "\n".join(texts)
    return shown


def compare_blocks(
    source: str, path: str, records: list, errors: list[StatementError]
) -> list[BlockResult]:
    """Each shown block (and each print this run made that the file shows none for), compared.

    A block whose print did not run: "raises" when the top-level statement holding it
    raised; "not_reached" when it sits in a function or class whose later use raised
    (the first error after its definition); else "prints" nothing (e.g. an `except`
    branch this version never entered).
    """
    shown = shown_blocks(source, path)
    statements = ast.parse(source, filename=path).body
    printed: dict[int, list[str]] = {}
    for record in records:
        printed.setdefault(record.line, []).append(record.text)
    results = []
    for line in sorted(set(shown) | set(printed)):
        spanning = next((e for e in errors if e.line <= line <= e.end_line), None)
        text = "\n".join(t.rstrip() for t in "\n".join(printed.get(line, [])).split("\n"))
        if line in printed and (spanning is None or shown.get(line) == text):
            kind = "same" if shown.get(line) == text else "prints"
            results.append(BlockResult(line, kind, "" if kind == "same" else text))
        elif spanning is not None:
            results.append(
                BlockResult(line, "raises", text if line in printed else "", spanning.error)
            )
        else:
            holder = next((s for s in statements if s.lineno <= line <= (s.end_lineno or 0)), None)
            is_definition = isinstance(
                holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            )
            later = [e for e in errors if holder is not None and e.line > (holder.end_lineno or 0)]
            if is_definition and later:
                results.append(BlockResult(line, "not_reached", "", later[0].error))
            else:
                results.append(BlockResult(line, "prints", ""))
    return results


# --- the result files -----------------------------------------------------------------------


def result_path(stack: str, results_dir: Path = RESULTS_DIR) -> Path:
    return results_dir / f"{stack}.json"


def load_stack(path: Path) -> StackResult:
    """One stack's results; a file that is not a matrix result fails naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}, expected {SCHEMA}")
        return StackResult(
            stack=data["stack"],
            python=data["python"],
            torch=data["torch"],
            environment=data.get("environment", {}),
            date=data.get("date", ""),
            duration_s=data.get("duration_s", 0.0),
            files={f["path"]: FileRecord.from_json(f) for f in data["files"]},
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a version-matrix result file: {exc}") from exc


def load_all(results_dir: Path = RESULTS_DIR) -> dict[str, StackResult]:
    """Every stack's results found in `results_dir`, by stack name."""
    if not results_dir.is_dir():
        return {}
    return {r.stack: r for r in map(load_stack, sorted(results_dir.glob("*.json")))}


def write_stack(result: StackResult, path: Path) -> None:
    payload = {
        "schema": SCHEMA,
        "stack": result.stack,
        "python": result.python,
        "torch": result.torch,
        "environment": result.environment,
        "date": result.date,
        "duration_s": result.duration_s,
        "files": [r.to_json() for r in sorted(result.files.values(), key=lambda r: r.path)],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
