"""The 简体中文 edition is complete and shows the same code (docverify.i18n.translations, site_text).

Every English page has its `.zh.md` twin with the same embeds in the same
order, the same heading anchors, the same boxes with the same 原文 quotes and
the same build markers; every page of both editions opens with the questions
it answers; every sentence the build writes exists in both languages; every
generated prose fragment has its Chinese rendering.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from docverify.contract import embed_roots
from docverify.i18n import cjk_breaks, languages, site_text, translations
from docverify.paths import DOCS_DIR, REPO_ROOT
from docverify.site import generated_pages, nav, search_terms

PAGES = [p.relative_to(REPO_ROOT).as_posix() for p in languages.source_pages(DOCS_DIR)]


def _read(page: str) -> str:
    return (REPO_ROOT / page).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_each_page_has_a_translation_that_keeps_its_code_anchors_and_boxes(page: str) -> None:
    for lang in languages.TRANSLATIONS:
        twin = languages.twin(page, lang)
        assert (REPO_ROOT / twin).is_file(), f"{twin}: missing (the translation of {page})"
        problems = translations.differences(page, _read(page), _read(twin), lang)
        assert not problems, "\n".join(problems)


ENGLISH = """---
tags:
  - t
---

# Title

*中文: 词*

!!! question "Questions this page answers"
    - How do I do it?
    - Why does it fail?
    - "RuntimeError: it failed"

## First part

```python
--8<-- "snippets/tensors/reshape.py:view"
```

!!! correction "Correction: c"
    原文: 「求和」 explanation.

It views the tensor. {✓ view-shares-memory}

## Second part

```python
--8<-- "snippets/tensors/reshape.py:clone"
```
"""

CHINESE = """---
tags:
  - t
---

# 标题

!!! question "本页解答的问题"
    - 怎么做？
    - 为什么会失败？
    - 报错 "RuntimeError: it failed"

## 第一部分 { #first-part }

```python
--8<-- "snippets/tensors/reshape.py:view"
```

!!! correction "更正：c"
    原文: 「求和」 解释。

它是视图。{✓ view-shares-memory}

## 第二部分 { #second-part }

