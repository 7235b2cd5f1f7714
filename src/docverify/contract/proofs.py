"""Proof links: each claim in a page's prose links to the line of code that checks it.

In the prose, after the sentence it proves:

    `e[0, 0] = 5` writes through to `x`. {✓ expand-write}

and on the check line of a snippet section the page embeds, in a comment:

    assert x[0, 0] == 5  # ✓ expand-write
    print(e.shape)  # ✓ expand-shape      (the proof is the print and its `#>` lines)

The build (docverify.site.proof_links) turns the marker into a ✓ link to that line,
which the page highlights when the link is followed. Other forms:

- `{✓ a b}`: several checks for one sentence;
- `{✓ tensors/shapes:expand-write}`: on a section index page (`index.md`) only,
  a check on the page that proves it (content pages link only to their own code);
- `{✓ tests/test_environment_files.py::test_name}`: a named test of the suite;
- `{✓ versions:name}`: what the block of check `name` prints on each tested torch
  and Python (the version matrix, `make matrix`): for a sentence that says on
  which versions something holds;
- `{-}`: this sentence is not a claim (a summary, a pointer to another page, a
  description of the code that follows), declared in the source.

A marker that resolves to nothing, to a check the page does not embed, or to a
check line the last test run did not execute fails the build, naming page:line.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from docverify.contract.embeds import find_fences
from docverify.contract.front_matter import body_line
from docverify.contract.line_trace import statements
from docverify.contract.page_program import build, fenced_embeds
from docverify.contract.sections import SnippetFormatError
from docverify.contract.snippets import discover, load
from docverify.problems import Problem

# In prose: `{✓ name ...}` or `{-}`. Names: `name`, `section/page:name`, `tests/x.py::test`.
MARKER = re.compile(r"\{(?:✓(?P<names>(?:\s+[\w./:-]+)+)|(?P<none>-))\s*\}")
# In a code comment: `✓ name`, possibly several on one line.
CHECK = re.compile(r"✓\s*([a-z0-9][-a-z0-9_]*)")
_TEST = re.compile(r"^(?P<file>tests/[\w/]+\.py)::(?P<test>test_\w+)$")
_ELSEWHERE = re.compile(r"^(?P<page>[\w/]+):(?P<name>[a-z0-9][-a-z0-9_]*)$")


@dataclass(frozen=True)
class Check:
    name: str
    file: str  # repository path of the snippet (or test) file
    line: int
    cuda_only: bool = False  # `# requires: cuda` file or line: only a GPU run reaches it


@dataclass(frozen=True)
class Marker:
    page: str
    line: int
    names: tuple[str, ...]  # empty for `{-}`
    start: int  # offset of the marker in the page's Markdown
    end: int


def markers(page: str, markdown: str) -> list[Marker]:
    """Every marker in the page's prose (not inside code blocks, not in the front matter,
    whose `summary:` the section's index page shows), in page order."""
    in_code = set()
    for fence in find_fences(page, markdown):
        in_code.update(range(fence.line, fence.line + len(fence.body) + 2))
    body = body_line(markdown)
    found = []
    for match in MARKER.finditer(markdown):
        line = markdown.count("\n", 0, match.start()) + 1
        if line in in_code or line < body:
            continue
        names = tuple((match["names"] or "").split())
        found.append(Marker(page, line, names, match.start(), match.end()))
    return found


def _comment_checks(rel: str, lines: list[tuple[int, str]], cuda_file: bool, source: str):
    """The checks named in comments of these (file line, text) lines."""
    try:
        # Only a `# requires:` comment marks a line as reached on some machines only.
        cuda_lines = statements(source) if not cuda_file and "requires:" in source else {}
    except SyntaxError:  # saved mid-edit: the snippet's own run says where
        cuda_lines = {}
    for number, text in lines:
        if "✓" not in text or "#" not in text:
            continue
        comment = text[text.index("#") :]
        for name in CHECK.findall(comment):
            yield Check(name, rel, number, cuda_file or cuda_lines.get(number) == "cuda")


