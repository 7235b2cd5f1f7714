"""The stacks of the version matrix (`make matrix`): declared once, here.

Each stack is a Python version and the snippets' runtime packages (torch,
torchvision, einops, numpy, matplotlib, pillow) at exact versions. `make matrix`
(scripts/matrix.py) gives each its own virtual environment and records, per
`#>` block, what every snippet prints there (docverify.matrix.records); the site shows
where each block holds (docverify.site.matrix_lines). The CI workflow's strategy
matrix lists the same names (tests/test_project_setup.py checks that).

Only this table and requirements.txt pin the torch stack: the pinned stack's
versions are read from requirements.txt, so the matrix follows a pin update.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docverify.paths import REPO_ROOT

# The Python the project pins (Makefile's PYTHON, CI): the pinned stack's and the torch rows'.
PINNED_PYTHON = "3.11"
# The snippets' runtime packages, as a page program may import them (CONTRIBUTING.md).
RUNTIME_PACKAGES = ("torch", "torchvision", "einops", "numpy", "matplotlib", "pillow")


@dataclass(frozen=True)
class Stack:
    name: str  # the result file's stem: docs/assets/generated/matrix/<name>.json
    python: str  # "3.11"
    packages: tuple[tuple[str, str], ...]  # (name, exact version), RUNTIME_PACKAGES order

    def version(self, package: str) -> str:
        return dict(self.packages)[package]

    @property
    def torch(self) -> str:
        return self.version("torch")

    def requirements(self) -> list[str]:
        return [f"{name}=={version}" for name, version in self.packages]


_PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)\s*(?:;\s*(.*?))?\s*$")
_PYTHON_MARKER = re.compile(r'^python_version\s*(<=|>=|<|>|==|!=)\s*"(\d+\.\d+)"$')


def marker_applies(marker: str, python: str) -> bool:
    """Whether `python_version <op> "X.Y"` holds for Python `python` ("3.10").

    The only kind of environment marker requirements.txt uses; any other fails,
    naming it, rather than being guessed.
    """
    found = _PYTHON_MARKER.match(marker.strip())
    if not found:
        raise ValueError(f"unsupported environment marker {marker!r} (only python_version)")
    here, there = version_key(python), version_key(found[2])
    return {
        "<": here < there,
        "<=": here <= there,
        ">": here > there,
        ">=": here >= there,
        "==": here == there,
        "!=": here != there,
    }[found[1]]


def requirement_pins(path: Path, python: str) -> dict[str, str]:
    """name (lower case) -> version of every `name==X` line of a requirements file that
    applies on Python `python`, following `-r other.txt`."""
    pins: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins |= requirement_pins(path.parent / line.removeprefix("-r ").strip(), python)
        elif (found := _PIN.match(line)) and (not found[3] or marker_applies(found[3], python)):
            pins[found[1].lower()] = found[2]
    return pins


def pinned_versions(
    requirements: Path = REPO_ROOT / "requirements.txt", python: str | None = None
) -> dict[str, str]:
    """name -> version of the runtime packages requirements.txt pins for `python`
    (by default the pinned Python)."""
    pins = requirement_pins(requirements, python or PINNED_PYTHON)
    return {name: pins[name] for name in RUNTIME_PACKAGES if name in pins}


# What a stack changes from the pins: torch with its own torchvision (each torchvision
# release requires one torch); other packages where an old Python or torch needs them.
_TORCH_ROWS = {
    "2.4.1": {"torchvision": "0.19.1"},
    "2.6.0": {"torchvision": "0.21.0"},
    "2.8.0": {"torchvision": "0.23.0"},
    "2.11.0": {"torchvision": "0.26.0"},
    "2.14.1": {"torchvision": "0.29.1"},  # the pin before 2.15.0: its wording stays visible
    "2.15.0": {"torchvision": "0.29.2"},  # the newest on PyPI when declared
}
# The other Pythons, each with the pinned torch and what requirements.txt pins for it
# (its environment markers: numpy, matplotlib and pillow are older on 3.10).
_PYTHON_ROWS = ("3.10", "3.12", "3.13")


def stacks(requirements: Path = REPO_ROOT / "requirements.txt") -> list[Stack]:
    """Every declared stack, the pinned one first; torch rows by version, then Python rows."""

    def make(python: str, changes: dict[str, str]) -> Stack:
        pins = pinned_versions(requirements, python)
        missing = [p for p in RUNTIME_PACKAGES if p not in pins]
        if missing:
            raise ValueError(f"{requirements}: no exact pin for {', '.join(missing)} on {python}")
        versions = {**pins, **changes}
        name = f"py{python}-torch{versions['torch']}"
        return Stack(name, python, tuple((p, versions[p]) for p in RUNTIME_PACKAGES))

    pinned = make(PINNED_PYTHON, {})
    result = [pinned]
    for torch, changes in sorted(_TORCH_ROWS.items(), key=lambda kv: version_key(kv[0])):
        if torch != pinned.torch:
            result.append(make(PINNED_PYTHON, {"torch": torch, **changes}))
    result += [make(python, {}) for python in _PYTHON_ROWS]
    return result


def pinned_stack(requirements: Path = REPO_ROOT / "requirements.txt") -> Stack:
    return stacks(requirements)[0]


def version_key(version: str) -> tuple[int, ...]:
    """ "2.14.1" -> (2, 14, 1), for ordering versions."""
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])
