"""What the build can check of a sentence beyond its link: its numbers, and its `{-}`.

- **Numbers match their proof.** A sentence that links a check which prints (a
  `# ✓ name` on a `print` line, its `#>` lines under it) must not state a number
  that none of its linked checks shows: every number of the sentence occurs in
  the section of one of them, code or printed lines, or in the function of a
  named test it links (`884_736` there is 884,736). Only the sentence's own
  links count, not others on its line (a Chinese paragraph is one line). Versions (torch 2.6,
  Python 3.13, a range 2.8–2.15) and years are the version matrix's and history's,
  not the check's, and are left out. The failure this catches: a sentence
  pointing at the wrong printed line, or a number the code no longer prints.
- **`{-}` is visible.** A sentence declared "not a claim" that holds a number, an
  inline-code API name or a comparison word probably states a fact; such
  sentences are listed (the Verification page counts them per page), for a
  reviewer to decide.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from docverify.contract import claims, proofs
from docverify.contract.sections import read_sections
from docverify.matrix.stacks import stacks
from docverify.problems import Problem

_NUMBER = re.compile(r"(?<![\w.\-/])-?\d+(?:,\d{3})*(?:\.\d+)?(?:e-?\d+)?(?![\w/])")
_STRIP = (
    # versions and their ranges, and years: not what a check prints
    re.compile(
        r"(?:torch(?:vision)?|Python|NumPy|numpy|pandas|CUDA|cuDNN|conda|Conda|pip|pytest|"
        r"Material|MkDocs|Pillow|einops|matplotlib|ipykernel|release|版本)\s*"
        r"\d+(?:\.\d+)*(?:\s*(?:[–-]|and|or|to|,|与|和|或|到)\s*\d+(?:\.\d+)*)*"
    ),
    re.compile(r"\b\d+\.\d+(?:\.\d+)?\s*[–-]\s*\d+\.\d+(?:\.\d+)?\b"),
    re.compile(r"\b(?:19|20)\d\d\b"),
    re.compile(r"\b\d+\.\d+\.\d+\.\d+(?::\d+)?\b"),  # an address: 127.0.0.1:29500
    re.compile(r"「[^」]*」|\(\*.*?\*\)", re.DOTALL),  # the notes' words and their gloss
    # the alternative a sentence rules out ("30% zeros, not 70%")
    re.compile(r"(?:\bnot|instead of|rather than|而不是|不是)\s+[-\d.,%]+"),
    re.compile(r"\]\([^)]*\)"),  # link targets
    proofs.MARKER,
    re.compile(r"<[^>]+>"),  # raw HTML
    re.compile(r"\{[:#][^}]*\}"),  # attribute lists
)
_COMPARISON = re.compile(
    r"\b(?:faster|slower|larger|smaller|equal|same|differ\w*|never|always|only|every|each|"
    r"all|none|raises?|fails?|returns?|(?:more|less|fewer|other) than)\b"
    r"|更快|更慢|相同|不同|总是|从不|只|每",
    re.IGNORECASE,
)
_API = re.compile(r"`[^`]*[(.=_][^`]*`")


def _numbers(text: str) -> list[str]:
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    found = [n.replace(",", "") for n in _NUMBER.findall(text)]
    return [n for n in found if n not in _tested_versions()]


@functools.cache
def _tested_versions() -> frozenset[str]:
    """The versions the version matrix runs (torch 2.11, Python 3.13, torchvision 0.26):
    a sentence names them as versions, not as values a check prints."""
    found = set()
    for stack in stacks():
        for version in (stack.python, *(v for _, v in stack.packages)):
            parts = version.split(".")
            found |= {".".join(parts[:2]), ".".join(parts[:3])}
    return frozenset(found)


@dataclass(frozen=True)
class Shown:
    """A check line and what it prints: the text its numbers must come from."""

    code: str
    printed: str

    @property
    def prints(self) -> bool:
        return bool(self.printed)


def shown(check: proofs.Check, root: Path) -> Shown:
    """The check's section (its code and printed lines) and whether the check prints."""
    source = (root / check.file).read_text(encoding="utf-8")
    lines = source.splitlines()
    section = next(
        (s for s in read_sections(check.file, source) if s.start_line < check.line < s.end_line),
        None,
    )
    first, last = (section.start_line, section.end_line) if section else (1, len(lines))
    printed = []
    for line in lines[check.line :]:
        if not line.strip().startswith("#>"):
            break
        printed.append(line.strip()[2:])
    return Shown("\n".join(lines[first - 1 : last]), "\n".join(printed))


