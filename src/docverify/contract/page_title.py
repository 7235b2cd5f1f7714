"""Lines the build writes under a page's title: download links, the run command, search terms."""

from __future__ import annotations

import re

_TITLE = re.compile(r"^# .+$", re.MULTILINE)


def under_title(markdown: str, block: str) -> str:
    """`markdown` with `block` as a paragraph of its own right under the `# title` line.

    A page without a title is returned as it is. Each phase that calls this puts its
    block first under the title, so the last phase of the plugin ends up on top.
    """
    title = _TITLE.search(markdown)
    if not title:
        return markdown
    return markdown[: title.end()] + f"\n\n{block}\n" + markdown[title.end() :]
