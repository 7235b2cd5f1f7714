"""The three kinds of boxes a page uses about the original notes and about what is not checked.

    !!! correction "Correction: <short>"       the notes were wrong or outdated
    !!! caveat "Caveat: <short>"               the notes were right but incomplete
    !!! unverified "Not verified here: <short>"  cannot be checked on this machine

(`???` and `???+`, collapsed or not, work the same.) Rules, enforced by
tests/test_docs_contract.py and counted on the Errata and Verification pages:

- The title starts with its kind's words, so the kind never rests on colour.
- A correction or caveat body starts with `原文:` and the verbatim quote of
  the notes in 「」 or in backticks (several quotes may follow each other,
  separated by spaces or ` / `; `...` or `…` inside a quote marks an
  omission). The quote must occur in a file of the notes (SEEDS_DIR) with
  whitespace ignored: line wrapping and indentation may differ, words may not.
- A "Not verified here" body says why and what was checked instead, with the
  labels `Why:` and `Checked instead:` (bold or not), each followed by text.
- On a 简体中文 page (`x.zh.md`) the titles start with 更正： / 补充说明： /
  此处未验证：, the labels are 原因： and 替代检查：, and the quotes are the same.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from docverify.i18n.languages import language_of
from docverify.paths import REPO_ROOT

CORRECTION = "correction"
CAVEAT = "caveat"
UNVERIFIED = "unverified"
TITLE_PREFIX = {
    CORRECTION: "Correction: ",
    CAVEAT: "Caveat: ",
    UNVERIFIED: "Not verified here: ",
}
# The same boxes on the 简体中文 pages (`x.zh.md`, docverify.i18n.languages).
TITLE_PREFIXES = {
    "en": TITLE_PREFIX,
    "zh": {CORRECTION: "更正：", CAVEAT: "补充说明：", UNVERIFIED: "此处未验证："},
}
# A "Not verified here" box's two labels: why, and what was checked instead.
UNVERIFIED_LABELS = {"en": ("Why:", "Checked instead:"), "zh": ("原因：", "替代检查：")}
# Material's own admonition types (and aliases): allowed, but not counted.
MATERIAL_TYPES = frozenset(
    [
        "note",
        "abstract",
        "summary",
        "tldr",
        "info",
        "todo",
        "tip",
        "hint",
        "important",
        "success",
        "check",
        "done",
        "question",
        "help",
        "faq",
        "warning",
        "caution",
        "attention",
        "failure",
        "fail",
        "missing",
        "danger",
        "error",
        "bug",
        "example",
        "quote",
        "cite",
    ]
)

# The original notes; NOTES_SEEDS_DIR overrides (e.g. in a checkout elsewhere).
SEEDS_DIR = Path(os.environ.get("NOTES_SEEDS_DIR") or REPO_ROOT.parent / "shared" / "seeds")

# An admonition's first line (`!!! kind "title"`, `??? kind`, `???+ kind`); notebook.py uses it too.
ADMONITION = re.compile(
    r"^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[A-Za-z][-\w]*)"
    r'(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$'
)
_QUOTE_LABEL = re.compile(r"^原文[:：]\s*")
_ELLIPSIS = re.compile(r"\.\.\.|…")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])")


def _label(text: str) -> re.Pattern[str]:
    """A label, bold or not, followed by text."""
    return re.compile(rf"(?:\*\*)?{re.escape(text)}(?:\*\*)?\s*\S")


@dataclass(frozen=True)
class Box:
    page: str
    line: int  # 1-based line of the `!!!` opener
    kind: str
    title: str | None
    body: tuple[tuple[int, str], ...]  # (line, dedented text) of every body line

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def first_paragraph(self) -> str:
        lines = []
        for _, text in self.body:
            if not text.strip():
                if lines:
                    break
                continue
            lines.append(text.strip())
        return "\n".join(lines)

    @property
    def first_line(self) -> str:
        return next((t.strip() for _, t in self.body if t.strip()), "")

    @property
    def text(self) -> str:
        return "\n".join(t for _, t in self.body)


def find_boxes(page: str, markdown: str) -> list[Box]:
    """Every admonition on the page (any type), with its body, in page order."""
    lines = markdown.splitlines()
    boxes = []
    for i, line in enumerate(lines):
        match = ADMONITION.match(line)
        if not match:
            continue
        indent = len(match["indent"].expandtabs(4))
        body = []
        for j in range(i + 1, len(lines)):
            text = lines[j].expandtabs(4)
            if text.strip() and len(text) - len(text.lstrip()) < indent + 4:
                break
            body.append((j + 1, text[indent + 4 :]))
        while body and not body[-1][1].strip():
            body.pop()
        boxes.append(Box(page, i + 1, match["kind"], match["title"], tuple(body)))
    return boxes


def quotes(paragraph: str) -> list[str] | None:
    """The quotes after `原文:` (「...」 or `...`), or None when it does not start so."""
    parsed = parse_quotes(paragraph)
    return None if parsed is None else parsed[0]


def quote_prefix(paragraph: str) -> str:
    """`原文:` and its quotes, as written (whitespace collapsed): what the Errata page shows."""
    parsed = parse_quotes(paragraph)
    if not parsed or not parsed[0]:
        return paragraph.splitlines()[0] if paragraph else ""
    return re.sub(r"\s+", " ", paragraph[: parsed[1]]).strip()


def parse_quotes(paragraph: str) -> tuple[list[str], int] | None:
    label = _QUOTE_LABEL.match(paragraph)
    if not label:
        return None
    found = []
    end = label.end()
    i = label.end()
    while i < len(paragraph):
        char = paragraph[i]
        if char.isspace() or char == "/":
            i += 1
        elif char == "「":
            depth, j = 0, i
            while j < len(paragraph):
                depth += {"「": 1, "」": -1}.get(paragraph[j], 0)
                if depth == 0:
                    break
                j += 1
            found.append(_MD_ESCAPE.sub(r"\1", paragraph[i + 1 : j]))
            i = end = j + 1
        elif char == "`":
            ticks = re.match(r"`+", paragraph[i:])[0]
            close = re.compile(rf"(?<!`){ticks}(?!`)")
            closing = close.search(paragraph, i + len(ticks))
            if not closing:
                break
            code = paragraph[i + len(ticks) : closing.start()]
            if code.startswith(" ") and code.endswith(" ") and code.strip():
                code = code[1:-1]
            found.append(code)
            i = end = closing.end()
        else:
            break
    return found, end


def _squash(text: str) -> str:
    """Whitespace and backticks (Markdown formatting, not words) removed."""
    return re.sub(r"[\s`]+", "", text)


def load_seeds(seeds_dir: Path = SEEDS_DIR) -> dict[str, str]:
    """name -> squashed text, for every file of the notes (and a second reading of it).

    A code comment the notes wrap onto an indented next line (`# ...` under
    `# ...`) counts as line wrapping: the second reading drops the `#` that
    continues it, so a quote may join the two lines.
    """
    texts = {}
    for path in sorted(seeds_dir.glob("*")):
        if path.is_file():
            raw = path.read_text(encoding="utf-8")
            texts[path.name] = _squash(raw)
            texts[f"{path.name} (wrapped comments joined)"] = _squash(
                re.sub(r"(#[^\n]*)\n[ \t]+#", r"\1\n", raw)
            )
    return texts


def quote_in_seeds(quote: str, seeds: dict[str, str]) -> bool:
    """Whether the quote occurs in one file of the notes, whitespace ignored, `...` = omission."""
    parts = [_squash(p) for p in _ELLIPSIS.split(quote)]
    parts = [p for p in parts if p]
    if not parts:
        return False
    for text in seeds.values():
        at = 0
        for part in parts:
            at = text.find(part, at)
            if at < 0:
                break
            at += len(part)
        else:
            return True
    return False


def box_problems(page: str, markdown: str) -> list[str]:
    """Everything wrong with the form of the page's boxes, naming page:line."""
    problems = []
    lang = language_of(page)
    lines = markdown.splitlines()
    for box in find_boxes(page, markdown):
        # A line that goes on from the box's last line without its indent ends the box
        # there: it renders outside, after it, and neither the build nor a twin notices.
        after = box.body[-1][0] if box.body else len(lines)
        if after < len(lines) and lines[after].strip():
            problems.append(
                f"{page}:{after + 1}: this line goes on from the {box.kind} box above without "
                f"its indent, so it shows after the box: indent it, or leave a blank line before it"
            )
        if box.kind not in TITLE_PREFIX:
            if box.kind not in MATERIAL_TYPES:
                problems.append(
                    f"{box.where}: unknown box type `{box.kind}`; use correction, caveat, "
                    f"unverified or one of Material's types"
                )
            continue
        prefix = TITLE_PREFIXES[lang][box.kind]
        title = box.title or ""
        if not title.startswith(prefix) or not title[len(prefix) :].strip():
            problems.append(f'{box.where}: a {box.kind} box is titled "{prefix}<short>"')
        if box.kind == UNVERIFIED:
            why, instead = UNVERIFIED_LABELS[lang]
            missing = [label for label in (why, instead) if not _label(label).search(box.text)]
            if missing:
                problems.append(
                    f"{box.where}: a {prefix.strip().rstrip(':：')} box says `{why}` it cannot be checked "
                    f"here and what was `{instead}`; missing {', '.join(missing)}"
                )
            continue
        found = quotes(box.first_paragraph)
        first = box.body[0][0] if box.body else box.line
        if found is None:
            problems.append(f"{page}:{first}: a {box.kind} box starts its body with `原文: `")
        elif not found:
            problems.append(
                f"{page}:{first}: `原文:` must be followed by the quote, in 「」 or in backticks"
            )
    return problems


