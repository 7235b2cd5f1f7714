"""MkDocs hook: index the built site (both languages) with Pagefind, the site's search.

Pagefind reads the written HTML, splits it into words per page language (it
segments Chinese, which the browser cannot do for a typed query in Material's
search), and writes a static index and its search dialog under `pagefind/`.
The browser loads only those files: no request leaves the site. Material's
search plugin is not configured; scripts/compare_search.py builds with it to
measure the two against tests/search_cases.yaml.

mkdocs-static-i18n builds the Chinese edition inside the English build's
post-build step, so this runs once, after the plugin's own post-build (lower
priority), when no language build is still under way.
"""

from __future__ import annotations

import subprocess
import sys

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority


def _language_build_under_way(config) -> bool:
    i18n = config.plugins.get("i18n")
    return bool(i18n and i18n.building)


@event_priority(-200)
def on_post_build(config):
    if "material/search" in config.plugins or _language_build_under_way(config):
        return
    command = [sys.executable, "-m", "pagefind", "--site", config.site_dir, "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PluginError(f"pagefind failed ({done.returncode}): {done.stderr or done.stdout}")
