"""Phase: under every embedded block, one badge line saying how it is checked.

- The badge's kind comes from the block's embed root (docverify.contract.embed_roots):
  for a snippet that is run, the latest verification report (.reports/, written
  by `make test` and by live verification under `make serve`), or "not verified
  in this build" where no report exists (a plain `make serve` on a fresh clone);
  for a file a named test validates, that test; for a file shown only, the reason.
- Under every page title: the exact command that runs the page's snippets, and
  a link to each snippet file.
- The built HTML is checked: a code block without exactly one badge line fails
  the build, naming the page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError

from docverify.contract import embed_roots
from docverify.contract.embeds import find_embeds, find_fences, page_blocks
from docverify.contract.needs import Needs
from docverify.contract.page_title import under_title
from docverify.contract.snippets import load
from docverify.site.state import Reports, SiteBuild
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.problems import Problem, listed
from docverify.results import report

_DEVICE_NAMES = {"cpu": "CPU", "cuda": "GPU"}



@dataclass(frozen=True)
class Badge:
    css: str  # verified, failed, changed, unverified, shown, tested
    words: str  # HTML
    title: str = ""

    def html(self, nested: bool = False) -> str:
        """A paragraph; inside a box or a tab a <span>, since Markdown wraps raw HTML in a
        paragraph there, and a <p> inside a <p> is invalid (split into empty paragraphs)."""
        tag = "span" if nested else "p"
        title = f' title="{html.escape(self.title, quote=True)}"' if self.title else ""
        return f'<{tag} class="snippet-badge {self.css}"{title}>{self.words}</{tag}>'


def badge(
    snippet: str,
    reports: Reports,
    *,
    root: Path,
    lang: str = languages.DEFAULT,
) -> Badge:
    """Whether `snippet` passed, on which devices, with which torch.

    Only results whose recorded hash matches the file now count: after an edit the
    badge says "changed since last verification" until a test run or live
    verification checks it again.
    """
    found = {d: reports.get(d, {}).get(snippet) for d in report.DEVICES}
    recorded = {d: r for d, r in found.items() if r is not None}
    if not recorded:
        return Badge("unverified", text(lang, "badge.none"))
    runs = {d: r for d, r in recorded.items() if report.is_current(r, root)}
    if not runs:
        return changed_badge(recorded, lang)
    failed = [_DEVICE_NAMES[d] for d, r in runs.items() if r.outcome != "passed"]
    latest = max(runs.values(), key=lambda r: r.date)
    via = f" ({latest.via})" if latest.via != "pytest" else ""
    if failed:
        first = text(lang, "badge.failed_on", where=", ".join(failed)) + via
        parts = [first, f"torch {latest.torch}", latest.date, latest.commit]
    else:
        passed = " + ".join(_DEVICE_NAMES[d] for d in runs)
        parts = [text(lang, "badge.verified") + via, f"torch {latest.torch}", passed]
        parts += [latest.date, latest.commit]
    stale = [_DEVICE_NAMES[d] for d in recorded if d not in runs]
    if stale:
        parts.append(text(lang, "badge.stale", devices=", ".join(stale)))
    css = "failed" if failed else "verified"
    title = f"{latest.machine}; Python {latest.python}"
    return Badge(css, html.escape(" · ".join(parts)), title)


def changed_badge(recorded: dict[str, report.SnippetResult], lang: str) -> Badge:
    """The file changed since every recorded run: say so, and what the last run was."""
    latest = max(recorded.values(), key=lambda r: r.date)
    failed = [_DEVICE_NAMES[d] for d, r in recorded.items() if r.outcome != "passed"]
    last = (
        text(lang, "badge.last_failed", where=", ".join(failed))
        if failed
        else text(lang, "badge.last_verified")
    )
    devices = " + ".join(_DEVICE_NAMES[d] for d in recorded)
    parts = [text(lang, "badge.changed"), last, f"torch {latest.torch}", devices]
    parts += [latest.date, latest.commit]
    return Badge("changed", html.escape(" · ".join(parts)), text(lang, "badge.changed_title"))


def _code_html(words: str) -> str:
    """Escape, and render `code` spans (badges are raw HTML: Markdown is not applied)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(words))


def block_badge(
    path: str,
    reports: Reports,
    *,
    root: Path,
    lang: str = languages.DEFAULT,
) -> Badge:
    """The badge for one embedded file (under the checkout `root`), by the kind of its embed root."""
    embed_root = embed_roots.root_of(path)
    if embed_root is None:  # the embed check has already failed the build
        return Badge("failed", text(lang, "badge.undeclared", path=html.escape(path)))
    if embed_root.kind == embed_roots.RUN:
        return badge(path, reports, root=root, lang=lang)
    reason = _code_html(embed_root.reason_in(lang))
    if embed_root.kind == embed_roots.SHOWN:
        return Badge("shown", text(lang, "badge.shown", reason=reason))
    check = text(lang, "badge.validated", check=f"<code>{html.escape(embed_root.check)}</code>")
    if any(embed_root.check in device for device in reports.values()):
        # The check is a snippet the suite runs: its latest outcome is in the report.
        ran = badge(embed_root.check, reports, root=root, lang=lang)
        return Badge(ran.css, f"{check} · {ran.words}", ran.title)
    return Badge("tested", text(lang, "badge.tested", check=check, reason=reason))


