"""The error atlas (docs/errors/) is complete: at least 30 entries, each findable by pasting.

An entry is a `## ` heading of an atlas page (the message's stable part). Each page
is linked from the atlas index and has at least one pasted-error search case per
entry in tests/search_cases.yaml (run in the browser by tests/test_search_browser.py).

What the pages say of every entry is checked here too: each entry outside the GPU-only
page has an index row whose checks print its message on the CPU run, and shows a fix
section with a check that run makes; the GPU-only rows link checks only a GPU run makes.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

from markdown.extensions.toc import slugify
from search_driver import load_cases

from docverify.contract import proofs
from docverify.contract.sections import read_sections
from docverify.i18n.site_text import text
from docverify.matrix.view import Matrix
from docverify.paths import DOCS_DIR, REPO_ROOT
from docverify.site import matrix_lines

ATLAS = DOCS_DIR / "errors"
MIN_ENTRIES = 30  # the floor


def entries(page: Path) -> list[str]:
    return re.findall(r"^## (.+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)


def heading_id(title: str) -> str:
    """A heading's id: the one it gives itself (`{ #id }`), or the slug of its words."""
    given = re.search(r"\s*\{ #([\w-]+) \}$", title)
    return given[1] if given else slugify(title, "-")


def atlas_pages() -> list[Path]:
    return sorted(p for p in ATLAS.glob("*.md") if p.name != "index.md" and ".zh." not in p.name)


def test_the_atlas_has_at_least_thirty_entries() -> None:
    counts = {p.stem: len(entries(p)) for p in atlas_pages()}
    assert sum(counts.values()) >= MIN_ENTRIES, counts


