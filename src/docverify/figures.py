"""Save figures that pages show, reproducibly.

Every picture on the site is produced by a snippet through `save_figure`, so
the file is rewritten by each test run and by `python snippets/...`. PNG
metadata that would change between runs (the software version stamp) is
dropped so that an unchanged figure leaves `git status` clean.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on CI or docs builders

from matplotlib.figure import Figure  # noqa: E402

from docverify.paths import GENERATED_DIR  # noqa: E402


def save_figure(fig: Figure, name: str, *, dpi: int = 100) -> Path:
    """Write `fig` to docs/assets/generated/<name>.png and return the path."""
    path = GENERATED_DIR / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, metadata={"Software": None}, bbox_inches="tight")
    return path
