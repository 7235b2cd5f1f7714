"""The page is the program (issue 13): the code a page shows, in page order, runs on its own.

For every content page (a page under docs/ that shows Python code):

1. Static check (docverify.contract.shown_code): the first code block is the page's
   `setup` section, in a collapsed "Set-up" box; every name the shown code
   uses is bound by the shown code (or is a builtin), no later than where it
   is used; it imports only torch, torchvision, einops, numpy, matplotlib, PIL
   and the standard library. A failure names the page, the name, the page
   line of the code block and the snippet file:line.
2. Its prints equal the `#>` lines it shows. When the page program is
   statement for statement the start of its snippet file
   (docverify.contract.page_program.covering_snippet), tests/test_snippets.py has
   already run exactly that code and checked every `#>` line, so it is not
   run twice. Otherwise it is run here on its own, in-process in a fresh
   `__main__` with the snippets' isolation (or under torchrun when the page
   shows a launched script), as the file a reader downloads.

A page that shows a `# requires: cuda` snippet gets the static checks
everywhere. Where CUDA is missing, the page minus its CUDA-only blocks is
checked statically as a program of its own (nothing after those blocks may
depend on them), and its download is run as a reader without a GPU runs it: in
an empty folder, each CUDA-only block replaced by the line saying it was
skipped (docverify.contract.page_program.guarded_source); a page whose code is
all CUDA-only is skipped, saying so.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docverify.contract.page_program import build, content_pages, covering_snippet
from docverify.contract.shown_code import (
    import_problems,
    name_problems,
    program_problems,
    setup_problems,
)
from docverify.i18n import languages
from docverify.i18n.site_text import text
from docverify.run.run_page import PageProgramError, run_page_program
from harness.plugin import cuda_available


def _cases(root: Path) -> list:
    cases = []
    for page in content_pages(root):
        try:  # a page with CUDA-only code is run by `make verify-gpu` (marker selection)
            marks = [pytest.mark.device_dependent] if build(page, root).needs_cuda else []
        except ValueError:
            marks = []  # a broken embed: the test itself reports it
        cases.append(pytest.param(page, id=page, marks=marks))
    return cases


def check_page_program(page: str, root: Path, workdir: Path) -> str:
    """Fail (PageProgramError) unless the page's code runs on its own; say how it was proven."""
    markdown = (root / page).read_text(encoding="utf-8")
    program = build(page, root, markdown)
    problems = setup_problems(program, markdown) + program_problems(program)
    if problems:
        raise PageProgramError(
            f"{page}: the code the page shows does not run on its own:\n  " + "\n  ".join(problems)
        )
    if program.needs_cuda and not cuda_available():
        # Without CUDA, the page minus its CUDA-only blocks must still be a program
        # (nothing after them may depend on them); those blocks run on GPU machines.
        if not program.has_cpu_part:
            raise NeedsCuda(f"{page}: static checks passed; all its code needs CUDA to run")
        problems = program_problems(program.without_cuda_parts())
        if problems:
            raise PageProgramError(
                f"{page}: without its CUDA-only blocks, the rest does not run on its own:\n  "
                + "\n  ".join(problems)
            )
        # Its download, but for the comments: the skipped blocks' `#>` lines (a GPU run's
        # output) left out, the skip line's written under its print.
        skipped = text(languages.DEFAULT, "download.gpu_skipped")
        without_cuda = program.guarded_source(skipped, gpu_outputs=False)
        run_page_program(program, "cpu", workdir, source=without_cuda)
        return "its download, run without CUDA: each CUDA-only block skipped, saying so"
    return _prove(program, "cuda" if program.needs_cuda else "cpu", workdir)


def _prove(program, device: str, workdir: Path) -> str:
    covered_by, why_run = covering_snippet(program)
    if covered_by:
        return f"same code as the start of {covered_by}, run by tests/test_snippets.py"
    run_page_program(program, device, workdir)
    return f"run on its own: {why_run}"


