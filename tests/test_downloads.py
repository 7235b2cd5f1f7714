"""Every content page's downloads, in both languages: the code the page shows, and what it needs.

The build (docverify.site.downloads) writes `<page>.py` and `<page>.ipynb` next to
each content page and its translation, and links both under its title. Here the
phase runs once, as the build runs it, and for every page in every language:

- both files exist and the links to them resolve;
- the script and the notebook's code cells are the page's code blocks as
  pymdownx.snippets (what MkDocs renders) shows them, in page order; each code
  cell's output is its `#>` lines; the notebook validates;
- the notebook is plain Markdown in the page's language: no site-only syntax,
  no `{ #anchor }` on a heading, no relative link left, every link into the site
  reaching a page of the notebook's language or a file;
- each download says on its first line what it needs beyond a CPU and an empty
  folder, and the command that starts it: exactly what the header directives
  of the snippets it shows declare (`# requires: cuda`, `# requires: checkout`,
  `# launch: torchrun ...`). A download that says nothing declares nothing, so
  the suite runs its code on the CPU (tests/test_snippets.py,
  tests/test_page_programs.py) from a scratch folder, where a snippet that
  finds this repository from its own path fails unless it declares
  `# requires: checkout` (tried below).

One notebook, as downloaded, runs through a real Jupyter kernel in an empty
folder, and its outputs must be the page's `#>` lines.
(`mkdocs build --strict` in `make test` checks the same links in the real site.)
"""

from __future__ import annotations

import copy
import json
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

from docverify.contract import snippets as snippet_file
from docverify.contract.page_program import GPU_GUARD, build, content_pages
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.site import badges, downloads, site_config
from docverify.site.state import SiteBuild

SITE_URL = "https://example.org/notes/"
# mkdocs-static-i18n serves each edition under its own folder (mkdocs.yml).
EDITION_PATH = {"en": "", "zh": "zh/"}
# A small, fast page that runs on its own: executed through a real kernel.
KERNEL_PAGE = "docs/tensors/reshape.md"
_SITE_SYNTAX = re.compile(r'^\s*(?:!!!|\?\?\?|===\s+"|-+8<-+)')
_HEADING_ATTRS = re.compile(r"^(?:> )*#{1,6}\s.*\{\s*#[^}]*\}\s*$", re.MULTILINE)
_RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)")
_SITE_LINK = re.compile(r"\]\(([^)\s]+)|<(https?://[^>\s]+)>")
_FENCE = re.compile(r"^[ \t]*(?P<mark>`{3,}|~{3,})")
_EMBED = re.compile(r'^[ \t]*-+8<-+[ \t]+"(?P<target>[^"]+)"[ \t]*$')


def _pages(root: Path) -> list[str]:
    """Every content page and its translations."""
    return [languages.twin(p, lang) for p in content_pages(root) for lang in languages.LANGUAGES]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page" in metafunc.fixturenames:
        pages = _pages(metafunc.config.rootpath)
        metafunc.parametrize("page", pages, ids=pages)


@dataclass
class Site:
    files: object  # mkdocs Files after the downloads phase ran
    snippets: object  # pymdownx.snippets' preprocessor, as mkdocs.yml configures it
    notebooks: dict = field(default_factory=dict)

    def text(self, name: str) -> str:
        found = self.files.get_file_from_path(name)
        assert found is not None, f"no download {name} generated"
        return found.content_string

    def notebook(self, name: str) -> nbformat.NotebookNode:
        """The notebook `name` as a reader opens it; it must validate."""
        if name not in self.notebooks:
            invalid: dict = {}
            notebook = nbformat.reads(
                self.text(name), as_version=4, capture_validation_error=invalid
            )
            assert not invalid, f"{name} does not validate: {invalid}"
            self.notebooks[name] = notebook
        return self.notebooks[name]


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The site's files after the downloads phase ran, as `mkdocs build` runs it."""
    import markdown
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import get_files

    root = request.config.rootpath
    config = MkDocsConfig(config_file_path=str(root / "mkdocs.yml"))
    site_dir = tmp_path_factory.mktemp("site")
    config.load_dict({"site_name": "t", "docs_dir": str(root / "docs"), "site_dir": str(site_dir)})
    config.load_dict({"site_url": SITE_URL})
    errors, _ = config.validate()
    assert not errors
    # pymdownx.snippets as mkdocs.yml configures it, from this checkout's root.
    options = {**site_config.markdown_options(root)["pymdownx.snippets"], "base_path": [str(root)]}
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options}
    )
    files = downloads.add_files(SiteBuild(root=root), get_files(config), config)
    return Site(files, md.preprocessors["snippet"])


