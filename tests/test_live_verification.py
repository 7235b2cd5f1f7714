"""Honest badges (content hashes) and live verification under `mkdocs serve`.

Each live guarantee is tried on a snippet that breaks it: a stale `#>` line, a
raising line, a syntax error, a crash, a hang, a changed helper module, an edit
after the report; and the whole loop (save, re-run, rebuild) on a copy of this
site with the real mkdocs.yml, both languages.
"""

from __future__ import annotations

import html
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import markdown as markdown_lib
import pytest
from sample_results import sample_result

from docverify.paths import REPO_ROOT
from docverify.results import report
from docverify.run import live_check
from docverify.site import badges, live


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
    reports = {"cpu": {rel: result(rel, report.file_sha256(path))}}

    unchanged = badges.badge(rel, reports, root=tmp_path).html()
    assert 'class="snippet-badge verified"' in unchanged
    assert "changed since last verification" not in unchanged

    path.write_text(path.read_text(encoding="utf-8") + "print(3)\n", encoding="utf-8")
    changed = badges.badge(rel, reports, root=tmp_path).html()
    assert 'class="snippet-badge changed"' in changed
    assert "changed since last verification" in changed
    assert "verified ·" not in changed.replace("last verified", "")


def test_a_result_without_a_hash_never_vouches(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, STALE)
    reports = {"cpu": {rel: result(rel, "")}}
    assert "changed since last verification" in badges.badge(rel, reports, root=tmp_path).words


def test_a_report_of_the_old_schema_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "cpu.json").write_text(
        json.dumps({"schema": 1, "device": "cpu", "results": []}), encoding="utf-8"
    )
    assert report.load_results("cpu", tmp_path) == {}


def test_the_report_records_hashes_and_is_written_atomically(tmp_path: Path) -> None:
    rel = "snippets/tensors/reshape.py"
    sha = report.file_sha256(REPO_ROOT / rel)
    report.merge_results([result(rel, sha, via=live.VIA)], tmp_path)
    data = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    assert data["schema"] == report.SCHEMA == 4
    assert data["results"][0]["sha256"] == sha
    assert data["results"][0]["via"] == "mkdocs serve"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cpu.json.lock", "cpu.json"]


def test_the_hash_is_of_the_text_that_ran_not_of_a_later_edit(tmp_path: Path) -> None:
    path = write(tmp_path / "x.py", "print(1)\n")
    ran = path.read_text(encoding="utf-8")
    assert report.verified_sha256(path, ran) == report.file_sha256(path)
    path.write_text("print(2)\n", encoding="utf-8")  # saved while the run was going on
    assert report.verified_sha256(path, ran) == ""


def test_a_merge_waits_for_the_lock_so_no_result_is_lost(tmp_path: Path) -> None:
    """A test run and `mkdocs serve` both merge into the report: read-merge-write is one
    step under the report's lock, so neither writer drops the other's result."""
    import threading

    rel = "snippets/tensors/reshape.py"
    first = result(rel, "a")
    report.merge_results([first], tmp_path, root=REPO_ROOT)
    second = result("snippets/tensors/shapes.py", "b")
    from filelock import FileLock

    with FileLock(tmp_path / ".cpu.json.lock"):
        writer = threading.Thread(target=report.merge_results, args=([second], tmp_path))
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive()  # waiting for the lock the other writer holds
    writer.join(timeout=10)
    assert set(report.load_results("cpu", tmp_path, root=REPO_ROOT)) == {rel, second.snippet}


# --- one live run: the suite's own check, in a child of a warm forkserver -------------------


