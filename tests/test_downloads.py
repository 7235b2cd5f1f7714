"""Every content page's downloads: the script is the page program, the notebook is the page.

The build (hooks/downloads.py) writes `<page>.py` and `<page>.ipynb` next to
each content page and links both under its title. Here the hook runs once, as
the build runs it, and for every content page: both files exist and the links
to them resolve; the script is the page program; the notebook validates, its
code cells are the page's code blocks in order (joined, exactly the page
program), each carries the `#>` lines its block shows as its output, and no
site-only Markdown is left in it. One notebook runs through a real Jupyter
kernel (nbclient), and its outputs must be the page's `#>` lines.
(`mkdocs build --strict` in `make test` checks the same links in the real site.)
"""

from __future__ import annotations

import copy
import json
import posixpath
import re
import sys
from pathlib import Path

import nbformat
import pytest

from docverify.notebook import code_cells, page_notebook, shown_outputs
from docverify.page_program import build, content_pages
from hooks import downloads

SITE_URL = "https://example.org/notes/"
# A small, fast page that runs on its own: executed through a real kernel.
KERNEL_PAGE = "docs/tensors/reshape.md"
_SITE_SYNTAX = re.compile(r'^\s*(?:!!!|\?\?\?|===\s+"|-+8<-+)')


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page" in metafunc.fixturenames:
        pages = content_pages(metafunc.config.rootpath)
        metafunc.parametrize("page", pages, ids=pages)


@pytest.fixture(scope="module")
def site_files(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The site's files after the downloads hook ran, as `mkdocs build` runs it."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import get_files

    root = request.config.rootpath
    config = MkDocsConfig(config_file_path=str(root / "mkdocs.yml"))
    site_dir = tmp_path_factory.mktemp("site")
    config.load_dict({"site_name": "t", "docs_dir": str(root / "docs"), "site_dir": str(site_dir)})
    config.load_dict({"site_url": SITE_URL})
    errors, _ = config.validate()
    assert not errors
    return downloads.on_files(get_files(config), config)


def test_downloads_are_the_page(page: str, request: pytest.FixtureRequest, site_files) -> None:
    root = request.config.rootpath
    program = build(page, root)
    src = page.removeprefix("docs/")
    script, notebook = (site_files.get_file_from_path(n) for n in downloads.download_names(src))
    assert script is not None and notebook is not None, f"{page}: no download generated"
    assert script.content_string == program.source, f"{page}: the .py is not the page program"

    # The line under the title links both, relative to the page (as --strict resolves them).
    line = downloads.download_line(program)
    links = re.findall(r"\]\(([^)]+)\)", line)
    assert len(links) == 2
    for link in links:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src), link))
        assert site_files.get_file_from_path(target) is not None, f"{page}: {link} is broken"
    markdown = (root / page).read_text(encoding="utf-8")
    shown = downloads.add_download_line(markdown, program)
    assert re.search(rf"^# .+\n\n{re.escape(line)}\n", shown, re.MULTILINE), "not under the title"

    nb = nbformat.reads(notebook.content_string, as_version=4)  # as a reader opens it
    nbformat.validate(nb)
    cells = code_cells(nb)
    assert cells == [part.block for part in program.parts], f"{page}: one code cell per block"
    assert "\n\n".join(cells) + "\n" == program.source, f"{page}: cells are not the page program"
    for cell in nb.cells:
        if cell.cell_type == "code":
            printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
            assert printed == shown_outputs(cell.source), f"{page}: outputs != `#>` lines"
        else:
            leftover = [line for line in cell.source.splitlines() if _SITE_SYNTAX.match(line)]
            assert not leftover, f"{page}: site-only Markdown left in the notebook: {leftover}"


def test_a_committed_download_fails_the_build(tmp_path: Path) -> None:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import get_files

    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text("print(1)\n#> 1\n", encoding="utf-8")
    (tmp_path / "docs" / "topic" / "page.md").write_text(
        '# Page\n\n```python\n--8<-- "snippets/topic/page.py"\n```\n', encoding="utf-8"
    )
    (tmp_path / "docs" / "topic" / "page.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "t", "docs_dir": str(tmp_path / "docs")})
    config.load_dict({"site_dir": str(tmp_path / "site")})
    assert not config.validate()[0]
    with pytest.raises(PluginError, match=r"docs/topic/page.ipynb: the build generates"):
        downloads.on_files(get_files(config), config)


def _notebook(page: str, root: Path) -> nbformat.NotebookNode:
    markdown = (root / page).read_text(encoding="utf-8")
    return page_notebook(build(page, root), markdown, site_url=SITE_URL)


def test_site_markdown_becomes_plain_markdown(tmp_path: Path) -> None:
    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text(
        "# --8<-- [start:a]\nprint(1)\n#> 1\n# --8<-- [end:a]\n", encoding="utf-8"
    )
    (tmp_path / "docs" / "topic" / "page.md").write_text(
        "---\ntags:\n  - t\n---\n\n# Page\n\n"
        "See [copies](../tensors/copies.md#clone) and ![plot](../assets/x.png).\n\n"
        '!!! correction "Correction: a"\n    原文: `x`\n\n    ```python\n'
        '    --8<-- "snippets/topic/page.py:a"\n    ```\n\n    After.\n\nOutside.\n',
        encoding="utf-8",
    )
    notebook = _notebook("docs/topic/page.md", tmp_path)
    text = "\n".join(cell.source for cell in notebook.cells)
    assert "tags:" not in text
    assert f"[copies]({SITE_URL}tensors/copies/#clone)" in text
    assert f"![plot]({SITE_URL}assets/x.png)" in text
    assert "> **Correction: a**\n>\n> 原文: `x`" in text
    assert "> After.\n\nOutside." in text
    assert code_cells(notebook) == ["print(1)\n#> 1"]


def test_notebook_runs_in_a_real_kernel(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbclient import NotebookClient

    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core's future paths, no warning
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    # A kernel of this interpreter under a name no installed kernel spec can shadow.
    spec = tmp_path / "jupyter" / "kernels" / "pytorch-notes"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "PyTorch Notes", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    notebook = _notebook(KERNEL_PAGE, request.config.rootpath)
    shown = [shown_outputs(cell.source) for cell in notebook.cells if cell.cell_type == "code"]
    assert any(shown), f"{KERNEL_PAGE}: pick a page that prints"
    run = copy.deepcopy(notebook)
    for cell in run.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(
        run,
        timeout=120,
        kernel_name="pytorch-notes",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    printed = []
    for cell in run.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{KERNEL_PAGE}: {errors[0].ename}: {errors[0].evalue}\n{cell.source}"
        printed.append("".join(o.text for o in cell.outputs if o.output_type == "stream"))
    assert printed == shown, f"{KERNEL_PAGE}: the kernel printed something else than the page"
