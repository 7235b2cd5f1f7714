"""Phase: the parts of pages the build writes from data.

- The Verification page: per page, its "Not verified here" boxes and its
  snippets' CPU and GPU status (the verification report); the table of embed roots.
- The Errata page: every Correction box on the site (not caveats), linked to
  its page, and the counts of each kind of box (docverify.contract.boxes).
- The home page: the headline sentence, counted from the embed roots.
- A generated prose fragment (`*_summary.md`) in the page's language.

Each is written where its marker (an HTML comment) stands in the page.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from markdown.extensions.toc import slugify

from docverify.contract import boxes, claims, embed_roots
from docverify.contract import snippets as snippet_files
from docverify.contract.sentence_checks import declared_facts
from docverify.contract.embeds import EmbeddedBlock, blocks, counts, find_embeds
from docverify.i18n import languages
from docverify.i18n.site_text import count, text
from docverify.matrix.stacks import pinned_stack
from docverify.site import nav
from docverify.site.state import SiteBuild
from docverify.results import report

log = logging.getLogger("mkdocs.plugins.notes")
VERIFICATION_MARKER = "<!-- verification-table -->"
ERRATA_MARKER = "<!-- errata-list -->"
HEADLINE_MARKER = "<!-- embed-headline -->"  # the site's summary claim, counted (home page)
ROOTS_MARKER = "<!-- embed-roots-table -->"  # the embed roots and their checks
CLAIMS_MARKER = "<!-- claims-table -->"  # per page: claims linked, boxed, unproven
CLAIMS_HEADLINE = "<!-- claims-headline -->"  # the site's claim about its own claims, counted
PINNED_MARKER = (
    "<!-- pinned-stack -->"  # the pinned Python, torch and torchvision (requirements.txt)
)
_DEVICE_NAMES = {"cpu": "CPU", "cuda": "GPU"}



def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def headline(found: list[EmbeddedBlock], lang: str = "en") -> str:
    """The site's summary claim, counted: 'N code blocks: X run with outputs compared, ...'."""
    code, prose = counts(found)
    sentence = text(
        lang,
        "headline.blocks",
        total=count(lang, "headline.block", sum(code.values())),
        run=code[embed_roots.RUN],
        tested=code[embed_roots.TESTED],
        shown=code[embed_roots.SHOWN],
    )
    if code["undeclared"]:
        sentence += text(lang, "headline.undeclared", n=code["undeclared"])
    sentence += text(lang, "headline.end")
    fragments = sum(prose.values())
    if fragments:
        parts = [
            text(lang, "headline.part", n=prose[k], kind=text(lang, f"kind.{k}"))
            for k in (embed_roots.RUN, embed_roots.TESTED, embed_roots.SHOWN)
            if prose[k]
        ]
        sentence += text(
            lang,
            "headline.fragments",
            fragments=count(lang, "headline.fragment", fragments),
            parts=text(lang, "headline.join").join(parts),
        )
    return sentence


def page_statements(
    docs_dir: Path, lang: str = languages.DEFAULT
) -> dict[str, tuple[list[str], int]]:
    """docs-relative page -> (snippet scripts it embeds, its "Not verified here" boxes)."""
    found = {}
    for page, markdown in _box_pages(docs_dir, lang):
        embeds, _ = find_embeds(page, markdown)
        run = embed_roots.RUN
        scripts = sorted(
            {e.path for e in embeds if (r := embed_roots.root_of(e.path)) and r.kind == run}
        )
        unverified = boxes.count_boxes(markdown)[boxes.UNVERIFIED]
        if scripts or unverified:
            found[page] = (scripts, unverified)
    return found


