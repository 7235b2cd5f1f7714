"""List the `#>` lines a run printed differently, for runs on another torch.

The GPU machine verifies with the torch it has, which is rarely the pinned one.
A `#>` line that differs there is either device dependence (a bug in the
snippet: output must not depend on whether CUDA is present) or a difference
between torch versions (an error message reworded, a repr changed). The suite
still fails on it; this module also writes every differing line to one Markdown
file (`--output-diffs PATH`) so that a reader can tell which is which.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from docverify.run.print_capture import OUTPUT_LINE


@dataclass(frozen=True)
class LineDiff:
    snippet: str  # repo-relative path
    device: str
    line: int  # line of the first differing `#>` line in the file as written
    shown: tuple[str, ...]  # the `#>` lines as the file has them
    printed: tuple[str, ...]  # what this run printed in their place


def output_line_diffs(snippet: str, device: str, written: str, expected: str) -> list[LineDiff]:
    """Each block of `#>` lines that differs between the file and what the run printed."""
    old, new = written.splitlines(), expected.splitlines()
    diffs = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        shown = tuple(line.strip() for line in old[i1:i2] if OUTPUT_LINE.match(line))
        printed = tuple(line.strip() for line in new[j1:j2] if OUTPUT_LINE.match(line))
        if shown or printed:
            diffs.append(LineDiff(snippet, device, i1 + 1, shown, printed))
    return diffs


def pinned_torch(requirements: Path) -> str:
    """The torch version requirements.txt pins (`torch==X`), or "unknown"."""
    if requirements.is_file():
        for line in requirements.read_text(encoding="utf-8").splitlines():
            if match := re.match(r"^torch==([\w.+]+)", line.strip()):
                return match[1]
    return "unknown"


def render(diffs: list[LineDiff], *, torch_version: str, pinned: str, cuda: str) -> str:
    header = [
        "# `#>` lines that printed differently on this machine",
        "",
        f"torch {torch_version} (pinned: {pinned}); CUDA: {cuda}.",
        "",
    ]
    if not diffs:
        return "\n".join([*header, "Every checked `#>` line printed as shown.", ""])
    header.append(
        f"{len(diffs)} block(s) differ. Same torch as pinned: device dependence, fix the "
        "snippet. Other torch: compare with the pinned run before changing anything."
    )
    body = []
    for d in sorted(diffs, key=lambda d: (d.snippet, d.line, d.device)):
        body += [
            "",
            f"## `{d.snippet}:{d.line}` [{d.device}]",
            "",
            "```text",
            *(f"shown:   {line}" for line in d.shown or ("(nothing)",)),
            *(f"printed: {line}" for line in d.printed or ("(nothing)",)),
            "```",
        ]
    return "\n".join([*header, *body, ""])
