"""Every claim links to the check that proves it (docverify.contract.proofs, docverify.contract.claims).

Each content page, in both languages, has at least 95% of its claim sentences
linked to a check line or standing in a "Not verified here" box; a section
index page's table links every row. Each rule is tried on broken input: a
marker that resolves to nothing, to a check the page does not show, to a line
no run executed, or to another page's check from a content page.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from sample_results import sample_result

from docverify.contract import boxes, claims, proofs
from docverify.contract.line_trace import statements
from docverify.contract.page_program import content_pages
from docverify.i18n import languages
from docverify.paths import DOCS_DIR, REPO_ROOT


def _pages() -> list[str]:
    found = []
    for page in content_pages(REPO_ROOT):
        found += [page, "docs/" + languages.twin(page.removeprefix("docs/"), "zh")]
    return found


@pytest.mark.parametrize("page", _pages())
def test_a_content_page_links_its_claims_to_their_proofs(page: str) -> None:
    markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
    found = claims.sentences(page, markdown)
    coverage = claims.coverage(page, markdown)
    unproven = [f"{page}:{s.line}: {s.text[:90]}" for s in found if s.kind == claims.UNPROVEN]
    assert coverage.share >= claims.TARGET, (
        f"{page}: {coverage.share:.0%} of {coverage.claims} claims linked or boxed "
        f"(target {claims.TARGET:.0%}); unproven:\n" + "\n".join(unproven)
    )


@pytest.mark.parametrize(
    "page", ["docs/losses/index.md", "docs/verification.md", "docs/data/index.md"]
)
def test_a_page_that_states_the_claims_threshold_states_the_enforced_one(page: str) -> None:
    # losses/index, verification and data/index say "at least 95%" of a page's claims are
    # linked or boxed: the number, in both editions, is the TARGET the test above enforces.
    for lang in languages.LANGUAGES:
        path = "docs/" + languages.twin(page.removeprefix("docs/"), lang)
        text = (REPO_ROOT / path).read_text(encoding="utf-8")
        stated = re.findall(r"(?:at least|至少有?)\s*(\d+)\s*%", text)
        assert stated and set(stated) == {f"{claims.TARGET * 100:.0f}"}, (path, stated)


def _pages_with_corrections() -> list[str]:
    found = []
    for source in languages.source_pages(DOCS_DIR):
        for lang in languages.LANGUAGES:
            page = "docs/" + languages.twin(source.relative_to(DOCS_DIR).as_posix(), lang)
            if "!!! correction" in (REPO_ROOT / page).read_text(encoding="utf-8"):
                found.append(page)
    return found


def _unlinked_in_corrections(page: str, markdown: str) -> list[str]:
    """The claim sentences inside the page's Correction boxes that link no proof."""
    inside = {
        line
        for box in boxes.find_boxes(page, markdown)
        if box.kind == boxes.CORRECTION
        for line, _ in box.body
    }
    return [
        f"{page}:{s.line}: {s.text[:90]}"
        for s in claims.sentences(page, markdown)
        if s.line in inside and s.kind == claims.UNPROVEN
    ]


@pytest.mark.parametrize("page", _pages_with_corrections())
def test_every_claim_in_a_correction_box_links_its_proof(page: str) -> None:
    # errata.md: the right answer's sentences link to their checks. The 95% share above
    # lets a few sentences of a page go unlinked; inside a Correction box, none may.
    unlinked = _unlinked_in_corrections(page, (REPO_ROOT / page).read_text(encoding="utf-8"))
    assert not unlinked, "\n".join(unlinked)


def test_an_unlinked_sentence_in_a_correction_box_is_reported() -> None:
    markdown = (
        "# T\n\n"
        '!!! correction "Correction: wrong"\n'
        "    原文: 「a」\n\n"
        "    It is b. {✓ b}\n"
        "    It is c.\n\n"
        "It is d.\n"  # outside the box: the 95% share counts it, this rule does not
    )
    assert _unlinked_in_corrections("docs/t/p.md", markdown) == ["docs/t/p.md:7: It is c."]
    # the quote's gloss is the notes' meaning, not a claim: italic in English, （…） in Chinese
    english = (
        '!!! correction "Correction: wrong"\n    原文: `a` (*gloss*). It is b. {✓ b} It is c.\n'
    )
    assert _unlinked_in_corrections("docs/t/p.md", english) == ["docs/t/p.md:2: It is c."]
    chinese = '!!! correction "更正：错"\n    原文: `a`（注释）。它是 b。{✓ b}它是 c。\n'
    assert _unlinked_in_corrections("docs/t/p.zh.md", chinese) == ["docs/t/p.zh.md:2: 它是 c。"]