def verification_table(
    reports, docs_dir: Path, root: Path, lang: str = languages.DEFAULT
) -> str:
    """Per page: how many statements sit in "Not verified here" boxes, and its snippets' runs."""
    pages = page_statements(docs_dir, lang)
    snippets = sorted({s for device in reports.values() for s in device})
    note = [] if snippets else [text(lang, "table.no_report"), ""]
    rows = [*note, text(lang, "table.header"), "|---|---|---|---|---|---|"]

    def cell(result: report.SnippetResult | None) -> str:
        if result is None:
            return text(lang, "table.not_run")
        mark = text(lang, "table.passed" if result.outcome == "passed" else "table.failed")
        if not report.is_current(result, root):
            mark += text(lang, "table.changed")
        return f"{mark} · {result.date} · {result.duration_s:.2f} s"

    def snippet_cells(snippet: str) -> str:
        cpu, gpu = (reports.get(d, {}).get(snippet) for d in report.DEVICES)
        if cpu is None and gpu is None:
            not_run = text(lang, "table.not_run")
            return f"`{snippet}` | | {not_run} | {not_run}"
        sections = ", ".join((cpu or gpu).sections) or text(lang, "table.whole_file")
        return f"`{snippet}` | {sections} | {cell(cpu)} | {cell(gpu)}"

    for page, (scripts, unverified) in pages.items():
        for i, snippet in enumerate(scripts or [""]):
            first = f"[{page}]({page}) | {unverified}" if i == 0 else " | "
            cells = snippet_cells(snippet) if snippet else f"{text(lang, 'table.no_snippet')} | | |"
            rows.append(f"| {first} | {cells} |")
    shown = {s for scripts, _ in pages.values() for s in scripts}
    for snippet in (s for s in snippets if s not in shown):
        rows.append(f"| {text(lang, 'table.no_page')} | | {snippet_cells(snippet)} |")
    environments = sorted(
        {
            "- "
            + text(
                lang,
                "table.environment",
                device=_DEVICE_NAMES[r.device],
                torch=r.torch,
                python=r.python,
                commit=r.commit,
                machine=r.machine,
            )
            for device in reports.values()
            for r in device.values()
        }
    )
    return "\n".join([*rows, "", text(lang, "table.environments"), "", *environments])


@dataclass(frozen=True)
class PageClaims:
    """One page's sentences by what stands behind them (docverify.contract.claims)."""

    coverage: claims.Coverage
    proofs: Counter  # claims.CPU / claims.GPU_ONLY: what the linked sentences link
    declared_facts: int  # `{-}` sentences with a number, an API name or a comparison

    def cells(self) -> list[int]:
        n = self.coverage.counts
        return [
            self.proofs[claims.CPU],
            self.proofs[claims.GPU_ONLY],
            n[claims.BOXED],
            n[claims.DECLARED],
            self.declared_facts,
            n[claims.UNPROVEN],
        ]


def _claims_by_page(docs_dir: Path, lang: str) -> dict[str, PageClaims]:
    """Each page's counts in `lang`, not the generated pages (they count the others)."""
    root = docs_dir.parent
    found = {}
    for page, path in languages.pages_in(docs_dir, lang):
        if page in ("errata.md", "tags.md", "verification.md"):
            continue
        rel = f"docs/{path.relative_to(docs_dir).as_posix()}"
        markdown = path.read_text(encoding="utf-8")
        stating = declared_facts(rel, markdown)
        for sentence in stating:  # listed for review in the build's output
            log.info("%s:%s: {-} on a sentence that may state a fact: %.80s", rel, sentence.line, sentence.text)
        found[page] = PageClaims(
            claims.coverage(rel, markdown),
            claims.proof_kinds(rel, markdown, root),
            len(stating),
        )
    return found


def _counted(build: SiteBuild) -> dict[str, PageClaims]:
    """The pages' counts in the edition being built, once per build (two pages show them)."""
    if build.lang not in build.claims:
        build.claims[build.lang] = _claims_by_page(build.docs_dir, build.lang)
    return build.claims[build.lang]


def claims_table(
    docs_dir: Path, lang: str = languages.DEFAULT, pages: dict[str, PageClaims] | None = None
) -> str:
    """Per page in `lang`: its sentences proven on the CPU, checked on a GPU only, boxed,
    declared not claims (and how many of those state something), neither."""
    rows = [text(lang, "claims.header"), "|---|---:|---:|---:|---:|---:|---:|---:|"]
    totals = [0] * 6
    counts: Counter = Counter()
    for page, found in (pages or _claims_by_page(docs_dir, lang)).items():
        totals = [a + b for a, b in zip(totals, found.cells(), strict=True)]
        counts += found.coverage.counts
        rows.append(_claims_row(f"[{page}]({page})", found.cells(), found.coverage.share))
    total = claims.Coverage(counts)
    rows.append(_claims_row(f"**{text(lang, 'claims.total')}**", totals, total.share))
    return "\n".join(rows)


