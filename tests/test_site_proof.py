"""Badges, the Verification page and the Errata page follow the reports and the pages."""

from __future__ import annotations

import dataclasses
import html as html_lib
import re
from pathlib import Path

import pytest
from sample_results import sample_result

from docverify.contract.embeds import blocks, counts, find_fences
from docverify.i18n import cjk_breaks, languages
from docverify.paths import DOCS_DIR, REPO_ROOT
from docverify.results import report
from docverify.site import badges, generated_pages

PAGE = "docs/tensors/reshape.md"
SNIPPET = "snippets/tensors/reshape.py"


def result(outcome: str, device: str = "cpu") -> report.SnippetResult:
    return sample_result(
        SNIPPET,
        outcome=outcome,
        device=device,
        sections=("view",),
        sha256=report.file_sha256(REPO_ROOT / SNIPPET) or "",  # the file as it is now
    )


@pytest.fixture
def reports_dir(tmp_path: Path) -> Path:
    return tmp_path / "reports"


def reports(reports_dir: Path) -> dict:
    return {d: report.load_results(d, reports_dir) for d in report.DEVICES}


def test_every_embedded_code_block_gets_a_badge_that_follows_the_report(reports_dir: Path) -> None:
    markdown = (REPO_ROOT / PAGE).read_text(encoding="utf-8")
    fences = len(find_fences(PAGE, markdown))

    unverified = badges.add_badges(PAGE, markdown, reports(reports_dir), root=REPO_ROOT)
    assert unverified.count("not verified in this build") == fences

    report.merge_results([result("passed")], reports_dir)
    passed = badges.add_badges(PAGE, markdown, reports(reports_dir), root=REPO_ROOT)
    assert passed.count("verified · torch 2.14.1 · CPU · 2026-01-02") == fences

    report.merge_results([result("failed")], reports_dir)
    failed = badges.add_badges(PAGE, markdown, reports(reports_dir), root=REPO_ROOT)
    assert failed.count("FAILED on CPU") == fences


def test_without_a_report_only_the_blocks_the_suite_runs_say_not_verified(
    reports_dir: Path,
) -> None:
    # A fresh clone under `make serve`, over every block of every page: the badge of a
    # block the suite runs says "not verified in this build"; a block a named check
    # validates, or one shown only, names that check or the reason, as with a report.
    from docverify.contract import embed_roots
    from docverify.contract.embeds import find_embeds

    paths = set()
    for english in languages.source_pages(DOCS_DIR):
        page = english.relative_to(REPO_ROOT).as_posix()
        embeds, _ = find_embeds(page, english.read_text(encoding="utf-8"))
        paths |= {e.path for e in embeds}
    none = reports(reports_dir)  # no report written
    kinds = set()
    for path in sorted(paths):
        kind = embed_roots.root_of(path).kind
        kinds.add(kind)
        words = badges.block_badge(path, none, root=REPO_ROOT).words
        assert (words == "not verified in this build") == (kind == embed_roots.RUN), path
        if kind == embed_roots.SHOWN:
            assert words.startswith("shown only, not run: "), path
        elif kind == embed_roots.TESTED:
            assert words.startswith("validated by <code>"), path
    assert kinds == {embed_roots.RUN, embed_roots.TESTED, embed_roots.SHOWN}


def test_gpu_report_adds_gpu_to_the_badge(reports_dir: Path) -> None:
    report.merge_results([result("passed"), result("passed", "cuda")], reports_dir)
    assert "CPU + GPU" in badges.badge(SNIPPET, reports(reports_dir), root=REPO_ROOT).html()


def test_reports_merge_per_snippet_and_drop_deleted_files(reports_dir: Path) -> None:
    gone = dataclasses.replace(result("passed"), snippet="snippets/tensors/deleted.py")
    report.merge_results([result("passed"), gone], reports_dir)
    assert set(report.load_results("cpu", reports_dir)) == {SNIPPET}


def test_verification_table_lists_both_devices(reports_dir: Path) -> None:
    passed, failed = result("passed"), result("failed", "cuda")
    report.merge_results([passed, failed], reports_dir)
    table = generated_pages.verification_table(reports(reports_dir), DOCS_DIR, REPO_ROOT)
    row = f"| `{SNIPPET}` | view | passed · {passed.date} · {passed.duration_s:.2f} s | **FAILED** · {failed.date} ·"
    assert row in table  # each device's outcome and its date
    assert "| not run | not run |" in table  # a snippet no report contains