@pytest.mark.parametrize(
    "index",
    sorted([*DOCS_DIR.glob("*/index.md"), *DOCS_DIR.glob("*/index.zh.md")]),  # not indexing.md
    ids=lambda p: p.relative_to(REPO_ROOT).as_posix(),
)
def test_a_section_index_links_every_table_row(index: Path) -> None:
    page = index.relative_to(REPO_ROOT).as_posix()
    lines = index.read_text(encoding="utf-8").splitlines()
    rule = set("|-: ")
    rows = [
        line
        for line, following in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("|")
        and not set(line) <= rule
        and not (following.startswith("|") and set(following) <= rule)  # not a header
    ]
    unlinked = [row[:80] for row in rows if "{✓" not in row]
    assert not unlinked, f"{page}: table rows without a proof link: {unlinked}"
    # A table whose last column is "checked in" (检查位置): each row's last cell links the
    # section of a page that checks it (`page.md#anchor`), besides its ✓.
    header, no_section = None, []
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        if following.startswith("|") and set(following) <= rule and line.startswith("|"):
            header = line.strip().strip("|").split("|")[-1].strip()
        elif not line.startswith("|"):
            header = None
        elif header in ("checked in", "检查位置") and not set(line) <= rule:
            last_cell = line.strip().strip("|").split("|")[-1]
            if not re.search(r"\]\([^)\s]*\.md#[^)\s]+\)", last_cell):
                no_section.append(line[:80])
    assert not no_section, f"{page}: rows that link no checking section: {no_section}"


@pytest.mark.parametrize(
    "page",
    [
        str(p.relative_to(REPO_ROOT))
        for p in sorted(DOCS_DIR.rglob("*.md"))
        if "assets" not in p.parts
    ],
)
def test_every_proof_link_resolves(page: str) -> None:
    # The build fails on the same (docverify.site.proof_links), naming page:line.
    markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
    _, problems = proofs.resolve(page, markdown, REPO_ROOT)
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize("page", _pages())
def test_a_number_a_sentence_states_is_one_its_check_shows(page: str) -> None:
    from docverify.contract.sentence_checks import number_problems

    markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
    problems = number_problems(page, markdown, REPO_ROOT)
    assert not problems, "\n".join(map(str, problems))


# --- the rules, tried on broken input -------------------------------------------------------