def add_badges(
    page: str, markdown: str, reports: Reports, *, root: Path, lang: str = languages.DEFAULT
) -> str:
    """One badge line under every embedded block: each code block, each bare prose embed."""
    lines = markdown.splitlines()

    def badge_of(path: str) -> Badge:
        return block_badge(path, reports, root=root, lang=lang)

    inserts: list[tuple[int, str, list[Badge]]] = []  # (0-based index to insert at, indent, badges)
    for fence in find_fences(page, markdown):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        files = sorted({e.path for e in embeds})
        if not files:
            continue  # the embed contract refuses a code block that embeds nothing
        indent = re.match(r"[ \t]*", lines[fence.line - 1]).group(0)
        close_index = fence.line + len(fence.body)  # 0-based index of the closing fence
        inserts.append((close_index + 1, indent, [badge_of(f) for f in files]))
    for line, path, in_fence in page_blocks(page, markdown):
        if not in_fence:  # a generated fragment in the prose: the badge follows it
            indent = re.match(r"[ \t]*", lines[line - 1]).group(0)
            inserts.append((line, indent, [badge_of(path)]))
    # Bottom-up, so that inserted lines do not move blocks still to visit.
    for at, indent, badges in sorted(inserts, key=lambda item: item[0], reverse=True):
        lines[at:at] = ["", *(indent + b.html(nested=bool(indent)) for b in badges), ""]
    return "\n".join(lines) + "\n"


# --- how to run it ---------------------------------------------------------------------


def run_command(snippet: str, root: Path) -> str:
    return Needs.of([load(root / snippet)]).command(snippet)


def _run_item(build: SiteBuild, snippet: str) -> str:
    """`python snippets/x.py` (source), and what it needs that the command does not say.

    The command runs the file in the checkout, and a launch command names torchrun:
    what is left to say is a CUDA GPU (docverify.contract.needs, from `# requires: cuda`).
    """
    lang = build.lang
    notes = []
    if Needs.of([load(build.root / snippet)]).cuda:
        notes.append(text(lang, "run.needs", what=Needs(cuda=True).what(lang)))
    if build.source_url:
        notes.append(f"[{text(lang, 'run.source')}]({build.source_url}{snippet})")
    notes_text = text(lang, "run.notes_join").join(notes)
    return f"`{run_command(snippet, build.root)}`" + (f" ({notes_text})" if notes else "")


def add_run_instructions(build: SiteBuild, page: str, markdown: str) -> str:
    embeds, _ = find_embeds(page, markdown)
    scripts = {e.path for e in embeds if e.path.startswith("snippets/") and e.path.endswith(".py")}
    if not scripts:
        return markdown
    items = " · ".join(_run_item(build, s) for s in sorted(scripts))
    line = text(build.lang, "run.line", items=items)
    return under_title(markdown, f'<p class="run-it" markdown>{line}</p>')


# --- the phase ---------------------------------------------------------------------------


def add(build: SiteBuild, markdown: str, page) -> str:
    page_path = f"docs/{page.file.src_uri}"
    markdown = add_run_instructions(build, page_path, markdown)
    return add_badges(page_path, markdown, build.reports, root=build.root, lang=build.lang)


def check_html(output: str, page) -> str:
    """Checked on the built HTML: every code block on the site has exactly one badge line."""
    problems = badge_problems(
        f"docs/{page.file.src_uri}", output, page.file.content_string
    )
    if problems:
        raise PluginError(listed("Code blocks without exactly one badge:", problems))
    return output


# --- the built HTML: one badge line under every code block ----------------------------------

_PRE_END = re.compile(r"</pre>")
_AFTER_BLOCK = re.compile(r"(?:\s*</(?:div|td|tr|tbody|table)>)*\s*")
# A badge: a paragraph, or (inside a box or a tab) a span that is a paragraph's only content.
_BADGE = re.compile(
    r'<p class="snippet-badge[ "][^>]*>.*?</p>|<p><span class="snippet-badge[ "][^>]*>.*?</span></p>',
    re.DOTALL,
)


def badge_problems(page: str, output: str, source: str = "") -> list[Problem]:
    """Code blocks in a built page that are not followed by exactly one badge line.

    `source` (the page's Markdown) lets a problem name the line where the block's
    code stands: a block without a badge is code that no embed put there.
    """
    problems = []
    for n, end in enumerate(_PRE_END.finditer(output), start=1):
        at = _AFTER_BLOCK.match(output, end.end()).end()
        badges = 0
        while badge := _BADGE.match(output, at):
            badges += 1
            at = re.compile(r"\s*").match(output, badge.end()).end()
        if badges == 1:
            continue
        start = output.rfind("<pre", 0, end.start())
        code = re.sub(r"<[^>]+>", "", output[start : end.start()]).strip().splitlines()
        first = html.unescape(code[0]).strip()[:60] if code else ""
        line = next(
            (i for i, text in enumerate(source.splitlines(), 1) if first and first in text), 0
        )
        why = " (code written into the page: embed it from snippets/)" if badges == 0 else ""
        problems.append(
            Problem(
                page,
                line,
                f"code block {n} ({first!r}) is followed by {badges} badge lines, not 1{why}",
            )
        )
    return problems
