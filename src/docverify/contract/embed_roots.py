"""Embed roots: every place a page may embed from, and how what it shows is checked.

This table is the one place that says it. The build (docverify.site.embed_check,
through docverify.contract.embeds.page_problems) and the contract test fail, naming
page:line, on an embed that no root declares; the badge under every embedded
block says which kind of check stands behind it; the site's headline sentence
("N code blocks: ...") is counted from it at build

Three kinds of check:

- RUN: "run, outputs compared". The file is a snippet script: the suite runs
  it and compares every `#>` line with what it printed (tests/test_snippets.py).
  Its badge is the verification report's verified / FAILED line.
- TESTED: "validated by a named test". The file is not run as a page, but a
  named test (a test file, or a snippet script that reads the file) fails when
  it is wrong. Its badge names that check, with its latest outcome where the
  verification report records it.
- SHOWN: "shown only". Nothing checks it; the reason is displayed under the
  block on the page.

To add a root: add an EmbedRoot below (a glob as in .gitignore: `*` within one
folder, `**/` any depth of folders, `[!_]` any character but `_`), with the check
that stands behind it. Patterns must
not overlap: the first that matches decides, and the contract test refuses a
path two roots claim.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pathspec

RUN = "run"
TESTED = "tested"
SHOWN = "shown"


@dataclass(frozen=True)
class EmbedRoot:
    pattern: str  # repo-relative glob
    kind: str  # RUN, TESTED or SHOWN
    check: str = ""  # RUN and TESTED: the test file or snippet script that checks it
    reason: str = ""  # SHOWN: why nothing checks it (shown on the page); else what is checked
    reason_zh: str = ""  # the same, on the 简体中文 pages

    def reason_in(self, lang: str) -> str:
        return self.reason_zh if lang == "zh" and self.reason_zh else self.reason

    def matches(self, path: str) -> bool:
        return _spec(self.pattern).match_file(path)


@functools.cache
def _spec(pattern: str) -> pathspec.GitIgnoreSpec:
    """The glob as git reads it (pathspec, which MkDocs itself uses for exclude_docs)."""
    return pathspec.GitIgnoreSpec.from_lines([pattern])


ROOTS: tuple[EmbedRoot, ...] = (
    EmbedRoot(
        "snippets/*/[!_]*.py",  # `_name.py` files are private helpers, not run as pages
        RUN,
        check="tests/test_snippets.py",
        reason="every `#>` line compared with what the script printed; asserts hold",
        reason_zh="每一行 `#>` 都与脚本的实际输出比对；断言全部成立",
    ),
    EmbedRoot(
        "environment-setup/*.yml",
        TESTED,
        check="tests/test_environment_files.py",
        reason="pins equal requirements.txt; conda accepts the file where conda is installed",
        reason_zh="版本固定与 requirements.txt 一致；在装有 conda 的机器上 conda 接受此文件",
    ),
    EmbedRoot(
        "environment-setup/*.condarc",
        TESTED,
        check="tests/test_environment_files.py",
        reason="valid YAML",
        reason_zh="合法的 YAML",
    ),
    EmbedRoot(
        ".run/*.run.xml",
        TESTED,
        check="snippets/environment/pycharm.py",
        reason="parsed as PyCharm would, and the command it implies run with both processes",
        reason_zh="按 PyCharm 的方式解析，并用两个进程实际运行它对应的命令",
    ),
    EmbedRoot(
        "docs/distributed/launch_commands.sh",
        TESTED,
        check="snippets/distributed/launching.py",
        reason="each command line parsed by the launcher it names",
        reason_zh="每条命令行都由它所指定的启动器解析",
    ),
    EmbedRoot(
        "docs/assets/generated/models/conv1d_linear_summary.md",
        TESTED,
        check="tests/test_benchmark_conv1d_linear.py",
        reason="re-rendered from the committed benchmark table and compared; verdicts asserted",
        reason_zh="由已提交的基准测试表格重新生成并比对；结论用断言检查",
    ),
    EmbedRoot(
        "docs/assets/generated/data/num_workers_summary.md",
        TESTED,
        check="tests/test_benchmark_num_workers.py",
        reason="re-rendered from the committed benchmark table and compared; verdicts asserted",
        reason_zh="由已提交的基准测试表格重新生成并比对；结论用断言检查",
    ),
    EmbedRoot(
        "docs/assets/generated/search/comparison_summary.md",
        TESTED,
        check="tests/test_measured_summaries.py",
        reason="re-rendered from the committed measurement (`make compare-search`) and "
        "compared; the engine it names is the one the site uses",
        reason_zh="由已提交的测量数据（`make compare-search`）重新生成并比对；"
        "它所说的搜索引擎就是本站使用的那个",
    ),
    EmbedRoot(
        "docs/assets/generated/accessibility/lighthouse_summary.md",
        TESTED,
        check="tests/test_measured_summaries.py",
        reason="re-rendered from the committed Lighthouse report (`make lighthouse`) and "
        "compared; every score at least the target",
        reason_zh="由已提交的 Lighthouse 报告（`make lighthouse`）重新生成并比对；"
        "每个分数都不低于目标",
    ),
    EmbedRoot(
        "benchmarks/*.py",
        SHOWN,
        reason="a benchmark: it runs under its `make bench-*` target, outside the test suite",
        reason_zh="基准测试：在测试套件之外由对应的 `make bench-*` 目标运行",
    ),
    EmbedRoot(
        "docs/assets/generated/data/num_workers.txt",
        SHOWN,
        reason="the committed output of `make bench-num-workers`, a benchmark outside the suite",
        reason_zh="`make bench-num-workers`（测试套件之外的基准测试）已提交的输出",
    ),
    EmbedRoot(
        "docs/assets/generated/models/conv1d_linear_table.txt",
        SHOWN,
        reason="the committed output of `make bench-conv1d-linear`, a benchmark outside the suite",
        reason_zh="`make bench-conv1d-linear`（测试套件之外的基准测试）已提交的输出",
    ),
    EmbedRoot(
        "snippets/models/torchstat_try.sh",
        SHOWN,
        reason="installs torchstat from PyPI into a throw-away environment: "
        "the suite has no network",
        reason_zh="从 PyPI 把 torchstat 安装到一次性环境中：测试套件没有网络",
    ),
    EmbedRoot(
        "docs/assets/generated/models/torchstat_output.txt",
        TESTED,
        check="tests/test_models_torchstat.py",
        reason="versions and errors it cites, and its conv1 row against the page's count",
        reason_zh="它引用的版本与报错，以及它的 conv1 一行与本页的计数比对",
    ),
)


def root_of(path: str, roots: tuple[EmbedRoot, ...] = ROOTS) -> EmbedRoot | None:
    """The declared root an embedded repo-relative path belongs to, or None."""
    return next((r for r in roots if r.matches(path)), None)


def overlapping(paths: list[str], roots: tuple[EmbedRoot, ...] = ROOTS) -> list[str]:
    """Paths that more than one root claims (the table must be unambiguous)."""
    problems = []
    for path in paths:
        claiming = [r.pattern for r in roots if r.matches(path)]
        if len(claiming) > 1:
            problems.append(f"{path} is claimed by several embed roots: {claiming}")
    return problems
