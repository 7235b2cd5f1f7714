"""The 简体中文 pages use one Chinese term per concept (tests/glossary_zh.yaml, docverify.i18n.glossary)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docverify.i18n import glossary
from docverify.paths import REPO_ROOT

TERMS = glossary.load()
PAGES = [p.relative_to(REPO_ROOT).as_posix() for p in glossary.chinese_pages()]


@pytest.mark.parametrize("page", PAGES)
def test_each_chinese_page_uses_the_glossary_terms(page: str) -> None:
    problems = glossary.violations(page, (REPO_ROOT / page).read_text(encoding="utf-8"), TERMS)
    assert not problems, "\n".join(problems)


PAGE = """---
tags:
  - 批次
---

# 标题

!!! question "本页解答的问题"
    - 显存不够，怎么模拟大 batch？
    - 最后一个批次为什么小？
    - 第三问？

每个批量有 4 个样本，`批次` 在代码里不算，「最后不够的batch」是笔记原文，
"a batch of samples" 是英文资料的原话，[链接](batch.md) 的目标也不算。

```text
批次
```

这里写批次，这里写 batch。
"""


def test_a_variant_is_reported_with_file_and_line() -> None:
    problems = glossary.violations("docs/x.zh.md", PAGE, TERMS)
    assert [p.split(": ")[0] for p in problems] == [
        "docs/x.zh.md:10",  # 批次 in a question: readers type "batch", not 批次
        "docs/x.zh.md:20",  # 批次 in prose
        "docs/x.zh.md:20",  # bare "batch" in prose
    ], problems
    assert "'批次' for 'batch, mini-batch, micro-batch, batch size'" in problems[0]


def test_an_allowed_phrase_is_not_reported() -> None:
    page = "# 标题\n\n浮点数转整数时向零截断，而把梯度截断到区间是裁剪。\n"
    problems = glossary.violations("docs/x.zh.md", page, TERMS)
    assert len(problems) == 1 and "'截断' for 'clamp" in problems[0], problems


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("- en: batch\n  avoid: ['批次']\n", "needs `en`, `use` and `avoid`"),
        ("- en: batch\n  use: 批次\n  avoid: ['批次']\n", "matches its own `avoid`"),
        ("- en: batch\n  use: 批量\n  avoid: ['批(']\n", "entry 1 (batch): missing )"),
        (
            "- en: batch\n  use: 批量\n  avoid: ['批次']\n  allow:\n    - phrase: 批次号\n",
            "every `allow` phrase says `why`",
        ),
        ("- en: batch\n  use: 批量\n  avoid: ['批次']\n  alow: []\n", "unknown keys ['alow']"),
    ],
)
def test_a_malformed_glossary_entry_is_refused(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "glossary_zh.yaml"
    path.write_text(entry, encoding="utf-8")
    with pytest.raises(ValueError, match=r"glossary_zh\.yaml entry 1") as raised:
        glossary.load(path)
    assert message in str(raised.value)


def test_a_term_a_reader_may_not_know_says_what_it_is_on_its_first_use() -> None:
    # pickle: its first use in the prose says what it is; a heading, a reader's question,
    # code and quotes do not count as that first use.
    page = (
        "# 报错 Can't pickle local object\n\n"
        '!!! question "本页解答的问题"\n    - 为什么 pickle 失败？\n    - 二？\n    - 三？\n\n'
        "`pickle.dumps` 失败了。加载器通过 pickle 把数据集发给 worker。后面再说 pickle。\n"
    )
    problems = glossary.unexplained("docs/x.zh.md", page, TERMS)
    assert [p.split(": ")[0] for p in problems] == ["docs/x.zh.md:8"], problems
    explained = page.replace("通过 pickle 把", "通过 pickle（Python 的对象序列化）把")
    assert glossary.unexplained("docs/x.zh.md", explained, TERMS) == []


@pytest.mark.parametrize("page", PAGES)
def test_each_chinese_page_says_what_a_term_is_on_its_first_use(page: str) -> None:
    problems = glossary.unexplained(page, (REPO_ROOT / page).read_text(encoding="utf-8"), TERMS)
    assert not problems, "\n".join(problems)
