"""Every sentence the build writes into pages, in each of the site's languages.

The build (badges, run lines, downloads, the Errata and Verification pages,
the home page's headline) take their words from here, so that the 简体中文
edition is complete: tests/test_translations.py fails on a key missing in a
language or on fields that differ between languages.
"""

from __future__ import annotations

from docverify.i18n.languages import DEFAULT

TEXT: dict[str, dict[str, str]] = {
    "en": {
        # the navigation (docverify.site.nav) and a section's table of pages
        "nav.home": "Home",
        "nav.about": "About the proof",
        "section.header": "| page | what it covers |",
        # badges under code blocks
        "badge.none": "not verified in this build",
        "badge.verified": "verified",
        "badge.failed_on": "FAILED on {where}",
        "badge.changed": "changed since last verification",
        "badge.last_failed": "last run FAILED on {where}",
        "badge.last_verified": "last verified",
        "badge.stale": "{devices}: changed since last run",
        "badge.changed_title": "run `make test` (or save it under `make serve`) to verify it",
        "badge.shown": "shown only, not run: {reason}",
        "badge.validated": "validated by {check}",
        "badge.tested": "{check}: {reason}",
        "badge.undeclared": "undeclared embed root: {path}",
        # under the page title
        "run.line": "▶ Run it yourself: {items}: prints exactly the `#>` lines shown on this page.",
        "run.source": "source",
        "download.script": "Download as script (.py)",
        "download.notebook": "Open as notebook (.ipynb)",
        "download.needs": "{links} — {needs}",
        "run.needs": "needs {what}",
        "run.notes_join": "; ",
        # what a page's code needs (docverify.contract.needs): the downloads' first lines
        "needs.sentence": "Needs {what}: {how}.",
        "needs.gpu_blocks": (
            "Its GPU blocks run where CUDA is available; without it, each prints a line "
            "saying it was skipped, and the rest runs on a CPU."
        ),
        "download.gpu_skipped": "Skipped: this block needs a CUDA GPU (torch.cuda.is_available() is False).",
        "needs.and": " and ",
        "needs.cuda": "a CUDA GPU",
        "needs.launch": "several processes started by torchrun",
        "needs.checkout": "a checkout of the PyTorch Notes repository, whose files it reads",
        "needs.where.checkout": " from inside the checkout",
        "needs.how.script": "run it{where} with {command}",
        "needs.how.notebook": "open it in Jupyter{where}",
        "needs.how.launched_notebook": "not in Jupyter: download {script} and run it{where} with {command}",
        # the notebook download (docverify.site.notebook)
        "notebook.intro": (
            "*This notebook is the page <{url}> of PyTorch Notes. Its code cells are the "
            "page's code, the program the site's test suite runs and checks; the outputs "
            "shown are the `#>` lines the page shows.*"
        ),
        # the Verification page's claims table
        "claims.header": (
            "| page | linked to a check the CPU run makes | linked to GPU-only checks | "
            "in a Not verified here box | marked not a claim | of those, with a number, "
            "an API or a comparison | none of these | linked or boxed |"
        ),
        "claims.total": "all pages",
        "pinned.stack": "Pinned stack (`requirements.txt`): Python {python}, torch {torch}, torchvision {torchvision}.",
        "claims.headline": (
            "Counted at build time over this edition's pages (the generated Errata, Tags and "
            "Verification pages not counted): of {claims} factual sentences, {cpu} end with a ✓ "
            "linking to a check the CPU run of this build makes or to a named test, {gpu} link "
            "only checks that a GPU run makes ({gpu_state}), {boxed} stand in a Not verified "
            "here box, and {unproven} have none of these; the least covered page is {least}, at "
            "{least_share}. Another {declared} sentences are marked as not claims, {stating} of "
            "them with a number, an API name or a comparison word, listed for review."
        ),
        "claims.gpu_not_run": "no GPU run recorded yet",
        "claims.gpu_ran": "the GPU run of {date}",
        # proof links (docverify.site.proof_links)
        "proof.title": "checked by {where}",
        "proof.test": "checked by the test {test}",
        "proof.versions": "what {where} prints on each tested torch and Python (make matrix)",
        "proof.gpu": "checked on GPU only: {outcome}",
        "proof.gpu_not_run": "not run yet",
        "proof.gpu_passed": "passed on {date}",
        "proof.gpu_failed": "FAILED on {date}",
        # the title of a heading's ¶ link (the toc extension's permalink_title, docverify.site.plugin)
        "theme.permalink": "Permanent link",
        # live verification under `make serve`
        "live.failed": "Live verification FAILED: {snippet}",
        "live.advice": "Fix the snippet, or if the new output is right, record it with "
        "<code>make update-examples K={stem}</code>.",
        "live.not_run": "Live verification does not run <code>{snippet}</code>: {reason}. "
        "It is verified by <code>make test</code> only.",
        "live.launched": "it is launched with torchrun (several processes)",
        "live.cuda": "it needs CUDA",
        # the Verification page
        "table.no_report": "No verification report in this build: run `make test`.",
        "table.header": "| page | not verified here | snippet | sections | CPU | GPU |",
        "table.not_run": "not run",
        "table.passed": "passed",
        "table.failed": "**FAILED**",
        "table.changed": " (file changed since)",
        "table.whole_file": "(whole file)",
        "table.no_snippet": "(no snippet)",
        "table.no_page": "(no page)",
        "table.environments": "Environments the latest runs used:",
        "table.environment": "**{device}** run: torch {torch}, Python {python}, commit `{commit}`, {machine}",
        "roots.header": "| embedded from | kind of check | by | what | blocks |",
        "roots.gpu_only": "{n} ({gpu} of them from scripts that need a GPU, run only on a GPU machine: {state})",
        # the Errata page
        "errata.counts": (
            "This build finds {corrections} (the notes were wrong or outdated: listed below), "
            "{caveats} (the notes were right but incomplete: not errata, they stay on their "
            "pages) and {unverified} (statements this machine cannot check; the "
            "[Verification](verification.md) page counts them per page)."
        ),
        "errata.correction.one": "{n} Correction box",
        "errata.correction.many": "{n} Correction boxes",
        "errata.caveat.one": "{n} Caveat box",
        "errata.caveat.many": "{n} Caveat boxes",
        "errata.unverified.one": "{n} “Not verified here” box",
        "errata.unverified.many": "{n} “Not verified here” boxes",
        "errata.none": "No corrections yet.",
        "errata.home": "Home",
        # the home page's headline (docverify.contract.embed_roots.headline)
        "headline.blocks": (
            "{total} on this site: {run} from scripts that the test suite runs, comparing "
            "their outputs (a script that needs a GPU only on a machine with one: its badge "
            "says whether such a run is recorded), {tested} validated by a named test, {shown} "
            "shown only (each says why)"
        ),
        "headline.block.one": "{n} code block",
        "headline.block.many": "{n} code blocks",
        "headline.undeclared": ", {n} from an undeclared root",
        "headline.end": ".",
        "headline.fragments": " {fragments} in the prose (benchmark tables): {parts}.",
        "headline.fragment.one": "{n} generated fragment",
        "headline.fragment.many": "{n} generated fragments",
        "headline.part": "{n} {kind}",
        "headline.join": ", ",
        "kind.run": "run, outputs compared",
        "kind.tested": "validated by a named test",
        "kind.shown": "shown only",
        # the version matrix (docverify.site.matrix_lines)
        "matrix.ranges": "torch {torch} · Python {python}",
        "matrix.no_version": "none",
        "matrix.pinned": "the pinned stack",
        "matrix.same": "Same output on {ranges}",
        "matrix.same_all": "Same output on every tested version: {ranges}",
        "matrix.some_stale": "; changed since recorded on {stacks}",
        "matrix.some_missing": "; not recorded on {stacks}",
        "matrix.all_stale": "Version matrix: the code changed since it was recorded (run `make matrix`)",
        "matrix.missing": "Version matrix: not recorded yet (run `make matrix`)",
        "matrix.not_run": "Version matrix: not run ({reason})",
        "matrix.needs_cuda": "needs CUDA",
        "matrix.needs_venv": "it reads the checkout's own environment, .venv",
        "matrix.tested": (
            "Tested: torch {torch} (on the pinned Python); Python {python} (on the pinned torch). "
            "A range joins neighbouring tested versions; versions between them were not run."
        ),
        "matrix.verb.prints": "prints:",
        "matrix.verb.raises": "raises:",
        "matrix.verb.warns": "warns:",
        "matrix.verb.differs": "differs:",
        "matrix.line": "line {line} of the snippet file",
        "matrix.note.prints": "prints",
        "matrix.note.nothing": "prints nothing",
        "matrix.note.raises": "raises {error}",
        "matrix.note.printed_first": "after printing",
        "matrix.note.warns": "warns {warning}",
        "matrix.note.not_reached": "is not reached: an earlier statement raised {error}",
        "matrix.page": "Holds on {ranges}; on other versions see the marked blocks.",
        "matrix.page_all": "Every block holds on all tested versions: {ranges}.",
        "matrix.table.page": "page",
        "matrix.table.legend": (
            "Columns: the pinned stack (bold), then other torch versions on the pinned "
            "Python, then other Pythons on the pinned torch. ✓: every block of the page printed what it shows; N differ: blocks or statements "
            "that printed, raised or warned otherwise; stale: the code changed since that stack "
            "was recorded; not run: needs CUDA."
        ),
        "matrix.table.not_run": "not run",
        "matrix.table.stale": "stale",
        "matrix.table.differ": "{n} differ",
        "matrix.table.stacks": "Stacks (`make matrix`; declared in `src/docverify/matrix/stacks.py`):",
        "matrix.table.no_result": "no result yet",
        "matrix.table.ran": "recorded {date}, {seconds} s",
    },
    "zh": {
        "nav.home": "首页",
        "nav.about": "关于验证",
        "section.header": "| 页面 | 内容 |",
        "badge.none": "本次构建未验证",
        "badge.verified": "已验证",
        "badge.failed_on": "在 {where} 上失败",
        "badge.changed": "自上次验证后已修改",
        "badge.last_failed": "上次运行在 {where} 上失败",
        "badge.last_verified": "上次已验证",
        "badge.stale": "{devices}：自上次运行后已修改",
        "badge.changed_title": "运行 `make test`（或在 `make serve` 下保存文件）来验证它",
        "badge.shown": "仅展示，未运行：{reason}",
        "badge.validated": "由 {check} 验证",
        "badge.tested": "{check}：{reason}",
        "badge.undeclared": "未声明的嵌入来源：{path}",
        "run.line": "▶ 自己运行：{items}：输出与本页显示的 `#>` 行完全一致。",
        "run.source": "源码",
        "download.script": "下载为脚本 (.py)",
        "download.notebook": "以笔记本打开 (.ipynb)",
        "download.needs": "{links} — {needs}",
        "run.needs": "需要{what}",
        "run.notes_join": "；",
        "needs.sentence": "需要{what}：{how}。",
        "needs.gpu_blocks": "其中的 GPU 代码块只在有 CUDA 时运行；没有 CUDA 时，每个这样的代码块打印一行说明已跳过，其余部分在 CPU 上照常运行。",
        "download.gpu_skipped": "已跳过：这一段需要 CUDA GPU（torch.cuda.is_available() 为 False）。",
        "needs.and": "和",
        "needs.cuda": "一块 CUDA GPU",
        "needs.launch": "由 torchrun 启动的多个进程",
        "needs.checkout": "PyTorch Notes 仓库的一份检出（它会读取仓库中的文件）",
        "needs.where.checkout": "在检出的仓库中",
        "needs.how.script": "{where}用 {command} 运行",
        "needs.how.notebook": "{where}在 Jupyter 中打开",
        "needs.how.launched_notebook": "不能在 Jupyter 中运行：请下载 {script}，{where}用 {command} 运行",
        "notebook.intro": (
            "*本笔记本就是 PyTorch 笔记的页面 <{url}>。它的代码单元格是该页的代码，"
            "也就是本站测试套件运行并检查的程序；显示的输出是该页显示的 `#>` 行。*"
        ),
        "claims.header": (
            "| 页面 | 链接到 CPU 运行所做的检查 | 只链接到 GPU 检查 | 在“此处未验证”框中 | "
            "标为非结论 | 其中含数字、API 或比较 | 都不是 | 已链接或在框中 |"
        ),
        "claims.total": "全部页面",
        "pinned.stack": "固定的软件栈（`requirements.txt`）：Python {python}、torch {torch}、torchvision {torchvision}。",
        "claims.headline": (
            "构建时统计本版本的页面（不含生成的勘误、标签和验证页面）：{claims} 个陈述事实的句子中，"
            "{cpu} 个以 ✓ 结尾，链接到本次构建的 CPU 运行所做的检查或某个指定测试；{gpu} 个只链接到 GPU "
            "运行才做的检查（{gpu_state}）；{boxed} 个位于“此处未验证”框中；{unproven} 个都不是。"
            "覆盖率最低的页面是 {least}，为 {least_share}。另有 {declared} 个句子标为非结论，"
            "其中 {stating} 个含数字、API 名称或比较词，已列出供复查。"
        ),
        "claims.gpu_not_run": "尚无 GPU 运行记录",
        "claims.gpu_ran": "{date} 的 GPU 运行",
        "proof.title": "由 {where} 检查",
        "proof.test": "由测试 {test} 检查",
        "proof.versions": "{where} 在每个测试过的 torch 与 Python 版本上的输出（make matrix）",
        "proof.gpu": "仅在 GPU 上检查：{outcome}",
        "proof.gpu_not_run": "尚未运行",
        "proof.gpu_passed": "{date} 通过",
        "proof.gpu_failed": "{date} 失败",
        "theme.permalink": "永久链接",
        "live.failed": "实时验证失败：{snippet}",
        "live.advice": "请修正该代码片段；如果新的输出是正确的，用 "
        "<code>make update-examples K={stem}</code> 记录它。",
        "live.not_run": "实时验证不运行 <code>{snippet}</code>：{reason}。"
        "它只由 <code>make test</code> 验证。",
        "live.launched": "它用 torchrun 启动（多个进程）",
        "live.cuda": "它需要 CUDA",
        "table.no_report": "本次构建没有验证报告：请运行 `make test`。",
        "table.header": "| 页面 | 此处未验证 | 代码片段 | 代码段 | CPU | GPU |",
        "table.not_run": "未运行",
        "table.passed": "通过",
        "table.failed": "**失败**",
        "table.changed": "，此后文件已修改",  # no space may follow a full-width ）, and " · " does
        "table.whole_file": "（整个文件）",
        "table.no_snippet": "（无代码片段）",
        "table.no_page": "（无页面）",
        "table.environments": "最近几次运行所用的环境：",
        "table.environment": "**{device}** 运行：torch {torch}，Python {python}，提交 `{commit}`，{machine}",
        "roots.header": "| 嵌入来源 | 检查方式 | 检查者 | 内容 | 代码块数 |",
        "roots.gpu_only": "{n}（其中 {gpu} 个来自需要 GPU 的脚本，只在 GPU 机器上运行：{state}）",
        "errata.counts": (
            "本次构建共找到 {corrections}（原笔记有误或已过时：见下文）、"
            "{caveats}（原笔记正确但不完整：不算勘误，留在各自页面上）和 "
            "{unverified}（本机无法检查的陈述；[验证](verification.md)页面按页统计）。"
        ),
        "errata.correction.one": "{n} 个“更正”框",
        "errata.correction.many": "{n} 个“更正”框",
        "errata.caveat.one": "{n} 个“补充说明”框",
        "errata.caveat.many": "{n} 个“补充说明”框",
        "errata.unverified.one": "{n} 个“此处未验证”框",
        "errata.unverified.many": "{n} 个“此处未验证”框",
        "errata.none": "暂无更正。",
        "errata.home": "首页",
        "headline.blocks": (
            "本站共有 {total}：{run} 个来自测试套件运行并比对输出的脚本（需要 GPU 的脚本只在有 GPU "
            "的机器上运行：其徽章注明是否已记录这样的运行），"
            "{tested} 个由指定测试验证，{shown} 个仅展示（各自注明原因）"
        ),
        "headline.block.one": "{n} 个代码块",
        "headline.block.many": "{n} 个代码块",
        "headline.undeclared": "，{n} 个来自未声明的来源",
        "headline.end": "。",
        "headline.fragments": "正文中另有 {fragments}（基准测试表格）：{parts}。",
        "headline.fragment.one": "{n} 个生成的片段",
        "headline.fragment.many": "{n} 个生成的片段",
        "headline.part": "{n} 个{kind}",
        "headline.join": "、",
        "kind.run": "运行并比对输出",
        "kind.tested": "由指定测试验证",
        "kind.shown": "仅展示",
        "matrix.ranges": "torch {torch} · Python {python}",
        "matrix.no_version": "无",
        "matrix.pinned": "固定版本组合",
        "matrix.same": "输出相同的版本：{ranges}",
        "matrix.same_all": "在所有测试版本上输出相同：{ranges}",
        "matrix.some_stale": "；在 {stacks} 上记录后代码已修改",
        "matrix.some_missing": "；{stacks} 上尚无记录",
        "matrix.all_stale": "版本矩阵：记录后代码已修改（运行 `make matrix`）",
        "matrix.missing": "版本矩阵：尚无记录（运行 `make matrix`）",
        "matrix.not_run": "版本矩阵：未运行（{reason}）",
        "matrix.needs_cuda": "需要 CUDA",
        "matrix.needs_venv": "它读取检出目录自己的环境 .venv",
        "matrix.tested": (
            "已测试：torch {torch}（固定的 Python 上）；Python {python}（固定的 torch 上）。"
            "范围连接相邻的已测试版本；其间的版本未运行。"
        ),
        "matrix.verb.prints": "输出：",
        "matrix.verb.raises": "抛出异常：",
        "matrix.verb.warns": "发出警告：",
        "matrix.verb.differs": "结果不同：",
        "matrix.line": "代码片段文件第 {line} 行",
        "matrix.note.prints": "输出",
        "matrix.note.nothing": "没有输出",
        "matrix.note.raises": "抛出 {error}",
        "matrix.note.printed_first": "此前输出",
        "matrix.note.warns": "发出警告 {warning}",
        "matrix.note.not_reached": "未执行到：之前的语句抛出了 {error}",
        "matrix.page": "在 {ranges} 上成立；其他版本见标出的代码块。",
        "matrix.page_all": "每个代码块在所有测试版本上都成立：{ranges}。",
        "matrix.table.page": "页面",
        "matrix.table.legend": (
            "列：固定版本组合（粗体），然后是固定 Python 上的其他 torch 版本，再然后是固定 torch 上的其他 Python 版本。"
            "✓：该页每个代码块的输出都与页面一致；N 处不同：输出、异常或警告不同的代码块或语句；"
            "已过时：该版本组合记录后代码已修改；未运行：需要 CUDA。"
        ),
        "matrix.table.not_run": "未运行",
        "matrix.table.stale": "已过时",
        "matrix.table.differ": "{n} 处不同",
        "matrix.table.stacks": "版本组合（`make matrix`；在 `src/docverify/matrix/stacks.py` 中声明）：",
        "matrix.table.no_result": "尚无结果",
        "matrix.table.ran": "记录于 {date}，{seconds} 秒",
    },
}


def text(lang: str, key: str, **fields: object) -> str:
    """The sentence `key` in `lang` (English where the language is unknown), fields filled in."""
    words = TEXT.get(lang, TEXT[DEFAULT])
    return words[key].format(**fields)


def count(lang: str, key: str, n: int) -> str:
    """'1 Caveat box' / '3 Caveat boxes': `key.one` or `key.many` with n filled in."""
    return text(lang, f"{key}.{'one' if n == 1 else 'many'}", n=n)
