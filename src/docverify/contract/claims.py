"""How much of a page's prose is proven: its sentences, each linked, boxed, declared or not.

A page's prose is split into sentences (English at `.`, `?`, `!` before a
capital, a digit, a code span or the end; Chinese at `。`, `？`, `！`), each
paragraph, list item and table row on its own. Each sentence is:

- linked: it ends with a proof link `{✓ ...}` (docverify.contract.proofs);
- boxed: it stands in a "Not verified here" box, which says why;
- declared: it ends with `{-}`, "not a claim" (a summary, a pointer, a description
  of the code below), declared in the source;
- unproven: none of these.

Not counted at all: front matter, headings, code blocks and embeds, the
questions block, box titles, the `原文:` quote of the notes and its italic
gloss, the `*中文: …*` terms line, table headers, images and raw HTML lines
(the build's own markers and links). A page's coverage is (linked + boxed) /
(linked + boxed + unproven); tests/test_claims.py holds every content page to
at least 95% in both languages, and the Verification page shows the counts.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from docverify.contract import boxes, front_matter
from docverify.contract.embeds import find_fences
from docverify.contract.front_matter import body_line
from docverify.contract.proofs import MARKER, embedded_sources, own_checks, targets_of

LINKED, BOXED, DECLARED, UNPROVEN = "linked", "boxed", "declared", "unproven"
# What a linked sentence's proof is: a check the CPU run makes (or a named test), or
# only checks a GPU run makes (`# requires: cuda`), which say so on the page.
CPU, GPU_ONLY = "cpu", "gpu-only"
TARGET = 0.95

_NOTES_QUOTE = re.compile(r"「[^」]*」")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_SKIP_LINE = re.compile(r"^\s*(?:#{1,6}\s|<|\*中文:|!\[|-+8<-+\s|\|?\s*:?-{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
# The gloss of a 原文 quote: italic on an English page, in full-width brackets on a Chinese one.
_GLOSS = re.compile(r"^\s*(?:\(\*[^*]*\*\)|（[^）]*）)")
# A sentence in a Correction or Caveat box that is only a quote of the notes and its gloss.
_QUOTE_ONLY = re.compile(
    r"^(?:原文[:：]\s*)?(?:「[^」]*」|`[^`]+`)\s*(?:\(\*[^)]*\*\))?[\s,.;:，。；：]*$"
)
# A sentence ends at ., ? or ! (with closing quotes or brackets) before a space and a
# capital, a digit, a code span, a link or a marker; or at 。？！ in Chinese.
_END = re.compile(r"(?<=[.?!])[\"”’)*_]*\s+(?=[A-Z0-9`\[{(\"“*])|(?<=[。？！])[」”’）)]*\s*")


@dataclass(frozen=True)
class Sentence:
    line: int
    text: str
    kind: str


def sentences(page: str, markdown: str) -> list[Sentence]:
    """Every counted sentence of the page's prose, in page order."""
    return list(_sentences(page, markdown))


# Per page text: the build counts a page's sentences three ways (kinds, proofs, `{-}`).
@functools.lru_cache(maxsize=512)
def _sentences(page: str, markdown: str) -> tuple[Sentence, ...]:
    lines = markdown.splitlines()
    skipped = set(range(body_line(markdown) - 1))
    for fence in find_fences(page, markdown):
        skipped.update(range(fence.line - 1, fence.line + len(fence.body) + 1))
    boxed: set[int] = set()
    quoted: set[int] = set()  # where a box's first paragraph starts: `原文:` and the quote
    about_notes: set[int] = set()  # the body lines of Correction and Caveat boxes
    for box in boxes.find_boxes(page, markdown):
        skipped.add(box.line - 1)  # the title line
        if box.kind in (boxes.CORRECTION, boxes.CAVEAT) and box.body:
            quoted.add(next(line for line, text in box.body if text.strip()))
            about_notes |= {line for line, _ in box.body}
        body = {line - 1 for line, _ in box.body}
        if box.kind == "question":
            skipped |= body
        elif box.kind == boxes.UNVERIFIED:
            boxed |= body
    found: list[Sentence] = []
    for first, block in _blocks(lines, skipped):
        text = _without_quote(block) if first in quoted else block
        kind_if_unmarked = BOXED if (first - 1) in boxed else UNPROVEN
        for offset, sentence in _split(text):
            if first in about_notes and _QUOTE_ONLY.match(MARKER.sub("", sentence)):
                continue  # the notes' own words, quoted: not a claim of this page
            line = first + text.count("\n", 0, offset)
            found.append(Sentence(line, sentence, _kind(sentence, kind_if_unmarked)))
    return tuple(_summary(markdown) + found)


def _summary(markdown: str) -> list[Sentence]:
    """The front matter's `summary:`, which the section's index page shows (one sentence)."""
    summary = str(front_matter.split(markdown)[0].get("summary") or "").strip()
    if not summary:
        return []
    line = next(
        (n for n, text in enumerate(markdown.splitlines(), 1) if text.startswith("summary:")), 1
    )
    return [Sentence(line, summary, _kind(summary, UNPROVEN))]