```python
--8<-- "snippets/tensors/reshape.py:clone"
```
"""


def test_a_faithful_translation_has_no_differences() -> None:
    assert translations.differences("docs/x.md", ENGLISH, CHINESE, "zh") == []


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        # the sections swapped: the page would run a different program
        (
            CHINESE.replace("reshape.py:view", "@")
            .replace("reshape.py:clone", "reshape.py:view")
            .replace("@", "reshape.py:clone"),
            "docs/x.zh.md:16: embed #1 differs from docs/x.md:18",
        ),
        # a heading without the English anchor: links to page.md#second-part break
        (
            CHINESE.replace(" { #second-part }", ""),
            "docs/x.zh.md:24: heading #3 differs from docs/x.md:26",
        ),
        # a correction dropped
        (
            CHINESE.replace('!!! correction "更正：c"\n    原文: 「求和」 解释。\n', ""),
            "docs/x.zh.md: 0 boxes, docs/x.md has 1",
        ),
        # the quote of the notes changed
        (
            CHINESE.replace("原文: 「求和」", "原文: 「求和了」"),
            "docs/x.zh.md:19: box #1 differs from docs/x.md:21",
        ),
        # the questions block missing
        (
            CHINESE.replace('!!! question "本页解答的问题"\n    - 怎么做？\n', "").replace(
                '    - 为什么会失败？\n    - 报错 "RuntimeError: it failed"\n', ""
            ),
            'docs/x.zh.md:1: no `!!! question "本页解答的问题"` block right under the title',
        ),
        # too few questions
        (
            CHINESE.replace("    - 为什么会失败？\n", ""),
            "docs/x.zh.md:8: list at least 3 questions",
        ),
        # front matter changed
        (CHINESE.replace("  - t\n", "  - u\n", 1), "docs/x.zh.md:1: front matter differs"),
        # a proof link dropped in the translation
        (CHINESE.replace("{✓ view-shares-memory}", ""), "docs/x.zh.md: 0 proof links, docs/x.md"),
    ],
)
def test_a_translation_that_differs_is_reported_with_file_and_line(
    broken: str, expected: str
) -> None:
    problems = translations.differences("docs/x.md", ENGLISH, broken, "zh")
    assert any(p.startswith(expected) for p in problems), problems


def test_anchors_are_written_onto_the_translated_headings() -> None:
    plain = re.sub(r" \{ #[-\w]+ \}", "", CHINESE)
    assert translations.write_anchors(ENGLISH, plain) == CHINESE


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_built_sentence_exists_in_both_languages_with_the_same_fields() -> None:
    english = site_text.TEXT["en"]
    for lang in languages.TRANSLATIONS:
        words = site_text.TEXT[lang]
        assert words.keys() == english.keys(), set(words) ^ set(english)
        differing = {
            k: (english[k], words[k]) for k in english if _fields(english[k]) != _fields(words[k])
        }
        assert not differing, differing


def test_every_embed_root_says_its_reason_in_chinese() -> None:
    missing = [r.pattern for r in embed_roots.ROOTS if not r.reason_zh]
    assert not missing, f"add reason_zh to these embed roots: {missing}"


def test_every_generated_fragment_has_its_chinese_rendering() -> None:
    fragments = sorted((DOCS_DIR / "assets" / "generated").rglob("*_summary.md"))
    assert fragments
    missing = [
        f.relative_to(REPO_ROOT).as_posix()
        for f in fragments
        for lang in languages.TRANSLATIONS
        if not f.with_suffix(f".{lang}.md").is_file()
    ]
    assert not missing, f"render these in Chinese too: {missing}"


def test_the_chinese_build_shows_the_chinese_fragment(tmp_path: Path) -> None:
    hook = generated_pages
    generated = tmp_path / "docs" / "assets" / "generated"
    generated.mkdir(parents=True)
    (generated / "a_summary.md").write_text("English\n", encoding="utf-8")
    (generated / "a_summary.zh.md").write_text("中文\n", encoding="utf-8")
    line = '--8<-- "docs/assets/generated/a_summary.md"\n'
    assert hook.localized_fragments(line, "zh", tmp_path) == line.replace(".md", ".zh.md")
    assert hook.localized_fragments(line, "en", tmp_path) == line
    (generated / "a_summary.zh.md").unlink()  # not rendered in Chinese: the English one stays
    assert hook.localized_fragments(line, "zh", tmp_path) == line


def test_a_chinese_page_shows_its_english_pages_search_terms() -> None:
    hook = search_terms
    shown = hook.add_terms(CHINESE, ENGLISH)
    assert "# 标题\n\n*关键词：词*\n" in shown
    assert hook.add_terms(CHINESE, ENGLISH.replace("*中文: 词*\n", "")) == CHINESE


def nav_titles(nav) -> set[str]:
    if isinstance(nav, list):
        return {t for item in nav for t in nav_titles(item)}
    if isinstance(nav, dict):
        return {t for title, value in nav.items() for t in {title} | nav_titles(value)}
    return set()


def test_every_page_says_its_place_and_title_in_both_languages(tmp_path: Path) -> None:
    found, problems = nav.pages(DOCS_DIR)
    assert not problems, "\n".join(map(str, problems))
    assert {p.path for p in found} >= {"index.md", "tensors/index.md", "tensors/reshape.md"}
    # Broken input: a page without its weight, a twin without a title or a heading.
    (tmp_path / "topic").mkdir()
    (tmp_path / "topic" / "page.md").write_text("---\ntitle: Page\n---\n\n# Page\n", "utf-8")
    (tmp_path / "topic" / "page.zh.md").write_text("---\ntitle: ''\n---\n\nNo title.\n", "utf-8")
    _, broken = nav.pages(tmp_path)
    assert [str(p) for p in broken] == [
        "docs/topic/page.zh.md:1: needs a `# heading` or a `title:`",
        "docs/topic/page.md:1: needs `weight:` in its front matter (its place)",
    ]


# --- no line break that shows as a stray space in Chinese text (docverify.i18n.cjk_breaks) ---------

ZH_PAGES = [p.relative_to(REPO_ROOT).as_posix() for p in cjk_breaks.chinese_pages()]


@pytest.mark.parametrize("page", ZH_PAGES)
def test_no_chinese_sentence_is_broken_across_source_lines(page: str) -> None:
    problems = cjk_breaks.source_breaks(page, _read(page))
    assert not problems, (
        "\n".join(problems) + "\n(`python -m docverify.i18n.cjk_breaks --fix` joins them)"
    )


WRAPPED = """---
tags:
  - 中文
  - 标签
