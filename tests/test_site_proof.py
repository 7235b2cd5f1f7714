"""Badges, the Verification page and the Errata page follow the reports and the pages."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from docverify import verification
from docverify.embeds import find_fences
from docverify.paths import DOCS_DIR, REPO_ROOT
from hooks import verification as site

PAGE = "docs/tensors/reshape.md"
SNIPPET = "snippets/tensors/reshape.py"


def result(outcome: str, device: str = "cpu") -> verification.SnippetResult:
    return verification.SnippetResult(
        snippet=SNIPPET,
        device=device,
        outcome=outcome,
        sections=("view",),
        duration_s=0.1,
        date="2026-01-02",
        commit="abc1234",
        torch="2.14.1",
        python="3.11.7",
        machine="test machine",
    )


@pytest.fixture
def reports_dir(tmp_path: Path) -> Path:
    return tmp_path / "reports"


def reports(reports_dir: Path) -> dict:
    return {d: verification.load_results(d, reports_dir) for d in verification.DEVICES}


def test_every_embedded_code_block_gets_a_badge_that_follows_the_report(reports_dir: Path) -> None:
    markdown = (REPO_ROOT / PAGE).read_text(encoding="utf-8")
    fences = len(find_fences(PAGE, markdown))

    unverified = site.add_badges(PAGE, markdown, reports(reports_dir))
    assert unverified.count("not verified in this build") == fences

    verification.merge_results([result("passed")], reports_dir)
    passed = site.add_badges(PAGE, markdown, reports(reports_dir))
    assert passed.count("verified · torch 2.14.1 · CPU · 2026-01-02") == fences

    verification.merge_results([result("failed")], reports_dir)
    failed = site.add_badges(PAGE, markdown, reports(reports_dir))
    assert failed.count("FAILED on CPU") == fences


def test_gpu_report_adds_gpu_to_the_badge(reports_dir: Path) -> None:
    verification.merge_results([result("passed"), result("passed", "cuda")], reports_dir)
    assert "CPU + GPU" in site.badge(SNIPPET, reports(reports_dir))


def test_reports_merge_per_snippet_and_drop_deleted_files(reports_dir: Path) -> None:
    gone = dataclasses.replace(result("passed"), snippet="snippets/tensors/deleted.py")
    verification.merge_results([result("passed"), gone], reports_dir)
    assert set(verification.load_results("cpu", reports_dir)) == {SNIPPET}


def test_verification_table_lists_both_devices(reports_dir: Path) -> None:
    verification.merge_results([result("passed"), result("failed", "cuda")], reports_dir)
    table = site.verification_table(reports(reports_dir))
    assert f"| `{SNIPPET}` | view | passed" in table
    assert "**FAILED**" in table


def test_errata_grow_when_a_page_adds_a_correction(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "topic").mkdir(parents=True)
    page = docs / "topic" / "page.md"
    page.write_text('# T\n\n!!! correction "Correction: first"\n    原文: a\n', encoding="utf-8")
    assert site.corrections(docs) == [("topic/page.md", "Correction: first", "原文: a")]
    page.write_text(
        page.read_text(encoding="utf-8") + '\n??? correction "Correction: second"\n    原文: b\n',
        encoding="utf-8",
    )
    listed = site.errata_list(docs)
    assert "[Correction: first](topic/page.md)" in listed
    assert "[Correction: second](topic/page.md)" in listed


def test_errata_of_the_real_site_include_every_correction_box() -> None:
    boxes = sum(
        md.read_text(encoding="utf-8").count("!!! correction") for md in DOCS_DIR.rglob("*.md")
    )
    assert len(site.corrections(DOCS_DIR)) == boxes > 0


def test_run_command_uses_torchrun_for_launched_snippets(tmp_path: Path) -> None:
    assert site.run_command(SNIPPET) == f"python {SNIPPET}"
    launched = tmp_path / "ddp.py"
    launched.write_text("# launch: torchrun --nproc_per_node=2\nprint(1)\n", encoding="utf-8")
    assert site.run_command(str(launched)) == f"torchrun --nproc_per_node=2 {launched}"
