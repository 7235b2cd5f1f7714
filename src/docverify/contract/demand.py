"""What readers bring: the demand corpus's errors and questions, and the pages quoting the errors.

`demand/errors.yaml` holds error messages real users pasted (demand/README.md), each with
its `key`: the stable part of the message, cut before the user's own numbers and paths.
An in-scope error is *quoted* when some page shows its key exactly, in what a reader
sees on the page: its Markdown (prose, headings, boxes, the questions block) or the code
and `#>` output lines of a section it embeds, as pymdownx renders them. Runs of
whitespace count as one space (a browser shows a line break in prose as a space).

`demand/questions.yaml` holds questions real users asked, in their own words; each in-scope
one is a search case (tests/search_cases.yaml, `corpus_questions`).

`python -m docverify.contract.demand` prints the coverage and the keys no page quotes.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from docverify import yaml_data
from docverify.contract.embeds import find_embeds
from docverify.contract.sections import render
from docverify.paths import REPO_ROOT

CORPUS = Path("demand") / "errors.yaml"
QUESTIONS = Path("demand") / "questions.yaml"
FIELDS = ("id", "message", "key", "source", "lang", "topic", "scope", "reason")
QUESTION_FIELDS = ("id", "question", "source", "lang", "topic", "scope", "reason")
TOPICS = frozenset(
    [
        "shapes",
        "dtype-device",
        "cuda-memory",
        "cuda-runtime",
        "install-cuda",
        "autograd",
        "losses",
        "saving-loading",
        "data-loading",
        "distributed",
        "amp",
        "train-eval",
        "finetune-freeze",
        "indexing",
        "optim-sched",
        "reproducibility",
        "performance",
        "internals",
        "tensors-basics",
        "transforms",
        "other",
    ]
)


@dataclass(frozen=True)
class Error:
    id: str
    message: str
    key: str
    source: str
    lang: str
    topic: str
    scope: str
    reason: str

    @property
    def in_scope(self) -> bool:
        return self.scope == "in"


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    source: str
    lang: str
    topic: str
    scope: str
    reason: str

    in_scope = Error.in_scope


def _entries(path: Path, kind: type, fields: tuple[str, ...]) -> list:
    """A corpus file's entries, in file order (every field read as a string, missing ones empty)."""
    entries = yaml_data.read(path)
    return [kind(**{f: str(e.get(f) or "") for f in fields}) for e in entries]


def load(root: Path = REPO_ROOT) -> list[Error]:
    return _entries(root / CORPUS, Error, FIELDS)


def load_questions(root: Path = REPO_ROOT) -> list[Question]:
    return _entries(root / QUESTIONS, Question, QUESTION_FIELDS)


def entry_problems(errors: list[Error]) -> list[str]:
    """Entries without a source, a known topic or a scope, out of scope without a reason,
    or whose key is not part of their message."""
    wrong = []
    for e in errors:
        if not e.source.strip():
            wrong.append(f"{e.id}: no source")
        if e.topic not in TOPICS:
            wrong.append(f"{e.id}: topic {e.topic!r} is not one of demand/README.md's")
        if e.scope not in ("in", "out"):
            wrong.append(f"{e.id}: scope {e.scope!r} is neither `in` nor `out`")
        if e.scope == "out" and not e.reason.strip():
            wrong.append(f"{e.id}: out of scope without a reason")
        if e.scope == "in" and e.reason.strip():
            wrong.append(f"{e.id}: in scope, with a reason for being out ({e.reason!r})")
        if not e.key.strip() or e.key not in e.message:
            wrong.append(f"{e.id}: key {e.key!r} is not part of its message")
    return wrong


def squash(text: str) -> str:
    """Runs of whitespace as one space."""
    return re.sub(r"\s+", " ", text).strip()


def shown_text(page: Path, root: Path = REPO_ROOT) -> str:
    """What a reader sees of a page: its Markdown with every embed replaced by the code
    (and `#>` lines) it renders, whitespace squashed."""
    return _shown_text(page, root, page.stat().st_mtime_ns)


@functools.lru_cache(maxsize=1024)
def _shown_text(page: Path, root: Path, _mtime: int) -> str:
    markdown = page.read_text(encoding="utf-8")
    rel = page.relative_to(root).as_posix()
    embeds, _ = find_embeds(rel, markdown)
    lines = markdown.splitlines()
    for embed in embeds:
        try:
            lines[embed.line - 1] = render(root, embed.path, embed.section).code
        except (OSError, ValueError):  # a broken embed: the docs contract test names it
            continue
    return squash("\n".join(lines))


def pages(root: Path = REPO_ROOT) -> list[Path]:
    """Every page of the site, in both languages."""
    return sorted((root / "docs").rglob("*.md"))


def quoting_pages(error: Error, root: Path = REPO_ROOT) -> list[str]:
    """The pages (docs-relative) whose shown text holds the error's key."""
    key = squash(error.key)
    return [
        p.relative_to(root / "docs").as_posix() for p in pages(root) if key in shown_text(p, root)
    ]


@dataclass(frozen=True)
class Coverage:
    quoted: dict[str, list[str]]  # error id -> pages that quote its key
    missing: list[Error]  # in-scope errors no page quotes
    in_scope: int

    @property
    def share(self) -> float:
        return (self.in_scope - len(self.missing)) / self.in_scope if self.in_scope else 1.0


def coverage(root: Path = REPO_ROOT, errors: list[Error] | None = None) -> Coverage:
    errors = load(root) if errors is None else errors
    quoted, missing = {}, []
    for e in errors:
        if not e.in_scope:
            continue
        found = quoting_pages(e, root)
        if found:
            quoted[e.id] = found
        else:
            missing.append(e)
    return Coverage(quoted, missing, sum(e.in_scope for e in errors))


def report(cov: Coverage) -> str:
    quoted = cov.in_scope - len(cov.missing)
    lines = [f"{quoted} of {cov.in_scope} in-scope errors quoted by a page ({cov.share:.1%})"]
    lines += [f"  {e.id} {e.key!r} ({e.source})" for e in cov.missing]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    print(report(coverage()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
