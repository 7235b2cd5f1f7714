"""The site quotes what readers paste: the demand corpus's errors, found on the pages.

demand/errors.yaml holds error messages real users pasted, with their sources
(demand/README.md). Each in-scope error's `key`, the stable part of the message,
must occur in what a reader sees on some page: its prose or the code and `#>` lines
of a section it embeds (docverify.contract.demand). At least 90% of the in-scope
errors are quoted; the failure lists the others, with their sources.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from docverify import yaml_data
from docverify.contract import demand
from docverify.paths import REPO_ROOT
from docverify.site.site_config import markdown_options

TARGET = 0.90


def test_every_entry_has_a_source_a_topic_and_a_scope() -> None:
    errors = demand.load()
    assert errors, f"{demand.CORPUS} is empty"
    assert len({e.id for e in errors}) == len(errors), "an id is used twice"
    wrong = demand.entry_problems(errors)
    assert not wrong, "\n".join(wrong)


def test_at_least_ninety_percent_of_in_scope_errors_are_quoted_by_a_page() -> None:
    cov = demand.coverage()
    assert cov.share >= TARGET, demand.report(cov)


def test_an_entry_without_a_source_or_a_reason_is_named() -> None:
    broken = [
        demand.Error("e1", "boom: x", "boom", "", "en", "shapes", "in", ""),
        demand.Error("e2", "boom: x", "boom", "a/b#1", "en", "shapes", "out", ""),
        demand.Error("e3", "boom: x", "bang", "a/b#1", "en", "nowhere", "maybe", ""),
    ]
    wrong = "\n".join(demand.entry_problems(broken))
    for expected in (
        "e1: no source",
        "e2: out of scope without a reason",
        "e3: topic 'nowhere'",
        "e3: scope 'maybe'",
        "e3: key 'bang' is not part of its message",
    ):
        assert expected in wrong, wrong


def test_a_key_counts_in_prose_or_in_an_embedded_section_and_nowhere_else(tmp_path: Path) -> None:
    """A key quoted in a page's prose or printed by a section it embeds counts; a key only
    in a part of the snippet the page does not show does not; line breaks count as spaces."""
    (tmp_path / "docs" / "s").mkdir(parents=True)
    (tmp_path / "snippets" / "s").mkdir(parents=True)
    snippets = markdown_options(REPO_ROOT)["pymdownx.snippets"]  # embeds rendered as the site does
    config = {"site_name": "t", "markdown_extensions": [{"pymdownx.snippets": snippets}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "snippets" / "s" / "p.py").write_text(
        "# --8<-- [start:shown]\nprint('x')\n#> RuntimeError: shown here\n# --8<-- [end:shown]\n"
        "# --8<-- [start:hidden]\nprint('y')\n#> RuntimeError: not shown\n# --8<-- [end:hidden]\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "s" / "p.md").write_text(
        '# P\n\nReaders paste `wrapped\nover two lines`.\n\n```python\n--8<-- "snippets/s/p.py:shown"\n```\n',
        encoding="utf-8",
    )

    def error(key: str) -> demand.Error:
        return demand.Error("e1", key, key, "a/b#1", "en", "shapes", "in", "")

    assert demand.quoting_pages(error("shown here"), tmp_path) == ["s/p.md"]
    assert demand.quoting_pages(error("wrapped over two lines"), tmp_path) == ["s/p.md"]
    assert demand.quoting_pages(error("not shown"), tmp_path) == []
    cov = demand.coverage(tmp_path, [error("shown here"), error("not shown")])
    assert cov.share == 0.5 and [e.key for e in cov.missing] == ["not shown"]
    assert "not shown" in demand.report(cov) and "a/b#1" in demand.report(cov)


def test_the_fast_yaml_reader_reads_what_the_safe_loader_reads(tmp_path: Path) -> None:
    # docverify.yaml_data uses libyaml's loader for speed; it must build the same data
    # from the corpus files and the search cases, and still refuse Python objects.
    files = [REPO_ROOT / demand.CORPUS, REPO_ROOT / demand.QUESTIONS]
    files.append(REPO_ROOT / "tests" / "search_cases.yaml")
    for path in files:
        assert yaml_data.read(path) == yaml.safe_load(path.read_text(encoding="utf-8")), path
    unsafe = tmp_path / "unsafe.yaml"
    unsafe.write_text("!!python/object/apply:os.getcwd []\n", encoding="utf-8")
    with pytest.raises(yaml.constructor.ConstructorError):
        yaml_data.read(unsafe)
