"""The photograph the Data pages transform, and before/after picture grids.

Every transform page starts from the same real photo: matplotlib ships
`grace_hopper.jpg` (512x600 pixels) with its sample data, so no download is
needed. `sample_photo()` returns it resized small, so snippets stay fast and
the generated PNGs stay small; `save_image_grid()` draws images side by side
and writes them with `docverify.figures.save_figure`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
from matplotlib import cbook
from matplotlib.figure import Figure
from PIL import Image

from docverify.figures import save_figure

PHOTO_NAME = "grace_hopper.jpg"


@lru_cache(maxsize=4)
def _photo(width: int) -> Image.Image:
    with cbook.get_sample_data(PHOTO_NAME) as f, Image.open(f) as img:
        rgb = img.convert("RGB")
    height = round(rgb.height * width / rgb.width)
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait as an RGB PIL image `width` pixels wide (aspect kept).

    A fresh copy each call, so a snippet may change it freely. The original is
    512x600 (W x H); the default 128 gives 128x150.
    """
    return _photo(width).copy()


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
    axes = fig.subplots(nrows, ncols, squeeze=False)
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
