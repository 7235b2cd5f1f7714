"""Pages hold prose only; every code block is an embed that resolves; nothing is orphaned."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from docverify.contract import boxes, front_matter
from docverify.contract import snippets as snippet_file
from docverify.contract.embed_roots import ROOTS, SHOWN, EmbedRoot, overlapping, root_of
from docverify.contract.embeds import Embed, find_embeds, page_problems
from docverify.i18n import languages
from docverify.paths import DOCS_DIR, REPO_ROOT
from docverify.site import nav, section_pages

# Markdown under docs/assets/ is a generated fragment embedded into a page, not a page.
PAGES = sorted(p for p in DOCS_DIR.rglob("*.md") if "assets" not in p.relative_to(DOCS_DIR).parts)


def _rel(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _all_embeds() -> list[Embed]:
    embeds: list[Embed] = []
    for page in PAGES:
        found, _ = find_embeds(_rel(page), page.read_text(encoding="utf-8"))
        embeds += found
    return embeds


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_page_code_blocks_are_resolvable_embeds(page: Path) -> None:
    problems = page_problems(_rel(page), page.read_text(encoding="utf-8"), REPO_ROOT)
    assert not problems, "\n".join(map(str, problems))


def unembedded(snippet_paths: list[Path], embeds: list[Embed]) -> list[str]:
    """file:line of every snippet file, or section, that no embed shows."""
    whole_files = {e.path for e in embeds if e.section is None}
    sections = {(e.path, e.section) for e in embeds if e.section}
    problems = []
    for path in snippet_paths:
        snippet = snippet_file.load(path)
        if snippet.rel in whole_files:
            continue
        if not snippet.sections:
            problems.append(f"{snippet.rel}:1: no page embeds this snippet file")
        for section in snippet.sections:
            if (snippet.rel, section.name) not in sections:
                problems.append(
                    f"{snippet.rel}:{section.start_line}: no page embeds section `{section.name}`"
                )
    return problems


def test_every_snippet_file_and_section_is_embedded() -> None:
    problems = unembedded(snippet_file.discover(), _all_embeds())
    assert not problems, "\n".join(problems)


def test_an_unembedded_file_or_section_is_reported(tmp_path: Path) -> None:
    shown = tmp_path / "shown.py"
    shown.write_text(
        "# --8<-- [start:a]\nx = 1\n# --8<-- [end:a]\n# --8<-- [start:b]\n# --8<-- [end:b]\n"
    )
    hidden = tmp_path / "hidden.py"
    hidden.write_text("x = 1\n")
    embeds = [Embed("docs/p.md", 3, shown.as_posix(), "a")]
    assert unembedded([shown, hidden], embeds) == [
        f"{shown.as_posix()}:4: no page embeds section `b`",
        f"{hidden.as_posix()}:1: no page embeds this snippet file",
    ]


# Pages whose body the build generates (docverify.site.generated_pages, the tags plugin).
GENERATED_MARKERS = (
    "<!-- verification-table -->",
    "<!-- errata-list -->",
    "<!-- material/tags -->",
)


def _is_index_or_generated(page: Path) -> bool:
    text = page.read_text(encoding="utf-8")
    index = languages.source_page(page.name) == "index.md"
    return index or any(marker in text for marker in GENERATED_MARKERS)


def test_content_pages_embed_their_code() -> None:
    # Content pages prove what they say; only index and generated pages may be prose alone.
    embedding_pages = {e.page for e in _all_embeds()}
    prose_only = [
        _rel(p) for p in PAGES if _rel(p) not in embedding_pages and not _is_index_or_generated(p)
    ]
    assert not prose_only, f"content pages without any embedded snippet: {prose_only}"


# --- the rules themselves, tried on broken input -------------------------------------------


def problems_in(markdown: str) -> list[str]:
    return [str(p) for p in page_problems("docs/p.md", markdown, REPO_ROOT)]


def test_an_indented_code_block_is_reported_with_page_and_line() -> None:
    markdown = "Intro\n\n    x = torch.ones(2)\n    print(x.sum())\n\nMore prose.\n"
    assert problems_in(markdown) == [
        "docs/p.md:3: an indented code block (four spaces after a blank line); embed the code "
        "from snippets/ in a fenced block instead: 'x = torch.ones(2)'"
    ]
    # Text indented inside a box, a tab or a list item is not a code block.
    boxed = '!!! note "A box"\n    Indented prose.\n\n- item\n\n    continued\n'
    assert problems_in(boxed) == []


def test_the_build_names_the_line_of_the_file_under_front_matter() -> None:
    """The build's embed check gets the page without its front matter; the line it names
    is still the line of the file."""
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError
    from mkdocs.utils.meta import get_data

    from docverify.site import embed_check
    from docverify.site.state import SiteBuild

    source = '---\ntags:\n  - x\n---\n\n# Title\n\n```python\n--8<-- "snippets/none.py"\n```'
    page = SimpleNamespace(file=SimpleNamespace(src_uri="p.md", content_string=source))
    with pytest.raises(PluginError, match=r"docs/p\.md:9: embedded file snippets/none\.py"):
        embed_check.check(SiteBuild(root=REPO_ROOT), get_data(source)[0], page)


def test_hand_written_code_in_a_page_is_reported_with_page_and_line(tmp_path: Path) -> None:
    markdown = 'Intro\n\n```python\n--8<-- "snippets/tensors/reshape.py:view"\nx = 1\n```\n'
    assert problems_in(markdown) == [
        "docs/p.md:3: code block `python` contains hand-written lines; "
        "embed them from snippets/ instead: 'x = 1'"
    ]


def test_missing_file_or_section_is_reported_with_page_and_line() -> None:
    markdown = (
        '```python\n--8<-- "snippets/tensors/reshape.py:no-such-section"\n```\n\n'
        '```python\n--8<-- "snippets/tensors/nowhere.py"\n```\n'
    )
    assert problems_in(markdown) == [
        "docs/p.md:2: snippets/tensors/reshape.py has no section `no-such-section`",
        "docs/p.md:6: embedded file snippets/tensors/nowhere.py does not exist",
    ]


def test_line_range_embeds_are_refused() -> None:
    problems = problems_in('```python\n--8<-- "snippets/tensors/reshape.py:1:5"\n```\n')
    assert problems and problems[0].startswith('docs/p.md:2: use --8<-- "path"')


# --- embed roots: where a page may embed from, and how that is checked ------------------------


def test_an_embed_from_an_undeclared_root_is_reported_with_page_and_line() -> None:
    # pyproject.toml exists, so only the missing root declaration is wrong.
    markdown = 'Intro\n\n```toml\n--8<-- "pyproject.toml"\n```\n\n--8<-- "Makefile"\n'
    assert problems_in(markdown) == [
        "docs/p.md:4: pyproject.toml is not under a declared embed root; add its root, "
        "with its kind of check, to ROOTS in src/docverify/contract/embed_roots.py",
        "docs/p.md:7: Makefile is not under a declared embed root; add its root, "
        "with its kind of check, to ROOTS in src/docverify/contract/embed_roots.py",
    ]


def test_a_code_block_embeds_exactly_one_file() -> None:
    # One badge line per block: a block showing two files (or none) has no single check.
    two = (
        '```python\n--8<-- "snippets/tensors/reshape.py:view"\n'
        '--8<-- "snippets/tensors/shapes.py:size"\n```\n'
    )
    problems = problems_in(two)
    assert problems == [
        "docs/p.md:1: a code block embeds exactly one file (one badge per block), this one "
        "embeds 2: ['snippets/tensors/reshape.py', 'snippets/tensors/shapes.py']"
    ]
    assert problems_in("```python\n```\n") == [
        "docs/p.md:1: a code block embeds exactly one file (one badge per block), this one "
        "embeds 0: []"
    ]
    sections = (
        '```python\n--8<-- "snippets/tensors/reshape.py:view"\n'
        '--8<-- "snippets/tensors/reshape.py:clone"\n```\n'
    )
    assert problems_in(sections) == []


def test_every_embed_is_claimed_by_exactly_one_root() -> None:
    embeds = _all_embeds()
    assert not [e.where for e in embeds if root_of(e.path) is None]
    problems = overlapping(sorted({e.path for e in embeds}))
    assert not problems, "\n".join(problems)


def test_root_globs_match_by_folder() -> None:
    assert EmbedRoot("snippets/*/[!_]*.py", SHOWN).matches("snippets/tensors/reshape.py")
    assert not EmbedRoot("snippets/*/[!_]*.py", SHOWN).matches("snippets/tensors/_helper.py")
    assert not EmbedRoot("snippets/*/[!_]*.py", SHOWN).matches("snippets/a/b/c.py")
    deep = EmbedRoot("docs/assets/generated/**/*_summary.md", SHOWN)
    assert deep.matches("docs/assets/generated/data/x_summary.md")
    assert deep.matches("docs/assets/generated/x_summary.md")
    assert not deep.matches("docs/assets/generated/data/x_summary.txt")


@pytest.mark.parametrize("root", ROOTS, ids=lambda r: r.pattern)
def test_every_root_names_its_check(root: EmbedRoot) -> None:
    # run / tested: the test or snippet that checks it exists; shown: a reason to display.
    assert root.kind in ("run", "tested", "shown"), root
    if root.kind == SHOWN:
        assert root.reason.strip(), f"{root.pattern}: a shown-only root says why on the page"
        return
    assert root.check, f"{root.pattern}: name the test or snippet that checks it"
    used = any(root.matches(e.path) for e in _all_embeds())
    if used:  # a root declared ahead of its first embed may name a test still to be written
        assert (REPO_ROOT / root.check).is_file(), f"{root.pattern}: {root.check} does not exist"


def test_exact_path_roots_are_still_embedded() -> None:
    # A root naming one file that no page embeds any more is a stale line in the table.
    embedded = {e.path for e in _all_embeds()}
    stale = [
        r.pattern for r in ROOTS if not set("*?[") & set(r.pattern) and r.pattern not in embedded
    ]
    assert not stale, f"embed roots no page uses (remove them from embed_roots.ROOTS): {stale}"


# --- boxes: corrections, caveats, "Not verified here" ---------------------------------------

# English pages: a Chinese page shows its English page's 中文 terms (docverify.site.search_terms),
# and tests/test_translations.py holds it to its English page.
CONTENT_PAGES = [
    p for p in PAGES if not _is_index_or_generated(p) and languages.language_of(p) == "en"
]
SECTION_INDEXES = sorted(
    [*DOCS_DIR.glob("*/index.md"), *DOCS_DIR.glob("*/index.zh.md")]
)  # not indexing.md


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=_rel)
def test_content_page_has_tags_and_chinese_search_terms(page: Path) -> None:
    # Readers of the original notes search in Chinese; tags build the Tags index.
    text = page.read_text(encoding="utf-8")
    meta, body = front_matter.split(text)
    tags = meta.get("tags")
    assert tags and isinstance(tags, list), (
        f"{_rel(page)}:1: front matter must list the page's `tags:`"
    )
    after_title = ("\n" + body).split("\n# ", 1)[1].splitlines()
    first_line = next(line for line in after_title[1:] if line.strip())
    assert re.fullmatch(r"\*中文: .+\*", first_line), (
        f"{_rel(page)}: the first line under the title must be `*中文: ...*` search terms"
    )


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_boxes_are_well_formed(page: Path) -> None:
    # Titles name the kind; corrections and caveats quote 原文; unverified says Why / Checked instead.
    problems = boxes.box_problems(_rel(page), page.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


# distributed/index.md: "The multi-GPU runs (DataParallel's replicas, the training script on
# NCCL, NCCL's operations) sit in 'Not verified here' boxes": each page has its box.
MULTI_GPU_BOXES = {
    "distributed/dataparallel_vs_ddp.md": "Not verified here: the counter stays at 0 with two or more GPUs",
    "distributed/ddp_train.md": "Not verified here: the training script under NCCL on two GPUs",
    "distributed/collectives.md": "Not verified here: which operations NCCL supports",
}


def test_the_multi_gpu_runs_the_distributed_index_names_sit_in_boxes() -> None:
    for page, title in MULTI_GPU_BOXES.items():
        found = boxes.find_boxes(page, (DOCS_DIR / page).read_text(encoding="utf-8"))
        assert [b.title for b in found if b.kind == boxes.UNVERIFIED].count(title) == 1, page


@pytest.fixture(scope="session")
def seeds() -> dict[str, str]:
    if not boxes.SEEDS_DIR.is_dir():
        pytest.skip(f"the original notes are not at {boxes.SEEDS_DIR} (set NOTES_SEEDS_DIR)")
    return boxes.load_seeds()


@pytest.fixture(scope="session")
def raw_notes(seeds: dict[str, str]) -> dict[str, str]:
    """name -> the text of each file of the notes as written (line ends as `\n`)."""
    return {
        p.name: p.read_text(encoding="utf-8").replace("\r\n", "\n")
        for p in sorted(boxes.SEEDS_DIR.glob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_quotes_of_the_notes_are_verbatim(page: Path, seeds: dict[str, str]) -> None:
    # Every 原文 quote and every 「...」 occurs in the notes: whitespace may differ, words not.
    problems = boxes.quote_problems(_rel(page), page.read_text(encoding="utf-8"), seeds)
    assert not problems, "\n".join(problems)


def test_what_the_pages_say_of_the_notes_as_a_whole_holds(raw_notes: dict[str, str]) -> None:
    # Statements about the notes that a quote alone does not show: how many files there
    # are, what follows a heading, which of their tags the pages carry.
    assert len(raw_notes) == 2  # "two personal study notes" (index.md)
    # "written in Chinese": each has hundreds of Chinese characters (besides its code).
    assert all(len(re.findall(r"[\u4e00-\u9fff]", text)) > 500 for text in raw_notes.values())
    notes = "\n".join(raw_notes.values())
    # index.md's list of their topics: each is named in the notes (any case).
    topics = ("tensor", "loss", "dataloader", "conv", "optim", "transforms", "torch.save")
    topics += ("flops", "dataparallel", "ddp", "argparse", "pycharm", "conda")
    assert [t for t in topics if t not in notes.lower()] == []
    # copies.md: the heading 「Tensor的复制」 has nothing under it, the next heading follows.
    assert re.search(r"\nTensor的复制[ \t]*\n\s*\nTensor与Numpy的转化\n", notes)
    # numpy_interop.md: under 「Tensor与Numpy的转化」 the notes convert both ways with
    # `y = x.numpy()` and `x = torch.from_numpy(y)`, code lines and nothing more said.
    assert re.search(
        r"\nTensor与Numpy的转化\n\s*\nx = torch\.Tensor\(2,3\)\n"
        r"y = x\.numpy\(\) +# Tensor转numpy\nx = torch\.from_numpy\(y\) +# numpy转Tensor\n\s*\n"
        r"Tensor的操作\n",
        notes,
    )
    # losses/multiclass.md: 「交叉熵」 is a section of the notes: a heading, a line of its
    # own between blank lines like the notes' other headings, not just words in a sentence.
    assert re.search(r"\n[ \t]*\n交叉熵[ \t]*\n[ \t]*\n", notes)
    # multiplication.md: 「乘法」 is one sentence naming three kinds, and no code.
    assert re.search(r"\n乘法[ \t]*\n包括乘标量[^\n]*mul[^\n]*mm[^\n]*\n\s*\nsize函数\n", notes)
    # tags.md: the notes' tags 【tag：timeit、conv1d、linear】 are tags of pages here.
    (listed,) = re.findall(r"【tag：([^】]+)】", notes)
    tags = {
        tag
        for page in PAGES
        if not page.name.endswith(".zh.md")
        for tag in front_matter.split(page.read_text(encoding="utf-8"))[0].get("tags") or []
    }
    assert set(listed.split("、")) == {"timeit", "conv1d", "linear"} <= tags


NOTES = {"notes.txt": boxes._squash("x.sum, x.prod()  # 求和、求所有元素点积\n默认bias=Flase。")}


def _problems(markdown: str) -> list[str]:
    return boxes.box_problems("docs/p.md", markdown) + boxes.quote_problems(
        "docs/p.md", markdown, NOTES
    )


def test_a_changed_word_in_a_quote_is_reported_with_page_and_line() -> None:
    markdown = (
        "# T\n\n"
        '!!! correction "Correction: sum"\n'
        "    原文: `x.sum, x.prod()  # 求和、求所有元素乘积` (*sums*).\n"
    )
    assert _problems(markdown) == [
        "docs/p.md:4: quote not verbatim from the notes "
        f"({boxes.SEEDS_DIR}; whitespace may differ, words may not): "
        "'x.sum, x.prod()  # 求和、求所有元素乘积'"
    ]
    # A typo silently fixed in prose is a changed word too.
    assert _problems("The notes say 「默认bias=False。」.\n") == [
        "docs/p.md:1: quote not verbatim from the notes "
        f"({boxes.SEEDS_DIR}; whitespace may differ, words may not): '默认bias=False。'"
    ]


def test_a_quote_may_wrap_and_omit_but_not_change() -> None:
    wrapped = (
        '!!! caveat "Caveat: sum"\n'
        "    原文: 「求和、\n    求所有元素点积」 / `x.sum, ... x.prod()` (*sums*); 「默认bias=Flase。」\n"
        "    (sic: `Flase`).\n"
    )
    assert _problems(wrapped) == []


def test_box_form_is_enforced() -> None:
    markdown = "\n".join(
        [
            '!!! caveat "Correction: wrong kind in the title"',
            "    原文: 「求和」",
            "",
            '!!! correction "Correction: no quote"',
            "    The notes say something.",
            "",
            '!!! correction "Correction: empty quote"',
            "    原文: the notes say something.",
            "",
            '!!! unverified "Not verified here: two GPUs"',
            "    **Why:** one CPU here.",
            "",
            '!!! unverified "Not verified here: complete"',
            "    **Why:** needs two GPUs. **Checked instead:** the same script with gloo.",
            "",
            '!!! caveats "Caveat: misspelled type"',
            "    原文: 「求和」",
        ]
    )
    assert boxes.box_problems("docs/p.md", markdown) == [
        'docs/p.md:1: a caveat box is titled "Caveat: <short>"',
        "docs/p.md:5: a correction box starts its body with `原文: `",
        "docs/p.md:8: `原文:` must be followed by the quote, in 「」 or in backticks",
        "docs/p.md:10: a Not verified here box says `Why:` it cannot be checked here and what "
        "was `Checked instead:`; missing Checked instead:",
        "docs/p.md:16: unknown box type `caveats`; use correction, caveat, unverified or one "
        "of Material's types",
    ]


def test_a_line_that_falls_out_of_its_box_is_named() -> None:
    # An unindented line right after a box's text ends the box: it rendered after it.
    markdown = (
        '!!! caveat "Caveat: x"\n    原文: 「求和」 and it raises (sizes 0, 2,\n4 are tried).\n'
    )
    assert boxes.box_problems("docs/p.md", markdown) == [
        "docs/p.md:3: this line goes on from the caveat box above without its indent, "
        "so it shows after the box: indent it, or leave a blank line before it"
    ]
    indented = markdown.replace("\n4 are", "\n    4 are")
    assert boxes.box_problems("docs/p.md", indented) == []
    after_a_blank = markdown.replace("\n4 are", "\n\n4 are")
    assert boxes.box_problems("docs/p.md", after_a_blank) == []


def test_box_form_is_enforced_in_chinese() -> None:
    # A 简体中文 page (x.zh.md) names the kinds in Chinese; the English titles fail there.
    markdown = "\n".join(
        [
            '!!! correction "Correction: English title on a Chinese page"',
            "    原文: 「求和」",
            "",
            '!!! correction "更正：中文标题"',
            "    原文: 「求和」",
            "",
            '!!! unverified "此处未验证：两块 GPU"',
            "    **原因：** 这里只有 CPU。",
            "",
            '!!! unverified "此处未验证：旧的标签"',
            "    **原因：** 这里只有 CPU。**改为检查：** 上面的输出。",
            "",
            '!!! unverified "此处未验证：两个标签"',
            "    **原因：** 这里只有 CPU。**替代检查：** 上面的输出。",
        ]
    )
    assert boxes.box_problems("docs/p.zh.md", markdown) == [
        'docs/p.zh.md:1: a correction box is titled "更正：<short>"',
        "docs/p.zh.md:7: a 此处未验证 box says `原因：` it cannot be checked here and what "
        "was `替代检查：`; missing 替代检查：",
        # the former label, 改为检查：, is not the label
        "docs/p.zh.md:10: a 此处未验证 box says `原因：` it cannot be checked here and what "
        "was `替代检查：`; missing 替代检查：",
    ]


@pytest.mark.parametrize("index", SECTION_INDEXES, ids=_rel)
def test_section_index_links_every_page(index: Path) -> None:
    # The build's table of the section's pages (docverify.site.section_pages), or a link to
    # each page written by hand; both editions link the English file names
    # (mkdocs-static-i18n resolves them per language).
    text = index.read_text(encoding="utf-8")
    if section_pages.MARKER in text:
        return
    pages = sorted(p.name for p in languages.source_pages(index.parent) if p.name != "index.md")
    missing = [name for name in pages if f"]({name})" not in text]
    assert not missing, f"{_rel(index)} does not link: {missing}"


def test_a_section_index_lists_its_pages_from_their_front_matter(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from docverify.site.state import SiteBuild

    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    pages = {
        "topic/index.md": "---\nweight: 10\n---\n\n# Topic\n\n<!-- section-pages -->\n",
        "topic/later.md": "---\ntitle: Later\nweight: 20\nsummary: the second\n---\n\n# L\n",
        "topic/first.md": "---\ntitle: First | one\nweight: 10\nsummary: the first\n---\n# F\n",
    }
    for name, text in pages.items():
        for twin in (name, name.replace(".md", ".zh.md")):
            (docs / twin).write_text(text, encoding="utf-8")
    found, problems = nav.pages(docs)
    assert problems == []
    build = SiteBuild(root=tmp_path, nav_pages=found)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="topic/index.md"), url="topic/")
    table = section_pages.fill(build, pages["topic/index.md"], page, None)
    assert table.split("<!-- section-pages -->")[0] == table  # the marker is replaced
    assert "| [First \\| one](first.md) | the first |\n| [Later](later.md) | the second |" in table
    assert nav.nav(found)[1] == {
        "Topic": ["topic/index.md", {"First | one": "topic/first.md"}, {"Later": "topic/later.md"}]
    }


def _box_border(css: str, kind: str) -> dict[str, str]:
    """The declarations of the `.md-typeset .admonition.<kind>` rule in the site's stylesheet."""
    match = re.search(rf"\.md-typeset \.admonition\.{kind},[^{{]*\{{([^}}]*)\}}", css)
    assert match, f"docs/stylesheets/extra.css has no border rule for the {kind} box"
    return dict(
        (name.strip(), value.strip())
        for name, value in (d.split(":", 1) for d in match.group(1).split(";") if ":" in d)
    )


