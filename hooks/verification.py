"""MkDocs hook: show on every page that its code was executed, where and when.

- Under every code block that embeds a snippet: a badge from the latest
  verification report (.reports/, written by `make test`), or "not verified in
  this build" where no report exists (a plain `make serve` on a fresh clone).
- Under every page title: the exact command that runs the page's snippets,
  and a link to each snippet file.
- The Verification page: every snippet with its CPU and GPU status.
- The Errata page: every Correction box on the site, linked to its page.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from docverify import verification
from docverify.embeds import find_embeds, find_fences
from docverify.snippets import load

ROOT = Path(__file__).resolve().parents[1]
VERIFICATION_MARKER = "<!-- verification-table -->"
ERRATA_MARKER = "<!-- errata-list -->"
_H1 = re.compile(r"^# .+$", re.MULTILINE)
_CORRECTION = re.compile(r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)\s+correction\s+"(?P<title>[^"]+)"')

SECTION_TITLES = {
    "distributed": "Distributed & performance",
    "environment": "Environment & tooling",
}

_reports: dict[str, dict[str, verification.SnippetResult]] = {}
_source_url = ""


def on_config(config):
    global _source_url
    # Re-read on every build, so `mkdocs serve` shows a fresh report after `make test`.
    _reports.clear()
    _reports.update({d: verification.load_results(d) for d in verification.DEVICES})
    edit_uri = config.get("edit_uri") or ""
    _source_url = edit_uri.replace("/edit/", "/blob/").removesuffix("docs/")
    return config


# --- badges ------------------------------------------------------------------------------


def _snippet_scripts(embeds) -> list[str]:
    """The runnable snippet scripts among embeds (not e.g. shell or YAML files)."""
    return sorted(
        {e.path for e in embeds if e.path.startswith("snippets/") and e.path.endswith(".py")}
    )


def badge(snippet: str, reports: dict[str, dict[str, verification.SnippetResult]]) -> str:
    """One line of HTML saying whether `snippet` passed, on which devices, with which torch."""
    found = {d: reports.get(d, {}).get(snippet) for d in verification.DEVICES}
    runs = {d: r for d, r in found.items() if r is not None}
    if not runs:
        return '<p class="snippet-badge unverified">not verified in this build</p>'
    failed = [d for d, r in runs.items() if r.outcome != "passed"]
    latest = max(runs.values(), key=lambda r: r.date)
    devices = " + ".join("GPU" if d == "cuda" else "CPU" for d in runs if d not in failed)
    if failed:
        where = ", ".join("GPU" if d == "cuda" else "CPU" for d in failed)
        text = f"FAILED on {where} · torch {latest.torch} · {latest.date} · {latest.commit}"
        css = "failed"
    else:
        text = f"verified · torch {latest.torch} · {devices} · {latest.date} · {latest.commit}"
        css = "verified"
    title = html.escape(f"{latest.machine}; Python {latest.python}", quote=True)
    return f'<p class="snippet-badge {css}" title="{title}">{html.escape(text)}</p>'


def add_badges(page: str, markdown: str, reports) -> str:
    lines = markdown.splitlines()
    # Bottom-up, so that inserted lines do not move fences still to visit.
    for fence in reversed(find_fences(page, markdown)):
        embeds, _ = find_embeds(page, "\n".join(fence.body))
        snippets = _snippet_scripts(embeds)
        if not snippets:
            continue
        indent = re.match(r"[ \t]*", lines[fence.line - 1]).group(0)
        close_index = fence.line + len(fence.body)  # 0-based index of the closing fence
        badges = [indent + badge(s, reports) for s in snippets]
        lines[close_index + 1 : close_index + 1] = ["", *badges, ""]
    return "\n".join(lines) + "\n"


# --- how to run it ---------------------------------------------------------------------


def run_command(snippet: str) -> str:
    launch = load(ROOT / snippet).launch
    return " ".join([*launch, snippet]) if launch else f"python {snippet}"


def add_run_instructions(page: str, markdown: str) -> str:
    embeds, _ = find_embeds(page, markdown)
    snippets = _snippet_scripts(embeds)
    heading = _H1.search(markdown)
    if not snippets or not heading:
        return markdown
    items = " · ".join(
        f"`{run_command(s)}` ([source]({_source_url}{s}))" if _source_url else f"`{run_command(s)}`"
        for s in snippets
    )
    note = (
        f'\n\n<p class="run-it" markdown>▶ Run it yourself: {items}: '
        "prints exactly the `#>` lines shown on this page.</p>\n"
    )
    return markdown[: heading.end()] + note + markdown[heading.end() :]


# --- generated pages -----------------------------------------------------------------------


def verification_table(reports) -> str:
    snippets = sorted({s for device in reports.values() for s in device})
    if not snippets:
        return "No verification report in this build: run `make test` to produce one."
    rows = [
        "| snippet | sections | CPU | GPU |",
        "|---|---|---|---|",
    ]

    def cell(result: verification.SnippetResult | None) -> str:
        if result is None:
            return "not run"
        mark = "passed" if result.outcome == "passed" else "**FAILED**"
        return f"{mark} · {result.date} · {result.duration_s:.2f} s"

    for snippet in snippets:
        cpu, gpu = (reports.get(d, {}).get(snippet) for d in verification.DEVICES)
        sections = ", ".join((cpu or gpu).sections) or "(whole file)"
        rows.append(f"| `{snippet}` | {sections} | {cell(cpu)} | {cell(gpu)} |")
    environments = sorted(
        {
            f"- **{'GPU' if r.device == 'cuda' else 'CPU'}** run: torch {r.torch}, "
            f"Python {r.python}, commit `{r.commit}`, {r.machine}"
            for device in reports.values()
            for r in device.values()
        }
    )
    return "\n".join([*rows, "", "Environments the latest runs used:", "", *environments])


def corrections(docs_dir: Path) -> list[tuple[str, str, str]]:
    """(page, title, first body line) for every Correction box, in page order."""
    found = []
    for md in sorted(docs_dir.rglob("*.md")):
        page = md.relative_to(docs_dir).as_posix()
        if page == "errata.md":
            continue
        lines = md.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            match = _CORRECTION.match(line)
            if not match:
                continue
            body = next((b.strip() for b in lines[i + 1 :] if b.strip()), "")
            found.append((page, match["title"], body))
    return found


def errata_list(docs_dir: Path) -> str:
    items = corrections(docs_dir)
    if not items:
        return "No corrections yet."
    lines = [f"{len(items)} claims of the original notes were wrong or outdated.", ""]
    section = None
    for page, title, body in items:
        folder = page.split("/")[0] if "/" in page else "Home"
        if folder != section:
            section = folder
            lines += ["", f"## {SECTION_TITLES.get(folder, folder.capitalize())}", ""]
        lines.append(f"- **[{title}]({page})**  \n  {body}")
    return "\n".join(lines)


# --- the hook ------------------------------------------------------------------------------


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if VERIFICATION_MARKER in markdown:
        markdown = markdown.replace(VERIFICATION_MARKER, verification_table(_reports))
    if ERRATA_MARKER in markdown:
        markdown = markdown.replace(ERRATA_MARKER, errata_list(Path(config["docs_dir"])))
    markdown = add_run_instructions(f"docs/{src}", markdown)
    return add_badges(f"docs/{src}", markdown, _reports)
