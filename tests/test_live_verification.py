"""Honest badges (content hashes) and live verification under `mkdocs serve` (issue 11, parts 3-4).

Each live guarantee is tried on a snippet that breaks it: a stale `#>` line, a
raising line, a crash, a changed helper module, an edit after the report.
"""

from __future__ import annotations

import gc
import html
import json
import logging
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import markdown as markdown_lib
import pytest
from sample_results import sample_result

from docverify import live, verification
from docverify.paths import REPO_ROOT
from harness import live_worker
from hooks import verification as site


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def result(snippet: str, sha256: str, outcome: str = "passed", via: str = "pytest"):
    return sample_result(snippet, sha256=sha256, outcome=outcome, via=via)


STALE = """\
'''A demo snippet.'''

# --8<-- [start:demo]
print(1 + 1)
#> 3
# --8<-- [end:demo]
"""


# --- badges follow the bytes they vouch for ---------------------------------------------------


def test_a_changed_file_flips_the_badge_and_an_unchanged_one_keeps_verified(tmp_path: Path):
    rel = "snippets/demo/page.py"
    path = write(tmp_path / rel, STALE.replace("#> 3", "#> 2"))
    reports = {"cpu": {rel: result(rel, verification.file_sha256(path))}}

    unchanged = site.badge(rel, reports, root=tmp_path)
    assert 'class="snippet-badge verified"' in unchanged
    assert "changed since last verification" not in unchanged

    path.write_text(path.read_text(encoding="utf-8") + "print(3)\n", encoding="utf-8")
    changed = site.badge(rel, reports, root=tmp_path)
    assert 'class="snippet-badge changed"' in changed
    assert "changed since last verification" in changed
    assert "verified ·" not in changed.replace("last verified", "")


def test_a_result_without_a_hash_never_vouches(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, STALE)
    assert "changed since last verification" in site.badge(
        rel, {"cpu": {rel: result(rel, "")}}, root=tmp_path
    )


def test_a_report_of_the_old_schema_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "cpu.json").write_text(
        json.dumps({"schema": 1, "device": "cpu", "results": []}), encoding="utf-8"
    )
    assert verification.load_results("cpu", tmp_path) == {}


def test_the_report_records_hashes_and_is_written_atomically(tmp_path: Path) -> None:
    rel = "snippets/tensors/reshape.py"
    sha = verification.file_sha256(REPO_ROOT / rel)
    verification.merge_results([result(rel, sha, via=live.VIA)], tmp_path)
    data = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    assert data["schema"] == verification.SCHEMA == 2
    assert data["results"][0]["sha256"] == sha
    assert data["results"][0]["page_program_sha256"] == ""
    assert data["results"][0]["via"] == "mkdocs serve"
    assert [p.name for p in tmp_path.iterdir()] == ["cpu.json"]  # no temporary file left