def _site(tmp_path: Path, page: str) -> Path:
    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text(
        "import torch\n\n# --8<-- [start:setup]\nx = torch.ones(2)\n# --8<-- [end:setup]\n\n"
        "# --8<-- [start:sum]\nassert x.sum() == 2  # ✓ sums-to-two\n# --8<-- [end:sum]\n\n"
        "assert x.mean() == 1  # ✓ not-shown\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "topic" / "page.md").write_text(page, encoding="utf-8")
    return tmp_path


PAGE = '# Topic\n\n```python\n--8<-- "snippets/topic/page.py:setup"\n```\n\n```python\n--8<-- "snippets/topic/page.py:sum"\n```\n\n'


def _problems(tmp_path: Path, prose: str) -> list[str]:
    root = _site(tmp_path, PAGE + prose)
    markdown = (root / "docs/topic/page.md").read_text(encoding="utf-8")
    _, problems = proofs.resolve("docs/topic/page.md", markdown, root)
    return [str(p) for p in problems]


def test_a_marker_resolves_to_the_check_line_the_page_shows(tmp_path: Path) -> None:
    root = _site(tmp_path, PAGE + "Two ones sum to two. {✓ sums-to-two}\n")
    markdown = (root / "docs/topic/page.md").read_text(encoding="utf-8")
    resolved, problems = proofs.resolve("docs/topic/page.md", markdown, root)
    assert problems == []
    ((marker, targets),) = resolved.items()
    assert marker.line == 11
    assert [(t.check.file, t.check.line) for t in targets] == [("snippets/topic/page.py", 8)]


def test_a_marker_that_resolves_badly_fails_naming_page_and_line(tmp_path: Path) -> None:
    prose = (
        "One. {✓ no-such-check}\n\n"
        "Two. {✓ not-shown}\n\n"
        "Three. {✓ tensors/shapes:expand-write}\n\n"
        "Four. {✓ tests/test_claims.py::test_no_such_test}\n\n"
        "Five. {✓ tests/test_snippets.py::test_snippet}\n"
    )
    assert _problems(tmp_path, prose) == [
        "docs/topic/page.md:11: `{✓ no-such-check}` resolves to nothing: "
        "no `# ✓ no-such-check` in the code the page shows",
        "docs/topic/page.md:13: `{✓ not-shown}` is a check this page does not show "
        "(snippets/topic/page.py:11)",
        "docs/topic/page.md:15: `{✓ tensors/shapes:expand-write}`: a content page links only "
        "to checks in its own code (another page's check: only from a section index page)",
        "docs/topic/page.md:17: `{✓ tests/test_claims.py::test_no_such_test}`: no test "
        "`test_no_such_test` in tests/test_claims.py",
        "docs/topic/page.md:19: `{✓ tests/test_snippets.py::test_snippet}` is the runner of "
        "every page: it proves that the code runs, not this sentence; link the check, or the "
        "test of the guarantee the sentence states",
    ]


def test_a_versions_link_goes_to_the_checks_block_in_the_version_matrix(tmp_path: Path) -> None:
    from docverify.site import proof_links
    from docverify.site.state import SiteBuild

    root = _site(tmp_path, PAGE + "It holds on every tested torch. {✓ versions:sums-to-two}\n")
    markdown = (root / "docs/topic/page.md").read_text(encoding="utf-8")
    resolved, problems = proofs.resolve("docs/topic/page.md", markdown, root)
    ((marker, (target,)),) = resolved.items()
    assert problems == [] and target.versions and target.check.line == 8
    page = SimpleNamespace(file=SimpleNamespace(src_uri="topic/page.md"), url="topic/page/")
    link = proof_links._link(SiteBuild(root=root), target, page, None)
    assert 'href="#matrix-snippets-topic-page-py-8"' in link
    assert proofs.unexecuted([target], {"snippets/topic/page.py": set()}) == []  # not a line


def test_a_link_to_a_check_no_run_executed_is_reported() -> None:
    check = proofs.Check("sums-to-two", "snippets/topic/page.py", 8)
    target = proofs.Target(check, "docs/topic/page.md")
    assert proofs.unexecuted([target], {"snippets/topic/page.py": {1, 2, 8}}) == []
    assert proofs.unexecuted([target], {"snippets/topic/page.py": {1, 2}}) == [
        "snippets/topic/page.py:8"
    ]
    assert proofs.unexecuted([target], {"snippets/topic/page.py": None}) == []  # no current run
    gpu = proofs.Target(proofs.Check("x", "snippets/topic/page.py", 8, cuda_only=True), "p")
    assert proofs.unexecuted([gpu], {"snippets/topic/page.py": {1}}) == []  # a GPU run's line


def test_a_cuda_mark_on_a_header_covers_its_block_not_its_elif_else_except_or_finally() -> None:
    """`if ...:  # requires: cuda` leaves its body to the GPU run; the `elif` a CPU run
    takes is checked on CPU, and its ✓ links are ordinary links, not "checked on GPU only"."""
    source = (
        "import torch\n"  # 1
        "if torch.cuda.is_available():  # requires: cuda\n"  # 2
        "    assert True  # ✓ on-gpu\n"  # 3
        "elif torch.backends.cuda.is_built():\n"  # 4
        "    assert True  # ✓ no-gpu\n"  # 5
        "else:\n"  # 6
        "    assert True  # ✓ cpu-build\n"  # 7
        "for _ in range(1):  # requires: cuda\n"  # 8
        "    pass\n"  # 9
        "else:\n"  # 10
        "    pass\n"  # 11
        "try:  # requires: cuda\n"  # 12
        "    pass\n"  # 13
        "except ValueError:\n"  # 14
        "    pass\n"  # 15
        "finally:\n"  # 16
        "    pass\n"  # 17
        "if False:\n"  # 18
        "    pass\n"  # 19
        "elif True:  # requires: python>=3.13\n"  # 20
        "    pass\n"  # 21
        "else:  # requires: cuda\n"  # 22
        "    # a comment between the header and the block\n"  # 23
        "    pass\n"  # 24
    )
    cuda, python = "cuda", "python>=3.13"
    assert statements(source) == {
        1: None, 2: cuda, 3: cuda, 4: None, 5: None, 7: None,
        8: cuda, 9: cuda, 11: None, 12: cuda, 13: cuda, 15: None, 17: None,
        18: None, 19: None, 20: python, 21: python, 24: cuda,
    }  # fmt: skip
    numbered = list(enumerate(source.splitlines(), start=1))
    checks = {c.name: c.cuda_only for c in proofs._comment_checks("s.py", numbered, False, source)}
    assert checks == {"on-gpu": True, "no-gpu": False, "cpu-build": False}
    unmarked_else = source.replace("else:  # requires: cuda", "else:")
    assert statements(unmarked_else)[24] is None  # the elif's mark does not reach its else


def test_the_build_links_each_claim_and_marks_each_check_line(tmp_path: Path) -> None:
    from mkdocs.exceptions import PluginError

    from docverify.site import proof_links

    page = SimpleNamespace(file=SimpleNamespace(src_uri="topic/page.md"), url="topic/page/")
    line = '<span id="__span-1-1"><span class="k">assert</span> <span class="c1"># ✓ sums-to-two</span>\n</span>'
    html = f'<p>Two. <a class="proof-link" href="#proof-sums-to-two">✓</a></p><pre><code>{line}</code></pre>'
    out = proof_links.anchor_checks(html, page)
    assert '<span id="__span-1-1"><a class="proof-anchor" id="proof-sums-to-two"></a>' in out
    with pytest.raises(PluginError, match=r"docs/topic/page.md: #proof-sums-to-two"):
        proof_links.anchor_checks(html.replace("✓ sums-to-two", "no mark"), page)


def test_a_check_only_a_gpu_runs_says_so_with_its_outcome(tmp_path: Path) -> None:
    # errata.md: such a check says so, with the outcome of the GPU run that reached it
    # ("not run yet" while no current GPU run of its file is recorded).
    from docverify.results import report
    from docverify.site import proof_links
    from docverify.site.state import SiteBuild

    rel = "snippets/tensors/gpu.py"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text("# requires: cuda\nassert True  # ✓ on-gpu\n", encoding="utf-8")
    check = proofs.Check("on-gpu", rel, 2, cuda_only=True)
    target = proofs.Target(check, "docs/tensors/gpu.md")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="tensors/gpu.md"), url="tensors/gpu/")

    def link(lang: str, outcome: str | None = None, sha256: str = "") -> str:
        build = SiteBuild(root=tmp_path, lang=lang)
        if outcome:
            build.reports = {
                "cuda": {
                    rel: sample_result(
                        rel,
                        device="cuda",
                        outcome=outcome,
                        sha256=sha256 or report.file_sha256(tmp_path / rel),
                    )
                }
            }
        return proof_links._link(build, target, page, None)

    assert "✓ checked on GPU only: not run yet" in link("en")
    assert "仅在 GPU 上检查：尚未运行" in link("zh")
    assert "✓ checked on GPU only: passed on 2026-01-02" in link("en", "passed")
    assert "✓ checked on GPU only: FAILED on 2026-01-02" in link("en", "failed")
    assert "仅在 GPU 上检查：2026-01-02 通过" in link("zh", "passed")
    assert "仅在 GPU 上检查：2026-01-02 失败" in link("zh", "failed")
    # a run of an older version of the file vouches for nothing: not run yet
    assert "✓ checked on GPU only: not run yet" in link("en", "passed", sha256="0" * 64)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_timing_page_marks_its_gpu_checks_not_run_until_a_gpu_run_is_recorded(
    lang: str,
) -> None:
    # distributed/index.md: the timing page's GPU-only facts have checks that only a GPU
    # run reaches, and each ✓ link to one says "not run yet" until a GPU run is recorded.
    from docverify.i18n.site_text import text
    from docverify.results import report
    from docverify.site import proof_links
    from docverify.site.state import SiteBuild

    page = "docs/" + languages.twin("distributed/timing.md", lang)
    resolved, problems = proofs.resolve(page, (REPO_ROOT / page).read_text("utf-8"), REPO_ROOT)
    assert not problems
    markers = {
        marker: [t for t in targets if t.page and not t.versions and t.check.cuda_only]
        for marker, targets in resolved.items()
    }
    markers = {marker: gpu for marker, gpu in markers.items() if gpu}
    assert markers, page  # the page links checks that only a GPU run reaches
    shown = SimpleNamespace(file=SimpleNamespace(src_uri="distributed/timing.md"), url="x/")

    def labels(build: SiteBuild) -> set[str]:
        found = set()
        for marker, gpu in markers.items():
            links = proof_links._links(build, resolved[marker], shown, None)
            found |= {proof_links._gpu_label(build, target) for target in gpu}
            assert all(proof_links._gpu_label(build, t) in links for t in gpu), marker
        return found

    not_run = text(lang, "proof.gpu", outcome=text(lang, "proof.gpu_not_run"))
    assert labels(SiteBuild(root=REPO_ROOT, lang=lang)) == {not_run}  # no GPU report
    recorded = SiteBuild(root=REPO_ROOT, lang=lang)
    files = {t.check.file for gpu in markers.values() for t in gpu}
    recorded.reports = {
        "cuda": {
            # of the file as it is: current
            rel: sample_result(rel, device="cuda", sha256=report.file_sha256(REPO_ROOT / rel))
            for rel in files
        }
    }
    passed = text(lang, "proof.gpu", outcome=text(lang, "proof.gpu_passed", date="2026-01-02"))
    assert labels(recorded) == {passed}  # once a current GPU run is recorded: its outcome


