"""mkdocs.yml, read the one way MkDocs reads it (`mkdocs.config.load_config`).

For what needs the site's configuration outside a build: the pymdownx.snippets
options that render an embed (docverify.contract.sections), the nav, the plugins. Read
once per checkout and process.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path


@functools.cache
def load(root: Path):
    """The validated MkDocsConfig of the checkout `root`.

    A folder without mkdocs.yml (a throw-away project in a test) is read with the
    configuration of the checkout this package belongs to.
    """
    from mkdocs.config import load_config

    from docverify.paths import REPO_ROOT

    config = root / "mkdocs.yml"
    return load_config(config_file=str(config if config.is_file() else REPO_ROOT / "mkdocs.yml"))


def source_url(config) -> str:
    """The repository's file view (`…/blob/main/`) from mkdocs.yml's `edit_uri`, or "" without one:
    where a page links a snippet's source."""
    edit_uri = config.get("edit_uri") or ""
    return edit_uri.replace("/edit/", "/blob/").removesuffix("docs/")


# The version matrix records in environments that hold the runtime stack, not MkDocs
# and its plugins: scripts/matrix.py reads the options here and hands them over.
OPTIONS_VARIABLE = "DOCVERIFY_MARKDOWN_OPTIONS"


def markdown_options(root: Path) -> dict:
    """Each Markdown extension's options, by extension name (`mdx_configs`)."""
    if handed := os.environ.get(OPTIONS_VARIABLE):
        return json.loads(handed)
    return dict(load(root)["mdx_configs"])
