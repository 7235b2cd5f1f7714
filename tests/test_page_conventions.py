"""Conventions every content page follows (CONTRIBUTING.md, "Add a page").

- file names are snake_case, and a page's own snippet file has its name:
  docs/<section>/<page>.md embeds snippets/<section>/<page>.py;
- every content page has at least one lookup in tests/search_cases.yaml (the
  browser test then checks that the query finds it).

The other steps are checked elsewhere: nav and links by `mkdocs build
--strict`, tags, the 中文 line and the section index link by
tests/test_docs_contract.py, the set-up block and the page program by
tests/test_page_programs.py.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from docverify import yaml_data
from docverify.contract import snippets as snippet_file
from docverify.contract.line_trace import statements
from docverify.contract.page_program import content_pages, fenced_embeds

SNAKE_CASE = re.compile(r"_?[a-z0-9]+(?:_[a-z0-9]+)*")


def _root(request: pytest.FixtureRequest) -> Path:
    return request.config.rootpath


def test_page_and_snippet_file_names_are_snake_case(request: pytest.FixtureRequest) -> None:
    root = _root(request)
    files = [*(root / "docs").rglob("*.md"), *(root / "snippets").rglob("*.*")]
    bad = sorted(
        p.relative_to(root).as_posix()
        for p in files
        if "__pycache__" not in p.parts and not SNAKE_CASE.fullmatch(p.name.split(".")[0])
    )
    assert not bad, f"rename to snake_case (git mv, then update embeds, nav and links): {bad}"


def test_each_content_page_embeds_its_own_snippet_file(request: pytest.FixtureRequest) -> None:
    root = _root(request)
    missing = []
    for page in content_pages(root):
        own = "snippets/" + page.removeprefix("docs/").removesuffix(".md") + ".py"
        markdown = (root / page).read_text(encoding="utf-8")
        if own not in {embed.path for embed in fenced_embeds(page, markdown)}:
            missing.append(f"{page} does not embed {own}")
    assert not missing, "\n".join(missing)


def test_each_content_page_has_a_search_case(request: pytest.FixtureRequest) -> None:
    root = _root(request)
    cases = yaml_data.read(root / "tests" / "search_cases.yaml")
    searched = {case["page"].strip("/") for case in cases["lookups"]}
    missing = [
        page
        for page in content_pages(root)
        if page.removeprefix("docs/").removesuffix(".md") not in searched
    ]
    assert not missing, f"add a query for each to tests/search_cases.yaml: {missing}"


def shadowed_modules(snippet_paths: list[Path]) -> list[str]:
    """Snippet files named like a module Python could import instead.

    `python page.py` puts the script's folder first on sys.path, so a download
    named `cuda.py` is what `import torch` finds for NVIDIA's `cuda` package.
    """
    clashes = []
    for path in snippet_paths:
        name = path.stem
        if name.startswith("_"):
            continue  # a private helper: neither a page nor a download
        spec = importlib.util.find_spec(name)
        # A run of the snippet itself (in this process) makes it importable: not a clash.
        elsewhere = spec is not None and Path(spec.origin or "").resolve() != path.resolve()
        if name in sys.stdlib_module_names or elsewhere:
            clashes.append(f"{path}: `{name}` is also an importable module; rename the page")
    return clashes


def test_no_snippet_or_download_shadows_an_importable_module(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippets = sorted((request.config.rootpath / "snippets").rglob("*.py"))
    assert not shadowed_modules(snippets), "\n".join(shadowed_modules(snippets))
    assert shadowed_modules([Path("snippets/tensors/cuda.py"), Path("snippets/x/json.py")]) == [
        "snippets/tensors/cuda.py: `cuda` is also an importable module; rename the page",
        "snippets/x/json.py: `json` is also an importable module; rename the page",
    ]
    # A snippet that an in-process run has already imported is itself, not a clash.
    page = tmp_path / "page_already_run.py"
    page.write_text("x = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("page_already_run")
    assert shadowed_modules([page]) == []


def cuda_marked(path: Path) -> bool:
    """Whether a statement of the file requires CUDA, read as the harness reads the marks."""
    return "cuda" in statements(path.read_text(encoding="utf-8")).values()


def test_the_tensors_index_says_which_snippet_lines_need_cuda(
    request: pytest.FixtureRequest,
) -> None:
    # docs/tensors/index.md: every snippet of snippets/tensors/ runs in every (CPU) run of
    # the suite, and only the GPU and creation pages' snippets mark lines `# requires: cuda`.
    files = snippet_file.discover(request.config.rootpath / "snippets" / "tensors")
    assert len(files) > 2
    for path in files:
        snippet = snippet_file.load(path)
        assert "cpu" in snippet.devices and "cuda" not in snippet.requires, path
    assert sorted(p.name for p in files if cuda_marked(p)) == ["creation.py", "gpu.py"]