def shown_python_blocks(markdown: str, snippets) -> list[str]:
    """The page's code blocks that embed Python, as pymdownx.snippets renders them."""
    blocks, fence = [], ""
    for line in markdown.splitlines():
        mark = _FENCE.match(line)
        if not fence:
            fence = mark["mark"] if mark else ""
        elif (
            mark
            and line.strip() == fence[0] * len(line.strip())
            and len(line.strip()) >= len(fence)
        ):
            fence = ""
        elif (embed := _EMBED.match(line)) and embed["target"].split(":")[0].endswith(".py"):
            blocks.append("\n".join(snippets.run([f'--8<-- "{embed["target"]}"'])).strip("\n"))
    return blocks


def _words(markdown: str) -> set[tuple[str, ...]]:
    """Runs of four English words in `markdown`, outside URLs and code."""
    prose = re.sub(r"`[^`]*`|<[^>]*>|\]\([^)]*\)", " ", markdown)
    words = re.findall(r"[A-Za-z]+", prose)
    return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}


def _link_problem(url: str, lang: str, root: Path) -> str | None:
    """Why `url` (into the site) reaches no page of `lang` and no file, or None."""
    path = url.removeprefix(SITE_URL).partition("#")[0]
    if path and not path.endswith("/"):
        return None if (root / "docs" / path).is_file() else f"no file docs/{path}"
    if not path.startswith(EDITION_PATH[lang]):
        return f"not a page of the {lang} edition"
    rest = path.removeprefix(EDITION_PATH[lang]).rstrip("/")
    pages = [f"docs/{rest}.md", f"docs/{rest}/index.md" if rest else "docs/index.md"]
    if not any((root / languages.twin(p, lang)).is_file() for p in pages):
        return f"no page {pages[0]} in {lang}"
    return None


def _as_downloaded(program, part, block: str, lang: str) -> str:
    """A CUDA-only block of a page whose other blocks run on a CPU: under the guard, with a
    line printed instead where CUDA is missing."""
    cuda_only = part.embed.path not in program.without_cuda_parts().files
    if not cuda_only or not program.has_cpu_part:
        return block
    indented = "\n".join(f"    {line}" if line.strip() else "" for line in block.split("\n"))
    skipped = text(lang, "download.gpu_skipped")
    return f"{GPU_GUARD}\n{indented}\nelse:\n    print({skipped!r})"


def test_downloads_are_the_page(page: str, request: pytest.FixtureRequest, site: Site) -> None:
    root = request.config.rootpath
    lang = languages.language_of(page)
    src = page.removeprefix("docs/")
    markdown = (root / page).read_text(encoding="utf-8")
    blocks = shown_python_blocks(markdown, site.snippets)
    assert blocks, f"{page}: no Python code block found"
    script_name, notebook_name = downloads.download_names(src)

    # The script: the page's code blocks joined with a blank line, after at most one comment
    # line; where some blocks need CUDA and the rest not, those run only where CUDA is.
    program = build(page, root, markdown)
    blocks = [
        _as_downloaded(program, part, block, lang)
        for part, block in zip(program.parts, blocks, strict=True)
    ]
    script = site.text(script_name)
    code = "\n\n".join(blocks) + "\n"
    assert script.endswith(code), f"{page}: the .py is not the code the page shows"
    header = script.removesuffix(code)
    assert header == "" or re.fullmatch(r"# [^\n]+\n\n", header), f"{page}: .py starts {header!r}"

    # The line under the title links both, relative to the page (as --strict resolves them).
    line = downloads.download_line(program, lang)
    links = re.findall(r"\]\(([^)]+)\)", line)
    assert len(links) == 2
    for link in links:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src), link))
        assert site.files.get_file_from_path(target) is not None, f"{page}: {link} is broken"
    shown = downloads.add_download_line(markdown, program, lang)
    assert re.search(rf"^# .+\n\n{re.escape(line)}\n", shown, re.MULTILINE), "not under the title"

    # The notebook: the same blocks as code cells, each with its `#>` lines as output.
    nb = site.notebook(notebook_name)
    assert [c.source for c in nb.cells if c.cell_type == "code"] == blocks, f"{page}: code cells"
    for cell in nb.cells:
        if cell.cell_type == "code":
            shown_lines = [
                t.strip() for t in cell.source.splitlines() if t.strip().startswith("#>")
            ]
            printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
            as_shown = [f"#> {t}".rstrip() for t in printed.splitlines()]
            assert as_shown == shown_lines, f"{page}: outputs != `#>` lines\n{cell.source}"
            continue
        leftover = [t for t in cell.source.splitlines() if _SITE_SYNTAX.match(t)]
        assert not leftover, f"{page}: site-only Markdown left in the notebook: {leftover}"
        anchors = _HEADING_ATTRS.findall(cell.source)
        assert not anchors, f"{page}: headings with `{{ #anchor }}` in the notebook: {anchors}"
        relative = _RELATIVE_LINK.findall(cell.source)
        assert not relative, f"{page}: relative links left in the notebook: {relative}"
        for found in _SITE_LINK.finditer(cell.source):
            url = found[1] or found[2]
            if url.startswith(SITE_URL) and (problem := _link_problem(url, lang, root)):
                pytest.fail(f"{page}: the notebook links to {url}: {problem}", pytrace=False)
    if lang != languages.DEFAULT:  # what the build writes is in the page's language
        english = site.notebook(notebook_name.replace(f".{lang}.", "."))
        same = _words(nb.cells[0].source) & _words(english.cells[0].source)
        assert not same, f"{page}: the notebook's first cell is English: {sorted(same)[:3]}"