def claims_headline(
    docs_dir: Path,
    lang: str = languages.DEFAULT,
    gpu_run: str | None = None,
    pages: dict[str, PageClaims] | None = None,
) -> str:
    """The home page's sentence about the site's claims, counted over every page at build
    time; `gpu_run`: the date of the GPU report, None where there is none."""
    pages = pages or _claims_by_page(docs_dir, lang)
    cpu, gpu, boxed, declared, stating, unproven = (
        sum(column) for column in zip(*(p.cells() for p in pages.values()), strict=True)
    )
    least = min(pages.items(), key=lambda item: item[1].coverage.share)
    gpu_state = (
        text(lang, "claims.gpu_ran", date=gpu_run) if gpu_run else text(lang, "claims.gpu_not_run")
    )
    return text(
        lang,
        "claims.headline",
        claims=cpu + gpu + boxed + unproven,
        cpu=cpu,
        gpu=gpu,
        gpu_state=gpu_state,
        boxed=boxed,
        unproven=unproven,
        declared=declared,
        stating=stating,
        least=f"[{least[0]}]({least[0]})",
        least_share=f"{least[1].coverage.share:.0%}",
    )


def _claims_row(name: str, cells: list[int], share: float) -> str:
    return f"| {name} | " + " | ".join(map(str, cells)) + f" | {share:.0%} |"


def roots_table(
    docs_dir: Path,
    lang: str = languages.DEFAULT,
    gpu_run: str | None = None,
    repo: Path | None = None,
) -> str:
    """Every embed root with its kind of check and how many blocks the site embeds from it;
    for scripts that are run, how many of those come from a whole-file `# requires: cuda`
    script, which only a GPU run runs (`gpu_run`: the date of the GPU report, None where
    there is none)."""
    repo = repo or docs_dir.parent
    used: Counter = Counter()
    gpu_only: Counter = Counter()
    for block in blocks(docs_dir):
        if block.root:
            used[block.root.pattern] += 1
            if block.root.kind == embed_roots.RUN and _needs_cuda(repo / block.path):
                gpu_only[block.root.pattern] += 1
    gpu_state = (
        text(lang, "claims.gpu_ran", date=gpu_run) if gpu_run else text(lang, "claims.gpu_not_run")
    )
    rows = [text(lang, "roots.header"), "|---|---|---|---|---|"]
    for root in embed_roots.ROOTS:
        by = f"`{root.check}`" if root.check else ""
        kind = text(lang, f"kind.{root.kind}")
        reason = root.reason_in(lang).replace("|", "\\|")
        n = str(used[root.pattern])
        if gpu_only[root.pattern]:
            n = text(lang, "roots.gpu_only", n=n, gpu=gpu_only[root.pattern], state=gpu_state)
        rows.append(f"| `{root.pattern}` | {kind} | {by} | {reason} | {n} |")
    return "\n".join(rows)


def _needs_cuda(path: Path) -> bool:
    """Whether an embedded script runs only where CUDA is available (a whole-file mark)."""
    try:
        return snippet_files.load(path).needs_cuda
    except (OSError, ValueError):
        return False  # a missing or broken file: the embed check names it


def _box_pages(docs_dir: Path, lang: str = languages.DEFAULT):
    """(docs-relative English page, its markdown in `lang`) of every page whose boxes count.

    Not the Errata page, which repeats the corrections. Links use the English
    page's name: mkdocs-static-i18n points them at the same language's twin.
    """
    for page, path in languages.pages_in(docs_dir, lang):
        if page != "errata.md":
            yield page, path.read_text(encoding="utf-8")


def corrections(docs_dir: Path, lang: str = languages.DEFAULT) -> list[tuple[str, str, str]]:
    """(page, title, 原文 quote) for every Correction box, in page order (not caveats)."""
    return [
        (page, box.title or "", boxes.quote_prefix(box.first_paragraph))
        for page, markdown in _box_pages(docs_dir, lang)
        for box in boxes.find_boxes(page, markdown)
        if box.kind == boxes.CORRECTION
    ]


def box_counts(docs_dir: Path, lang: str = languages.DEFAULT) -> dict[str, int]:
    """How many boxes of each kind (correction, caveat, unverified) the site has."""
    total = {kind: 0 for kind in boxes.TITLE_PREFIX}
    for _, markdown in _box_pages(docs_dir, lang):
        for kind, n in boxes.count_boxes(markdown).items():
            total[kind] += n
    return total


