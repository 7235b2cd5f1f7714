"""MkDocs hook: show on every page that its code was executed, where and when.

- Under every embedded block, one badge line saying how it is checked
  (docverify.embed_roots): for a snippet that is run, the latest verification
  report (.reports/, written by `make test`), or "not verified in this build"
  where no report exists (a plain `make serve` on a fresh clone); for a file a
  named test validates, that test; for a file shown only, the reason. The built
  HTML is checked: a code block without exactly one badge line fails the build.
- Under every page title: the exact command that runs the page's snippets,
  and a link to each snippet file.
- The Verification page: per page, its "Not verified here" boxes and its
  snippets' CPU and GPU status; the table of embed roots.
- The Errata page: every Correction box on the site (not caveats), linked to
  its page, and the counts of each kind of box (docverify.boxes).
- The home page: the headline sentence, counted from the embed roots.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown.extensions.toc import slugify
from mkdocs.exceptions import PluginError

from docverify import boxes, embed_roots, languages, verification
from docverify.embeds import find_embeds, find_fences, page_blocks
from docverify.needs import Needs
from docverify.page_title import under_title
from docverify.site_text import count, text
from docverify.snippets import load

ROOT = Path(__file__).resolve().parents[1]
VERIFICATION_MARKER = "<!-- verification-table -->"
ERRATA_MARKER = "<!-- errata-list -->"
HEADLINE_MARKER = "<!-- embed-headline -->"  # the site's summary claim, counted (home page)
ROOTS_MARKER = "<!-- embed-roots-table -->"  # the embed roots and their checks

# Folder -> section title, from mkdocs.yml's nav (set in on_config): one place to name a section.
_section_titles: dict[str, str] = {}


def section_titles(nav: list | None) -> dict[str, str]:
    """{"distributed": "Distributed & performance", ...}: each top-level nav section's folder."""

    def pages(item) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, dict):
            return [p for value in item.values() for p in pages(value)]
        if isinstance(item, list):
            return [p for value in item for p in pages(value)]
        return []

    titles = {}
    for entry in nav or []:
        if not isinstance(entry, dict):
            continue
        for title, children in entry.items():
            folders = {p.split("/")[0] for p in pages(children) if "/" in p}
            if isinstance(children, list) and len(folders) == 1:
                titles[folders.pop()] = title
    return titles


_reports: dict[str, dict[str, verification.SnippetResult]] = {}
_source_url = ""


def on_config(config):
    global _source_url
    # Re-read on every build, so `mkdocs serve` shows a fresh report after `make test`.
    _reports.clear()
    # This checkout's reports (ROOT: mkdocs.yml's folder; hooks/snippet_embeds.py has
    # checked that docverify comes from this checkout too).
    reports_dir = ROOT / ".reports"
    _reports.update(
        {d: verification.load_results(d, reports_dir, root=ROOT) for d in verification.DEVICES}
    )
    edit_uri = config.get("edit_uri") or ""
    _source_url = edit_uri.replace("/edit/", "/blob/").removesuffix("docs/")
    _section_titles.clear()
    _section_titles.update(section_titles(config.get("nav")))
    return config


# --- badges ------------------------------------------------------------------------------


def _snippet_scripts(embeds) -> list[str]:
    """The runnable snippet scripts among embeds (not e.g. shell or YAML files)."""
    return sorted(
        {e.path for e in embeds if e.path.startswith("snippets/") and e.path.endswith(".py")}
    )


