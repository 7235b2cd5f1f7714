"""Snippet files, their header directives and their named sections.

Shared by the test harness (which runs them) and the MkDocs plugin (which
show how to run them).

A snippet's header is the run of comment lines (and an optional module
docstring) before its first statement. Directives there tell the harness how to
run it, and tell a reader what a page's downloads need (docverify.contract.needs):

    # requires: cuda                      only run where CUDA is available
    # requires: checkout                  reads this repository's files: runs only in a checkout
    # devices: cpu, cuda                  run once per device (NOTES_DEVICE)
    # launch: torchrun --nproc_per_node=2 run as separate processes
    # process: own                        run in a process of its own, not in the suite's
    # timeout: 120                        seconds before the run is stopped

`# process: own` is for a snippet that forks processes which run autograd: a child
forked from a process whose autograd has started its worker threads cannot run a
backward pass ("Unable to handle autograd's threading in combination with
fork-based multiprocessing"), and which snippets ran before it in the suite's
process is the scheduler's choice. It runs as one rank of a torchrun launch,
forked from a clean server process; a reader runs it with plain `python`.

Sections (read by docverify.contract.sections) are marked the way pymdownx.snippets reads them:
`# --8<-- [start:name]` ... `# --8<-- [end:name]`.
"""

from __future__ import annotations

import functools
import io
import re
import shlex
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from docverify.contract.sections import Section, SnippetFormatError, read_sections
from docverify.paths import REPO_ROOT
from docverify.problems import Problem

SNIPPETS_DIR = REPO_ROOT / "snippets"
DEFAULT_TIMEOUT_S = 60
KNOWN_DEVICES = ("cpu", "cuda")
KNOWN_REQUIREMENTS = ("cuda", "checkout")

_DIRECTIVE = re.compile(r"^#\s*(?P<key>[a-z_]+)\s*:\s*(?P<value>.+?)\s*$")
_DIRECTIVE_KEYS = ("requires", "devices", "launch", "process", "timeout")


@dataclass(frozen=True)
class SnippetFile:
    path: Path
    source: str
    devices: tuple[str, ...] = ("cpu",)
    launch: tuple[str, ...] = ()  # e.g. ("torchrun", "--nproc_per_node=2")
    timeout_s: int = DEFAULT_TIMEOUT_S
    sections: tuple[Section, ...] = field(default=())
    requires: tuple[str, ...] = ()  # from `# requires:`, e.g. ("cuda",) or ("checkout",)
    own_process: bool = False  # `# process: own`

    @property
    def runs_apart(self) -> bool:
        """Whether the harness runs it outside its own process (launched, or `process: own`)."""
        return self.launched or self.own_process

    @property
    def launch_args(self) -> tuple[str, ...]:
        """torchrun's arguments for the harness's launch: one rank for `process: own`."""
        return self.launch[1:] if self.launched else ("--nproc_per_node=1",)

    @property
    def rel(self) -> str:
        """Path as pages embed it and error messages name it: snippets/<section>/<page>.py.

        Relative to the checkout that holds the file (the nearest folder above it
        with mkdocs.yml), whichever checkout this package was imported from; a
        file in no checkout (a throw-away test snippet) keeps its absolute path.
        """
        root = project_root(self.path)
        return self.path.resolve().relative_to(root).as_posix() if root else self.path.as_posix()

    @property
    def launched(self) -> bool:
        return bool(self.launch)

    @property
    def needs_cuda(self) -> bool:
        """Whether it runs only where CUDA is available (`# requires: cuda`)."""
        return self.devices == ("cuda",)

    @property
    def needs_checkout(self) -> bool:
        """Whether it reads files of this repository, so that it runs only inside a checkout."""
        return "checkout" in self.requires


def project_root(path: Path) -> Path | None:
    """The checkout `path` lies in: the nearest folder above it holding mkdocs.yml."""
    path = path.resolve()
    return next((p for p in path.parents if (p / "mkdocs.yml").is_file()), None)


def discover(root: Path = SNIPPETS_DIR) -> list[Path]:
    """Every snippet file: *.py below root, except private helpers (`_name.py`)."""
    return sorted(
        p for p in root.rglob("*.py") if not p.name.startswith("_") and "__pycache__" not in p.parts
    )


def load(path: Path) -> SnippetFile:
    return _parse(path, path.read_text(encoding="utf-8"))


# The build asks for each snippet once per page and language: parse each text once.
@functools.lru_cache(maxsize=1024)
def _parse(path: Path, source: str) -> SnippetFile:
    directives = _read_directives(path, source)
    requires = tuple(r for r in re.split(r"[,\s]+", directives.get("requires", "")) if r)
    unknown = [r for r in requires if r not in KNOWN_REQUIREMENTS]
    if unknown:
        raise SnippetFormatError(
            Problem(path, 1, f"`# requires:` takes {', '.join(KNOWN_REQUIREMENTS)}, got {unknown}")
        )
    if "cuda" in requires:
        devices: tuple[str, ...] = ("cuda",)
    else:
        devices = tuple(d for d in re.split(r"[,\s]+", directives.get("devices", "cpu")) if d)
    unknown = [d for d in devices if d not in KNOWN_DEVICES]
    if unknown:
        raise SnippetFormatError(Problem(path, 1, f"unknown device(s) {unknown} in `# devices:`"))
    launch = tuple(shlex.split(directives.get("launch", "")))
    if launch and launch[0] != "torchrun":
        raise SnippetFormatError(
            Problem(path, 1, f"`# launch:` supports `torchrun ...` only, got {launch}")
        )
    process = directives.get("process")
    if process not in (None, "own"):
        raise SnippetFormatError(Problem(path, 1, f"`# process:` takes `own`, got {process!r}"))
    return SnippetFile(
        path=path,
        source=source,
        devices=devices,
        launch=launch,
        own_process=process == "own",
        timeout_s=int(directives.get("timeout", DEFAULT_TIMEOUT_S)),
        sections=tuple(read_sections(path, source)),
        requires=requires,
    )


def _header_length(source: str) -> int:
    """Lines before the first statement: comments, blank lines and the module docstring.

    Read with the tokenizer, not the parser, so that a file with a syntax error
    further down (saved while editing) still has its directives: the run then
    fails at that line, as one snippet's failure, and nothing else stops.
    """
    docstring_allowed = True
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING):
                continue
            if token.type == tokenize.STRING and docstring_allowed:
                docstring_allowed = False
                continue
            return token.start[0] - 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return len(source.splitlines())


def _read_directives(path: Path, source: str) -> dict[str, str]:
    directives: dict[str, str] = {}
    for lineno, line in enumerate(source.splitlines()[: _header_length(source)], start=1):
        match = _DIRECTIVE.match(line)
        if not match or match["key"] not in _DIRECTIVE_KEYS:
            continue
        if match["key"] in directives:
            raise SnippetFormatError(
                Problem(path, lineno, f"directive `{match['key']}` given twice")
            )
        directives[match["key"]] = match["value"]
    return directives