def page_checks(page: str, root: Path) -> dict[str, Check]:
    """The checks in the code this page shows (its embedded Python sections), by name."""
    markdown = (root / page).read_text(encoding="utf-8")
    return _page_checks(page, root, markdown, embedded_sources(page, root, markdown))


def embedded_sources(page: str, root: Path, markdown: str | None = None) -> tuple[str, ...]:
    """The texts of the files the page embeds (its English page's), "" for one that is
    missing: with the page's own text, what its checks depend on."""
    english = re.sub(r"\.zh\.md$", ".md", page)
    if markdown is None:
        path = root / english
        markdown = path.read_text(encoding="utf-8") if path.is_file() else ""
    return tuple(
        (root / f).read_text(encoding="utf-8") if (root / f).is_file() else ""
        for f in _embedded_files(english, markdown)
    )


@functools.lru_cache(maxsize=512)  # per page text: asked for each linked sentence
def _embedded_files(page: str, markdown: str) -> tuple[str, ...]:
    return tuple(sorted({embed.path for embed in fenced_embeds(page, markdown)}))


# Per page text and the texts of the files it embeds (read-only result): the build asks for
# a page's checks from every page that links them, in both languages.
@functools.lru_cache(maxsize=256)
def _page_checks(
    page: str, root: Path, markdown: str, sources: tuple[str, ...]
) -> dict[str, Check]:
    program = build(page, root, markdown)
    found: dict[str, Check] = {}
    for part in program.parts:
        path = part.embed.path
        snippet = load(root / path)
        rendered = list(zip(part.lines, part.code.split("\n"), strict=True))
        for check in _comment_checks(path, rendered, snippet.devices == ("cuda",), snippet.source):
            found.setdefault(check.name, check)
    return found


@functools.cache
def _all_checks(root: Path) -> dict[str, list[Check]]:
    """Every check named anywhere in snippets/, for saying where an unembedded one is."""
    found: dict[str, list[Check]] = {}
    for path in discover(root / "snippets"):
        snippet = load(path)
        rel = path.relative_to(root).as_posix()
        numbered = list(enumerate(snippet.source.splitlines(), start=1))
        cuda = snippet.devices == ("cuda",)
        for check in _comment_checks(rel, numbered, cuda, snippet.source):
            found.setdefault(check.name, []).append(check)
    return found


@dataclass(frozen=True)
class Target:
    """Where a proof link goes: a check on a page (`page` is its docs-relative path)."""

    check: Check
    page: str  # docs/<...>.md of the page that shows the check; "" for a test
    versions: bool = False  # the check's block in the version matrix, not its line


def resolve(
    page: str, markdown: str, root: Path
) -> tuple[dict[Marker, list[Target]], list[Problem]]:
    """Each marker's targets, and a problem (page:line) for each name that resolves badly."""
    is_index = Path(page).name in ("index.md", "index.zh.md")
    english = re.sub(r"\.zh\.md$", ".md", page)
    own = _checks_or_none(english, root) or {}
    resolved: dict[Marker, list[Target]] = {}
    problems: list[Problem] = []
    for marker in markers(page, markdown):
        targets = []
        for name in marker.names:
            versions = name.startswith("versions:")
            target, problem = _resolve_one(
                name.removeprefix("versions:"), english, own, is_index, root
            )
            if target and versions:
                target = Target(target.check, target.page, versions=True)
            if problem:
                problems.append(Problem(page, marker.line, problem))
            elif target:
                targets.append(target)
        resolved[marker] = targets
    return resolved, problems


def own_checks(page: str, root: Path) -> dict[str, Check]:
    """The checks the page's code shows ({} for a page whose embeds are broken): ask once
    per page, not per sentence (each ask reads the page and the files it embeds)."""
    return _checks_or_none(re.sub(r"\.zh\.md$", ".md", page), root) or {}