def test_the_check_returns_the_diff_of_a_stale_output_line(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    path = write(tmp_path / rel, STALE)
    reply = live_check.check(tmp_path, rel, "cpu", live.VIA)
    result = report.SnippetResult.from_dict(reply["result"])  # the form the test run sends
    assert (result.outcome, result.via) == ("failed", live.VIA)
    assert result.sha256 == report.file_sha256(path)
    assert reply["detail"].startswith(f"{rel}:5: `#>` output lines differ")
    assert "\n-#> 3\n+#> 2\n" in reply["detail"]

    path.write_text(path.read_text(encoding="utf-8").replace("#> 3", "#> 2"), encoding="utf-8")
    fixed = live_check.check(tmp_path, rel, "cpu", live.VIA)
    assert (fixed["result"]["outcome"], fixed["detail"]) == ("passed", "")
    assert fixed["result"]["sections"] == ("demo",)


def test_the_check_returns_the_traceback_from_the_snippets_own_line(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, "import torch\n\ntorch.zeros(2).view(3)\n")
    reply = live_check.check(tmp_path, rel, "cpu", live.VIA)
    assert reply["result"]["outcome"] == "failed"
    assert reply["detail"].startswith("Traceback (most recent call last):")
    assert f'{tmp_path / rel}", line 3, in <module>' in reply["detail"]
    assert "RuntimeError: shape '[3]' is invalid for input of size 2" in reply["detail"]
    assert "run_snippet.py" not in reply["detail"]  # the runner's own frames are left out
    write(tmp_path / rel, "print(1\n")  # a syntax error is a failed run, not a crash
    broken = live_check.check(tmp_path, rel, "cpu", live.VIA)
    assert broken["result"]["outcome"] == "failed" and "SyntaxError" in broken["detail"]
    assert f'{tmp_path / rel}", line 1' in broken["detail"]


def test_each_run_is_a_fresh_child_that_cannot_take_the_server_down(tmp_path: Path) -> None:
    live.warm_up(REPO_ROOT)
    write(tmp_path / "_helper.py", "VALUE = 1\n")
    write(tmp_path / "uses.py", "from _helper import VALUE\n\nprint(VALUE)\n#> 1\n")
    assert live.run_in_child(tmp_path, "uses.py", 60)["result"]["outcome"] == "passed"
    write(tmp_path / "_helper.py", "VALUE = 2\n")  # imported afresh by the next run
    assert "\n-#> 1\n+#> 2" in live.run_in_child(tmp_path, "uses.py", 60)["detail"]

    write(
        tmp_path / "crash.py", "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    crashed = live.run_in_child(tmp_path, "crash.py", 60)
    assert crashed == {
        "result": None,
        "detail": "the run of crash.py crashed (signal 9) before it could reply",
    }
    write(tmp_path / "hang.py", "import time\n\ntime.sleep(3600)\n")
    hung = live.run_in_child(tmp_path, "hang.py", -live.GRACE_S + 0.5)  # its own limit passed
    assert hung["detail"] == "hang.py ran longer than 0 s and was stopped"
    assert live.run_in_child(tmp_path, "uses.py", 60)["result"]["outcome"] == "failed"  # answers


# --- on the page -----------------------------------------------------------------------------------


class StubRunner:
    """Answers like a live run, without torch: the reply is given by the test."""

    def __init__(self, outcome: str = "failed", detail: str = "") -> None:
        self.outcome, self.detail = outcome, detail
        self.calls: list[str] = []

    def __call__(self, root: Path, rel: str, timeout_s: float) -> dict:
        self.calls.append(rel)
        environment = {"date": "2026-01-02", "commit": "abc1234", "torch": "2.14.1"}
        result = report.record(
            rel,
            "cpu",
            root=root,
            sha256=report.file_sha256(root / rel) or "",
            sections=("demo",),
            outcome=self.outcome,
            via=live.VIA,
            environment={**environment, "python": "3.11.7", "machine": "stub"},
        )
        return {"result": result.to_dict(), "detail": self.detail}


def session(root: Path, run=None) -> live.LiveSession:
    return live.LiveSession(root=root, reports_dir=root / ".reports", run=run)


PAGE = """
    # Demo page

    *中文: 演示*

    ```python
    --8<-- "snippets/demo/page.py:demo"
    ```
"""
# Lines that must come through the page verbatim: Markdown, fences, an embed, HTML.
TRICKY = '--- a\n+++ b\n-#> 3\n+#> 2\n ```python\n --8<-- "snippets/x.py"\n <b>*not bold*</b> & `x`'


def test_a_live_failure_is_shown_on_the_page_verbatim_in_its_language(tmp_path: Path) -> None:
    rel = "snippets/demo/page.py"
    write(tmp_path / rel, STALE)
    live_session = session(tmp_path, StubRunner(detail=TRICKY))
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
    chinese = live_session.annotate("docs/demo/page.zh.md", textwrap.dedent(PAGE).lstrip(), "zh")
    assert "实时验证失败：snippets/demo/page.py" in chinese
    assert "Live verification" not in chinese and "Fix the snippet" not in chinese

    # The report follows: the badge says FAILED, from the live run.
    reports = {"cpu": report.load_results("cpu", tmp_path / ".reports", root=tmp_path)}
    assert reports["cpu"][rel].via == "mkdocs serve"
    assert "FAILED on CPU (mkdocs serve)" in badges.badge(rel, reports, root=tmp_path).html()

    # Edited again (not yet re-run): the old failure is no longer shown as current.
    (tmp_path / rel).write_text(STALE.replace("#> 3", "#> 2"), encoding="utf-8")
    assert "Live verification FAILED" not in live_session.annotate("docs/demo/page.md", PAGE)
    assert "changed since last verification" in badges.badge(rel, reports, root=tmp_path).html()


def test_launched_and_cuda_snippets_say_make_test_verifies_them(tmp_path: Path) -> None:
    write(tmp_path / "snippets/d/ddp.py", "# launch: torchrun --nproc_per_node=2\nprint(1)\n")
    write(tmp_path / "snippets/d/gpu.py", "# requires: cuda\nprint(1)\n")
    stub = StubRunner(outcome="passed")
    live_session = session(tmp_path, stub)
    live_session.verify(["snippets/d/ddp.py", "snippets/d/gpu.py"])
    assert stub.calls == []  # neither is run live
    page = '# T\n\n```python\n--8<-- "snippets/d/ddp.py"\n```\n\n```python\n--8<-- "snippets/d/gpu.py"\n```\n'
    annotated = live_session.annotate("docs/d/t.md", page)
    assert "<code>snippets/d/ddp.py</code>: it is launched with torchrun" in annotated
    assert "<code>snippets/d/gpu.py</code>: it needs CUDA" in annotated
    assert annotated.count("verified by <code>make test</code> only") == 2
    assert "它只由 <code>make test</code> 验证" in live_session.annotate(
        "docs/d/t.zh.md", page, "zh"
    )


def test_without_torch_live_verification_is_off_with_one_clear_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(live, "torch_importable", lambda: False)
    with caplog.at_level(logging.INFO, logger="mkdocs.live_verification"):
        live_session = live.start(tmp_path, tmp_path / ".reports")
    try:
        assert live_session.run is None
        assert [r.getMessage() for r in caplog.records] == [
            "Live verification is off: torch is not installed here (docs-only requirements). "
            "Badges show the last `make test` report."
        ]
        write(tmp_path / "snippets/d/x.py", STALE)
        assert live_session.verify(["snippets/d/x.py"]) == []
    finally:
        live.stop()


def test_the_plugin_does_not_import_torch() -> None:
    code = textwrap.dedent(
        """
        import sys
        from importlib.metadata import entry_points
        (plugin,) = [e for e in entry_points(group="mkdocs.plugins") if e.name == "notes"]
        plugin.load()  # as MkDocs loads it: every phase with it
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy")))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.strip() == "[]"


# --- under `mkdocs serve --dirty`: a save re-runs the snippet and rebuilds only its pages ---------


@pytest.fixture
def site_copy(tmp_path: Path) -> Path:
    """This site (real mkdocs.yml, both languages, this checkout's plugin) in a folder of its own,
    with one section of pages: it builds in a fifth of the time, and the rest of
    the navigation is reported missing, as MkDocs does for any page not found. The
    top-level pages come along, so their proof links must point into tensors/ (a link
    elsewhere fails this build, naming the page and line)."""
    root = tmp_path / "site-copy"
    docs = REPO_ROOT / "docs"
    sections = [p.name for p in docs.iterdir() if p.is_dir() and any(p.glob("*.md"))]
    shutil.copytree(
        docs,
        root / "docs",
        ignore=lambda folder, names: [
            n for n in sections if folder == str(docs) and n != "tensors"
        ],
    )
    # The pages, everything they embed, and what builds them.
    for name in (
        "snippets",
        "environment-setup",
        ".run",
        "benchmarks",
        "overrides",
        "tests",  # pages link named tests as proofs
    ):
        shutil.copytree(REPO_ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    # (the requirements: the matrix's stacks; requirements.txt includes the docs set)
    for name in ("mkdocs.yml", "requirements.txt", "requirements-docs.txt"):
        shutil.copy2(REPO_ROOT / name, root / name)
    # No plugin code of its own: it builds with this checkout's (nothing to watch there).
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    (root / "mkdocs.yml").write_text(config.replace("  - src/docverify\n", ""), encoding="utf-8")
    return root


def test_make_serve_s_english_only_build_renders(site_copy: Path) -> None:
    """`make serve` builds one edition (NOTES_ZH=false): every page's head once took the
    first of an empty list of language twins, and the README's first command failed."""
    env = {**os.environ, "NOTES_ZH": "false", "NO_MKDOCS_2_WARNING": "1"}
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO_ROOT / "src"), env.get("PYTHONPATH")])
    )
    site_dir = site_copy.parent / "built-en"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site_dir)],
        cwd=site_copy,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (site_dir / "tensors" / "reshape" / "index.html").is_file()
    assert not (site_dir / "zh").exists()