---

# 标题

!!! question "本页解答的问题"
    - 第一问？
    - 第二问？

本页的代码读自固定
版本的源码，
`torch.cuda` 也一样；函数
`f` 之后的空格是惯例。**加粗**
**也是**一样。

```text
代码块中的
换行不算
```

| 表格 |
| 一行 |

!!! note "说明"
    框里的句子
    也不能断开。
    [链接](x.md)
    后面也是。
"""


def test_a_line_break_inside_a_chinese_sentence_is_reported_with_file_and_line() -> None:
    problems = cjk_breaks.source_breaks("docs/x.zh.md", WRAPPED)
    assert [p.split(": ")[0] for p in problems] == [
        "docs/x.zh.md:13",  # 固定⏎版本: two Chinese characters
        "docs/x.zh.md:14",  # ，⏎`torch`: next to full-width punctuation
        "docs/x.zh.md:16",  # **加粗**⏎**也是**: the emphasis markers do not show
        "docs/x.zh.md:28",  # inside a box
        "docs/x.zh.md:29",  # 。⏎[链接]
        "docs/x.zh.md:30",  # [链接](x.md)⏎后面
    ], problems
    # 函数⏎`f`: a Chinese character next to code keeps its usual space; front matter,
    # list items, code blocks and table rows are not sentences.
    joined = cjk_breaks.join_breaks(WRAPPED)
    assert "本页的代码读自固定版本的源码，`torch.cuda` 也一样；函数\n`f`" in joined
    assert "框里的句子也不能断开。[链接](x.md)后面也是。" in joined
    assert cjk_breaks.source_breaks("docs/x.zh.md", joined) == []


def test_a_line_break_in_the_text_of_built_html_is_reported_with_file_and_line() -> None:
    html = (
        "<html><body>\n<p>徽章由构建写出：\n<strong>已验证</strong>\n"
        "<code>torch</code> 之后</p>\n<ul>\n<li>一</li>\n<li>二</li>\n</ul>\n"
        "<pre><code>代码\n换行</code></pre>\n<p>段落<a href='x'>链\n接</a></p></body></html>"
    )
    problems = cjk_breaks.html_breaks("zh/x/index.html", html)
    assert [p.split(": ")[0] for p in problems] == ["zh/x/index.html:2", "zh/x/index.html:11"]


# --- no stray space, half-width colon or doubled full stop in Chinese text ----------------------


@pytest.mark.parametrize("page", ZH_PAGES)
def test_no_chinese_page_has_a_stray_space_or_a_doubled_full_stop(page: str) -> None:
    problems = cjk_breaks.source_typography(page, _read(page))
    assert not problems, (
        "\n".join(problems) + "\n(`python -m docverify.i18n.cjk_breaks --fix` removes them)"
    )


MISSET = """---
title: 标题
summary: "一句话。 {✓ topic/page:x}"
---

# 标题

**原因：** 一个空格。{✓ a}**修复：**没有空格。

原因: 半角冒号。报错信息中的 “padded input size” 是输入加填充。