def named_test_shown(check: proofs.Check, root: Path) -> Shown:
    """A linked named test: its function's code (it prints nothing the page shows)."""
    source = (root / check.file).read_text(encoding="utf-8")
    return Shown(_functions(source).get(check.line, ""), "")


@functools.lru_cache(maxsize=64)  # per test file text: pages link the same tests many times
def _functions(source: str) -> dict[int, str]:
    """Each top-level function's source, by the line it starts on."""
    return {
        node.lineno: ast.get_source_segment(source, node) or ""
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    }


_DIGIT_GROUP = re.compile(r"(?<=\d)_(?=\d)")


def number_problems(page: str, markdown: str, root: Path) -> list[Problem]:
    """Sentences linking a printing check that state a number none of their checks shows."""
    problems = []
    own = proofs.own_checks(page, root)
    for sentence in claims.sentences(page, markdown):
        if not proofs.MARKER.search(sentence.text):
            continue
        # The sentence's own links: a line may hold several sentences (a Chinese
        # paragraph is one line), each with its own checks.
        found_targets = proofs.targets_of(page, sentence.text, root, own)
        if any(t.versions for t in found_targets):
            continue  # what other versions print: the version matrix's record shows it
        targets = found_targets
        checks = [t.check for t in targets]
        found = [
            shown(c, root) if t.page else named_test_shown(c, root)
            for t, c in zip(targets, checks, strict=True)
        ]
        if not any(s.prints for s in found):
            continue
        text = " ".join(f"{s.code}\n{s.printed}" for s in found).replace(",", "")
        text = _DIGIT_GROUP.sub("", text)  # 884_736 in Python is 884736
        missing = [n for n in _numbers(sentence.text) if n.lstrip("-") not in text]
        if missing:
            names = ", ".join(c.name for c in checks)
            problems.append(
                Problem(
                    page,
                    sentence.line,
                    f"states {', '.join(missing)}, which none of its checks ({names}) shows",
                )
            )
    return problems


_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")


def declared_facts(page: str, markdown: str) -> list[claims.Sentence]:
    """`{-}` sentences with a number, an inline-code API name or a comparison word
    (in their words: a link's text names the page it leads to, which states nothing)."""
    found = []
    for sentence in claims.sentences(page, markdown):
        words = _LINK.sub(" ", sentence.text)
        if sentence.kind == claims.DECLARED and (
            _numbers(words) or _API.search(words) or _COMPARISON.search(words)
        ):
            found.append(sentence)
    return found


def main(argv: list[str]) -> int:
    """`python -m docverify.contract.sentence_checks [docs/x.md ...]`: both lists, every page."""
    from docverify.i18n import languages
    from docverify.paths import DOCS_DIR, REPO_ROOT

    pages = argv or [
        p.relative_to(REPO_ROOT).as_posix()
        for english in languages.source_pages(DOCS_DIR)
        for lang in languages.LANGUAGES
        if (p := DOCS_DIR / languages.twin(english.relative_to(DOCS_DIR), lang)).is_file()
    ]
    for page in pages:
        markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
        for problem in number_problems(page, markdown, REPO_ROOT):
            print(problem)
        for sentence in declared_facts(page, markdown):
            print(f"{page}:{sentence.line}: {{-}} on {sentence.text[:100]!r}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
