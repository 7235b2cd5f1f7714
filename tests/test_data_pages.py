"""Checks of the Data section beyond what every snippet gets (tests/test_snippets.py).

- The error page can be found by pasting the error: its prose holds the exact
  message the snippet's `#>` line shows (the site search indexes prose).
- Generated pictures stay small, and every picture a Data page links exists.
- The transform pages each define `sample_photo()` on the page (issue 13: no
  shared helper); the definitions must stay identical, so every page shows
  the same photo.
- The figure-only grid helper (snippets/data/_image_grid.py) fails loudly on
  mismatched titles, and draws every panel at one pixel scale.
- The pinned-memory page says its `SimpleCustomBatch` is the notes' code with
  `strict=True` added to `zip`: compared with the notes here.
- The pinned-memory page ascribes to the notes only what they say: pinned
  memory makes host-to-GPU copies faster, nothing about asynchronous copies.
- The spatial page says the notes list their spatial transforms in four
  one-line entries and quotes all four: counted in the notes here.
- The dataloader page says the notes use a `MyTrainDataset` they do not define.
- The ColorJitter page's picture caption says what each row of the grid shows and
  that the code drawing it is kept off the page: read in its figure-only tail here.
- The num_workers page says the notes load tiny-ImageNet with
  `num_workers=20` and call the workers threads (线程): read in the notes here.
- The section index (whose stated threshold tests/test_claims.py checks) lists every
  Correction box of the section in its table; the only CUDA-only snippet is the
  pinned-memory page's; each photo page's picture is drawn by its own snippet.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys

import pytest
from PIL import Image

from docverify.contract import boxes, snippets
from docverify.contract.sections import read_sections
from docverify.paths import DOCS_DIR, GENERATED_DIR, REPO_ROOT

DATA_DOCS = DOCS_DIR / "data"
DATA_SNIPPETS = REPO_ROOT / "snippets" / "data"
DATA_FIGURES = GENERATED_DIR / "data"
MAX_PNG_BYTES = 150_000
ERROR_PAGE = DATA_DOCS / "batch_size_error.md"
ERROR_SNIPPET = DATA_SNIPPETS / "batch_size_error.py"
PHOTO_PAGES = ["to_tensor", "normalize", "spatial", "color_jitter", "compose_v2"]


def test_error_page_prose_holds_the_printed_error() -> None:
    shown = [
        line.split("#> ", 1)[1]
        for line in ERROR_SNIPPET.read_text(encoding="utf-8").splitlines()
        if "#> ValueError: Expected input batch_size" in line
    ]
    assert shown, "the snippet no longer prints the batch-size error"
    page = ERROR_PAGE.read_text(encoding="utf-8")
    assert f"`{shown[0]}`" in page, f"{ERROR_PAGE.name} must quote the exact message: {shown[0]}"


@pytest.mark.parametrize("png", sorted(DATA_FIGURES.glob("*.png")), ids=lambda p: p.name)
def test_generated_pictures_are_small(png) -> None:
    size = png.stat().st_size
    assert size < MAX_PNG_BYTES, f"{png.name} is {size} bytes; keep pictures under {MAX_PNG_BYTES}"


@pytest.mark.parametrize("page", sorted(DATA_DOCS.glob("*.md")), ids=lambda p: p.name)
def test_linked_pictures_exist(page) -> None:
    for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
        assert (page.parent / target).resolve().is_file(), f"{page.name}: missing picture {target}"


def _function_source(path, name: str) -> str:
    source = path.read_text(encoding="utf-8")
    node = next(
        n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name
    )
    return ast.get_source_segment(source, node)


def test_every_photo_page_shows_the_picture_its_own_snippet_draws() -> None:
    # data/index.md: each transform page's photo picture is drawn by the page's own snippet
    # file, in its figure-only tail: save_image_grid or save_figure naming data/<page>.
    for name in PHOTO_PAGES:
        text = (DATA_SNIPPETS / f"{name}.py").read_text(encoding="utf-8")
        last_end = max(s.end_line for s in read_sections(DATA_SNIPPETS / f"{name}.py", text))
        tail = "\n".join(text.splitlines()[last_end:])
        assert re.search(rf"save_(image_grid|figure)\((.|\n)*?\"data/{name}\"", tail), name
        pictures = re.findall(
            r"!\[[^\]]*\]\(([^)]+)\)", (DATA_DOCS / f"{name}.md").read_text("utf-8")
        )
        assert pictures == [f"../assets/generated/data/{name}.png"], name


def test_the_sections_cuda_checks_are_the_pinned_memory_pages() -> None:
    # data/index.md: the checks that need CUDA are on the pinned-memory page, marked
    # `# requires: cuda`; every other data snippet runs on a CPU (tests/test_snippets.py).
    marked = [p.name for p in sorted(DATA_SNIPPETS.glob("*.py")) if snippets.load(p).needs_cuda]
    assert marked == ["pinned_memory_cuda.py"]
    page = (DATA_DOCS / "pinned_memory.md").read_text(encoding="utf-8")
    assert '--8<-- "snippets/data/pinned_memory_cuda.py' in page


def test_the_index_table_lists_every_correction_of_the_section() -> None:
    # data/index.md: each Correction box on a data page has its row in the index's table
    # (the rows that say "a caveat, not a correction" are the caveats it lists as well).
    index = (DATA_DOCS / "index.md").read_text(encoding="utf-8")
    table = index.split("## Corrections made in this section")[1].split("\n\n")[1]
    rows = [row for row in table.splitlines()[2:] if "a caveat, not a correction" not in row]
    for page in sorted(DATA_DOCS.glob("*.md")):
        if page.name.endswith(".zh.md") or page.name == "index.md":
            continue
        boxes_here = len(re.findall(r"^!!! correction ", page.read_text("utf-8"), re.MULTILINE))
        listed = sum(f"]({page.name})" in row for row in rows)
        assert listed == boxes_here, f"{page.name}: {boxes_here} corrections, {listed} rows"


def test_every_photo_page_defines_the_same_sample_photo_in_its_setup() -> None:
    sources = {}
    for name in PHOTO_PAGES:
        path = DATA_SNIPPETS / f"{name}.py"
        text = path.read_text(encoding="utf-8")
        setup = next(s for s in read_sections(path, text) if s.name == "setup")
        segment = "\n".join(text.splitlines()[setup.start_line : setup.end_line - 1])
        assert "def sample_photo(" in segment, f"{path.name}: sample_photo is not in `setup`"
        sources[name] = _function_source(path, "sample_photo")
    first = sources[PHOTO_PAGES[0]]
    # data/index.md: Grace Hopper's portrait, shipped with matplotlib (its sample data)
    assert 'cbook.get_sample_data("grace_hopper.jpg")' in first, first
    differ = [name for name, source in sources.items() if source != first]
    assert not differ, f"sample_photo differs from {PHOTO_PAGES[0]}.py's in: {differ}"


@pytest.fixture
def image_grid():
    spec = importlib.util.spec_from_file_location("_image_grid", DATA_SNIPPETS / "_image_grid.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("_image_grid", None)


def test_image_grid_needs_one_title_per_image(image_grid) -> None:
    photo = Image.new("RGB", (4, 3))
    with pytest.raises(ValueError, match="2 images but 1 titles"):
        image_grid.save_image_grid([photo, photo], ["one"], "data/never-written")
    assert not (DATA_FIGURES / "never-written.png").exists()


def test_image_grid_draws_every_panel_at_one_pixel_scale(image_grid, monkeypatch) -> None:
    # The spatial page's caption: all panels share one pixel scale, so sizes compare.
    drawn = []
    monkeypatch.setattr(image_grid, "save_figure", lambda fig, name, dpi: drawn.append(fig))
    images = [Image.new("RGB", (40, 30)), Image.new("RGB", (20, 10))]
    image_grid.save_image_grid(images, ["big", "small"], "data/never-written")
    panels = [ax for ax in drawn[0].axes if ax.images]
    assert len(panels) == 2
    assert {(ax.get_xlim(), ax.get_ylim()) for ax in panels} == {((-0.5, 39.5), (29.5, -0.5))}
    assert len({tuple(ax.get_position().size.round(6)) for ax in panels}) == 1  # same size
    assert not (DATA_FIGURES / "never-written.png").exists()


def _code_lines(code: str) -> list[str]:
    """Statements only: no blank lines, comments or docstrings; `strict=True` removed."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            body.pop(0)  # a docstring
        if isinstance(node, ast.Call):
            node.keywords = [k for k in node.keywords if k.arg != "strict"]
    return ast.unparse(tree).splitlines()


