"""Named sections of an embedded file, read exactly as pymdownx.snippets reads them.

A page embeds `--8<-- "snippets/x.py:name"`. pymdownx.snippets renders the lines
between `# --8<-- [start:name]` and `# --8<-- [end:name]`, drops the markers of
other sections inside it, un-escapes `;--8<--` markers and dedents
(`dedent_subsections` in mkdocs.yml). Whatever needs a section's code here (the
page program and its downloads, code that runs a page's sections elsewhere)
gets the text from pymdownx's own preprocessor, configured from mkdocs.yml, and
finds markers with pymdownx's own pattern: a download cannot differ from what
the page renders. What this module adds is the file line of every rendered
line (errors name file:line) and stricter rules for snippet files: a section
starts once, and ends.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass
from pathlib import Path

from pymdownx.snippets import SnippetPreprocessor

from docverify.problems import Problem


class SnippetFormatError(ValueError):
    """A snippet file breaks the section rules, or an embed cannot be resolved."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@dataclass(frozen=True)
class Section:
    name: str
    start_line: int  # line of the start marker (1-based)
    end_line: int


@dataclass(frozen=True)
class Rendered:
    """An embed as the page shows it, and the file line of each of its lines."""

    code: str
    lines: tuple[int, ...]
    dedented: bool  # whether the embedded lines were indented in the file


def marker(line: str):
    """pymdownx's match of a section marker on `line`; None for an escaped one (`;--8<--`)."""
    found = SnippetPreprocessor.RE_SNIPPET_SECTION.match(line) if "8<-" in line else None
    return None if found is None or found["escape"] else found


def read_sections(path: Path | str, source: str) -> list[Section]:
    """Named sections in file order; unbalanced or duplicate markers are errors (file:line)."""
    return list(_read_sections(path, source))


# Per file text: the build asks for a file's sections once per embed, page and language.
@functools.lru_cache(maxsize=1024)
def _read_sections(path: Path | str, source: str) -> tuple[Section, ...]:
    open_sections: dict[str, int] = {}
    sections: list[Section] = []
    for lineno, line in enumerate(source.splitlines(), start=1):
        found = marker(line)
        if not found:
            continue
        name, kind = found["name"], found["type"]
        if kind not in ("start", "end"):  # pymdownx's pattern ignores case; its reader does not
            raise SnippetFormatError(
                Problem(path, lineno, f"write `[{kind.lower()}:{name}]` in lower case")
            )
        if kind == "start":
            if name in open_sections or any(s.name == name for s in sections):
                raise SnippetFormatError(Problem(path, lineno, f"section `{name}` starts twice"))
            open_sections[name] = lineno
        elif name not in open_sections:
            raise SnippetFormatError(
                Problem(path, lineno, f"section `{name}` ends but never started")
            )
        else:
            sections.append(Section(name, open_sections.pop(name), lineno))
    for name, lineno in open_sections.items():
        raise SnippetFormatError(Problem(path, lineno, f"section `{name}` is never ended"))
    return tuple(sections)


@functools.cache
def _preprocessor(root: Path) -> SnippetPreprocessor:
    """pymdownx.snippets' preprocessor with the options mkdocs.yml gives it, paths from `root`."""
    import markdown

    from docverify.site.site_config import markdown_options

    options = dict(markdown_options(root).get("pymdownx.snippets", {}))
    options["base_path"] = [str(root / base) for base in options.get("base_path", ["."])]
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options}
    )
    return md.preprocessors["snippet"]


def render(root: Path, path: str, section: str | None) -> Rendered:
    """What the page shows for `--8<-- "path[:section]"`, by pymdownx itself."""
    return _render(root, path, section, (root / path).read_text(encoding="utf-8"))


# Per file text (read-only result): a section is shown on its page and resolved, for proof
# links and downloads, from every page that links it, in both languages.
@functools.lru_cache(maxsize=4096)
def _render(root: Path, path: str, section: str | None, source: str) -> Rendered:
    target = f"{path}:{section}" if section else path
    if section is None:
        numbers = list(range(1, len(source.split("\n")) + 1))
    else:
        found = next((s for s in read_sections(path, source) if s.name == section), None)
        if found is None:
            raise SnippetFormatError(Problem(path, 1, f"has no section `{section}`"))
        lines = source.split("\n")
        numbers = [
            n for n in range(found.start_line + 1, found.end_line) if not marker(lines[n - 1])
        ]
    shown = _preprocessor(root).run([f'--8<-- "{target}"'])
    if len(shown) != len(numbers):  # pymdownx's rules changed: say so rather than mislabel lines
        raise SnippetFormatError(
            Problem(
                path, 1, f"pymdownx renders {len(shown)} lines of `{target}`, not {len(numbers)}"
            )
        )
    raw = source.split("\n")
    dedented = any(raw[n - 1] != text for n, text in zip(numbers, shown, strict=True) if text)
    return Rendered("\n".join(shown), tuple(numbers), dedented)


def sections_module(path: Path, *names: str, module_name: str | None = None) -> types.ModuleType:
    """Run the named sections of a snippet file, in the order given, as one fresh module.

    For code outside the page that must use exactly what the page shows (a benchmark
    timing the page's pipeline, a test of a helper the page defines). Each section is
    the text pymdownx renders, compiled under the snippet's path with each line at
    its own line number, so tracebacks point at the snippet. With `module_name` the
    module is registered in sys.modules, so that classes it defines pickle by
    reference (DataLoader workers).
    """
    import sys

    path = path.resolve()
    # Embedded from its checkout (the folder with mkdocs.yml), or from its own folder.
    root = next((p for p in path.parents if (p / "mkdocs.yml").is_file()), path.parent)
    rel = path.relative_to(root).as_posix()
    module = types.ModuleType(module_name or f"sections_of_{path.stem}")
    module.__file__ = str(path)
    if module_name:
        sys.modules[module_name] = module
    for name in names:
        shown = render(root, rel, name)
        placed = [""] * max(shown.lines, default=0)
        for number, text in zip(shown.lines, shown.code.split("\n"), strict=True):
            placed[number - 1] = text
        # dont_inherit: run as the page shows it, without the caller's `from __future__` flags
        code = compile("\n".join(placed), str(path), "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102
    return module
