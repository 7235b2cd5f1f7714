"""CONTRIBUTING.md's map of the machinery, written from the code: `python -m docverify.machinery_map`.

One group per folder of src/docverify (and tests/harness), headed by its lines of
Python, its package docstring and by who imports it (the plugin, the tests, the scripts); one line
per module, its docstring's first line. `--write` rewrites the map between its
markers; tests/test_project_setup.py fails when the map and the code disagree.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from docverify.paths import REPO_ROOT

START, END = "<!-- machinery-map -->", "<!-- /machinery-map -->"
USERS = {  # who imports a folder, by where the importing file lives
    "the plugin": "src/docverify/site",
    "tests": "tests",
    "scripts": "scripts",
}


def _first_line(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0] if doc else ""


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def _users(package: str, root: Path) -> list[str]:
    users = []
    for name, folder in USERS.items():
        files = [p for p in (root / folder).rglob("*.py") if not p.is_relative_to(root / package)]
        if any(
            m.startswith(package.replace("src/", "").replace("/", "."))
            for p in files
            for m in _imports(p)
        ):
            users.append(name)
    return users


def render(root: Path = REPO_ROOT) -> str:
    lines = []
    folders = [
        root / "src/docverify",
        *sorted(p.parent for p in (root / "src/docverify").glob("*/__init__.py")),
    ]
    for folder in [*folders, root / "tests/harness"]:
        rel = folder.relative_to(root).as_posix()
        users = "" if folder.name == "docverify" else ", ".join(_users(rel, root))
        used = f" Used by {users}." if users else ""
        count = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in folder.glob("*.py"))
        head = f"`{rel}/` ({count:,} lines): {_first_line(folder / '__init__.py')}{used}"
        lines += ["", head, ""]
        for path in sorted(folder.glob("*.py")):
            if path.name != "__init__.py":
                lines.append(f"- `{path.relative_to(root).as_posix()}`: {_first_line(path)}")
    return "\n".join(lines[1:])


def rewrite(text: str, root: Path = REPO_ROOT) -> str:
    before, rest = text.split(START, 1)
    return f"{before}{START}\n{render(root)}\n{END}{rest.split(END, 1)[1]}"


if __name__ == "__main__":
    contributing = REPO_ROOT / "CONTRIBUTING.md"
    text = contributing.read_text(encoding="utf-8")
    if "--write" in sys.argv:
        contributing.write_text(rewrite(text), encoding="utf-8")
    else:
        print(render())
