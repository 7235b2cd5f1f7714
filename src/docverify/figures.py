"""Save figures that pages show, reproducibly.

Every picture on the site is produced by a snippet through `save_figure`, so
the file is rewritten by each test run and by `python snippets/...`. PNG
metadata that would change between runs (the software version stamp) is
dropped so that an unchanged figure leaves `git status` clean.
"""

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on CI or docs builders

from matplotlib.figure import Figure  # noqa: E402

from docverify.paths import GENERATED_DIR  # noqa: E402

# `make matrix` runs the snippets on other stacks (other matplotlib releases draw other
# pixels): there the figures go to a folder of its own, never over the committed ones.
FIGURES_DIR_VARIABLE = "NOTES_FIGURES_DIR"


def save_figure(fig: Figure, name: str, *, dpi: int = 100) -> Path:
    """Write `fig` to docs/assets/generated/<name>.png (or under $NOTES_FIGURES_DIR) and
    return the path."""
    path = Path(os.environ.get(FIGURES_DIR_VARIABLE) or GENERATED_DIR) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, metadata={"Software": None}, bbox_inches="tight")
    return path