def test_verification_table_without_a_report_says_so(reports_dir: Path) -> None:
    # A fresh clone under `make serve`: no report yet, and the table says how to get one.
    table = generated_pages.verification_table(reports(reports_dir), DOCS_DIR, REPO_ROOT)
    assert table.startswith("No verification report in this build: run `make test`.")
    assert f"| `{SNIPPET}` | | not run | not run |" in table


def test_verification_table_counts_not_verified_boxes_per_page(
    tmp_path: Path, reports_dir: Path
) -> None:
    docs = tmp_path / "docs"
    (docs / "tensors").mkdir(parents=True)
    box = '!!! unverified "Not verified here: {}"\n    **Why:** a. **Checked instead:** b.\n\n'
    (docs / "tensors" / "reshape.md").write_text(
        f'# R\n\n```python\n--8<-- "{SNIPPET}:view"\n```\n\n'
        + box.format("one")
        + box.format("two"),
        encoding="utf-8",
    )
    (docs / "tensors" / "prose.md").write_text("# P\n\n" + box.format("three"), encoding="utf-8")
    report.merge_results([result("passed")], reports_dir)
    table = generated_pages.verification_table(reports(reports_dir), docs, REPO_ROOT).splitlines()
    assert f"| [tensors/reshape.md](tensors/reshape.md) | 2 | `{SNIPPET}` | view | passed" in (
        "\n".join(table)
    )
    assert "| [tensors/prose.md](tensors/prose.md) | 1 | (no snippet) | | | |" in table


