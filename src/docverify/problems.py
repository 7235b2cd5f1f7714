"""A problem found in a file, naming it and the line: what every check reports.

Checks return Problems and callers format them with str() (`file:line: message`),
so a caller that needs the file or the line reads the field instead of parsing
a message back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int  # 1-based; 0 when the problem is about the whole file
    message: str

    def __init__(self, file: str | Path, line: int, message: str) -> None:
        object.__setattr__(self, "file", Path(file).as_posix() if isinstance(file, Path) else file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "message", message)

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.message}"
            if self.line
            else f"{self.file}: {self.message}"
        )


def listed(heading: str, problems: list[Problem]) -> str:
    """`heading` and one problem per indented line, in file and line order."""
    return heading + "\n  " + "\n  ".join(str(p) for p in sorted(problems))
