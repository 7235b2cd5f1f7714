"""The measurements the Verification page shows are rendered from their committed data.

- the search comparison (scripts/compare_search.py): the summary is what the
  data renders to, in both languages, and says when it was measured and on how
  many cases (the data records the cases it ran: a case added since needs no new
  run; tests/test_search_browser.py holds the site's search to today's cases);
  the engine it names as best is the one the site runs (no Material search
  plugin in mkdocs.yml, the dialog's script in the theme);
- Lighthouse's accessibility, best-practices and SEO scores
  (scripts/lighthouse_accessibility.py): the summary is what the data renders
  to; every page type in both editions was scored in each category, each at
  least its category's target (accessibility 98, best practices and SEO 100).
"""

from __future__ import annotations

import copy
import datetime
import importlib.util
import json
from pathlib import Path

import pytest

from docverify.paths import REPO_ROOT
from docverify.site import measured, site_config
from docverify.site.built_site import PAGE_TYPES


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = _script("compare_search")
lighthouse = _script("lighthouse_accessibility")


def _data(module) -> dict:
    return json.loads(Path(module.OUT).read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", [compare, lighthouse], ids=["search", "lighthouse"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_summary_is_rendered_from_the_committed_data(module, lang: str) -> None:
    path = measured.summary_path(module.OUT, lang)
    expected = module.render_summary(_data(module), lang)
    assert path.read_text(encoding="utf-8") == expected, (
        f"{path.relative_to(REPO_ROOT)} is stale: run "
        f"`.venv/bin/python scripts/{Path(module.__file__).name} --render-only`"
    )


def test_search_data_records_the_cases_it_ran() -> None:
    # Each engine's rank for each case the run asked, and the day it ran.
    data = _data(compare)
    today = datetime.datetime.now(datetime.timezone.utc).date()
    assert datetime.date.fromisoformat(data["measured"]) <= today
    for engine, ranks in data["ranks"].items():
        for kind in compare.KINDS:
            assert len(ranks[kind]) == len(data["cases"][kind]) > 0, (engine, kind)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_search_summary_says_when_and_on_how_many_cases(lang: str) -> None:
    data = copy.deepcopy(_data(compare))
    data["measured"] = "2031-05-06"
    data["cases"]["lookups"].append(dict(data["cases"]["lookups"][0]))  # one case more
    for ranks in data["ranks"].values():
        ranks["lookups"].append(ranks["lookups"][0])
    total = sum(len(data["cases"][kind]) for kind in compare.KINDS)
    summary = compare.render_summary(data, lang)
    assert "2031-05-06" in summary and f" {total} " in summary


def test_the_best_engine_is_the_one_the_site_uses() -> None:
    data = _data(compare)
    assert compare.best_engine(data) == "site"
    plugins = site_config.load(REPO_ROOT).plugins
    assert not [name for name in plugins if name.endswith("search")], (
        "Material's search plugin is on"
    )
    main = (REPO_ROOT / "overrides" / "main.html").read_text(encoding="utf-8")
    assert "site-search.js" in main


def test_the_verdict_follows_the_data() -> None:
    # Make Material's search answer every question at rank 1: the summary must say so.
    data = copy.deepcopy(_data(compare))
    data["ranks"]["material"]["questions"] = [1] * len(data["cases"]["questions"])
    assert compare.best_engine(data) == "material"
    assert "Material search ranks best" in compare.render_summary(data, "en")


def test_every_page_type_scores_at_least_the_target_in_both_editions() -> None:
    data = _data(lighthouse)
    scored = {(p["type"], p["lang"], c) for p in data["pages"] for c in p["scores"]}
    categories = ("performance", "accessibility", "best-practices", "seo")
    assert scored == {
        (k, lang, c) for k, _ in PAGE_TYPES for lang in ("en", "zh") for c in categories
    }
    assert data["targets"] == {
        "performance": 90,
        "accessibility": 98,
        "best-practices": 100,
        "seo": 100,
    }
    assert not lighthouse.below_target(data), lighthouse.below_target(data)


def test_a_pages_performance_is_the_median_of_its_runs() -> None:
    for page in _data(lighthouse)["pages"]:
        runs = page["performance_runs"]
        assert len(runs) == lighthouse.PERFORMANCE_RUNS == 3
        assert page["scores"]["performance"] == sorted(runs)[1], page["path"]


def test_a_low_score_fails_the_lighthouse_check() -> None:
    data = copy.deepcopy(_data(lighthouse))
    data["pages"][0]["scores"]["seo"] = 91
    assert "SEO 91" in lighthouse.render_summary(data, "en")
    assert lighthouse.below_target(data) == ["home [en] seo: 91"]