它抛出 `Call .contiguous() before .view().`。结尾是句号。。完成。{✓ b} 「引文。」。

| 列 | 说明 |
|---|---|
| `x` | 否（转换会复制） {✓ c} |

!!! correction "更正：标题"
    原文: 「求和」 / 「求积」原样保留，`a: b` 和 "a : b" 以及 <https://x.org/a:b> 也不算。

!!! caveat "补充说明：标题"
    原文: 「求和」 这个空格在引文之后。

!!! unverified "此处未验证：标题 ：空格"
    **原因：**无。**替代检查：**无。

```text
代码块中的 ： 不算
```
"""


def test_a_stray_space_or_a_doubled_full_stop_is_reported_with_file_and_line() -> None:
    problems = cjk_breaks.source_typography("docs/x.zh.md", MISSET)
    found = [(p.split(": ")[0], p.split(": ", 1)[1].split(" in ")[0]) for p in problems]
    assert found == [
        ("docs/x.zh.md:3", "space after full-width punctuation"),  # 。 {✓ in the summary
        ("docs/x.zh.md:8", "space after full-width punctuation"),  # **原因：** 一个
        ("docs/x.zh.md:10", "space after full-width punctuation"),  # ” 是
        ("docs/x.zh.md:10", "space before full-width punctuation"),  # 的 “
        ("docs/x.zh.md:10", "half-width colon after Chinese text: write `：`"),
        ("docs/x.zh.md:12", "space before full-width punctuation"),  # {✓ b} 「
        ("docs/x.zh.md:12", "doubled sentence-final punctuation"),  # `....`。
        ("docs/x.zh.md:12", "doubled sentence-final punctuation"),  # 。。
        ("docs/x.zh.md:12", "doubled sentence-final punctuation"),  # 。」。
        ("docs/x.zh.md:16", "space after full-width punctuation"),  # ） {✓ c} in a cell
        ("docs/x.zh.md:22", "space after full-width punctuation"),  # 「求和」 这个
        ("docs/x.zh.md:24", "space before full-width punctuation"),  # a box's title
    ], problems
    # Code, the 原文 quotes, "…" quotes, URLs, code blocks and table pipes are not prose;
    # --fix removes each stray space and doubled mark and writes the colon full-width.
    fixed = cjk_breaks.fix_typography(MISSET)
    assert cjk_breaks.source_typography("docs/x.zh.md", fixed) == []
    assert 'summary: "一句话。{✓ topic/page:x}"' in fixed
    assert "**原因：**一个空格。{✓ a}**修复：**没有空格。" in fixed
    assert "原因：半角冒号。报错信息中的“padded input size”是输入加填充。" in fixed
    assert "它抛出 `Call .contiguous() before .view().`结尾是句号。完成。{✓ b}「引文。」" in fixed
    assert "| `x` | 否（转换会复制）{✓ c} |" in fixed
    assert "原文: 「求和」这个空格在引文之后。" in fixed


def test_a_stray_space_in_the_text_of_built_html_is_reported_with_file_and_line() -> None:
    html = (
        "<html><body>\n<p>原文: 「求和」 是标签。</p>\n<p>徽章：\n<strong>已验证</strong></p>\n"
        "<p>第一句。 <a>✓</a></p>\n<p>标签 <code>x</code> ：多了空格</p>\n"
        "<pre><code>代码。 不算</code></pre>\n<p>笔记原话「第一句。 第二句」照录。</p>\n"
        "<title>标题（KL） - 站点</title></body></html>"
    )
    problems = cjk_breaks.html_typography("zh/x/index.html", html)
    # 原文 and its quotes are written as the English page writes them, and 「」 quotes as
    # the notes wrote them; a line break is html_breaks' to report; code blocks and the
    # browser tab's <title> are not the page's prose.
    assert [p.split(": ")[0] for p in problems] == ["zh/x/index.html:5", "zh/x/index.html:6"]


def _nav_pages(nav) -> list[tuple[str, str]]:
    """(nav title, page) for every page in the nav, in order."""
    found = []
    for item in nav if isinstance(nav, list) else []:
        for title, value in item.items() if isinstance(item, dict) else []:
            found += [(title, value)] if isinstance(value, str) else _nav_pages(value)
    return found


def _base(title: str) -> str:
    """A nav title without its trailing gloss: "Distributions (KL)" -> "Distributions"."""
    return re.sub(r"\s*[(（][^()（）]*[)）]$", "", title)


def _title(markdown: str) -> tuple[int, str]:
    """(line, text) of the page's `# ` title, code marks dropped."""
    title = next(h for h in translations.headings(markdown) if h.level == 1)
    return title.line, title.text.replace("`", "")