def test_a_recorded_page_program_hash_is_compared_too(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    path = write(tmp_path / rel, STALE)
    program = "print(1 + 1)\n"
    recorded = sample_result(
        rel,
        sha256=verification.file_sha256(path),
        page_program_sha256=verification.content_sha256(program.encode()),
    )
    assert verification.is_current(recorded, tmp_path, program)
    assert not verification.is_current(recorded, tmp_path, program + "print(2)\n")


def test_the_hash_is_of_the_text_that_ran_not_of_a_later_edit(tmp_path: Path) -> None:
    path = write(tmp_path / "x.py", "print(1)\n")
    ran = path.read_text(encoding="utf-8")
    assert verification.verified_sha256(path, ran) == verification.file_sha256(path)
    path.write_text("print(2)\n", encoding="utf-8")  # saved while the run was going on
    assert verification.verified_sha256(path, ran) == ""


# --- the worker's check is the suite's check ----------------------------------------------------


def test_the_worker_returns_the_diff_of_a_stale_output_line(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    path = write(tmp_path / rel, STALE)
    reply = live_worker.check(tmp_path, rel, "cpu")
    assert reply["outcome"] == "failed"
    assert reply["sha256"] == verification.file_sha256(path)
    assert reply["detail"].startswith(f"{rel}:5: `#>` output lines differ")
    assert "\n-#> 3\n+#> 2\n" in reply["detail"]

    path.write_text(path.read_text(encoding="utf-8").replace("#> 3", "#> 2"), encoding="utf-8")
    fixed = live_worker.check(tmp_path, rel, "cpu")
    assert (fixed["outcome"], fixed["detail"]) == ("passed", "")
    assert fixed["sections"] == ["demo"]


def test_the_worker_returns_the_traceback_from_the_snippets_own_line(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, "import torch\n\ntorch.zeros(2).view(3)\n")
    reply = live_worker.check(tmp_path, rel, "cpu")
    assert reply["outcome"] == "failed"
    assert reply["detail"].startswith("Traceback (most recent call last):")
    assert f'{tmp_path / rel}", line 3, in <module>' in reply["detail"]
    assert "RuntimeError: shape '[3]' is invalid for input of size 2" in reply["detail"]
    assert "run_snippet.py" not in reply["detail"]  # the harness's own frames are left out


@pytest.fixture(scope="module")
def warm_worker():
    worker = live.Worker(REPO_ROOT)
    worker.start()
    assert worker.wait_ready(), "the live worker did not start"
    yield worker
    worker.close()


def test_the_warm_worker_reruns_a_saved_snippet_in_a_fresh_fork(
    warm_worker: live.Worker, tmp_path: Path
) -> None:
    assert set(warm_worker.environment) == {"torch", "python", "machine"}
    path = write(tmp_path / "page.py", STALE)
    reply = warm_worker.check(str(path), timeout=60)
    assert reply["outcome"] == "failed"
    assert "\n-#> 3\n+#> 2\n" in reply["detail"]

    # A helper module the snippet imports is imported afresh on every run.
    write(tmp_path / "_helper.py", "VALUE = 1\n")
    write(tmp_path / "uses.py", "from _helper import VALUE\n\nprint(VALUE)\n#> 1\n")
    assert warm_worker.check(str(tmp_path / "uses.py"))["outcome"] == "passed"
    write(tmp_path / "_helper.py", "VALUE = 2\n")
    changed = warm_worker.check(str(tmp_path / "uses.py"))
    assert "\n-#> 1\n+#> 2" in changed["detail"]

    # A crash takes down only the fork: the warm worker answers the next request.
    write(
        tmp_path / "crash.py", "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    crashed = warm_worker.check(str(tmp_path / "crash.py"))
    assert crashed["outcome"] == "failed"
    assert "crashed (signal 9)" in crashed["detail"]
    start = time.perf_counter()
    again = warm_worker.check(str(tmp_path / "uses.py"))
    assert again["outcome"] == "failed"  # still the `#> 1` vs 2 diff: an answer, not a restart
    assert warm_worker.alive()
    print(f"warm re-run answered in {time.perf_counter() - start:.2f} s")


# --- on the page -----------------------------------------------------------------------------------


def session(root: Path, worker=None) -> live.LiveSession:
    return live.LiveSession(root=root, reports_dir=root / ".reports", worker=worker)


class StubWorker:
    """Answers like the real worker, without torch: the reply is given by the test."""

    environment = {"torch": "2.14.1", "python": "3.11.7", "machine": "stub"}

    def __init__(self, root: Path, outcome: str = "failed", detail: str = "") -> None:
        self.root, self.outcome, self.detail = root, outcome, detail
        self.calls: list[str] = []

    def check(self, snippet: str, device: str = "cpu", timeout: float = 60) -> dict:
        self.calls.append(snippet)
        return {
            "snippet": snippet,
            "device": device,
            "outcome": self.outcome,
            "sha256": verification.file_sha256(self.root / snippet),
            "sections": ["demo"],
            "duration_s": 0.01,
            "detail": self.detail,
        }

    def close(self) -> None:
        pass


PAGE = """
    # Demo page

    *中文: 演示*

    ```python
    --8<-- "snippets/demo/page.py:demo"
    ```
"""
# Lines that must come through the page verbatim: Markdown, fences, an embed, HTML.
TRICKY = '--- a\n+++ b\n-#> 3\n+#> 2\n ```python\n --8<-- "snippets/x.py"\n <b>*not bold*</b> & `x`'


def test_a_live_failure_is_shown_on_the_page_verbatim(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, STALE)
    live_session = session(tmp_path, StubWorker(tmp_path, detail=TRICKY))
    assert live_session.verify([rel]) == [rel]

    annotated = live_session.annotate("docs/demo/page.md", textwrap.dedent(PAGE).lstrip())
    assert annotated.index("# Demo page") < annotated.index("Live verification FAILED")
    assert annotated.index("Live verification FAILED") < annotated.index("```python")
    rendered = markdown_lib.markdown(
        annotated, extensions=["admonition", "md_in_html", "pymdownx.superfences"]
    )
    start = rendered.index('<div class="admonition failure live-failure">')
    box = rendered[start : rendered.index("</p></div>", start)]
    shown = box[box.index('<div class="live-detail"><code>') : box.index("</code></div>")]
    assert html.unescape(shown.removeprefix('<div class="live-detail"><code>')) == TRICKY
    assert "<pre" not in box  # `<pre>` is for code blocks, each with exactly one badge

    # The report follows: the badge says FAILED, from the live run.
    reports = {"cpu": verification.load_results("cpu", tmp_path / ".reports", root=tmp_path)}
    assert reports["cpu"][rel].via == "mkdocs serve"
    assert "FAILED on CPU (mkdocs serve)" in site.badge(rel, reports, root=tmp_path)

    # Edited again (not yet re-run): the old failure is no longer shown as current.
    (tmp_path / rel).write_text(STALE.replace("#> 3", "#> 2"), encoding="utf-8")
    assert "Live verification FAILED" not in live_session.annotate("docs/demo/page.md", PAGE)
    assert "changed since last verification" in site.badge(rel, reports, root=tmp_path)


def test_launched_and_cuda_snippets_say_make_test_verifies_them(tmp_path: Path) -> None:
    write(tmp_path / "snippets/d/ddp.py", "# launch: torchrun --nproc_per_node=2\nprint(1)\n")
    write(tmp_path / "snippets/d/gpu.py", "# requires: cuda\nprint(1)\n")
    stub = StubWorker(tmp_path, outcome="passed")
    live_session = session(tmp_path, stub)
    live_session.verify(["snippets/d/ddp.py", "snippets/d/gpu.py"])
    assert stub.calls == []  # neither is run live
    page = '# T\n\n```python\n--8<-- "snippets/d/ddp.py"\n```\n\n```python\n--8<-- "snippets/d/gpu.py"\n```\n'
    annotated = live_session.annotate("docs/d/t.md", page)
    assert "<code>snippets/d/ddp.py</code>: it is launched with torchrun" in annotated
    assert "<code>snippets/d/gpu.py</code>: it needs CUDA" in annotated
    assert annotated.count("verified by <code>make test</code> only") == 2


def test_without_torch_live_verification_is_off_with_one_clear_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(live, "torch_importable", lambda: False)
    with caplog.at_level(logging.INFO, logger="mkdocs.live_verification"):
        live_session = live.start(tmp_path, tmp_path / ".reports")
    try:
        assert not live_session.enabled
        assert [r.getMessage() for r in caplog.records] == [
            "Live verification is off: torch is not installed here (docs-only requirements). "
            "Badges show the last `make test` report."
        ]
        write(tmp_path / "snippets/d/x.py", STALE)
        assert live_session.verify(["snippets/d/x.py"]) == []
    finally:
        live.stop()


def test_a_worker_that_cannot_start_turns_live_verification_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path / "snippets/d/x.py", STALE)
    live_session = session(tmp_path, live.Worker(tmp_path))  # no tests/harness there
    live_session.worker.start()
    live_session.worker._proc.wait()  # dead before the first check: the check starts it again
    with caplog.at_level(logging.INFO, logger="mkdocs.live_verification"):
        assert live_session.verify(["snippets/d/x.py"]) == []
    assert not live_session.enabled
    assert "Live verification is off from now on" in caplog.text
    assert live_session.annotate("docs/d/x.md", '# X\n\n```python\n--8<-- "snippets/d/x.py"\n```\n')
    gc.collect()  # a dead worker's pipes left open would warn now (ResourceWarning), not later


def test_the_hooks_do_not_import_torch() -> None:
    code = textwrap.dedent(
        """
        import importlib.util, sys
        for name in ("snippet_embeds", "live_verification", "verification"):
            spec = importlib.util.spec_from_file_location(name, f"hooks/{name}.py")
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# --- under `mkdocs serve`: a save re-runs the snippet and rebuilds only its pages -------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "hooks").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "hooks" / "live_verification.py", root / "hooks")
    write(
        root / "mkdocs.yml",
        """
        site_name: live demo
        theme: {name: material}
        plugins: [search]
        hooks: [hooks/live_verification.py, hooks/copies.py]
        watch: [snippets]
        markdown_extensions:
          - admonition
          - md_in_html
          - pymdownx.superfences
          - pymdownx.snippets: {base_path: ["ROOT"], check_paths: true, dedent_subsections: true}
        nav: [index.md, demo/page.md, demo/other.md, verification.md]
        """.replace("ROOT", str(root)),
    )
    # A hook that generates a site file from a snippet, as hooks/downloads.py does.
    write(
        root / "hooks/copies.py",
        """
        from pathlib import Path

        from mkdocs.structure.files import File


        def on_files(files, config):
            source = Path(config.config_file_path).parent / "snippets/demo/page.py"
            files.append(File.generated(config, "demo/page.txt", content=source.read_text()))
            return files
        """,
    )
    write(root / "docs/index.md", "# Home\n")
    write(root / "docs/verification.md", "# Verification\n")
    write(root / "docs/demo/page.md", PAGE)
    write(root / "docs/demo/other.md", "# Other\n\nNo code here.\n")
    write(root / "snippets/demo/page.py", STALE.replace("#> 3", "#> 2"))
    return root


def test_a_saved_snippet_is_rerun_and_only_its_pages_rebuilt(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site_dir = project.parent / "site"

    def config():
        return load_config(config_file=str(project / "mkdocs.yml"), site_dir=str(site_dir))

    full_builds = []

    def full_build() -> None:  # what `mkdocs serve` does on a rebuild
        full_builds.append(1)
        build(config(), serve_url="http://127.0.0.1:8000/")

    stub = StubWorker(project, detail="-#> 2\n+#> 3")
    monkeypatch.setattr(live, "SESSION", session(project, stub))
    server = SimpleNamespace(builder=full_build)
    live.SESSION.attach(server, full_build, config())
    server.builder()  # the first rebuild: nothing changed, a full build
    assert len(full_builds) == 1 and stub.calls == []
    page_html = site_dir / "demo/page/index.html"
    other_html = site_dir / "demo/other/index.html"
    other_before = other_html.stat().st_mtime_ns

    snippet = project / "snippets/demo/page.py"
    snippet.write_text(STALE.replace("print(1 + 1)", "print(1 + 2)"), encoding="utf-8")
    start = time.perf_counter()
    server.builder()
    elapsed = time.perf_counter() - start
    assert stub.calls == ["snippets/demo/page.py"]  # re-run: only the saved snippet
    assert len(full_builds) == 1  # and no full build
    html = page_html.read_text(encoding="utf-8")
    assert 'print</span><span class="p">(</span><span class="mi">1</span>' in html
    assert "Live verification FAILED: snippets/demo/page.py" in html
    assert "-#&gt; 2&#10;+#&gt; 3" in html
    assert other_html.stat().st_mtime_ns == other_before  # a page that does not embed it
    assert elapsed < 5, f"page rebuild took {elapsed:.2f} s"
    live.SESSION._finish_background()  # files hooks generate are rewritten after the reload
    assert "print(1 + 2)" in (site_dir / "demo/page.txt").read_text(encoding="utf-8")

    # A page edit is not a snippet save: the usual full build.
    (project / "docs/demo/other.md").write_text("# Other\n\nEdited.\n", encoding="utf-8")
    server.builder()
    assert len(full_builds) == 2 and stub.calls == ["snippets/demo/page.py"]
    assert "Edited." in other_html.read_text(encoding="utf-8")