def targets_of(
    page: str, sentence: str, root: Path, own: dict[str, Check] | None = None
) -> list[Target]:
    """The targets of every proof marker in one sentence of `page` (names that resolve badly
    left out: `resolve` reports them); `own`: the page's `own_checks`, if known."""
    is_index = Path(page).name in ("index.md", "index.zh.md")
    english = re.sub(r"\.zh\.md$", ".md", page)
    own = own_checks(page, root) if own is None else own
    found = []
    for match in MARKER.finditer(sentence):
        for name in (match["names"] or "").split():
            target, _ = _resolve_one(name.removeprefix("versions:"), english, own, is_index, root)
            if target:
                versions = name.startswith("versions:")
                found.append(Target(target.check, target.page, versions) if versions else target)
    return found


def _checks_or_none(page: str, root: Path) -> dict[str, Check] | None:
    try:
        return page_checks(page, root) if (root / page).is_file() else None
    except (SnippetFormatError, OSError):
        return None  # a broken embed: the embed check names it


def _resolve_one(name: str, page: str, own: dict[str, Check], is_index: bool, root: Path):
    """(target, None) or (None, why not) for one name of a marker."""
    if test := _TEST.match(name):
        return _named_test(name, root / test["file"], test["file"], test["test"])
    if elsewhere := _ELSEWHERE.match(name):
        if not is_index:
            return None, (
                f"`{{✓ {name}}}`: a content page links only to checks in its own code "
                "(another page's check: only from a section index page)"
            )
        return _on_page(name, f"docs/{elsewhere['page']}.md", elsewhere["name"], root)
    if name in own:
        return Target(own[name], page), None
    if elsewhere_checks := _all_checks(root).get(name):
        where = ", ".join(f"{c.file}:{c.line}" for c in elsewhere_checks)
        return None, f"`{{✓ {name}}}` is a check this page does not show ({where})"
    return None, f"`{{✓ {name}}}` resolves to nothing: no `# ✓ {name}` in the code the page shows"


# The runners: they show that every snippet and page program runs and prints its `#>` lines,
# not that any one sentence holds. A sentence links the check, or the test of the guarantee
# it states (tests/test_harness.py, tests/test_page_programs.py's tests of broken pages).
GENERIC_TESTS = frozenset(
    {"tests/test_snippets.py::test_snippet", "tests/test_page_programs.py::test_page_is_a_program"}
)


def _named_test(name: str, path: Path, rel: str, test: str):
    if name in GENERIC_TESTS:
        return None, (
            f"`{{✓ {name}}}` is the runner of every page: it proves that the code runs, not "
            "this sentence; link the check, or the test of the guarantee the sentence states"
        )
    line = _test_line(path, test)
    if line is None:
        return None, f"`{{✓ {name}}}`: no test `{test}` in {rel}"
    return Target(Check(name, rel, line), ""), None


def _on_page(name: str, other: str, check: str, root: Path):
    checks = _checks_or_none(other, root)
    if checks is None:
        return None, f"`{{✓ {name}}}`: there is no page {other}"
    if check not in checks:
        return None, f"`{{✓ {name}}}`: {other} shows no check `{check}`"
    return Target(checks[check], other), None


def _test_line(path: Path, test: str) -> int | None:
    if not path.is_file():
        return None
    return _test_lines(path.read_text(encoding="utf-8")).get(test)


@functools.lru_cache(maxsize=128)  # per test file text: pages link the same tests many times
def _test_lines(source: str) -> dict[str, int]:
    tree = ast.parse(source)
    return {n.name: n.lineno for n in tree.body if isinstance(n, ast.FunctionDef)}


def unexecuted(targets: list[Target], executed: dict[str, set[int] | None]) -> list[str]:
    """Targets whose line the last run of their file did not execute (known runs only).

    `executed`: file -> the lines its current CPU result executed (None: no current run).
    """
    return [
        f"{t.check.file}:{t.check.line}"
        for t in targets
        if t.page
        and not t.check.cuda_only
        and not t.versions
        and (lines := executed.get(t.check.file)) is not None
        and t.check.line not in lines
    ]
