"""A translation shows the same page: the same code, anchors, boxes and quotes of the notes.

Each English page `x.md` and its 简体中文 twin `x.zh.md` must have, in the same
order: every embed line (so the same snippet sections run and show), every
heading at the same level with the same anchor (so `page.md#anchor` links and
the language switcher land on the same place), every box of the three kinds
with the same 原文 quotes, every HTML marker the build fills in, and the
"questions this page answers" block right under the title.

`python -m docverify.i18n.translations` lists every difference as page:line;
`--anchors` first writes the English anchors onto the translated headings
(`## 中文标题 { #english-anchor }`), the one step a translator need not do by hand.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import markdown as python_markdown

from docverify.contract import boxes, front_matter, proofs
from docverify.contract.embeds import find_embeds, find_fences
from docverify.i18n.languages import TRANSLATIONS, source_pages, twin
from docverify.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"
MIN_QUESTIONS = 3
QUESTION_TITLES = {"en": "Questions this page answers", "zh": "本页解答的问题"}
_HEADING = re.compile(
    r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]*\{[ \t]*#(?P<id>[^ }]+)[ \t]*\})?[ \t]*$"
)
_MARKER = re.compile(r"<!--\s*[-\w/]+\s*-->")


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str
    anchor: str | None  # the explicit `{ #id }`, if any


TRANSLATED_KEYS = ("title", "summary")


def _kept(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in TRANSLATED_KEYS}


def headings(markdown: str) -> list[Heading]:
    """ATX headings outside code blocks and front matter, in page order."""
    in_code = {
        n for f in find_fences("", markdown) for n in range(f.line, f.line + len(f.body) + 2)
    }
    body_start = front_matter.body_line(markdown)
    found = []
    for n, line in enumerate(markdown.splitlines(), start=1):
        if n < body_start or n in in_code:
            continue
        if match := _HEADING.match(line):
            found.append(Heading(n, len(match["hashes"]), match["text"], match["id"]))
    return found


def anchors(markdown: str) -> list[str]:
    """The id each heading gets in the built page (Python-Markdown's toc, as mkdocs.yml sets it)."""
    lines = [
        f"{'#' * h.level} {h.text}" + (f" {{ #{h.anchor} }}" if h.anchor else "")
        for h in headings(markdown)
    ]
    md = python_markdown.Markdown(extensions=["toc", "attr_list"])
    md.convert("\n\n".join(lines))

    def flatten(tokens: list[dict]) -> list[str]:
        return [i for t in tokens for i in [t["id"], *flatten(t["children"])]]

    return flatten(md.toc_tokens)


def _box_signature(page: str, markdown: str) -> list[tuple[int, str, tuple[str, ...]]]:
    kinds = (boxes.CORRECTION, boxes.CAVEAT, boxes.UNVERIFIED)
    return [
        (b.line, b.kind, tuple(boxes.quotes(b.first_paragraph) or ()))
        for b in boxes.find_boxes(page, markdown)
        if b.kind in kinds
    ]


def question_block(page: str, markdown: str, lang: str) -> boxes.Box | None:
    """The "questions this page answers" box, when it comes before any other content."""
    _, body = front_matter.split(markdown)
    offset = front_matter.body_line(markdown) - 1
    found = [b for b in boxes.find_boxes(page, body) if b.kind == "question"]
    if not found:
        return None
    first = found[0]
    before = body.splitlines()[: first.line - 1]
    prose = [
        line
        for line in before
        if line.strip() and not line.startswith("# ") and not line.startswith("*中文")
    ]
    if prose or first.title != QUESTION_TITLES[lang]:
        return None
    return boxes.Box(page, first.line + offset, first.kind, first.title, first.body)


def differences(page: str, english: str, translation: str, lang: str) -> list[str]:
    """What the translation `twin(page, lang)` of `page` does not keep, as page:line lines."""
    other = twin(page, lang)
    problems = []

    def compare(what: str, mine: list, theirs: list, line_of) -> None:
        for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a[1:] != b[1:]:
                problems.append(
                    f"{other}:{line_of(b)}: {what} #{i + 1} differs from {page}:{line_of(a)}: "
                    f"{a[1:]!r} != {b[1:]!r}"
                )
                return
        if len(mine) != len(theirs):
            plural = "boxes" if what == "box" else f"{what}s"
            problems.append(f"{other}: {len(theirs)} {plural}, {page} has {len(mine)}")

    def embed_list(text: str, name: str) -> list:
        return [(e.line, e.path, e.section) for e in find_embeds(name, text)[0]]

    def marker_list(text: str) -> list:
        return [(text.count("\n", 0, m.start()) + 1, m[0]) for m in _MARKER.finditer(text)]

    def proof_list(text: str, name: str) -> list:
        # The same checks, in the same order (`{-}`, not a claim, may differ with the wording).
        return [(m.line, m.names) for m in proofs.markers(name, text) if m.names]

    def heading_list(text: str) -> list:
        # The title's anchor is not compared: nothing links to it.
        pairs = zip(headings(text), anchors(text), strict=True)
        return [(h.line, h.level, a if h.level > 1 else "") for h, a in pairs]

    # The same front matter, but the words a reader sees in each language: the page's
    # title and its summary on the section's index page (docverify.site.nav).
    meta, twin_meta = front_matter.split(english)[0], front_matter.split(translation)[0]
    if _kept(meta) != _kept(twin_meta) or set(meta) != set(twin_meta):
        problems.append(f"{other}:1: front matter differs from {page}")
    compare("embed", embed_list(english, page), embed_list(translation, other), lambda x: x[0])
    compare("heading", heading_list(english), heading_list(translation), lambda x: x[0])
    compare(
        "box", _box_signature(page, english), _box_signature(other, translation), lambda x: x[0]
    )
    compare("marker", marker_list(english), marker_list(translation), lambda x: x[0])
    compare("proof link", proof_list(english, page), proof_list(translation, other), lambda x: x[0])
    for name, text, language in ((page, english, "en"), (other, translation, lang)):
        block = question_block(name, text, language)
        if block is None:
            problems.append(
                f'{name}:1: no `!!! question "{QUESTION_TITLES[language]}"` block right under the title'
            )
        elif len([t for _, t in block.body if t.lstrip().startswith("- ")]) < MIN_QUESTIONS:
            problems.append(f"{name}:{block.line}: list at least {MIN_QUESTIONS} questions")
    return problems


def write_anchors(english: str, translation: str) -> str:
    """The translation with each heading given the English heading's anchor (`{ #id }`)."""
    lines = translation.splitlines(keepends=True)
    ids = anchors(english)
    for heading, anchor in zip(headings(translation), ids, strict=False):
        if heading.level == 1:
            continue  # the title: nothing links to it
        newline = "\n" if lines[heading.line - 1].endswith("\n") else ""
        lines[heading.line - 1] = f"{'#' * heading.level} {heading.text} {{ #{anchor} }}{newline}"
    return "".join(lines)


def all_differences(docs_dir: Path = DOCS, *, fix_anchors: bool = False) -> list[str]:
    problems = []
    for source in source_pages(docs_dir):
        page = source.relative_to(docs_dir.parent).as_posix()  # docs/<section>/<page>.md
        english = source.read_text(encoding="utf-8")
        for lang in TRANSLATIONS:
            path = docs_dir.parent / twin(page, lang)
            if not path.is_file():
                problems.append(f"{twin(page, lang)}: missing (the translation of {page})")
                continue
            translation = path.read_text(encoding="utf-8")
            if fix_anchors:
                translation = write_anchors(english, translation)
                path.write_text(translation, encoding="utf-8")
            problems += differences(page, english, translation, lang)
    return problems


def main(argv: list[str]) -> int:
    problems = all_differences(fix_anchors="--anchors" in argv)
    print("\n".join(problems) or "every translation keeps its page's code, anchors and boxes")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