def _hue_saturation(hex_colour: str) -> tuple[float, float]:
    import colorsys

    r, g, b = (int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hue, _, saturation = colorsys.rgb_to_hls(r, g, b)
    return hue * 360, saturation


def test_the_boxes_have_the_colours_the_home_page_names() -> None:
    # docs/index.md: a red Correction box, an amber Caveat box, a grey, dashed Not verified box.
    css = (DOCS_DIR / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    correction, caveat, unverified = (
        _box_border(css, k) for k in ("correction", "caveat", "unverified")
    )
    hue, saturation = _hue_saturation(correction["border-color"])
    assert (hue < 15 or hue > 345) and saturation > 0.5, (
        f"correction border {correction} is not red"
    )
    hue, saturation = _hue_saturation(caveat["border-color"])
    assert 30 <= hue <= 50 and saturation > 0.5, f"caveat border {caveat} is not amber"
    _, saturation = _hue_saturation(unverified["border-color"])
    assert saturation < 0.25 and unverified.get("border-style") == "dashed", (
        f"unverified border {unverified}"
    )
    for kind, box in (("correction", correction), ("caveat", caveat)):
        assert box.get("border-style", "solid") != "dashed", f"the {kind} box is dashed too"


def _copies_of_the_notes() -> list[tuple[str, str, str]]:
    """(snippet, name, text) for every module-level `NOTES_* = "..."` string in the snippets."""
    copies = []
    for path in sorted((REPO_ROOT / "snippets").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if names and names[0].startswith("NOTES_") and isinstance(node.value.value, str):
                    copies.append((_rel(path), names[0], node.value.value))
    return copies


COPIES_OF_THE_NOTES = _copies_of_the_notes()


def test_the_snippets_keep_copies_of_the_notes() -> None:
    # argparse_pitfalls' error, ddp_train's train(), pycharm's console line: the checks
    # below must have something to check.
    assert len(COPIES_OF_THE_NOTES) >= 3, COPIES_OF_THE_NOTES


@pytest.mark.parametrize("snippet, name, text", COPIES_OF_THE_NOTES, ids=lambda v: str(v)[:40])
def test_a_snippets_copy_of_the_notes_is_in_the_notes(
    snippet: str, name: str, text: str, raw_notes: dict[str, str]
) -> None:
    # A snippet that runs "the notes' code" or compares with "the notes' error" keeps the
    # notes' text in a constant; the pages call it verbatim, so it must be the notes' own,
    # character for character (indentation is code; `...` is not a wildcard here).
    assert any(text in raw for raw in raw_notes.values()), f"{snippet}: {name} is not in the notes"