def badge(
    snippet: str,
    reports: dict[str, dict[str, verification.SnippetResult]],
    *,
    root: Path = ROOT,
    page_program: str | None = None,
    lang: str = languages.DEFAULT,
) -> str:
    """One line of HTML saying whether `snippet` passed, on which devices, with which torch.

    Only results whose recorded hash matches the file now (and the page program,
    where one was recorded) count: after an edit the badge says "changed since
    last verification" until a test run or live verification checks it again.
    """
    found = {d: reports.get(d, {}).get(snippet) for d in verification.DEVICES}
    recorded = {d: r for d, r in found.items() if r is not None}
    if not recorded:
        return f'<p class="snippet-badge unverified">{text(lang, "badge.none")}</p>'
    runs = {d: r for d, r in recorded.items() if verification.is_current(r, root, page_program)}
    if not runs:
        return changed_badge(recorded, lang)
    failed = [d for d, r in runs.items() if r.outcome != "passed"]
    latest = max(runs.values(), key=lambda r: r.date)
    devices = " + ".join("GPU" if d == "cuda" else "CPU" for d in runs if d not in failed)
    if failed:
        where = ", ".join("GPU" if d == "cuda" else "CPU" for d in failed)
        line = f"{text(lang, 'badge.failed_on', where=where)} · torch {latest.torch} · "
        line += f"{latest.date} · {latest.commit}"
        css = "failed"
    else:
        line = f"{text(lang, 'badge.verified')} · torch {latest.torch} · {devices} · "
        line += f"{latest.date} · {latest.commit}"
        css = "verified"
    if latest.via != "pytest":
        line = line.replace(" · ", f" ({latest.via}) · ", 1)
    stale = [d for d in recorded if d not in runs]
    if stale:
        stale_devices = ", ".join(_DEVICE_NAMES[d] for d in stale)
        line += " · " + text(lang, "badge.stale", devices=stale_devices)
    title = html.escape(f"{latest.machine}; Python {latest.python}", quote=True)
    return f'<p class="snippet-badge {css}" title="{title}">{html.escape(line)}</p>'


_DEVICE_NAMES = {"cpu": "CPU", "cuda": "GPU"}


def changed_badge(
    recorded: dict[str, verification.SnippetResult], lang: str = languages.DEFAULT
) -> str:
    """The file changed since every recorded run: say so, and what the last run was."""
    latest = max(recorded.values(), key=lambda r: r.date)
    failed = [_DEVICE_NAMES[d] for d, r in recorded.items() if r.outcome != "passed"]
    last = (
        text(lang, "badge.last_failed", where=", ".join(failed))
        if failed
        else text(lang, "badge.last_verified")
    )
    devices = " + ".join(_DEVICE_NAMES[d] for d in recorded)
    line = (
        f"{text(lang, 'badge.changed')} · {last} · torch {latest.torch} · {devices} "
        f"· {latest.date} · {latest.commit}"
    )
    title = html.escape(text(lang, "badge.changed_title"), quote=True)
    return f'<p class="snippet-badge changed" title="{title}">{html.escape(line)}</p>'


def add_badges(page: str, markdown: str, reports, lang: str = languages.DEFAULT) -> str:
    """One badge line under every embedded block: each code block, each bare prose embed.

    The badge says the block's kind of check (docverify.embed_roots): the
    verification report's line for a snippet that is run, the named test for a
    validated file, the reason for a file that is shown only.
    """
    lines = markdown.splitlines()
    program = _page_program(page, markdown, reports)
    inserts: list[tuple[int, str, list[str]]] = []  # (0-based index to insert at, indent, badges)
    for fence in find_fences(page, markdown):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        files = sorted({e.path for e in embeds})
        if not files:
            continue  # the embed contract refuses a code block that embeds nothing
        indent = re.match(r"[ \t]*", lines[fence.line - 1]).group(0)
        close_index = fence.line + len(fence.body)  # 0-based index of the closing fence
        badges = [block_badge(f, reports, page_program=program, lang=lang) for f in files]
        inserts.append((close_index + 1, indent, badges))
    for line, path, in_fence in page_blocks(page, markdown):
        if not in_fence:  # a generated fragment in the prose: the badge follows it
            indent = re.match(r"[ \t]*", lines[line - 1]).group(0)
            found = block_badge(path, reports, page_program=program, lang=lang)
            inserts.append((line, indent, [found]))
    # Bottom-up, so that inserted lines do not move blocks still to visit.
    for at, indent, badges in sorted(inserts, reverse=True):
        lines[at:at] = ["", *(indent + (_nested(b) if indent else b) for b in badges), ""]
    return "\n".join(lines) + "\n"