def page_quotes(page: str, markdown: str) -> list[tuple[int, str]]:
    """(line, text) of every quote of the notes on a page.

    The 原文 quotes of corrections and caveats, and every 「...」 anywhere on the
    page: on this site 「」 mark the notes' own words.
    """
    found: dict[tuple[int, str], None] = {}
    for box in find_boxes(page, markdown):
        if box.kind in (CORRECTION, CAVEAT):
            first = box.body[0][0] if box.body else box.line
            for quote in quotes(box.first_paragraph) or []:
                line = next(
                    (n for n, t in box.body if _squash(quote)[:12] in _squash(t)),
                    first,
                )
                found[(line, quote)] = None
    for match in re.finditer(r"「([^」]*)」", markdown):
        line = markdown.count("\n", 0, match.start()) + 1
        found[(line, _MD_ESCAPE.sub(r"\1", match[1]))] = None
    return list(found)


def quote_problems(page: str, markdown: str, seeds: dict[str, str]) -> list[str]:
    """Quotes of the notes that do not occur in them (seeds: load_seeds()), naming page:line."""
    return [
        f"{page}:{line}: quote not verbatim from the notes ({SEEDS_DIR}; whitespace may "
        f"differ, words may not): {quote!r}"
        for line, quote in page_quotes(page, markdown)
        if not quote_in_seeds(quote, seeds)
    ]


def count_boxes(markdown: str) -> Counter:
    """How many boxes of each of the three kinds a page has."""
    return Counter(b.kind for b in find_boxes("", markdown) if b.kind in TITLE_PREFIX)
