"""The page program: the code a page shows, in page order, as one script.

A reader who copies a page's code blocks top to bottom must get a program that
runs and prints what the page shows. This module builds that program from
exactly the snippet sections the page embeds (as pymdownx.snippets renders
them: marker lines dropped, each section dedented), remembers where each of
its lines comes from (page line and snippet file:line), and tells when the
program is, statement for statement, what `python snippets/<section>/<page>.py`
runs before its figure-only tail (`covering_snippet`), so that the suite does
not run the same code twice.

    python -m docverify.contract.page_program docs/tensors/reshape.md          # print it
    python -m docverify.contract.page_program docs/tensors/reshape.md | python -   # run it
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from docverify.contract.embeds import Embed, find_embeds, find_fences
from docverify.contract.sections import SnippetFormatError, render
from docverify.contract.snippets import SnippetFile, load
from docverify.i18n.languages import source_pages
from docverify.problems import Problem


@dataclass(frozen=True)
class ProgramPart:
    """One embedded block of the page, as the reader sees it."""

    embed: Embed
    code: str  # as pymdownx.snippets renders it: marker lines removed, dedented
    # Line in the embedded file of each line of `code` (marker lines of nested
    # sections are dropped, so the lines need not be consecutive).
    lines: tuple[int, ...] = ()
    dedented: bool = False  # whether the section was indented in its file

    @property
    def first_line(self) -> int:
        return self.lines[0] if self.lines else 1

    @property
    def block(self) -> str:
        """The code of the block as the page shows it (and as its notebook cell holds it)."""
        return self.code.strip("\n")


def read_part(embed: Embed, root: Path) -> ProgramPart:
    """The block `embed` shows, by pymdownx.snippets; a bad embed raises naming page:line."""
    if not (root / embed.path).is_file():
        raise SnippetFormatError(
            Problem(embed.page, embed.line, f"embedded file {embed.path} does not exist")
        )
    try:
        shown = render(root, embed.path, embed.section)
    except SnippetFormatError as exc:
        raise SnippetFormatError(Problem(embed.page, embed.line, str(exc.problem))) from None
    return ProgramPart(embed, shown.code, shown.lines, shown.dedented)


def fenced_embeds(page: str, markdown: str, *, suffix: str = ".py") -> list[Embed]:
    """Every embed inside a code fence of the page, in page order, of files ending in `suffix`."""
    found = []
    for fence in find_fences(page, markdown):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        found += [
            Embed(page, fence.line + embed.line, embed.path, embed.section)
            for embed in embeds
            if embed.path.endswith(suffix)
        ]
    return found


def page_parts(page: str, markdown: str, root: Path, *, suffix: str = ".py") -> list[ProgramPart]:
    """The blocks of `fenced_embeds`, read from their files; a bad embed raises SnippetFormatError."""
    return [read_part(embed, root) for embed in fenced_embeds(page, markdown, suffix=suffix)]


@dataclass(frozen=True)
class PageProgram:
    """A page's program and where each of its lines comes from."""

    page: str  # docs/<section>/<page>.md
    parts: tuple[ProgramPart, ...]
    root: Path

    @cached_property
    def _assembled(self) -> tuple[str, tuple[tuple[ProgramPart, int] | None, ...]]:
        lines: list[str] = []
        origins: list[tuple[ProgramPart, int] | None] = []
        for index, part in enumerate(self.parts):
            if index:
                lines.append("")  # the blocks are joined with one blank line
                origins.append(None)
            code_lines = part.code.split("\n")
            first = 0
            while first < len(code_lines) and code_lines[first] == "":
                first += 1
            last = len(code_lines)
            while last > first and code_lines[last - 1] == "":
                last -= 1
            for i in range(first, last):
                lines.append(code_lines[i])
                origins.append((part, part.lines[i]))
        return "\n".join(lines) + "\n", tuple(origins)

    @property
    def source(self) -> str:
        """The program text: each block's code, joined with one blank line."""
        return self._assembled[0]

    @property
    def files(self) -> tuple[str, ...]:
        """Repository paths of the embedded files, in order of first use."""
        return tuple(dict.fromkeys(part.embed.path for part in self.parts))

    @property
    def stem(self) -> str:
        return Path(self.page).stem

    def origin(self, line: int) -> tuple[ProgramPart, int] | None:
        """(part, line in the embedded file) of 1-based program line `line`."""
        origins = self._assembled[1]
        if 1 <= line <= len(origins) and origins[line - 1] is not None:
            return origins[line - 1]
        return None

    def where(self, line: int) -> str:
        """`docs/x.md:12 (snippets/x.py:34)` for program line `line`: the embed and the code line."""
        found = self.origin(line)
        if found is None:
            return f"{self.page} (page program line {line})"
        part, file_line = found
        return f"{part.embed.where} ({part.embed.path}:{file_line})"

    @cached_property
    def snippets(self) -> tuple[SnippetFile, ...]:
        """The embedded files that are snippets (their directives say how to run them)."""
        return tuple(
            load(self.root / path)
            for path in self.files
            if path.startswith("snippets/") and not Path(path).name.startswith("_")
        )

    @property
    def launch(self) -> tuple[str, ...]:
        """`torchrun ...` when any embedded snippet is launched: the program is launched too."""
        return next((s.launch for s in self.snippets if s.launched), ())

    @property
    def own_process(self) -> bool:
        """Whether an embedded snippet runs in a process of its own (`# process: own`)."""
        return any(s.own_process for s in self.snippets)

    @property
    def needs_cuda(self) -> bool:
        """Whether an embedded snippet runs only where CUDA is available (`# requires: cuda`)."""
        return any(s.devices == ("cuda",) for s in self.snippets)

    def without_cuda_parts(self) -> PageProgram:
        """The program a machine without CUDA can run: the page minus its `# requires: cuda` blocks."""
        cuda_only = {
            path
            for path in self.files
            if path.startswith("snippets/") and load(self.root / path).devices == ("cuda",)
        }
        kept = tuple(part for part in self.parts if part.embed.path not in cuda_only)
        return PageProgram(self.page, kept, self.root)

    @property
    def has_cpu_part(self) -> bool:
        """Whether some of its code runs without CUDA (a page of CUDA-only blocks has none)."""
        return bool(self.without_cuda_parts().parts)

    def guarded_source(self, skipped: str, *, gpu_outputs: bool = True) -> str:
        """The program as its download runs it: each CUDA-only block runs where CUDA is
        available and, elsewhere, prints `skipped` instead (its `#>` line follows).

        `gpu_outputs=False` leaves out the blocks' own `#>` lines: what a run without
        CUDA must print. A program without CUDA-only blocks, or with nothing else, is
        returned as it is.
        """
        if not self.needs_cuda or not self.has_cpu_part:
            return self.source
        blocks = [
            guarded_block(self, part, skipped, gpu_outputs=gpu_outputs) for part in self.parts
        ]
        return "\n\n".join(blocks) + "\n"

    @property
    def timeout_s(self) -> int:
        return max((s.timeout_s for s in self.snippets), default=60)

    def run_command(self, filename: str | None = None) -> str:
        """How a reader runs the downloaded script."""
        from docverify.contract.needs import Needs

        return Needs(launch=self.launch).command(filename or f"{self.stem}.py")