@pytest.mark.parametrize(
    ("lang", "label"),
    [("en", "checked on GPU only: not run yet"), ("zh", "仅在 GPU 上检查：尚未运行")],
)
def test_a_marker_with_several_gpu_checks_shows_their_label_once(lang: str, label: str) -> None:
    # `{✓ gpu-a gpu-b gpu-c cpu-d}`: a ✓ link per check, the GPU label's words once, after
    # the last GPU link, then a space, so that the next sentence does not run into them.
    from docverify.site import proof_links
    from docverify.site.state import SiteBuild

    page = SimpleNamespace(file=SimpleNamespace(src_uri="tensors/gpu.md"), url="tensors/gpu/")
    gpu = [
        proofs.Target(proofs.Check(f"gpu-{n}", "snippets/tensors/gpu.py", 10 + n, True), PAGE_GPU)
        for n in range(3)
    ]
    cpu = proofs.Target(proofs.Check("cpu-d", "snippets/tensors/gpu.py", 20), PAGE_GPU)
    build = SiteBuild(root=REPO_ROOT, lang=lang)
    shown = proof_links._links(build, [*gpu, cpu], page, None)
    assert shown.count(label) == 4  # three link titles, and the words shown once
    assert shown.count(f">✓ {label}</a> ") == 1
    assert shown.count('class="proof-link gpu"') == 3 and shown.count(">✓</a>") == 3
    assert shown.index(f">✓ {label}</a> ") > shown.rindex('href="#proof-gpu-1"')
    assert shown.index('href="#proof-cpu-d"') > shown.index(f">✓ {label}</a> ")
    # One GPU check: its label, then the space.
    single = proof_links._links(build, gpu[:1], page, None)
    assert single.endswith(f">✓ {label}</a> ") and single.count(label) == 2


