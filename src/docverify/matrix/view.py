"""Where each code block holds: the version matrix's results, as ranges and differences.

Read by docverify.site.matrix_lines (no torch needed). The declared stacks
(docverify.matrix.stacks) lie on two axes that share the pinned stack: torch versions on
the pinned Python, and the other Python versions (on the pinned torch). For a code block (a
snippet section) each stack's outcome is

- "same": every `#>` block in it printed what the file shows, no statement in it
  raised or warned;
- "differs", with the notes of what did not (docverify.matrix.records's block kinds, plus
  statements that raised and warnings);
- "stale": the stack's record is of other bytes of the file (edited since `make
  matrix`): never counted as a result;
- "missing" (no record) or "not run" (e.g. needs CUDA).

Ranges join neighbouring tested versions ("2.8–2.15": every declared torch from
2.8.0 to 2.15.0 gave the same; versions between them were not run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from docverify.matrix.records import FileRecord, StackResult, is_current, load_all
from docverify.matrix.stacks import PINNED_PYTHON, Stack, stacks, version_key
from docverify.paths import REPO_ROOT

SAME, DIFFERS, STALE, MISSING, NOT_RUN = "same", "differs", "stale", "missing", "not run"


@dataclass(frozen=True)
class Note:
    """One difference inside a code block on one stack."""

    line: int  # snippet line of the print (or of the statement that raised or warned)
    kind: str  # "prints", "raises", "not_reached", "warns"
    text: str = ""  # printed text (prints; raises: what it printed first)
    message: str = ""  # the error or warning


@dataclass(frozen=True)
class Outcome:
    kind: str  # SAME, DIFFERS, STALE, MISSING, NOT_RUN
    notes: tuple[Note, ...] = ()
    reason: str = ""  # NOT_RUN: why


def section_outcome(record: FileRecord, first: int, last: int) -> Outcome:
    """What a current record says about the lines first..last of its file."""
    if record.status == "not run":
        return Outcome(NOT_RUN, reason=record.reason)
    notes = [
        Note(b.line, b.kind, b.text, b.error)
        for b in record.blocks
        if first <= b.line <= last and b.kind != "same"
    ]
    shown_lines = {n.line for n in notes}
    for error in record.errors:
        spans_a_note = any(error.line <= line <= error.end_line for line in shown_lines)
        if first <= error.line <= last and not spans_a_note:
            notes.append(Note(error.line, "raises", "", error.error))
    notes += [
        Note(w.line, "warns", "", w.error) for w in record.warnings if first <= w.line <= last
    ]
    notes.sort(key=lambda n: (n.line, n.kind))
    return Outcome(DIFFERS, tuple(notes)) if notes else Outcome(SAME)


@dataclass
class Matrix:
    """The declared stacks and their recorded results, for one build."""

    stacks: list[Stack]
    results: dict[str, StackResult]
    root: Path = REPO_ROOT
    _current: dict[tuple[str, str], bool] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path = REPO_ROOT, results_dir: Path | None = None) -> Matrix:
        results_dir = results_dir or root / "docs" / "assets" / "generated" / "matrix"
        return cls(stacks(root / "requirements.txt"), load_all(results_dir), root)

    @property
    def pinned(self) -> Stack:
        return self.stacks[0]

    def torch_axis(self) -> list[Stack]:
        """The stacks on the pinned Python, by torch version (the pinned stack among them)."""
        found = [s for s in self.stacks if s.python == PINNED_PYTHON]
        return sorted(found, key=lambda s: version_key(s.torch))

    def python_axis(self) -> list[Stack]:
        """The pinned stack and the other Pythons' (each on the pinned torch, or on what
        requirements.txt pins for that Python where the pinned torch has no wheels)."""
        found = [self.pinned, *(s for s in self.stacks if s.python != self.pinned.python)]
        return sorted(found, key=lambda s: version_key(s.python))

    def outcome(self, stack: Stack, path: str, first: int = 1, last: int = 10**9) -> Outcome:
        result = self.results.get(stack.name)
        record = result.files.get(path) if result else None
        if record is None:
            return Outcome(MISSING)
        key = (stack.name, path)
        if key not in self._current:
            self._current[key] = is_current(record, self.root)
        if not self._current[key]:
            return Outcome(STALE)
        return section_outcome(record, first, last)

    def outcomes(self, path: str, first: int = 1, last: int = 10**9) -> dict[str, Outcome]:
        return {s.name: self.outcome(s, path, first, last) for s in self.stacks}

    # --- ranges -------------------------------------------------------------------------

    def ranges(self, names: set[str]) -> tuple[str, str]:
        """(torch ranges, Python ranges) of the stacks `names` on each axis ("" for none)."""
        torch = _runs([(_short(s.torch), s.name in names) for s in self.torch_axis()])
        python = _runs([(s.python, s.name in names) for s in self.python_axis()])
        return torch, python

    def tested(self) -> tuple[str, str]:
        """Every tested torch and Python version, for a tooltip."""
        return (
            ", ".join(s.torch for s in self.torch_axis()),
            ", ".join(s.python for s in self.python_axis()),
        )


def _short(version: str) -> str:
    """2.14.1 -> 2.14: a range names minor releases."""
    return ".".join(re.findall(r"\d+", version)[:2])


def _runs(points: list[tuple[str, bool]]) -> str:
    """'2.4–2.8, 2.14' for the runs of neighbouring points that are in the set."""
    runs: list[list[str]] = []
    previous = False
    for label, inside in points:
        if inside and previous:
            runs[-1].append(label)
        elif inside:
            runs.append([label])
        previous = inside
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def group_differences(
    matrix: Matrix, outcomes: dict[str, Outcome]
) -> list[tuple[set[str], tuple[Note, ...]]]:
    """Stacks whose outcome differs, grouped by identical notes, in declared stack order."""
    groups: dict[tuple[Note, ...], set[str]] = {}
    for stack in matrix.stacks:
        outcome = outcomes[stack.name]
        if outcome.kind == DIFFERS:
            groups.setdefault(outcome.notes, set()).add(stack.name)
    return [(names, notes) for notes, names in groups.items()]