def build(page: str | Path, root: Path, markdown: str | None = None) -> PageProgram:
    """The program of `page` (a repository-relative path such as docs/tensors/reshape.md)."""
    page = Path(page).as_posix()
    if markdown is None:
        markdown = (root / page).read_text(encoding="utf-8")
    return PageProgram(page, tuple(page_parts(page, markdown, root)), root)


def content_pages(root: Path) -> list[str]:
    """Every English page under docs/ that shows Python code, as docs/<section>/<page>.md.

    (Its translation shows the same program: tests/test_translations.py.)
    """
    pages = []
    for md in source_pages(root / "docs"):
        page = md.relative_to(root).as_posix()
        if fenced_embeds(page, md.read_text(encoding="utf-8")):
            pages.append(page)
    return pages


def page_program(page: str, markdown: str, root: Path) -> str:
    """The page's Python code blocks joined in page order, ready to run."""
    return PageProgram(page, tuple(page_parts(page, markdown, root)), root).source


GPU_GUARD = "if torch.cuda.is_available():  # this block needs a CUDA GPU"
_OUTPUT = re.compile(r"^\s*#>")


def guarded_block(
    program: PageProgram, part: ProgramPart, skipped: str, *, gpu_outputs=True
) -> str:
    """`part`'s code as the page's download holds it: a CUDA-only block of a program that
    also runs without CUDA goes under `GPU_GUARD`, with an `else` that prints `skipped`.

    `gpu_outputs=False`: what a run without CUDA must print, as `#>` lines (the block's
    own lines left out, the skip line's written under its print).
    """
    cpu = program.without_cuda_parts()
    if part.embed.path in cpu.files or not cpu.parts:
        return part.block
    lines = part.block.split("\n")
    if not gpu_outputs:
        lines = [line for line in lines if not _OUTPUT.match(line)]
    body = "\n".join(f"    {line}" if line.strip() else "" for line in lines)
    printed = "" if gpu_outputs else f"\n    #> {skipped}"
    return f"{GPU_GUARD}\n{body}\nelse:\n    print({skipped!r}){printed}"