class NeedsCuda(Exception):
    """The page shows a `# requires: cuda` snippet and this machine has no CUDA."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page" in metafunc.fixturenames:
        metafunc.parametrize("page", _cases(metafunc.config.rootpath))


def test_page_is_a_program(page: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    try:
        how = check_page_program(page, request.config.rootpath, tmp_path)
    except PageProgramError as error:
        pytest.fail(str(error), pytrace=False)
    except NeedsCuda as error:
        pytest.skip(str(error))
    request.node.user_properties.append(("page_program", how))


def test_each_training_page_is_checked_as_a_program_of_its_own() -> None:
    # docs/training/index.md: each page of the section is a case of test_page_is_a_program.
    from docverify.paths import REPO_ROOT

    section = REPO_ROOT / "docs" / "training"
    pages = {
        f"docs/training/{md.name}"
        for md in section.glob("*.md")
        if md.name != "index.md" and languages.language_of(md) == languages.DEFAULT
    }
    assert len(pages) >= 9
    assert pages <= set(content_pages(REPO_ROOT))


# --- each guard, tried on a broken page ----------------------------------------------------


def _site(tmp_path: Path, snippet: str, page: str) -> Path:
    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    (tmp_path / "docs" / "topic").mkdir(parents=True)
    (tmp_path / "snippets" / "topic" / "page.py").write_text(snippet, encoding="utf-8")
    (tmp_path / "docs" / "topic" / "page.md").write_text(page, encoding="utf-8")
    return tmp_path


def _page(*sections: str, box: bool = True) -> str:
    blocks = []
    for name in sections:
        block = f'```python\n--8<-- "snippets/topic/page.py:{name}"\n```\n'
        if name == "setup" and box:
            block = '??? example "Set-up: imports"\n' + textwrap.indent(block, "    ")
        blocks.append(block)
    return "# Topic\n\nProse.\n\n" + "\nMore prose.\n\n".join(blocks)


SELF_CONTAINED = '''"""A page.