def test_custom_batch_is_the_notes_code_with_strict_zip() -> None:
    if not boxes.SEEDS_DIR.is_dir():
        pytest.skip(f"the original notes are not at {boxes.SEEDS_DIR} (set NOTES_SEEDS_DIR)")
    notes = next(
        p.read_text(encoding="utf-8")
        for p in sorted(boxes.SEEDS_DIR.iterdir())
        if "class SimpleCustomBatch" in p.read_text(encoding="utf-8")
    )
    start = notes.index("class SimpleCustomBatch")
    notes_code = notes[start : notes.index("inps = torch.arange", start)]
    path = DATA_SNIPPETS / "pinned_memory.py"
    text = path.read_text(encoding="utf-8")
    section = next(s for s in read_sections(path, text) if s.name == "custom-batch")
    shown = "\n".join(text.splitlines()[section.start_line : section.end_line - 1])
    assert "zip(*data, strict=True)" in shown
    assert _code_lines(shown) == _code_lines(notes_code)


def _notes_with(text: str) -> str:
    if not boxes.SEEDS_DIR.is_dir():
        pytest.skip(f"the original notes are not at {boxes.SEEDS_DIR} (set NOTES_SEEDS_DIR)")
    return next(
        p.read_text(encoding="utf-8")
        for p in sorted(boxes.SEEDS_DIR.iterdir())
        if text in p.read_text(encoding="utf-8")
    )