PAGE_GPU = "docs/tensors/gpu.md"


def test_sentences_are_counted_as_linked_boxed_declared_or_unproven() -> None:
    markdown = (
        "# Title\n\n"
        "*中文: 张量*\n\n"
        "A summary of the page. {-} It proves one thing. {✓ a} It says another,\n"
        "e.g. about `x.view()`. And a third without proof.\n\n"
        "- a list item {✓ b}\n"
        "- another\n\n"
        "| what | shape |\n|---|---|\n| `x.t()` | 3×2 {✓ c} |\n\n"
        '!!! unverified "Not verified here: several GPUs"\n'
        "    **Why:** one GPU here. **Checked instead:** the CPU path.\n\n"
        '!!! correction "Correction: a word"\n'
        "    原文: 「复制」 (*copy*). Only `repeat` copies. {✓ d}\n\n"
        "```python\nprint(1)\n```\n"
    )
    found = [(s.line, s.kind) for s in claims.sentences("docs/p.md", markdown)]
    assert found == [
        (5, claims.DECLARED),
        (5, claims.LINKED),
        (5, claims.UNPROVEN),  # "It says another, e.g. about `x.view()`." is one sentence
        (6, claims.UNPROVEN),
        (8, claims.LINKED),
        (9, claims.UNPROVEN),
        (13, claims.LINKED),
        (16, claims.BOXED),
        (16, claims.BOXED),
        (19, claims.LINKED),
    ]
    coverage = claims.coverage("docs/p.md", markdown)
    assert (coverage.claims, round(coverage.share, 2)) == (9, 0.67)


