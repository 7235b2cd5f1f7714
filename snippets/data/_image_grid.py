"""Picture grids for the Data pages' figures (figure-only code, never shown on a page).

A private helper (the leading `_` keeps it out of the snippet runs): the
transform snippets import it in their hidden figure code, after the shown
code, to draw images side by side and write them with
`docverify.figures.save_figure`. Nothing a page shows depends on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure
from PIL import Image

from docverify.figures import save_figure


def _as_array(image: Image.Image | torch.Tensor | np.ndarray) -> np.ndarray:
    """HWC (or HW) array for imshow; CHW / HW tensors (uint8 or float in [0, 1]) are accepted."""
    if isinstance(image, Image.Image):
        return np.asarray(image)
    if isinstance(image, torch.Tensor):
        image = image.detach().cpu()
        if image.dtype.is_floating_point:
            image = image.clamp(0, 1)
        return image.numpy() if image.ndim == 2 else image.permute(1, 2, 0).numpy()
    return image


def save_image_grid(
    images: Sequence[Image.Image | torch.Tensor | np.ndarray],
    titles: Sequence[str],
    name: str,
    *,
    ncols: int | None = None,
    panel_inches: float = 1.6,
    dpi: int = 80,
) -> Path:
    """Draw `images` in a grid with one title each and save as <name>.png.

    `name` is "<section>/<file>" as for save_figure. Axes are hidden; every
    panel uses the same pixel scale (top-left aligned), so sizes compare.
    The figure is small (dpi 80) on purpose.
    """
    if len(images) != len(titles):
        raise ValueError(f"{len(images)} images but {len(titles)} titles")
    ncols = ncols or len(images)
    nrows = -(-len(images) // ncols)
    fig = Figure(figsize=(panel_inches * ncols, panel_inches * 1.25 * nrows))
    # No ticks at all (the axes are hidden): making and measuring them was half the time.
    axes = fig.subplots(nrows, ncols, squeeze=False, subplot_kw={"xticks": [], "yticks": []})
    for ax in axes.flat:
        ax.set_axis_off()
    arrays = [_as_array(image) for image in images]
    height = max(a.shape[0] for a in arrays)
    width = max(a.shape[1] for a in arrays)
    for ax, array, title in zip(axes.flat, arrays, titles, strict=True):
        if array.ndim == 2:  # one channel: grey levels, 0 = black, full scale = white
            top = 1.0 if array.dtype.kind == "f" else 255
            ax.imshow(array, cmap="gray", vmin=0, vmax=top)
        else:
            ax.imshow(array)
        # One pixel scale for all panels, so a smaller image looks smaller.
        ax.set_xlim(-0.5, width - 0.5)
        ax.set_ylim(height - 0.5, -0.5)
        ax.set_title(title, fontsize=8)
    # Cheaper than tight_layout with many panels; save_figure trims the margins.
    fig.subplots_adjust(
        left=0, right=1, bottom=0, top=1 - 0.25 / (1.25 * nrows), wspace=0.05, hspace=0.25
    )
    return save_figure(fig, name, dpi=dpi)