def title_problems(nav: list, zh_nav: dict[str, str], read) -> list[str]:
    """Each Chinese page title that does not begin as its nav title does, as file:line.

    Where the English page's title is its nav title, or begins with it ("Launching:
    `torchrun` ..." under "Launching"), the Chinese title is, or begins with, the nav
    title's translation: a reader finds the page under the name the nav gives it.
    """
    problems = []
    for nav_title, page in _nav_pages(nav):
        twin = f"docs/{languages.twin(page, 'zh')}"
        _, english = _title(read(f"docs/{page}"))
        line, chinese = _title(read(twin))
        wanted = zh_nav.get(nav_title, nav_title)
        if english == nav_title and chinese != wanted:
            problems.append(
                f"{twin}:{line}: title {chinese!r} is not its nav title {wanted!r} "
                "(mkdocs.yml nav_translations)"
            )
        elif english.startswith(_base(nav_title)) and not chinese.startswith(_base(wanted)):
            problems.append(
                f"{twin}:{line}: title {chinese!r} does not begin with its nav title "
                f"{_base(wanted)!r} (mkdocs.yml nav_translations)"
            )
    return problems


def _chinese_nav() -> tuple[list, dict[str, str]]:
    """The nav and its Chinese translations, as the build makes them from the pages."""
    found, problems = nav.pages(DOCS_DIR)
    assert not problems, problems
    return nav.nav(found), nav.translations(found, "zh")


def test_each_chinese_page_title_begins_as_its_nav_title() -> None:
    nav, zh_nav = _chinese_nav()
    problems = title_problems(nav, zh_nav, _read)
    assert len(_nav_pages(nav)) > 50 and not problems, "\n".join(problems)


def test_a_title_that_differs_from_its_nav_title_is_reported_with_file_and_line() -> None:
    pages = {
        "docs/a.md": "# Timing code correctly\n",
        "docs/a.zh.md": "---\ntags: []\n---\n\n# 正确地计时\n",
        "docs/b.md": "# Launching: `torchrun`\n",
        "docs/b.zh.md": "# 启动：`torchrun`\n",
        "docs/c.md": "# Distributions: `KLDivLoss`\n",
        "docs/c.zh.md": "# 概率分布：`KLDivLoss`\n",
        "docs/d.md": "# Running jobs from PyCharm\n",  # not the nav title's words: free
        "docs/d.zh.md": "# 在 PyCharm 中运行任务\n",
    }
    nav = [
        {"Timing code correctly": "a.md"},
        {"Section": [{"Launching": "b.md"}, {"Distributions (KL)": "c.md"}]},
        {"Jobs from PyCharm": "d.md"},
    ]
    zh_nav = {
        "Timing code correctly": "正确地给代码计时",
        "Launching": "启动方式",
        "Distributions (KL)": "概率分布（KL 散度）",
        "Jobs from PyCharm": "PyCharm 中的任务",
    }
    problems = title_problems(nav, zh_nav, pages.__getitem__)
    assert [p.split(": ")[0] for p in problems] == ["docs/a.zh.md:5", "docs/b.zh.md:1"], problems