def test_a_quote_of_the_notes_is_not_cut_or_counted_whatever_its_punctuation() -> None:
    markdown = (
        '!!! caveat "Caveat: a long quote"\n'
        "    原文: 「它复制了数据。然后\n"
        "    返回新张量」 (*it copies. then returns*). Only `repeat` copies. {✓ a}\n\n"
        "The notes call it 「复制。」 in one place. {✓ b}\n"
    )
    found = [(s.line, s.kind, s.text) for s in claims.sentences("docs/p.md", markdown)]
    assert found == [
        (3, claims.LINKED, "Only `repeat` copies. {✓ a}"),
        (5, claims.LINKED, "The notes call it 「复制。」 in one place. {✓ b}"),
    ]


# --- what the build checks of a sentence beyond its link (docverify.contract.sentence_checks) ---

PRINTING = (
    "import torch\n\n# --8<-- [start:setup]\nx = torch.ones(3)\n# --8<-- [end:setup]\n\n"
    "# --8<-- [start:sum]\nprint(x.sum())  # ✓ total\n#> tensor(3.)\n# --8<-- [end:sum]\n\n"
    "# --8<-- [start:gpu]\nif torch.cuda.is_available():  # requires: cuda\n"
    "    assert x.cuda().sum() == 3  # ✓ on-gpu\n# --8<-- [end:gpu]\n"
)
PRINTING_PAGE = PAGE.replace("page.py:sum", "page.py:sum").replace(
    "```\n\n", '```\n\n```python\n--8<-- "snippets/topic/page.py:gpu"\n```\n\n', 1
)


def _printing_site(tmp_path: Path, prose: str) -> tuple[Path, str]:
    root = _site(tmp_path, PRINTING_PAGE + prose)
    (root / "snippets/topic/page.py").write_text(PRINTING, encoding="utf-8")
    return root, (root / "docs/topic/page.md").read_text(encoding="utf-8")


def test_a_number_its_printed_check_does_not_show_fails(tmp_path: Path) -> None:
    from docverify.contract.sentence_checks import number_problems

    prose = (
        "Three ones sum to 3. {✓ total}\n\n"  # shown: tensor(3.)
        "Three ones sum to 4. {✓ total}\n\n"  # the wrong printed line: nothing shows 4
        "In torch 2.4 and 2.15 the sum is 3. {✓ total}\n\n"  # versions are the matrix's
        # Several sentences on one line (a Chinese paragraph is one line): each sentence
        # is held to its own links, not to the last link of the line.
        "GPU 上 5 个元素求和也一样。{✓ on-gpu}三个一之和为 3。{✓ total}\n\n"  # 5: no printing link
        "三个一之和为 4。{✓ total}测试检查了它。"
        "{✓ tests/test_claims.py::test_a_marker_resolves_to_the_check_line_the_page_shows}\n\n"
        # A named test the sentence links shows its numbers too, Python's 884_736 included.
        "Three ones sum to 3, and the report says 884,736. {✓ total tests/test_report.py::test_row}\n\n"
        # Skipped: a year, and the alternative a sentence rules out after "not", "instead
        # of" or "rather than"; digits are matched as text, so 88 passes where 884736 is shown.
        "In 2024 three ones summed to 3, not 4, instead of 5 or rather than 6. {✓ total}\n\n"
        "The report's first digits are 88. {✓ total tests/test_report.py::test_row}\n\n"
        # Skipped too: any number from 1900 to 2099, the notes' words in 「」, and a
        # sentence that also links a versions: check (the matrix's fold shows those numbers).
        "By 2048 the notes' 「7」 was still wrong. {✓ total}\n\n"
        "Old releases summed three ones to 4. {✓ total versions:total}\n"
    )
    root, markdown = _printing_site(tmp_path, prose)
    (root / "tests").mkdir()
    (root / "tests/test_report.py").write_text(
        "def test_row():\n    assert REPORT_MADD == 884_736\n", encoding="utf-8"
    )
    assert [str(p) for p in number_problems("docs/topic/page.md", markdown, root)] == [
        "docs/topic/page.md:17: states 4, which none of its checks (total) shows",
        "docs/topic/page.md:23: states 4, which none of its checks (total) shows",
    ]