# --- what a download needs, and says ---------------------------------------------------------


def declared_needs(program) -> dict[str, bool]:
    """What the header directives of the snippets a page shows declare."""
    loaded = [
        snippet_file.load(program.root / f) for f in program.files if f.startswith("snippets/")
    ]
    cuda = [s.devices == ("cuda",) for s in loaded]
    return {
        "cuda": bool(cuda) and all(cuda),  # all its code: the download needs a GPU
        "gpu_blocks": any(cuda) and not all(cuda),  # some: those blocks are skipped without
        "launch": any(s.launch for s in loaded),
        "checkout": any("checkout" in s.requires for s in loaded),
    }


def start_command(program, script: str) -> str:
    """How a reader starts the downloaded script: with torchrun where a shown snippet is launched."""
    launch = next((s.launch for s in program.snippets if s.launch), ())
    return " ".join([*launch, script]) if launch else f"python {script}"


def need_problems(page: str, program, first_lines: dict[str, str]) -> list[str]:
    """Where a download's first line does not say exactly what the page's code needs.

    `first_lines`: {".py": its first line, ".ipynb": its first cell's first line,
    "download line": the line under the page's title}. Each names every declared
    need and no other; where something is needed, the .py and the download line
    give the command that starts the script, and so does a launched page's
    notebook (it cannot run in a kernel).
    """
    lang = languages.language_of(page)
    needs = declared_needs(program)
    script = f"{Path(languages.source_page(page)).stem}.py"
    problems = []
    for where, line in first_lines.items():
        for kind, needed in needs.items():
            phrase = text(lang, f"needs.{kind}")
            if needed != (phrase in line):
                say = "does not say it needs" if needed else "claims it needs"
                problems.append(f"{page}: the {where} {say} {phrase!r}: {line!r}")
        required = [k for k, needed in needs.items() if needed and k != "gpu_blocks"]
        wants_command = bool(required) and (where != ".ipynb" or needs["launch"])
        command = f"`{start_command(program, script)}`"
        if wants_command and command not in line:
            problems.append(
                f"{page}: the {where} does not say how to start it ({command}): {line!r}"
            )
    return problems


def _first_lines(site: Site, page: str, program) -> dict[str, str]:
    script_name, notebook_name = downloads.download_names(page.removeprefix("docs/"))
    notebook = site.notebook(notebook_name)
    return {
        ".py": site.text(script_name).split("\n", 1)[0],
        ".ipynb": notebook.cells[0].source.split("\n", 1)[0],
        "download line": downloads.download_line(program, languages.language_of(page)),
    }


def test_each_download_says_what_it_needs(
    page: str, request: pytest.FixtureRequest, site: Site
) -> None:
    program = build(page, request.config.rootpath)
    problems = need_problems(page, program, _first_lines(site, page, program))
    assert not problems, "\n".join(problems)


DIRECTIVES = {
    "cuda": "# requires: cuda",
    "checkout": "# requires: checkout",
    "launch": "# launch: torchrun --nproc_per_node=2",
}


