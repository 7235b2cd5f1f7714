"""One Chinese term per concept: the 简体中文 pages checked against the glossary.

`tests/glossary_zh.yaml` lists, for each English term, the Chinese term the
pages use (`use`), the variants they must not use (`avoid`, regular
expressions), the phrases in which a variant is right after all (`allow`, each
with its reason), and the variants a reader types that may stay in the
"本页解答的问题" block, which is written in readers' own words (`readers`).
A term a reader may not know says what it is on its first use on each page
(`explain`: a regular expression that the page's first use of `use` must
match, outside headings and the questions block).

Only prose is checked: front matter, code blocks, embeds, inline code, quotes
of the notes (「…」), text quoted from English sources ("…"), link targets and
HTML comments are blanked first, keeping every line where it was.

`python -m docverify.i18n.glossary` lists every variant as file:line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from docverify.contract import boxes
from docverify.contract.embeds import find_fences
from docverify.paths import DOCS_DIR, REPO_ROOT

GLOSSARY = REPO_ROOT / "tests" / "glossary_zh.yaml"
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
# What is not the page's own prose: inline code, quotes of the notes, text quoted from
# English sources, link targets, autolinks, HTML comments, heading anchors, embeds, and
# proof links (`{✓ losses/binary:data}` names a page and a check, not a loss).
_NOT_PROSE = re.compile(
    r"(?P<ticks>`+).+?(?P=ticks)"
    r"|\{(?:✓[^}]*|-)\}"
    r"|「[^」]*」"
    r'|"[^"\n]*"'
    r"|\]\([^)\s]*\)"
    r"|<https?://[^>\s]*>"
    r"|https?://\S+"
    r"|<!--.*?-->"
    r"|\{ *#[^}]*\}"
    r"|--8<--.*"
)


@dataclass(frozen=True)
class Term:
    en: str
    use: str
    avoid: tuple[re.Pattern, ...]
    allow: tuple[str, ...]  # phrases in which a variant is right
    readers: tuple[re.Pattern, ...]  # variants allowed in the questions block
    explain: re.Pattern | None = None  # what the first use on a page must read


def load(path: Path = GLOSSARY) -> list[Term]:
    """The glossary's terms; a malformed entry raises naming the file and the entry."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    terms = []
    for n, entry in enumerate(entries, start=1):
        name = entry.get("en", "?") if isinstance(entry, dict) else repr(entry)
        where = f"{path.name} entry {n} ({name})"
        if not isinstance(entry, dict) or not {"en", "use", "avoid"} <= entry.keys():
            raise ValueError(f"{where}: needs `en`, `use` and `avoid`")
        unknown = entry.keys() - {"en", "use", "avoid", "allow", "readers", "explain"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        try:
            avoid = tuple(re.compile(p) for p in entry["avoid"])
            readers = tuple(re.compile(p) for p in entry.get("readers", []))
            explain = re.compile(entry["explain"]) if "explain" in entry else None
        except re.error as error:
            raise ValueError(f"{where}: {error}") from error
        allow = tuple(a["phrase"] for a in entry.get("allow", []))
        missing_reason = [a for a in entry.get("allow", []) if not a.get("why")]
        if missing_reason:
            raise ValueError(f"{where}: every `allow` phrase says `why`: {missing_reason}")
        if any(p.search(entry["use"]) for p in avoid):
            raise ValueError(f"{where}: `use` {entry['use']!r} matches its own `avoid`")
        terms.append(Term(entry["en"], entry["use"], avoid, allow, readers, explain))
    return terms


def prose_lines(page: str, markdown: str) -> list[tuple[int, str, bool]]:
    """(line, prose with everything else blanked, whether in the questions block)."""
    blank = _NOT_PROSE.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), markdown)
    lines = blank.splitlines()
    skip = set()
    if front := _FRONT_MATTER.match(markdown):
        skip |= set(range(1, front[0].count("\n") + 1))
    for fence in find_fences(page, markdown):
        skip |= set(range(fence.line, fence.line + len(fence.body) + 2))
    questions = set()
    for box in boxes.find_boxes(page, markdown):
        if box.kind == "question":
            questions |= {n for n, _ in box.body}
    return [
        (n, text, n in questions)
        for n, text in enumerate(lines, start=1)
        if n not in skip and text.strip()
    ]


def violations(page: str, markdown: str, terms: list[Term]) -> list[str]:
    """Every variant the glossary rules out on `page`, as page:line."""
    found = []
    for n, text, in_questions in prose_lines(page, markdown):
        for term in terms:
            allowed = [
                (m.start(), m.end())
                for phrase in term.allow
                for m in re.finditer(re.escape(phrase), text)
            ]
            for pattern in term.avoid:
                for match in pattern.finditer(text):
                    if any(a <= match.start() and match.end() <= b for a, b in allowed):
                        continue
                    if in_questions and any(r.fullmatch(match[0]) for r in term.readers):
                        continue
                    found.append(
                        f"{page}:{n}: {match[0]!r} for {term.en!r}: write {term.use!r} "
                        f"({GLOSSARY.relative_to(REPO_ROOT).as_posix()})"
                    )
    return found


def unexplained(page: str, markdown: str, terms: list[Term]) -> list[str]:
    """Each term with `explain` whose first use on `page` does not say what it is, as page:line.

    The first use in the page's prose, its headings and its questions block left out (a
    reader's question or an error message in a title does not explain a word)."""
    found = []
    for term in (t for t in terms if t.explain):
        for n, text, in_questions in prose_lines(page, markdown):
            if in_questions or text.lstrip().startswith("#"):
                continue
            at = text.find(term.use)
            if at < 0:
                continue
            if not term.explain.match(text, at):
                found.append(
                    f"{page}:{n}: the first {term.use!r} of the page says what it is: "
                    f"{term.explain.pattern!r} ({GLOSSARY.relative_to(REPO_ROOT).as_posix()})"
                )
            break
    return found


def chinese_pages(docs_dir: Path = DOCS_DIR) -> list[Path]:
    return sorted(docs_dir.rglob("*.zh.md"))


def main() -> int:
    terms = load()
    problems = []
    for path in chinese_pages():
        page, markdown = path.relative_to(REPO_ROOT).as_posix(), path.read_text(encoding="utf-8")
        problems += violations(page, markdown, terms) + unexplained(page, markdown, terms)
    print("\n".join(problems) or "every Chinese page follows the glossary")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