def spatial_entries(notes: str) -> list[str]:
    """The lines of the notes' 空间操作 (spatial transforms) section, up to the next heading."""
    section = notes.split("\n空间操作\n", 1)[1].split("\n色彩抖动\n", 1)[0]
    return [line.strip() for line in section.splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["spatial.md", "spatial.zh.md"])
def test_spatial_page_quotes_the_four_entries_of_the_notes(name: str) -> None:
    entries = spatial_entries(_notes_with("\n空间操作\n"))
    assert len(entries) == 4, entries  # the page says "four one-line entries"
    markdown = (DATA_DOCS / name).read_text(encoding="utf-8")
    missing = [entry for entry in entries if f"「{entry}」" not in markdown]
    assert not missing, f"{name} does not quote these entries of the notes: {missing}"


def tiny_imagenet_example(notes: str) -> tuple[str, str]:
    """The notes' tiny-ImageNet loading code, and the paragraph that explains it."""
    start = notes.index("以tiny-ImageNet为例")
    explained = notes.index("其中num_workers", start)
    return notes[start:explained], notes[explained : notes.index("\n", explained)]


def test_num_workers_page_says_what_the_notes_do() -> None:
    code, explanation = tiny_imagenet_example(_notes_with("以tiny-ImageNet为例"))
    workers = re.findall(r"num_workers=(\d+)", code)
    assert workers and set(workers) == {"20"}, workers  # "load tiny-ImageNet with num_workers=20"
    assert (
        "num_workers表示用于进行数据预取和预处理的线程个数" in explanation
    )  # "threads that prefetch"


def test_dataloader_page_says_the_notes_do_not_show_their_dataset() -> None:
    # dataloader.md: the notes build `Dataloader.MyTrainDataset(...)`, "a dataset of image
    # files whose code they do not show": no note defines the class.
    _notes_with("Dataloader.MyTrainDataset(root_dir=")  # used (skips without the notes)
    defined = [
        p.name
        for p in sorted(boxes.SEEDS_DIR.iterdir())
        if re.search(r"class\s+MyTrainDataset\b", p.read_text(encoding="utf-8"))
    ]
    assert not defined, f"the notes define MyTrainDataset in {defined}: the page says they do not"


def test_color_jitter_grid_is_what_the_caption_says() -> None:
    # color_jitter.md's caption: rows 1 to 3 are brightness, contrast and saturation at
    # factors 0, 0.5, 1, 1.5, 3; row 4 hue from -0.5 to 0.5; row 5 five seeded draws of
    # ColorJitter(0.4, 0.4, 0.4, 0.1), five panels a row; and the code that draws the grid is
    # kept off the page (it follows the last section, so no embed shows it).
    source = (DATA_SNIPPETS / "color_jitter.py").read_text(encoding="utf-8")
    last_end = source.rindex("# --8<-- [end:")
    hidden = source[source.index("\n", last_end) :]
    assert "# --8<-- [start:" not in hidden and "save_image_grid(" in hidden
    [rows] = [
        node.value
        for node in ast.parse(hidden).body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["rows"]
    ]
    drawn = {
        key.value: (value.elts[0].attr, ast.literal_eval(value.elts[1]))
        for key, value in zip(rows.keys, rows.values, strict=True)
    }
    factors = [0.0, 0.5, 1.0, 1.5, 3.0]
    assert list(drawn.items()) == [
        ("brightness", ("adjust_brightness", factors)),
        ("contrast", ("adjust_contrast", factors)),
        ("saturation", ("adjust_saturation", factors)),
        ("hue", ("adjust_hue", [-0.5, -0.25, 0.0, 0.25, 0.5])),
    ]
    random_row = hidden[hidden.index("torch.manual_seed(0)") :]  # seeded, after the four rows
    assert "ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)" in random_row
    assert "for i in range(5):" in random_row and "ncols=5" in random_row