# (ids that are not "cuda": the harness skips tests with a `cuda` keyword where CUDA is missing)
@pytest.mark.parametrize("need", DIRECTIVES, ids=lambda need: f"requires-{need}")
def test_a_download_that_hides_a_need_fails(tmp_path: Path, need: str) -> None:
    # A page whose second block comes from a snippet with a header directive.
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import get_files

    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text(
        "# --8<-- [start:setup]\nimport torch\n# --8<-- [end:setup]\n", encoding="utf-8"
    )
    (tmp_path / "snippets" / "topic" / "page_more.py").write_text(
        f'"""More."""\n{DIRECTIVES[need]}\n\nimport torch\n\n'
        '# --8<-- [start:more]\nassert torch.ones(1, device="cuda").is_cuda\n# --8<-- [end:more]\n',
        encoding="utf-8",
    )
    page = '# Page\n\n```python\n--8<-- "snippets/topic/page.py:setup"\n```\n\n```python\n--8<-- "snippets/topic/page_more.py:more"\n```\n'
    for name in ("page.md", "page.zh.md"):
        (tmp_path / "docs" / "topic" / name).write_text(page, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "t", "docs_dir": str(tmp_path / "docs")})
    config.load_dict({"site_dir": str(tmp_path / "site")})
    assert not config.validate()[0]
    built = Site(downloads.add_files(SiteBuild(root=tmp_path), get_files(config), config), None)
    for page_path in ("docs/topic/page.md", "docs/topic/page.zh.md"):
        program = build(page_path, tmp_path)
        first_lines = _first_lines(built, page_path, program)
        assert need_problems(page_path, program, first_lines) == []
        # The downloads as they were before they said what they need: the bare page program.
        hidden = {
            **first_lines,
            ".py": program.source.split("\n", 1)[0],
            ".ipynb": "*This notebook",
        }
        found = need_problems(page_path, program, hidden)
        kind = "gpu_blocks" if need == "cuda" else need  # its CUDA block: skipped on a CPU
        phrase = text(languages.language_of(page_path), f"needs.{kind}")
        assert any(f"the .py does not say it needs {phrase!r}" in p for p in found), found
        assert any(f"the .ipynb does not say it needs {phrase!r}" in p for p in found), found


def test_a_snippet_that_reads_this_repository_must_declare_it(tmp_path: Path) -> None:
    # Downloaded, a file has no checkout around it: the suite runs snippets the same way.
    from docverify.run.run_snippet import run_in_process  # imports torch: only for this test

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "data.txt").write_text("42", encoding="utf-8")
    body = (
        "import sys\nfrom pathlib import Path\n\n"
        'print((Path(sys.argv[0]).resolve().parent / "data.txt").read_text())\n#> 42\n'
    )
    path = checkout / "reads.py"
    path.write_text(body, encoding="utf-8")
    for work in ("a", "b"):
        (tmp_path / work).mkdir()
    with pytest.raises(FileNotFoundError, match="data.txt"):
        run_in_process(snippet_file.load(path), "cpu", tmp_path / "a")
    path.write_text('"""Reads."""\n# requires: checkout\n\n' + body, encoding="utf-8")
    assert [r.text for r in run_in_process(snippet_file.load(path), "cpu", tmp_path / "b")] == [
        "42"
    ]