Page: docs/topic/page.md
"""

# --8<-- [start:setup]
import torch

x = torch.arange(3)
# --8<-- [end:setup]

# --8<-- [start:double]
print(x * 2)
#> tensor([0, 2, 4])
# --8<-- [end:double]

print("figure-only code after the last section may stay hidden")
#> figure-only code after the last section may stay hidden
'''


def _check(root: Path, tmp_path: Path) -> str:
    with pytest.raises(PageProgramError) as caught:
        check_page_program("docs/topic/page.md", root, tmp_path / "work")
    return str(caught.value)


def test_a_self_contained_page_passes_without_a_second_run(tmp_path: Path) -> None:
    root = _site(tmp_path, SELF_CONTAINED, _page("setup", "double"))
    how = check_page_program("docs/topic/page.md", root, tmp_path / "work")
    assert how.startswith("same code as the start of snippets/topic/page.py")


def test_hidden_import_fails_naming_page_name_and_lines(tmp_path: Path) -> None:
    snippet = SELF_CONTAINED.replace(
        "# --8<-- [start:setup]\nimport torch\n", "import torch\n\n# --8<-- [start:setup]\n"
    )
    root = _site(tmp_path, snippet, _page("setup", "double"))
    message = _check(root, tmp_path)
    # page:line of the code block, snippet file:line of the use, and the name
    assert (
        "docs/topic/page.md:7 (snippets/topic/page.py:10): `torch` is not defined where" in message
    )


def test_name_from_a_hidden_line_fails(tmp_path: Path) -> None:
    snippet = SELF_CONTAINED.replace("x = torch.arange(3)\n# --8<-- [end:setup]\n", "") + ""
    snippet = snippet.replace(
        "# --8<-- [start:setup]\nimport torch\n",
        "# --8<-- [start:setup]\nimport torch\n# --8<-- [end:setup]\nx = torch.arange(3)\n",
    )
    root = _site(tmp_path, snippet, _page("setup", "double"))
    message = _check(root, tmp_path)
    assert "(snippets/topic/page.py:13): `x` is not defined where" in message, message


def test_name_used_before_the_page_shows_it_fails(tmp_path: Path) -> None:
    root = _site(tmp_path, SELF_CONTAINED, _page("double", "setup"))
    message = _check(root, tmp_path)
    assert "docs/topic/page.md:6 (snippets/topic/page.py:13): `x` is not defined where" in message
    assert "docs/topic/page.md:6: the first code block embeds the `setup` section" in message


def test_setup_block_must_come_first_in_a_set_up_box(tmp_path: Path) -> None:
    root = _site(tmp_path, SELF_CONTAINED, _page("setup", "double", box=False))
    message = _check(root, tmp_path)
    assert "docs/topic/page.md:6: the first code block embeds the `setup` section" in message
    assert '`??? example "Set-up: ..."` box (or under a `## Set-up` heading)' in message


@pytest.mark.parametrize(
    "imported", ["from ptnotes.device import notes_device", "import docverify", "import _helper"]
)
def test_private_import_fails(tmp_path: Path, imported: str) -> None:
    snippet = SELF_CONTAINED.replace("import torch\n", f"import torch\n{imported}\n")
    root = _site(tmp_path, snippet, _page("setup", "double"))
    module = imported.split()[1]
    assert f"(snippets/topic/page.py:8): imports `{module}`" in _check(root, tmp_path)


def test_hidden_code_between_sections_makes_the_page_run_on_its_own(tmp_path: Path) -> None:
    # Hidden code that changes what a shown block prints: the snippet file and
    # the page program disagree, so the page program must be run, and fails.
    snippet = SELF_CONTAINED.replace(
        "# --8<-- [start:double]", "x = x + 1  # hidden\n\n# --8<-- [start:double]"
    ).replace("tensor([0, 2, 4])", "tensor([2, 4, 6])")
    root = _site(tmp_path, snippet, _page("setup", "double"))
    program = build("docs/topic/page.md", root)
    covered_by, why = covering_snippet(program)
    assert covered_by is None
    assert "snippets/topic/page.py:12 runs code the page does not show ('x = x + 1" in why
    message = _check(root, tmp_path)
    assert message.startswith("docs/topic/page.md:13 (snippets/topic/page.py:16): run on its own")
    assert "+#> tensor([0, 2, 4])" in message


def test_program_that_stops_names_the_snippet_line(tmp_path: Path) -> None:
    # Invisible to the static check (the name comes from globals()), caught by the run:
    # the snippet file runs, since a hidden line binds `y`; the page program stops.
    snippet = SELF_CONTAINED.replace(
        "# --8<-- [start:double]\nprint(x * 2)",
        'globals()["y"] = x  # hidden\n\n# --8<-- [start:double]\nprint(globals()["y"] * 2)',
    )
    root = _site(tmp_path, snippet, _page("setup", "double"))
    message = _check(root, tmp_path)
    assert "docs/topic/page.md:13 (snippets/topic/page.py:15): the page's code" in message
    assert "KeyError: 'y'" in message


def test_sections_out_of_file_order_are_run_on_their_own(tmp_path: Path) -> None:
    snippet = SELF_CONTAINED.replace(
        "# --8<-- [start:double]",
        '# --8<-- [start:hello]\nprint("hello")\n#> hello\n# --8<-- [end:hello]\n\n'
        "# --8<-- [start:double]",
    )
    root = _site(tmp_path, snippet, _page("setup", "double", "hello"))
    covered_by, why = covering_snippet(build("docs/topic/page.md", root))
    assert covered_by is None and "out of file order" in why
    how = check_page_program("docs/topic/page.md", root, tmp_path / "work")
    assert how.startswith("run on its own")


# --- name resolution of the static check (ruff's F821, and __file__), case by case --------------------------------------

SCOPING_CASES = {
    # (source, problems as (line, start of message)); [] = runs
    "import-dotted-binds-top": ("import os.path\nprint(os.getcwd())\n", []),
    "import-as": ("import torch.nn.functional as F\nprint(F.relu)\n", []),
    "function-body-runs-later": ("def f():\n    return z\n\n\nz = 1\nprint(f())\n", []),
    "function-body-hidden": ("def f():\n    return w\n", [(2, "`w` is not defined")]),
    "global-statement-binds": ("def g():\n    global G\n    G = 1\n\n\ng()\nprint(G)\n", []),
    "comprehension-variable-stays-inside": (
        "ys = [i for i in range(3)]\nprint(i)\n",
        [(2, "`i` is not defined")],
    ),
    "class-body-invisible-to-comprehension": (
        "class A:\n    n = 3\n    xs = [n for _ in range(2)]\n",
        [(3, "`n` is not defined")],
    ),
    "closure": (
        "def outer():\n    k = 1\n\n    def inner():\n        return k\n\n    return inner()\n",
        [],
    ),
    "walrus-binds-outside-comprehension": (
        "vals = [y for x in range(3) if (y := x)]\nprint(y)\n",
        [],
    ),
    "except-as-and-match": (
        "try:\n    1 / 0\nexcept ZeroDivisionError as err:\n    print(err)\n"
        "match [1, 2]:\n    case [first, *rest]:\n        print(first, rest)\n",
        [],
    ),
    "used-after-del": ("a = 1\ndel a\nprint(a)\n", [(3, "`a` is not defined")]),
    "del-of-a-name-never-shown": ("del q\n", [(1, "`q` is not defined")]),
    "lambda-default-is-evaluated-now": ("f = lambda a, b=c: a + b\n", [(1, "`c` is not defined")]),
    "used-before-it-is-bound": ("print(x)\nx = 1\n", [(1, "`x` is not defined")]),
    "dunder-file": ("print(__file__)\n", [(1, "`__file__` is used")]),
}


@pytest.mark.parametrize("case", SCOPING_CASES)
def test_hidden_name_check_follows_python_scoping(case: str) -> None:
    source, expected = SCOPING_CASES[case]
    found = [(p.line, p.message) for p in name_problems(source)]
    assert len(found) == len(expected), found
    for (line, message), (want_line, want_start) in zip(found, expected, strict=True):
        assert line == want_line and message.startswith(want_start), found


def test_imports_outside_the_published_dependencies_are_refused() -> None:
    source = (
        "import torch, numpy as np, einops, PIL.Image, matplotlib.pyplot as plt, torchvision\n"
        "import os, collections.abc, __future__\n"
        "import ptnotes\nfrom docverify.figures import save_figure\nfrom . import sibling\n"
        "import importlib\nimportlib.import_module('ptnotes.device')\nimport yaml\n"
    )
    refused = [(p.line, p.message.split("`")[1]) for p in import_problems(source)]
    assert refused == [
        (3, "ptnotes"),
        (4, "docverify.figures"),
        (5, "."),
        (7, "ptnotes.device"),
        (8, "yaml"),
    ]


def test_without_cuda_the_cpu_part_must_not_use_names_from_cuda_blocks(tmp_path: Path) -> None:
    root = _site(tmp_path, SELF_CONTAINED, _page("setup", "double"))
    (root / "snippets" / "topic" / "page_cuda.py").write_text(
        '"""CUDA part."""\n# requires: cuda\n\nimport torch\n\n'
        "# --8<-- [start:gpu]\ny = x.cuda()\n# --8<-- [end:gpu]\n",
        encoding="utf-8",
    )
    page = root / "docs" / "topic" / "page.md"
    cuda_block = '\n```python\n--8<-- "snippets/topic/page_cuda.py:gpu"\n```\n'
    page.write_text(page.read_text(encoding="utf-8") + cuda_block, encoding="utf-8")
    if cuda_available():
        pytest.skip("checks the machine without CUDA")
    how = check_page_program("docs/topic/page.md", root, tmp_path / "work")
    assert how == "its download, run without CUDA: each CUDA-only block skipped, saying so"
    # a CPU block after the CUDA one that uses its `y`: the CPU part is no program
    page.write_text(
        page.read_text(encoding="utf-8")
        + '\n```python\n--8<-- "snippets/topic/page.py:uses-y"\n```\n',
        encoding="utf-8",
    )
    snippet = root / "snippets" / "topic" / "page.py"
    snippet.write_text(
        snippet.read_text(encoding="utf-8")
        + "\n# --8<-- [start:uses-y]\nprint(y)\n# --8<-- [end:uses-y]\n",
        encoding="utf-8",
    )
    assert "`y` is not defined where" in _check(root, tmp_path)


def test_each_losses_page_shows_its_whole_snippet_but_the_figure(
    request: pytest.FixtureRequest,
) -> None:
    # losses/index.md: each page shows the code of its results as a program that runs on
    # its own (test_page_is_a_program runs it); here: that program is the start of its
    # snippet file, and what the file has after it only draws a figure.
    root = request.config.rootpath
    pages = [p for p in content_pages(root) if p.startswith("docs/losses/")]
    assert len(pages) == 7
    for page in pages:
        program = build(page, root)
        covered_by, why = covering_snippet(program)
        assert covered_by, f"{page}: {why}"
        last_shown = max(line for part in program.parts for line in part.lines)
        rest = (root / covered_by).read_text(encoding="utf-8").splitlines()[last_shown:]
        code = [line for line in rest if line.strip() and not line.lstrip().startswith("#")]
        assert not code or any("save_figure(" in line for line in code), f"{page}: {code[:3]}"