# --- is it the snippet file? -----------------------------------------------------------------

# A program that reads these is not the same as the snippet file: the file has
# a docstring and a path of its own.
_FILE_DEPENDENT_NAMES = ("__file__", "__doc__")


def _reads_module_names(source: str, names: tuple[str, ...]) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(tree))


def _inert_lines(source: str) -> set[int]:
    """Lines of the module docstring: code outside sections that runs nothing."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    first = tree.body[0] if tree.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return set()


def covering_snippet(program: PageProgram) -> tuple[str | None, str]:
    """(snippet path, "") when running that snippet file runs exactly this program first.

    That holds when the page embeds sections of one snippet file only, each
    once, in file order, none indented, and everything in the file before the
    end of the last embedded section that is outside them is a blank line, a
    comment (header directives, section markers) or the module docstring.
    Then `python snippets/x.py` executes the page program's statements in the
    same order in a fresh namespace, and only then the file's remaining
    (figure-only) code: tests/test_snippets.py, which checks every `#>` line of
    that run, has checked the page program. Otherwise (None, why not), and the
    page program is run on its own.
    """
    why = _not_one_snippet(program) or _not_its_start(program)
    return (None, why) if why else (program.files[0], "")


def _not_one_snippet(program: PageProgram) -> str:
    if not program.parts:
        return "the page shows no Python code"
    if len(program.files) != 1:
        return f"the page shows code from {len(program.files)} files: {program.files}"
    path = program.files[0]
    if (
        not program.snippets
        or program.snippets[0].path.resolve() != (program.root / path).resolve()
    ):
        return f"{path} is not a snippet file that tests/test_snippets.py runs"
    if _reads_module_names(program.source, _FILE_DEPENDENT_NAMES):
        return "the shown code reads __file__ or __doc__, which differ from the snippet file's"
    return ""


def _not_its_start(program: PageProgram) -> str:
    path = program.files[0]
    covered: set[int] = set()
    last_end = 0
    for part in program.parts:
        if part.dedented:
            return f"{part.embed.where}: section `{part.embed.section}` is indented in {path}"
        if part.lines and min(part.lines) <= last_end:
            return f"{part.embed.where}: sections are shown out of file order or twice"
        covered.update(part.lines)
        last_end = max(part.lines, default=last_end)
    source = program.snippets[0].source
    inert = _inert_lines(source)
    for lineno, line in enumerate(source.splitlines()[:last_end], start=1):
        stripped = line.strip()
        if lineno in covered or lineno in inert or not stripped or stripped.startswith("#"):
            continue
        return (
            f"{path}:{lineno} runs code the page does not show ({stripped[:60]!r}) before its "
            "last shown section (figure-only code belongs after the last section)"
        )
    return ""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: python -m docverify.contract.page_program docs/<section>/<page>.md",
            file=sys.stderr,
        )
        return 2
    page = Path(argv[0])
    root = Path.cwd()
    sys.stdout.write(page_program(page.as_posix(), page.read_text(encoding="utf-8"), root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