def test_requires_names_known_needs_only(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("# requires: cuda, checkout\nprint(1)\n", encoding="utf-8")
    loaded = snippet_file.load(path)
    assert loaded.needs_cuda and loaded.needs_checkout and loaded.devices == ("cuda",)
    path.write_text("# requires: network\nprint(1)\n", encoding="utf-8")
    with pytest.raises(snippet_file.SnippetFormatError, match=r"`# requires:` takes .*'network'"):
        snippet_file.load(path)


def test_ddp_train_started_without_torchrun_names_its_own_command(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python ddp_train.py` in the folder it was downloaded to: the script stops and
    # says how to start it, with the command its first line gives.
    script = site.text("distributed/ddp_train.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    monkeypatch.setattr(sys, "argv", ["ddp_train.py"])
    with pytest.raises(AssertionError) as stopped:  # an assert every suite run reaches
        exec(compile(script, str(tmp_path / "ddp_train.py"), "exec"), {"__name__": "__main__"})
    command = str(stopped.value).removeprefix("start me with: ")
    assert command == "torchrun --nproc_per_node=2 ddp_train.py", stopped.value
    assert f"`{command}`" in script.split("\n", 1)[0]


def test_run_it_lines_say_which_snippets_need_a_gpu(request: pytest.FixtureRequest) -> None:
    root = request.config.rootpath
    for page in _pages(root):
        lang = languages.language_of(page)
        markdown = (root / page).read_text(encoding="utf-8")
        shown = badges.add_run_instructions(SiteBuild(root=root, lang=lang), page, markdown)
        line = re.search(r'<p class="run-it" markdown>(.*)</p>', shown)[1]
        items = re.findall(r"`(?:python|torchrun[^`]*) (snippets/[^`]+\.py)`([^·]*)", line)
        assert items, f"{page}: no run-it line: {line}"
        for snippet, notes in items:
            needs_cuda = snippet_file.load(root / snippet).devices == ("cuda",)
            says = text(lang, "needs.cuda") in notes
            assert says == needs_cuda, f"{page}: `{snippet}`: {notes!r} (needs CUDA: {needs_cuda})"


# --- the notebook ----------------------------------------------------------------------------


def test_site_markdown_becomes_plain_markdown(tmp_path: Path) -> None:
    from docverify.site.notebook import page_notebook

    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text(
        "# --8<-- [start:a]\nprint(1)\n#> 1\n# --8<-- [end:a]\n", encoding="utf-8"
    )
    page = (
        "---\ntags:\n  - t\n---\n\n# Page\n\n"
        "See [copies](../tensors/copies.md#clone) and ![plot](../assets/x.png).\n\n"
        "## A heading { #a-heading }\n\nA [wrapped\nlink](../tensors/copies.md#clone).\n\n"
        '!!! correction "Correction: a"\n    原文: `x`\n\n    ```python\n'
        '    --8<-- "snippets/topic/page.py:a"\n    ```\n\n    After.\n\nOutside.\n'
    )
    for name in ("page.md", "page.zh.md"):
        (tmp_path / "docs" / "topic" / name).write_text(page, encoding="utf-8")
    for name, edition in (("page.md", ""), ("page.zh.md", "zh/")):
        markdown = (tmp_path / "docs" / "topic" / name).read_text(encoding="utf-8")
        program = build(f"docs/topic/{name}", tmp_path, markdown)
        notebook = page_notebook(program, markdown, site_url=SITE_URL)
        cells = "\n".join(cell.source for cell in notebook.cells)
        assert "tags:" not in cells
        assert f"<{SITE_URL}{edition}topic/page/>" in notebook.cells[0].source
        assert f"[copies]({SITE_URL}{edition}tensors/copies/#clone)" in cells
        assert f"[wrapped\nlink]({SITE_URL}{edition}tensors/copies/#clone)" in cells
        assert f"![plot]({SITE_URL}assets/x.png)" in cells
        assert "\n## A heading\n" in cells
        assert "> **Correction: a**\n>\n> 原文: `x`" in cells
        assert "> After.\n\nOutside." in cells
        assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["print(1)\n#> 1"]


def test_downloaded_notebook_runs_in_a_real_kernel_in_an_empty_folder(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
    name = downloads.download_names(KERNEL_PAGE.removeprefix("docs/"))[1]
    notebook = site.notebook(name)
    shown = [
        "".join(o.text for o in cell.outputs if o.output_type == "stream")
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]
    assert any(shown), f"{KERNEL_PAGE}: pick a page that prints"
    run = copy.deepcopy(notebook)
    for cell in run.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    empty = tmp_path / "empty"
    empty.mkdir()
    NotebookClient(
        run, timeout=120, kernel_name="pytorch-notes", resources={"metadata": {"path": str(empty)}}
    ).execute()
    printed = []
    for cell in run.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{KERNEL_PAGE}: {errors[0].ename}: {errors[0].evalue}\n{cell.source}"
        printed.append("".join(o.text for o in cell.outputs if o.output_type == "stream"))
    assert printed == shown, f"{KERNEL_PAGE}: the kernel printed something else than the page"


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
        downloads.add_files(SiteBuild(root=tmp_path), get_files(config), config)


def test_an_invalid_notebook_is_not_written() -> None:
    # Cells are copies of nbformat's own blank cells, checked once with the whole notebook.
    from nbformat.v4 import new_code_cell, new_notebook

    from docverify.site.notebook import notebook_text

    notebook = new_notebook(cells=[new_code_cell("print(1)")])
    assert '"print(1)"' in notebook_text(notebook)
    notebook.cells[0].execution_count = "one"
    with pytest.raises(nbformat.ValidationError):
        notebook_text(notebook)