def _nested(badge_html: str) -> str:
    """The badge as a <span>: inside a box or a tab, Markdown wraps raw HTML in a paragraph,
    and a <p> inside a <p> is invalid HTML (the browser splits it into empty paragraphs)."""
    return re.sub(r"</p>$", "</span>", re.sub(r"^<p ", "<span ", badge_html))


def _code_html(text: str) -> str:
    """Escape, and render `code` spans (badges are raw HTML: Markdown is not applied)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def block_badge(
    path: str, reports, *, page_program: str | None = None, lang: str = languages.DEFAULT
) -> str:
    """The badge line for one embedded file, by the kind of its embed root."""
    root = embed_roots.root_of(path)
    if root is None:  # hooks/snippet_embeds.py has already failed the build
        words = text(lang, "badge.undeclared", path=html.escape(path))
        return f'<p class="snippet-badge failed">{words}</p>'
    if root.kind == embed_roots.RUN:
        return badge(path, reports, page_program=page_program, lang=lang)
    reason = _code_html(root.reason_in(lang))
    if root.kind == embed_roots.SHOWN:
        return f'<p class="snippet-badge shown">{text(lang, "badge.shown", reason=reason)}</p>'
    check = text(lang, "badge.validated", check=f"<code>{html.escape(root.check)}</code>")
    if any(root.check in device for device in reports.values()):
        # The check is a snippet the suite runs: its latest outcome is in the report.
        ran = badge(root.check, reports, lang=lang)
        ran = re.match(r'<p class="snippet-badge (\w+)"(.*?)>(.*)</p>$', ran)
        return f'<p class="snippet-badge {ran[1]}"{ran[2]}>{check} · {ran[3]}</p>'
    return f'<p class="snippet-badge tested">{text(lang, "badge.tested", check=check, reason=reason)}</p>'


def _page_program(page: str, markdown: str, reports) -> str | None:
    """The page program, only when some result recorded its hash (else None: not compared)."""
    if not any(r.page_program_sha256 for device in reports.values() for r in device.values()):
        return None
    from docverify.page_program import page_program

    try:
        return page_program(page, markdown, ROOT)
    except (OSError, ValueError, StopIteration):
        return None  # a broken embed: the embed check reports it


# --- how to run it ---------------------------------------------------------------------


def run_command(snippet: str) -> str:
    return Needs.of([load(ROOT / snippet)]).command(snippet)


def _run_item(snippet: str, lang: str) -> str:
    """`python snippets/x.py` (source), and what it needs that the command does not say.

    The command runs the file in the checkout, and a launch command names torchrun:
    what is left to say is a CUDA GPU (docverify.needs, from `# requires: cuda`).
    """
    notes = []
    if Needs.of([load(ROOT / snippet)]).cuda:
        notes.append(text(lang, "run.needs", what=Needs(cuda=True).what(lang)))
    if _source_url:
        notes.append(f"[{text(lang, 'run.source')}]({_source_url}{snippet})")
    notes_text = text(lang, "run.notes_join").join(notes)
    return f"`{run_command(snippet)}`" + (f" ({notes_text})" if notes else "")


def add_run_instructions(page: str, markdown: str, lang: str = languages.DEFAULT) -> str:
    embeds, _ = find_embeds(page, markdown)
    snippets = _snippet_scripts(embeds)
    if not snippets:
        return markdown
    items = " · ".join(_run_item(s, lang) for s in snippets)
    return under_title(
        markdown, f'<p class="run-it" markdown>{text(lang, "run.line", items=items)}</p>'
    )


# --- generated pages -----------------------------------------------------------------------


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


def verification_table(reports, docs_dir: Path | None = None, lang: str = languages.DEFAULT) -> str:
    """Per page: how many statements sit in "Not verified here" boxes, and its snippets' runs."""
    pages = page_statements(docs_dir or ROOT / "docs", lang)
    snippets = sorted({s for device in reports.values() for s in device})
    note = [] if snippets else [text(lang, "table.no_report"), ""]
    rows = [*note, text(lang, "table.header"), "|---|---|---|---|---|---|"]

    def cell(result: verification.SnippetResult | None) -> str:
        if result is None:
            return text(lang, "table.not_run")
        mark = text(lang, "table.passed" if result.outcome == "passed" else "table.failed")
        if not verification.is_current(result, ROOT):
            mark += text(lang, "table.changed")
        return f"{mark} · {result.date} · {result.duration_s:.2f} s"

    def snippet_cells(snippet: str) -> str:
        cpu, gpu = (reports.get(d, {}).get(snippet) for d in verification.DEVICES)
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