def test_sentences_are_counted_by_what_proves_them_on_which_machine(tmp_path: Path) -> None:
    prose = (
        "Three ones sum to 3. {✓ total}\n\n"
        "On a GPU the sum is the same. {✓ on-gpu}\n\n"
        "The test suite checks it. {✓ tests/test_claims.py::test_a_marker_resolves_to_the_check_line_the_page_shows}\n"
    )
    root, markdown = _printing_site(tmp_path, prose)
    kinds = claims.proof_kinds("docs/topic/page.md", markdown, root)
    assert dict(kinds) == {claims.CPU: 2, claims.GPU_ONLY: 1}


def test_the_claims_table_counts_each_page_in_its_language_not_the_generated_pages(
    tmp_path: Path,
) -> None:
    from docverify.site.generated_pages import _claims_by_page

    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    (docs / "topic" / "page.md").write_text("# P\n\nOne sentence. {-}\n", encoding="utf-8")
    (docs / "topic" / "page.zh.md").write_text("# P\n\n一句。{-}\n\n两句。{-}\n", encoding="utf-8")
    for generated in ("errata", "tags", "verification"):  # each with a sentence not counted
        (docs / f"{generated}.md").write_text("# G\n\nA sentence. {-}\n", encoding="utf-8")
    for lang, declared in (("en", 1), ("zh", 2)):
        found = _claims_by_page(docs, lang)
        assert list(found) == ["topic/page.md"], lang
        assert found["topic/page.md"].coverage.counts[claims.DECLARED] == declared, lang


@pytest.mark.parametrize("page", _pages())
def test_a_sentence_only_a_gpu_run_checks_stands_in_a_not_verified_box(page: str) -> None:
    # index.md: what the test machines cannot check sits in a "Not verified here" box.
    markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
    outside = claims.gpu_only_outside_boxes(page, markdown, REPO_ROOT)
    assert not outside, "only GPU runs check these; put them in a Not verified here box:\n" + (
        "\n".join(f"{page}:{s.line}: {s.text[:90]}" for s in outside)
    )


def test_the_checks_the_training_index_names_as_needing_cuda_are_marked_so() -> None:
    """docs/training/index.md names four checks that need CUDA: each stands in code marked
    `# requires: cuda`, which a run without CUDA skips."""
    named = {
        "docs/training/mixed_precision.md": ["fp16-up"],
        "docs/training/gpu_memory.md": ["gpu-batch-peak", "gpu-returned"],
        "docs/training/checkpoint_resume.md": ["gpu-resume"],
    }
    for page, names in named.items():
        checks = proofs.own_checks(page, REPO_ROOT)
        assert [n for n in names if not checks[n].cuda_only] == [], page
    assert not proofs.own_checks("docs/training/autograd.md", REPO_ROOT)["accumulation"].cuda_only


def test_a_gpu_only_sentence_outside_a_box_is_found(tmp_path: Path) -> None:
    prose = (
        "Three ones sum to 3. {✓ total}\n\n"
        "On a GPU the sum is the same. {✓ on-gpu}\n\n"
        '!!! unverified "Not verified here: the GPU"\n'
        "    On a GPU the sum is 3 too. {✓ on-gpu}\n"
        "    **Why:** no GPU here. **Checked instead:** the CPU sum.\n"
    )
    root, markdown = _printing_site(tmp_path, prose)
    outside = claims.gpu_only_outside_boxes("docs/topic/page.md", markdown, root)
    assert [s.text for s in outside] == ["On a GPU the sum is the same. {✓ on-gpu}"]


def test_a_declared_sentence_that_states_a_fact_is_listed(tmp_path: Path) -> None:
    from docverify.contract.sentence_checks import declared_facts

    prose = (
        "More on this in [the shapes page](../tensors/shapes.md). {-}\n\n"  # navigation
        "`x.sum()` always returns 3. {-}\n"  # a fact under {-}
    )
    root, markdown = _printing_site(tmp_path, prose)
    assert [s.line for s in declared_facts("docs/topic/page.md", markdown)] == [17]