def test_every_atlas_page_is_linked_from_the_index() -> None:
    index = (ATLAS / "index.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in atlas_pages() if f"]({p.name}" not in index]
    assert not unlinked, f"docs/errors/index.md does not link {unlinked}"


def test_every_entry_has_pasted_search_cases() -> None:
    cases = Counter(c.page.strip("/") for c in load_cases("pasted_errors"))
    short = {
        f"errors/{p.stem}": (cases[f"errors/{p.stem}"], len(entries(p)))
        for p in atlas_pages()
        if cases[f"errors/{p.stem}"] < len(entries(p))
    }
    assert not short, (
        f"pasted-error cases vs entries per page (add cases to tests/search_cases.yaml): {short}"
    )


# --- what the atlas pages and the index say of every entry ----------------------------------

GPU_PAGE = "gpu_errors"  # its entries need a GPU: checked by GPU runs only


def _printed(check: proofs.Check) -> str:
    """The `#>` lines under a check line: what the pinned torch printed there."""
    lines = (REPO_ROOT / check.file).read_text(encoding="utf-8").splitlines()[check.line :]
    printed = []
    for line in lines:
        if not line.strip().startswith("#>"):
            break
        printed.append(line.strip()[2:].removeprefix(" "))
    return "\n".join(printed)


def _index_rows() -> list[tuple[str, str, str, list[proofs.Target]]]:
    """(atlas page, anchor, message cell, the row's proof targets) for each row of the index."""
    page = "docs/errors/index.md"
    markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
    resolved, problems = proofs.resolve(page, markdown, REPO_ROOT)
    assert not problems, problems
    by_line = {marker.line: targets for marker, targets in resolved.items()}
    rows = []
    for number, line in enumerate(markdown.splitlines(), start=1):
        entry = re.search(r"\]\((\w+)\.md#([\w-]+)\)", line)
        if line.lstrip().startswith("|") and entry:  # the GPU rows stand in a box, indented
            message = line.strip().strip("|").split("|")[0]
            rows.append((entry[1], entry[2], message, by_line.get(number, [])))
    return rows


def _matches(quoted: str, printed: str) -> bool:
    """The quoted message occurs in what was printed; `...` and `…` stand for anything."""
    pattern = ".*?".join(re.escape(part) for part in re.split(r"\.\.\.|…", quoted))
    return re.search(pattern, printed) is not None


def test_each_cpu_entry_prints_its_message_in_the_cpu_run() -> None:
    """Every entry of every atlas page but the GPU one has a row in the index, and the checks
    that row links print each message it quotes, on lines the CPU run reaches (none of
    them is left to a GPU run; tests/test_snippets.py fails a shown line no run reaches)."""
    rows = _index_rows()
    linked = {(page, anchor) for page, anchor, _, _ in rows}
    wrong = []
    for path in atlas_pages():
        if path.stem == GPU_PAGE:
            continue
        wrong += [
            f"{path.stem}: no index row links #{heading_id(title)}"
            for title in entries(path)
            if (path.stem, heading_id(title)) not in linked
        ]
    for page, anchor, message, targets in rows:
        if page == GPU_PAGE:
            continue
        checks = [t.check for t in targets]
        printed = "\n".join(_printed(c) for c in checks if not c.cuda_only)
        if not checks or any(c.cuda_only for c in checks):
            wrong.append(f"{page}#{anchor}: links {checks}, not only checks the CPU run makes")
        wrong += [
            f"{page}#{anchor}: `{quoted}` is not printed by {[c.name for c in checks]}"
            for quoted in re.findall(r"`([^`]+)`", message)
            if not _matches(quoted, printed)
        ]
    assert not wrong, "\n".join(wrong)


def test_each_cpu_entry_shows_a_fix_the_cpu_run_checks() -> None:
    """Every entry of every atlas page but the GPU one shows a fix: a section named `*-fix` or
    `*-fix-*` holding a ✓ check that is not left to a GPU run (so the CPU run executes it)."""
    wrong = []
    for path in atlas_pages():
        if path.stem == GPU_PAGE:
            continue
        page = path.relative_to(REPO_ROOT).as_posix()
        checks = proofs.page_checks(page, REPO_ROOT).values()
        markdown = path.read_text(encoding="utf-8")
        for title, body in re.findall(
            r"^## (.+)\n((?:(?!## ).*\n?)*)", markdown, flags=re.MULTILINE
        ):
            fixes = []
            for file, name in re.findall(r'--8<-- "([^":]+):((?:[^"]*-)?fix(?:-[^"]*)?)"', body):
                snippet = REPO_ROOT / file
                section = next(
                    s
                    for s in read_sections(file, snippet.read_text(encoding="utf-8"))
                    if s.name == name
                )
                fixes += [
                    c
                    for c in checks
                    if c.file == file
                    and section.start_line < c.line < section.end_line
                    and not c.cuda_only
                ]
            if not fixes:
                wrong.append(
                    f"{page}: `## {title}` shows no fix section with a check the CPU run makes"
                )
    assert not wrong, "\n".join(wrong)


def test_the_gpu_entries_are_checked_only_on_gpu_runs() -> None:
    """The index's rows for the GPU page link only checks that a GPU run alone reaches."""
    rows = [(anchor, targets) for page, anchor, _, targets in _index_rows() if page == GPU_PAGE]
    assert rows and all(
        targets and all(t.check.cuda_only for t in targets) for _, targets in rows
    ), rows


def test_the_gpu_pages_gpu_only_checks_are_linked_from_boxes_only() -> None:
    """On the GPU page (both languages), every proof link to a check only a GPU run makes
    stands inside a "Not verified here" box: the statements resting on them are labelled."""
    wrong = []
    for page in (f"docs/errors/{GPU_PAGE}.md", f"docs/errors/{GPU_PAGE}.zh.md"):
        markdown = (REPO_ROOT / page).read_text(encoding="utf-8")
        resolved, problems = proofs.resolve(page, markdown, REPO_ROOT)
        assert not problems, problems
        in_box, boxed = set(), False
        for number, line in enumerate(markdown.splitlines(), start=1):
            if line.startswith("!!! unverified"):
                boxed = True
            elif boxed and (line.startswith("    ") or not line.strip()):
                in_box.add(number)
            else:
                boxed = False
        assert in_box, f"{page}: no box found"
        wrong += [
            f"{page}:{marker.line}: {[t.check.name for t in targets if t.check.cuda_only]}"
            for marker, targets in resolved.items()
            if marker.line not in in_box and any(t.check.cuda_only for t in targets)
        ]
    assert not wrong, "GPU-only checks linked outside a box:\n" + "\n".join(wrong)


def test_each_atlas_code_block_has_a_version_line_as_recorded_or_not() -> None:
    """Under every code block of an atlas page (both languages) the build writes a line from
    the version matrix: where the matrix has recorded the code as it is now, the tested releases
    that print the same, with a fold for each group that differs; otherwise one line that says
    the code changed since it was recorded, was never recorded, or was not run (needs CUDA)."""
    found = Matrix.load(REPO_ROOT)
    wrong = []
    for path in atlas_pages():
        for lang, page in (("en", path), ("zh", path.with_suffix(".zh.md"))):
            name = page.relative_to(REPO_ROOT).as_posix()
            markdown = page.read_text(encoding="utf-8")
            built, _ = matrix_lines.add_block_lines(name, markdown, found, lang, REPO_ROOT)
            blocks = len(re.findall(r'--8<-- "snippets/[^"]+\.py:[^"]+"', markdown))
            lines = re.findall(
                r'<(?:p|span) class="version-range([^"]*)"[^>]*>(?:<span[^>]*></span>)*([^<]*)',
                built,
            )
            unrecorded = {
                text(lang, "matrix.all_stale"),
                text(lang, "matrix.missing"),
                text(lang, "matrix.not_run", reason=text(lang, "matrix.needs_cuda")),
            }
            same = (text(lang, "matrix.same", ranges=""), text(lang, "matrix.same_all", ranges=""))
            if len(lines) != blocks:
                wrong.append(f"{name}: {blocks} code blocks, {len(lines)} version lines")
            for css, raw in lines:
                words = html.unescape(raw)
                recorded = css in ("", " differs") and words.startswith(same)
                if not recorded and not (
                    css.strip() in ("stale", "not-run") and words in unrecorded
                ):
                    wrong.append(f"{name}: {words!r}")
            differing = sum(css == " differs" for css, _ in lines)
            if differing and built.count("??? version-differs") < differing:
                wrong.append(f"{name}: a line names differing releases without their fold")
    assert not wrong, "\n".join(wrong)


def test_data_loading_errors_loads_data_only_under_the_main_guard() -> None:
    # docs/errors/data_loading_errors.md: outside `if __name__ == "__main__":` no statement
    # makes a DataLoader or draws from one (a top-level function may, when called), and
    # every function and class is defined at the top level, but for the ones the
    # "Can't pickle local object" entry shows failing.
    import ast

    path = REPO_ROOT / "snippets" / "errors" / "data_loading_errors.py"
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    loading = {"DataLoader", "iter", "next"}
    for node in tree.body:
        guarded = isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'"
        if not guarded and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            calls = {ast.unparse(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
            assert not calls & loading, f"{path.name}:{node.lineno}: {calls & loading}"

    def nested(node: ast.AST) -> list[tuple[str, int]]:
        found = []
        for child in ast.iter_child_nodes(node):
            is_def = isinstance(child, (ast.FunctionDef, ast.ClassDef, ast.Lambda))
            top_level = node is tree and not isinstance(child, ast.Lambda)
            method = isinstance(node, ast.ClassDef) and isinstance(child, ast.FunctionDef)
            if is_def and not top_level and not method:
                found.append((getattr(child, "name", "<lambda>"), child.lineno))
            found += nested(child)
        return found

    lines = source.splitlines()
    start = lines.index("# --8<-- [start:pickle]") + 1
    end = lines.index("# --8<-- [end:pickle-why]") + 1
    found = nested(tree)
    assert [name for name, _ in found] == ["stack_samples", "<lambda>", "<lambda>", "<lambda>"]
    assert all(start < line < end for _, line in found), found