def test_errata_grow_when_a_page_adds_a_correction(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    page = docs / "topic" / "page.md"
    page.write_text('# T\n\n!!! correction "Correction: first"\n    原文: a\n', encoding="utf-8")
    assert generated_pages.corrections(docs) == [("topic/page.md", "Correction: first", "原文: a")]
    page.write_text(
        page.read_text(encoding="utf-8") + '\n??? correction "Correction: second"\n    原文: b\n',
        encoding="utf-8",
    )
    listed = generated_pages.errata_list(docs, {})
    assert "[Correction: first](topic/page.md)" in listed
    assert "[Correction: second](topic/page.md)" in listed


def test_errata_list_corrections_only_and_count_every_kind(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    (docs / "topic" / "page.md").write_text(
        "# T\n\n"
        '!!! correction "Correction: wrong"\n    原文: 「a\n    b」 (*gloss*) and more.\n\n'
        '!!! caveat "Caveat: incomplete"\n    原文: 「c」\n\n'
        '!!! unverified "Not verified here: GPUs"\n    **Why:** x. **Checked instead:** y.\n',
        encoding="utf-8",
    )
    listed = generated_pages.errata_list(docs, {})
    assert "[Correction: wrong](topic/page.md)" in listed
    assert "原文: 「a b」" in listed  # the whole quote, not its first line
    assert "Caveat: incomplete" not in listed
    assert listed.startswith(
        "This build finds 1 Correction box (the notes were wrong or outdated: listed below), "
        "1 Caveat box (the notes were right but incomplete: not errata, they stay on their "
        "pages) and 1 “Not verified here” box"
    )


def test_the_contributors_rule_keeps_caveats_for_notes_that_were_right_but_incomplete() -> None:
    # errata.md: which kind of box a page uses is the contributors' rule (CONTRIBUTING.md,
    # "Three kinds of boxes"): a Caveat where the notes were right but left something out.
    rules = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert '| `!!! caveat "Caveat: <short>"` | the notes were right but incomplete |' in rules
    assert '| `!!! correction "Correction: <short>"` | the notes were wrong or outdated |' in rules


@pytest.mark.parametrize("lang", languages.LANGUAGES)
def test_errata_of_the_real_site_include_every_correction_box(lang: str) -> None:
    # Each edition's Errata page lists that edition's boxes (same count: tests/test_translations.py).
    pages = [
        DOCS_DIR / languages.twin(p.relative_to(DOCS_DIR), lang)
        for p in languages.source_pages(DOCS_DIR)
    ]
    boxes = sum(md.read_text(encoding="utf-8").count("!!! correction") for md in pages)
    assert len(generated_pages.corrections(DOCS_DIR, lang)) == boxes > 0


def test_run_command_uses_torchrun_for_launched_snippets(tmp_path: Path) -> None:
    assert badges.run_command(SNIPPET, REPO_ROOT) == f"python {SNIPPET}"
    launched = tmp_path / "ddp.py"
    launched.write_text("# launch: torchrun --nproc_per_node=2\nprint(1)\n", encoding="utf-8")
    assert badges.run_command(str(launched), REPO_ROOT) == f"torchrun --nproc_per_node=2 {launched}"


# --- every block's badge says its kind of check (docverify.contract.embed_roots) ----------------------

BADGE = '<p class="snippet-badge verified">verified</p>'
CODE = '<div class="highlight"><pre><span></span><code>x = 1\n</code></pre></div>\n'


def test_every_embedded_block_gets_one_badge_saying_its_kind(reports_dir: Path) -> None:
    checker = "snippets/distributed/launching.py"
    ran = dataclasses.replace(
        result("passed"), snippet=checker, sha256=report.file_sha256(REPO_ROOT / checker)
    )
    report.merge_results([ran], reports_dir)
    markdown = (
        f'# T\n\n```python\n--8<-- "{SNIPPET}:view"\n```\n\n'
        '```yaml\n--8<-- "environment-setup/environment.yml"\n```\n\n'
        '```bash\n--8<-- "docs/distributed/launch_commands.sh:legacy"\n```\n\n'
        '```python\n--8<-- "benchmarks/num_workers.py"\n```\n\n'
        '--8<-- "docs/assets/generated/models/conv1d_linear_summary.md"\n\nProse.\n'
    )
    out = badges.add_badges("docs/p.md", markdown, reports(reports_dir), root=REPO_ROOT)
    lines = [line for line in out.splitlines() if 'class="snippet-badge' in line]
    assert len(lines) == 5, lines
    run, tested, by_snippet, shown, fragment = lines
    assert "not verified in this build" in run  # the report has no result for SNIPPET
    assert "validated by <code>tests/test_environment_files.py</code>: " in tested
    assert f"validated by <code>{checker}</code> · verified · torch 2.14.1" in by_snippet
    assert "shown only, not run: a benchmark" in shown
    assert "validated by <code>tests/test_benchmark_conv1d_linear.py</code>" in fragment
    # The fragment's badge follows the embed line, after a blank line.
    assert out.index("conv1d_linear_summary.md") < out.index(fragment) < out.index("Prose.")


def test_a_code_block_without_exactly_one_badge_fails_the_build() -> None:
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    source = "# P\n\nProse.\n\n    x = 1\n"  # an indented block: code written into the page
    page = SimpleNamespace(file=SimpleNamespace(src_uri="p.md", content_string=source))
    assert badges.check_html(CODE + BADGE, page) == CODE + BADGE
    for html, found in ((CODE + "<p>Prose.</p>", 0), (CODE + BADGE + "\n" + BADGE, 2)):
        with pytest.raises(
            PluginError,
            match=rf"docs/p.md:5: code block 1 \('x = 1'\) is "
            rf"followed by {found} badge lines, not 1",
        ):
            badges.check_html(html, page)
    with pytest.raises(PluginError, match="code written into the page: embed it from snippets/"):
        badges.check_html(CODE + "<p>Prose.</p>", page)


def test_headline_is_counted_from_the_roots(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "p.md").write_text(
        f'```python\n--8<-- "{SNIPPET}:view"\n```\n\n'
        f'```python\n--8<-- "{SNIPPET}:clone"\n```\n\n'
        '```yaml\n--8<-- "environment-setup/environment.yml"\n```\n\n'
        '```python\n--8<-- "benchmarks/num_workers.py"\n```\n\n'
        '--8<-- "docs/assets/generated/models/conv1d_linear_summary.md"\n',
        encoding="utf-8",
    )
    assert generated_pages.headline(blocks(docs)) == (
        "4 code blocks on this site: 2 from scripts that the test suite runs, comparing "
        "their outputs (a script that needs a GPU only on a machine with one: its badge "
        "says whether such a run is recorded), 1 validated by a named test, 1 shown only "
        "(each says why). "
        "1 generated fragment in the prose (benchmark tables): 1 validated by a named test."
    )


def test_the_roots_table_counts_the_blocks_only_a_gpu_run_runs(tmp_path: Path) -> None:
    # A whole-file `# requires: cuda` script is "run, outputs compared" only on a GPU machine:
    # the table says how many blocks come from such scripts, and whether a GPU run is recorded.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "p.md").write_text(
        f'```python\n--8<-- "{SNIPPET}:view"\n```\n\n'
        '```python\n--8<-- "snippets/data/pinned_memory_cuda.py:types"\n```\n\n'
        '```python\n--8<-- "snippets/data/pinned_memory_cuda.py:pinned"\n```\n',
        encoding="utf-8",
    )
    row = next(
        line
        for line in generated_pages.roots_table(docs, repo=REPO_ROOT).splitlines()
        if line.startswith("| `snippets/")
    )
    assert row.endswith(
        "| 3 (2 of them from scripts that need a GPU, run only on a GPU machine: "
        "no GPU run recorded yet) |"
    ), row
    zh = generated_pages.roots_table(docs, "zh", "2026-12-01", REPO_ROOT)
    assert "3（其中 2 个来自需要 GPU 的脚本，只在 GPU 机器上运行：2026-12-01 的 GPU 运行）" in zh


def test_the_summary_claims_are_generated_not_typed() -> None:
    index = (DOCS_DIR / "index.md").read_text(encoding="utf-8")
    assert generated_pages.HEADLINE_MARKER in index
    claims = re.compile(r"every code block (?:on this site )?is (?:executed|run)", re.IGNORECASE)
    for path in ("README.md", "mkdocs.yml", "docs/index.md", "CONTRIBUTING.md"):
        text = (REPO_ROOT / path).read_text(encoding="utf-8")
        assert not claims.search(text), f"{path}: {claims.search(text)[0]!r} is typed, not counted"


def test_every_code_block_of_the_built_site_has_exactly_one_badge(built_site: Path) -> None:
    site_dir = built_site
    pages = {
        p.relative_to(site_dir).as_posix(): p.read_text("utf-8") for p in site_dir.rglob("*.html")
    }
    problems = [p for name, html in pages.items() for p in badges.badge_problems(name, html)]
    assert not problems, "\n".join(problems)
    # Every code block in the HTML is one the embed table counts, in each edition, and each
    # edition's home page says how many.
    found = blocks(DOCS_DIR)
    code, _ = counts(found)
    for lang in languages.LANGUAGES:
        prefix = "" if lang == languages.DEFAULT else f"{lang}/"
        edition = {
            name: html
            for name, html in pages.items()
            if name.startswith(prefix) and (prefix or not name.startswith(("zh/",)))
        }
        assert sum(html.count("</pre>") for html in edition.values()) == sum(code.values()) > 0
        headline = html_lib.escape(generated_pages.headline(found, lang), quote=False)
        assert headline in edition[f"{prefix}index.html"], lang


def test_the_language_switcher_lands_on_the_same_page(built_site: Path) -> None:
    # Every page of each edition links the same page of the other (Material's language
    # selector, filled in by mkdocs-static-i18n), as a relative link that resolves there.
    switch = re.compile(r'<a href="([^"]*)" hreflang="(en|zh)"')
    pages = [p for p in built_site.rglob("index.html") if "assets" not in p.parts]
    wrong = []
    for page in pages:
        path = page.parent.relative_to(built_site).as_posix()
        path = "" if path == "." else path + "/"
        here = "zh" if path.startswith("zh/") else "en"
        english = path.removeprefix("zh/")
        found = switch.findall(page.read_text(encoding="utf-8"))
        if sorted(lang for _, lang in found) != ["en", "zh"]:
            wrong.append(f"/{path}: switcher links {found}")
        for href, lang in found:
            target = (page.parent / href / "index.html").resolve()
            expected = built_site / ("zh/" if lang == "zh" else "") / english / "index.html"
            if target != expected.resolve() or not target.is_file():
                wrong.append(f"/{path} ({here}) -> {lang}: {href}")
    assert len(pages) > 100 and not wrong, wrong


def test_a_reader_switches_language_in_the_browser(browser, site_url) -> None:
    # The links are checked on every page above; here, once, that a click follows one there
    # and back (Material's script handles the selector).
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/losses/binary/")
        for lang, lands in (("zh", "zh/losses/binary/"), ("en", "losses/binary/")):
            page.locator(".md-select").first.hover()  # the selector opens on hover
            page.locator(f'a[hreflang="{lang}"]').click()
            page.wait_for_url(f"{site_url}/{lands}")
    finally:
        page.close()


def test_each_chinese_page_has_its_english_pages_anchors(built_site: Path) -> None:
    # A link to page.md#anchor, or a reader switching language, finds the same section.
    heading_ids = re.compile(r'<h[2-6] id="([^"]+)"')
    english = [p for p in built_site.rglob("index.html") if not p.is_relative_to(built_site / "zh")]
    differing = []
    for page in english:
        chinese = built_site / "zh" / page.relative_to(built_site)
        ids = [heading_ids.findall(p.read_text(encoding="utf-8")) for p in (page, chinese)]
        if ids[0] != ids[1]:
            differing.append(f"{chinese.relative_to(built_site)}: {ids[1]} != {ids[0]}")
    assert len(english) > 50 and not differing, differing


def test_no_line_break_shows_as_a_stray_space_in_the_chinese_pages(built_site: Path) -> None:
    # The source check (tests/test_translations.py) cannot see what hooks and markers add:
    # here the text each built Chinese page shows, outside code blocks.
    pages = sorted((built_site / "zh").rglob("*.html"))
    problems = [
        p
        for page in pages
        for p in cjk_breaks.html_breaks(
            page.relative_to(built_site).as_posix(), page.read_text(encoding="utf-8")
        )
    ]
    assert len(pages) > 50 and not problems, "\n".join(problems)


def test_no_space_sits_next_to_full_width_punctuation_in_the_chinese_pages(
    built_site: Path,
) -> None:
    # The text the build writes (badges, run lines, proof labels, generated pages) as well
    # as the pages' own: no space next to full-width punctuation (cjk_breaks.html_typography).
    pages = sorted((built_site / "zh").rglob("*.html"))
    problems = [
        p
        for page in pages
        for p in cjk_breaks.html_typography(
            page.relative_to(built_site).as_posix(), page.read_text(encoding="utf-8")
        )
    ]
    assert len(pages) > 50 and not problems, "\n".join(problems)


def test_the_html_kept_out_of_markdown_comes_back_where_markdown_would_have_put_it() -> None:
    from docverify.site import raw_html

    link = '<a class="proof-link" href="#proof-x" title="checked by s.py:3">✓</a>'
    badge = '<p class="snippet-badge verified" title="t">verified · <code>x</code></p>'
    nested = '<span class="version-range" title="t"><span id="m-1"></span>Same output</span>'
    page = (
        f"A claim. {link} And a table:\n\n| a | b |\n|---|---|\n| cell {link} | 2 |\n\n"
        f"{badge}\n\n!!! note\n    In a box. {link}\n\n    {nested}\n\n"
        f"HTML as code: `{link}`\n\n{badge}\n\nThe end.\n"
    )

    def render(text: str) -> str:
        return _markdown().convert(text)

    stashed, kept = raw_html.stash(page)
    assert len(kept) == 6 and link not in stashed.replace(f"`{link}`", "")
    assert raw_html.restore(render(stashed), kept) == render(page)


def test_a_proof_link_where_html_cannot_go_fails_the_build_naming_the_page() -> None:
    """In an image's alt text (inside a tag), and in a heading, whose text the theme also
    writes into the table of contents, outside the page's content."""
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    from docverify.site import raw_html
    from docverify.site.plugin import NotesPlugin

    link = '<a class="proof-link" href="#proof-x" title="t">✓</a>'
    page = SimpleNamespace(file=SimpleNamespace(src_uri="tensors/x.md"))
    plugin = NotesPlugin()
    cases = ((f"![a plot {link}](plot.png)\n", "inside a tag"), (f"## Title {link}\n", "heading"))
    try:
        for text, where in cases:
            md = _markdown()
            stashed, plugin.build.kept_html[page.file.src_uri] = raw_html.stash(text)
            with pytest.raises(PluginError, match=f"docs/tensors/x.md: .*{where}"):
                html = plugin.on_page_content(
                    md.convert(stashed), page=page, config=None, files=None
                )
                plugin.on_post_page(md.toc + html, page=page, config=None)
    finally:
        plugin.on_shutdown()


def _markdown():
    import markdown as python_markdown

    from docverify.site.site_config import load

    config = load(REPO_ROOT)
    return python_markdown.Markdown(
        extensions=config.markdown_extensions, extension_configs=config.mdx_configs
    )