def test_a_saved_snippet_rebuilds_its_pages_in_both_languages_and_nothing_else(
    site_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site_dir = site_copy.parent / "built"
    monkeypatch.setattr(sys, "argv", ["mkdocs", "serve", "--dirty"])  # read by mkdocs-static-i18n
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    stub = StubRunner(detail="-#> torch.Size([2, 2, 8, 8])\n+#> torch.Size([4, 4])")
    monkeypatch.setattr(live, "SESSION", None)

    def rebuild(dirty: bool = True) -> None:  # what `mkdocs serve --dirty` does on a change
        config = load_config(config_file=str(site_copy / "mkdocs.yml"), site_dir=str(site_dir))
        if live.SESSION is None:
            config.plugins.on_startup(command="serve", dirty=dirty)
            live.SESSION.run = stub  # no torch in this test: the runner is the stub
            live.SESSION.root = site_copy
            live.SESSION.reports_dir = site_copy / ".reports"
        build(config, serve_url="http://127.0.0.1:8000/", dirty=dirty)

    try:
        rebuild(dirty=False)  # the first build of `mkdocs serve`
        built = {
            name: site_dir / path
            for name, path in {
                "en": "tensors/reshape/index.html",
                "zh": "zh/tensors/reshape/index.html",
                "verification": "verification/index.html",
                "verification zh": "zh/verification/index.html",
                "other": "tensors/shapes/index.html",
                "other zh": "zh/tensors/shapes/index.html",
            }.items()
        }
        before = {name: path.stat().st_mtime_ns for name, path in built.items()}

        def search_documents() -> dict[str, int]:
            found = {}
            for lang in ("en", "zh"):
                found[lang] = len(json.loads((site_dir / f"search/{lang}.json").read_text("utf-8")))
            return found

        searched = search_documents()
        section = len(list((site_copy / "docs/tensors").glob("*.zh.md")))
        assert min(searched.values()) > section  # the section's pages and the home page, at least

        snippet = site_copy / "snippets/tensors/reshape.py"
        snippet.write_text(snippet.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        rebuild()
        assert stub.calls == ["snippets/tensors/reshape.py"]
        after = {name: path.stat().st_mtime_ns for name, path in built.items()}
        assert [name for name in built if after[name] != before[name]] == [
            "en",
            "zh",
            "verification",
            "verification zh",
        ]
        assert "Live verification FAILED: snippets/tensors/reshape.py" in built["en"].read_text()
        assert "实时验证失败：snippets/tensors/reshape.py" in built["zh"].read_text()
        for name in ("en", "zh"):
            assert 'class="snippet-badge failed"' in built[name].read_text(encoding="utf-8")
        assert "FAILED" in built["verification"].read_text(encoding="utf-8")
        assert search_documents() == searched  # every page, not only the ones rebuilt

        # A syntax error saved while serving: the build goes on, the page says what is wrong.
        stub.detail = "SyntaxError: '(' was never closed"
        snippet.write_text(snippet.read_text(encoding="utf-8") + "print(1\n", encoding="utf-8")
        rebuild()
        assert "SyntaxError: &#x27;(&#x27; was never closed" in built["en"].read_text()

        a_saved_page_drops_its_pages_only(site_copy, site_dir)
    finally:
        live.stop()


def a_saved_page_drops_its_pages_only(site_copy: Path, site_dir: Path) -> None:
    """What the live session removes before `mkdocs serve` rebuilds after a page's save."""
    # A page's prose saved: that page goes in both languages, with the pages that count
    # every page's sentences and boxes (home, Verification, Errata), and no other.
    page = site_copy / "docs/tensors/shapes.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\nEdited. {-}\n", encoding="utf-8")
    kept = {p for p in site_dir.rglob("index.html")}
    live.SESSION.before_build(site_dir, site_copy / "docs")
    gone = {p.relative_to(site_dir).as_posix() for p in kept if not p.exists()}
    assert gone == {
        f"{edition}{page}index.html"
        for edition in ("", "zh/")
        for page in ("", "tensors/shapes/", "verification/", "errata/")
    }
    # Its front matter saved (its title, place or summary show on every page): all go.
    page.write_text(text.replace("weight:", "weight: 1 #", 1), encoding="utf-8")
    live.SESSION.before_build(site_dir, site_copy / "docs")
    assert not list(site_dir.rglob("index.html"))