def box_count_sentence(docs_dir: Path, lang: str = languages.DEFAULT) -> str:
    """The Errata page's counts of each kind of box, computed at build time."""
    n = box_counts(docs_dir, lang)
    return text(
        lang,
        "errata.counts",
        corrections=count(lang, "errata.correction", n[boxes.CORRECTION]),
        caveats=count(lang, "errata.caveat", n[boxes.CAVEAT]),
        unverified=count(lang, "errata.unverified", n[boxes.UNVERIFIED]),
    )


def errata_list(
    docs_dir: Path, english_titles: dict[str, str], lang: str = languages.DEFAULT, titles=None
) -> str:
    """Every correction, under its section's title (`titles`: folder -> title in `lang`;
    `english_titles` give each heading its anchor)."""
    items = corrections(docs_dir, lang)
    lines = [box_count_sentence(docs_dir, lang), ""]
    if not items:
        return "\n".join([*lines, text(lang, "errata.none")])
    titles = english_titles if titles is None else titles
    section = None
    for page, title, body in items:
        folder = page.split("/")[0] if "/" in page else ""
        if folder != section:
            section = folder
            heading = (
                titles.get(folder, folder.capitalize()) if folder else text(lang, "errata.home")
            )
            # The English title's anchor in every language: errata/#losses finds the same list.
            english = (
                english_titles.get(folder, folder.capitalize())
                if folder
                else text(languages.DEFAULT, "errata.home")
            )
            lines += ["", f"## {heading} {{ #{slugify(english, '-')} }}", ""]
        lines.append(f"- **[{title}]({page})**  \n  {body}")
    return "\n".join(lines)


def localized_fragments(markdown: str, lang: str, root: Path) -> str:
    """A generated prose fragment in the page's language, where one is generated.

    Both editions embed the same `*_summary.md` (tests/test_translations.py
    compares embed lines); its renderer also writes `*_summary.zh.md`, and a
    Chinese page shows that one. The badge above stays the English file's: the
    same test checks both renderings.
    """
    if lang == languages.DEFAULT:
        return markdown

    def swap(match: re.Match[str]) -> str:
        translated = languages.twin(match["path"], lang)
        return (
            match[0].replace(match["path"], translated)
            if (root / translated).is_file()
            else match[0]
        )

    return _PROSE_FRAGMENT.sub(swap, markdown)


_PROSE_FRAGMENT = re.compile(
    r'^[ \t]*--8<--[ \t]+"(?P<path>docs/assets/generated/[^"]+\.md)"[ \t]*$', re.MULTILINE
)


def fill(build: SiteBuild, markdown: str) -> str:
    """Each marker of the page replaced by what it stands for, in the build's language."""
    lang, docs_dir = build.lang, build.docs_dir
    if VERIFICATION_MARKER in markdown:
        table = verification_table(build.reports, docs_dir, build.root, lang)
        markdown = markdown.replace(VERIFICATION_MARKER, table)
    if ERRATA_MARKER in markdown:
        english = nav.section_titles(build.nav_pages)
        titles = nav.section_titles(build.nav_pages, lang)
        markdown = markdown.replace(ERRATA_MARKER, errata_list(docs_dir, english, lang, titles))
    if HEADLINE_MARKER in markdown:
        found = blocks(docs_dir)
        markdown = markdown.replace(HEADLINE_MARKER, headline(found, lang))
    if ROOTS_MARKER in markdown:
        gpu = build.reports.get("cuda", {}).values()
        ran = max((r.date for r in gpu), default=None)
        markdown = markdown.replace(ROOTS_MARKER, roots_table(docs_dir, lang, ran, build.root))
    if CLAIMS_MARKER in markdown:
        markdown = markdown.replace(CLAIMS_MARKER, claims_table(docs_dir, lang, _counted(build)))
    if PINNED_MARKER in markdown:
        stack = pinned_stack(build.root / "requirements.txt")
        pinned = text(
            lang,
            "pinned.stack",
            python=stack.python,
            torch=stack.torch,
            torchvision=stack.version("torchvision"),
        )
        markdown = markdown.replace(PINNED_MARKER, pinned)
    if CLAIMS_HEADLINE in markdown:
        gpu = build.reports.get("cuda", {}).values()
        ran = max((r.date for r in gpu), default=None)
        counted = _counted(build)
        markdown = markdown.replace(CLAIMS_HEADLINE, claims_headline(docs_dir, lang, ran, counted))
    return localized_fragments(markdown, lang, build.root)