def _blocks(lines: list[str], skipped: set[int]):
    """(first line, text) of each paragraph, list item and table row outside `skipped`."""
    current: list[str] = []
    start = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        ends = index in skipped or not stripped or _SKIP_LINE.match(line)
        new_item = _LIST_ITEM.match(line) or stripped.startswith("|")
        if (ends or new_item) and current:
            yield start + 1, "\n".join(current)
            current = []
        if ends:
            continue
        if stripped.startswith("|"):  # a table row: one unit, its cells joined
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if _TABLE_RULE.match(following):
                continue  # the header row
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            yield index + 1, " ".join(c for c in cells if c)
            continue
        if not current:
            start = index
        current.append(_LIST_ITEM.sub("", line).strip() if len(current) == 0 else stripped)
    if current:
        yield start + 1, "\n".join(current)


def _without_quote(text: str) -> str:
    """A box's first paragraph without its `原文:` quote and the gloss that follows."""
    parsed = boxes.parse_quotes(text)
    if not parsed or not parsed[0]:
        return text
    rest = text[parsed[1] :]
    gloss = _GLOSS.match(rest)
    kept = rest[gloss.end() :] if gloss else rest
    return "\n" * text[: len(text) - len(kept)].count("\n") + kept.lstrip(" .。")


def _split(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) for each sentence of a block; a marker stays with its sentence."""
    masked = _LINK_TARGET.sub(lambda m: "]" + "x" * (len(m[0]) - 1), text)
    masked = _CODE_SPAN.sub(lambda m: "`" + "x" * (len(m[0]) - 2) + "`", masked)
    masked = MARKER.sub(lambda m: "{" + "x" * (len(m[0]) - 2) + "}", masked)
    # A quote of the notes is one piece of a sentence, whatever punctuation it holds.
    masked = _NOTES_QUOTE.sub(lambda m: "「" + "x" * (len(m[0]) - 2) + "」", masked)
    cuts = [0]
    for end in _END.finditer(masked):
        cut = end.end()
        after = MARKER.match(text, cut)
        while after:  # a marker after the full stop belongs to the sentence before it
            cut = after.end()
            cut += len(text[cut:]) - len(text[cut:].lstrip())
            after = MARKER.match(text, cut)
        if cut > cuts[-1] and cut < len(text):
            cuts.append(cut)
    cuts.append(len(text))
    pieces = [(a, text[a:b]) for a, b in zip(cuts, cuts[1:], strict=False) if text[a:b].strip()]
    # Each sentence's offset is where its first word stands (its line is counted from it).
    return [(a + len(p) - len(p.lstrip()), p.strip()) for a, p in pieces]


def _kind(sentence: str, unmarked: str) -> str:
    found = list(MARKER.finditer(sentence))
    if any(m["names"] for m in found):
        return LINKED
    if found:
        return DECLARED
    return unmarked


@dataclass(frozen=True)
class Coverage:
    counts: Counter

    @property
    def claims(self) -> int:
        return self.counts[LINKED] + self.counts[BOXED] + self.counts[UNPROVEN]

    @property
    def share(self) -> float:
        """Proven (linked or boxed) claims over all claims; 1.0 for a page without claims."""
        return (self.counts[LINKED] + self.counts[BOXED]) / self.claims if self.claims else 1.0


def coverage(page: str, markdown: str) -> Coverage:
    return Coverage(Counter(s.kind for s in sentences(page, markdown)))


def proof_kinds(page: str, markdown: str, root: Path) -> Counter:
    """How many linked sentences of the page a CPU run proves (a check it makes, or a
    named test), and how many link only checks a GPU run makes."""
    return Counter(_proof_kinds(page, markdown, root, embedded_sources(page, root)))


# Per page text and the texts of the snippets it embeds (which mark checks CUDA-only).
@functools.lru_cache(maxsize=512)
def _proof_kinds(page: str, markdown: str, root: Path, sources: tuple[str, ...]) -> Counter:
    found: Counter = Counter()
    own = own_checks(page, root)
    for sentence in sentences(page, markdown):
        if sentence.kind == LINKED:
            found[GPU_ONLY if _gpu_only(page, sentence.text, root, own) else CPU] += 1
    return found


def _gpu_only(page: str, sentence: str, root: Path, own: dict) -> bool:
    """Whether every link of the sentence is a check only a GPU run makes."""
    targets = targets_of(page, sentence, root, own)
    checks = [t.check for t in targets if t.page]
    tests = [t for t in targets if not t.page]
    return bool(checks) and all(c.cuda_only for c in checks) and not tests


def gpu_only_outside_boxes(page: str, markdown: str, root: Path) -> list[Sentence]:
    """The linked sentences that only checks a GPU run makes prove, standing outside a
    "Not verified here" box: until a GPU run is recorded, such a sentence belongs in one."""
    boxed = {
        line
        for box in boxes.find_boxes(page, markdown)
        if box.kind == boxes.UNVERIFIED
        for line, _ in box.body
    }
    own = own_checks(page, root)
    return [
        s
        for s in sentences(page, markdown)
        if s.kind == LINKED and s.line not in boxed and _gpu_only(page, s.text, root, own)
    ]


def main(argv: list[str]) -> int:
    """`python -m docverify.contract.claims docs/x.md ...`: each page's counts and its unproven sentences."""
    import sys
    from pathlib import Path

    for page in argv:
        markdown = Path(page).read_text(encoding="utf-8")
        found = coverage(page, markdown)
        print(
            f"{page}: {found.share:.0%} of {found.claims} claims linked or boxed {dict(found.counts)}"
        )
        for sentence in sentences(page, markdown):
            if sentence.kind == UNPROVEN:
                print(f"  {page}:{sentence.line}: {sentence.text[:100]!r}", file=sys.stdout)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