def roots_table(docs_dir: Path, lang: str = languages.DEFAULT) -> str:
    """Every embed root with its kind of check and how many blocks the site embeds from it."""
    used: dict[str, int] = {}
    for block in embed_roots.blocks(docs_dir):
        if block.root:
            used[block.root.pattern] = used.get(block.root.pattern, 0) + 1
    rows = [text(lang, "roots.header"), "|---|---|---|---|---|"]
    for root in embed_roots.ROOTS:
        by = f"`{root.check}`" if root.check else ""
        kind = text(lang, f"kind.{root.kind}")
        reason = root.reason_in(lang).replace("|", "\\|")
        rows.append(
            f"| `{root.pattern}` | {kind} | {by} | {reason} | {used.get(root.pattern, 0)} |"
        )
    return "\n".join(rows)


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
    docs_dir: Path, lang: str = languages.DEFAULT, titles: dict[str, str] | None = None
) -> str:
    """Every correction, under its section's title (`titles`: folder -> title in `lang`)."""
    items = corrections(docs_dir, lang)
    lines = [box_count_sentence(docs_dir, lang), ""]
    if not items:
        return "\n".join([*lines, text(lang, "errata.none")])
    titles = _section_titles if titles is None else titles
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
                _section_titles.get(folder, folder.capitalize())
                if folder
                else text(languages.DEFAULT, "errata.home")
            )
            lines += ["", f"## {heading} {{ #{slugify(english, '-')} }}", ""]
        lines.append(f"- **[{title}]({page})**  \n  {body}")
    return "\n".join(lines)


# --- the hook ------------------------------------------------------------------------------


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    lang = languages.of_build(config)
    docs_dir = Path(config["docs_dir"])
    if VERIFICATION_MARKER in markdown:
        markdown = markdown.replace(
            VERIFICATION_MARKER, verification_table(_reports, docs_dir, lang)
        )
    if ERRATA_MARKER in markdown:
        titles = {folder: _translated(config, title) for folder, title in _section_titles.items()}
        markdown = markdown.replace(ERRATA_MARKER, errata_list(docs_dir, lang, titles))
    if HEADLINE_MARKER in markdown:
        found = embed_roots.blocks(docs_dir)
        markdown = markdown.replace(HEADLINE_MARKER, embed_roots.headline(found, lang))
    if ROOTS_MARKER in markdown:
        markdown = markdown.replace(ROOTS_MARKER, roots_table(docs_dir, lang))
    markdown = add_run_instructions(f"docs/{src}", markdown, lang)
    markdown = add_badges(f"docs/{src}", markdown, _reports, lang)
    return localized_fragments(markdown, lang)


def localized_fragments(markdown: str, lang: str, root: Path = ROOT) -> str:
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


def _translated(config, nav_title: str) -> str:
    """A nav title in the language being built (mkdocs-static-i18n's nav_translations)."""
    i18n = config.plugins.get("i18n")
    language = i18n.current_language_config if i18n else None
    return ((language and language.nav_translations) or {}).get(nav_title, nav_title)


def on_post_page(output, page, config):
    # Checked on the built HTML: every code block on the site has exactly one badge line.
    problems = embed_roots.badge_problems(f"docs/{page.file.src_uri}", output)
    if problems:
        raise PluginError("Code blocks without exactly one badge:\n  " + "\n  ".join(problems))
    return output
