"""Static checks of the code a page shows: no hidden names, no private imports.

A page's program (docverify.contract.page_program) must run on its own. Two things
make it fail for a reader and can be seen without running it:

- a name it uses but never binds, or binds only further down the page: ruff's
  F821 (pyflakes' "undefined name"), which follows Python's scoping rules
  (functions run later, comprehensions have their own scope, `del` unbinds...);
  plus `__file__`, which a script has but a notebook does not;
- an import of anything but the published dependencies the pages may use
  (`ALLOWED_PACKAGES`) and the standard library: never `docverify` or a helper
  file next to the snippet.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass

from docverify.contract.page_program import PageProgram

ALLOWED_PACKAGES = frozenset({"torch", "torchvision", "einops", "numpy", "matplotlib", "PIL"})


def import_allowed(module: str) -> bool:
    top = module.split(".", maxsplit=1)[0]
    return top in ALLOWED_PACKAGES or top in sys.stdlib_module_names


@dataclass(frozen=True)
class Problem:
    line: int  # program line
    message: str


def name_problems(source: str) -> list[Problem]:
    """Names the code uses where nothing has bound them (ruff F821), and `__file__`."""
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821"]
        + ["--output-format", "json", "--stdin-filename", "page.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode not in (0, 1):
        raise RuntimeError(f"ruff could not check the page's code:\n{found.stderr}")
    problems = [
        Problem(
            item["location"]["row"],
            f"`{name}` is not defined where it is used: the page must define or import it "
            "before (in the code it shows)",
        )
        for item in json.loads(found.stdout)
        if (name := re.search(r"`([^`]+)`", item["message"])[1])
    ]
    problems += [
        Problem(
            node.lineno, "`__file__` is used: the page's code has no file of its own in a notebook"
        )
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name) and node.id == "__file__"
    ]
    return sorted(problems, key=lambda p: p.line)


def _imports(source: str) -> list[tuple[str, int]]:
    """(module, line) of every import, including importlib.import_module("literal")."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("." * node.level + (node.module or ""), node.lineno))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.args[0].value, node.lineno))
    return sorted(found, key=lambda item: item[1])


def import_problems(source: str) -> list[Problem]:
    allowed = ", ".join(sorted(ALLOWED_PACKAGES, key=str.lower))
    return [
        Problem(
            line,
            f"imports `{module}`: shown code imports only {allowed} and the standard library",
        )
        for module, line in _imports(source)
        if not import_allowed(module)
    ]


def program_problems(program: PageProgram) -> list[str]:
    """Everything that stops the page's code from running on its own, naming page and line."""
    try:
        ast.parse(program.source)
    except SyntaxError as exc:
        return [f"{program.where(exc.lineno or 0)}: the page's code is not valid Python: {exc.msg}"]
    problems = [
        *name_problems(program.source),
        *import_problems(program.source),
    ]
    return [f"{program.where(p.line)}: {p.message}" for p in sorted(problems, key=lambda p: p.line)]


_SETUP_BOX = re.compile(r'^\s*\?\?\?\s+example\s+"Set-up\b')
_SETUP_HEADING = re.compile(r"^#{2,6}\s+Set-up\b")


def setup_problems(program: PageProgram, markdown: str) -> list[str]:
    """The page's first code block embeds the `setup` section, shown as the set-up.

    That is: inside a collapsed `??? example "Set-up: ..."` box, or right under a
    `## Set-up...` heading where setting up is the lesson (a DDP script's ranks).
    """
    if not program.parts:
        return []
    first = program.parts[0].embed
    rule = (
        "the first code block embeds the `setup` section (imports and data), in a collapsed "
        '`??? example "Set-up: ..."` box'
    )
    if first.section != "setup":
        return [f"{first.where}: {rule}; this one embeds `{first.section or first.path}`"]
    lines = markdown.splitlines()
    indent = len(lines[first.line - 1]) - len(lines[first.line - 1].lstrip())
    for line in reversed(lines[: first.line - 1]):
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "~~~")):
            continue
        if _SETUP_BOX.match(line) or (indent == 0 and _SETUP_HEADING.match(stripped)):
            return []
        if len(line) - len(line.lstrip()) < indent or indent == 0:
            break
    return [f"{first.where}: {rule} (or under a `## Set-up` heading)"]
