"""Normalize: the per-channel formula, mean and *standard deviation*, dataset statistics.

Page: docs/data/normalize.md
"""

# --8<-- [start:setup]
import inspect

import torch
import torchvision
from matplotlib import cbook
from matplotlib.figure import Figure
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait (matplotlib's sample data), resized to `width` pixels wide."""
    with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as photo:
        rgb = photo.convert("RGB")  # the file is 512 x 600 (width x height)
    height = round(rgb.height * width / rgb.width)  # keep the aspect ratio
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


# --8<-- [end:setup]

# --8<-- [start:formula]
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]  # the usual ImageNet statistics
weights = torchvision.models.ResNet18_Weights.IMAGENET1K_V1  # (no download: metadata only)
assert weights.transforms().mean == MEAN and weights.transforms().std == STD  # what it expects ✓ imagenet-stats
x = transforms.ToTensor()(sample_photo())  # values in [0, 1]
assert x.shape == (3, 150, 128)  # C x H x W ✓ photo-size
y = transforms.Normalize(mean=MEAN, std=STD)(x)
for c in range(3):  # output[c] = (input[c] - mean[c]) / std[c], channel by channel
    assert torch.allclose(y[c], (x[c] - MEAN[c]) / STD[c])  # ✓ formula
    assert y[c].std() > x[c].std()  # std < 1: each channel's values spread out ✓ spread
print(transforms.Normalize(mean=MEAN, std=STD))
#> Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
print([round(v, 3) for v in y.amin(dim=(1, 2)).tolist()], [round(v, 3) for v in y.amax(dim=(1, 2)).tolist()])
#> [-1.981, -1.896, -1.665] [2.249, 2.429, 2.64]
# --8<-- [end:formula]

# --8<-- [start:figure]
fig = Figure(figsize=(8, 2.4))
ax_img, ax_norm, ax_hist = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 2.2]})
ax_img.imshow(x.permute(1, 2, 0).numpy())
ax_img.set_title("ToTensor: [0, 1]", fontsize=8)
shown = (y - y.min()) / (y.max() - y.min())  # rescaled to [0, 1] only to display it
ax_norm.imshow(shown.permute(1, 2, 0).numpy())
ax_norm.set_title("Normalize (rescaled to show)", fontsize=8)
for ax in (ax_img, ax_norm):
    ax.set_axis_off()
bins = torch.linspace(-2.2, 2.8, 101).numpy()  # the same bins before and after
for c, colour in enumerate("rgb"):
    ax_hist.hist(x[c].flatten().numpy(), bins=bins, color=colour, alpha=0.35, histtype="stepfilled")
    ax_hist.hist(y[c].flatten().numpy(), bins=bins, color=colour, histtype="step")
ax_hist.set_title("pixel values per channel: before (filled), after (lines)", fontsize=8)
ax_hist.tick_params(labelsize=7)
fig.tight_layout()
# --8<-- [end:figure]

# --8<-- [start:std-not-variance]
print(inspect.signature(transforms.Normalize))  # ✓ signature
#> (mean, std, inplace=False)
variances = [s**2 for s in STD]
print([round(v, 4) for v in variances])  # ✓ variances
#> [0.0524, 0.0502, 0.0506]
wrong = transforms.Normalize(mean=MEAN, std=variances)(x)  # "方差" taken literally
print(round(y.std().item(), 2), round(wrong.std().item(), 2))  # 4 to 5 times too spread out ✓ too-spread
#> 1.24 5.5
assert all(4 < s / v < 5 for s, v in zip(STD, variances, strict=True))  # dividing by numbers 4-5x too small ✓ four-to-five
# --8<-- [end:std-not-variance]


# --8<-- [start:dataset-stats]
class PhotoCrops(Dataset):
    """100 random 64x64 crops of the photo: a small dataset made in code."""

    def __init__(self) -> None:
        self.photo = transforms.ToTensor()(sample_photo())
        g = torch.Generator().manual_seed(0)
        self.corners = torch.stack(
            [torch.randint(0, 150 - 64, (100,), generator=g), torch.randint(0, 128 - 64, (100,), generator=g)], 1
        )

    def __len__(self) -> int:
        return len(self.corners)

    def __getitem__(self, i: int) -> torch.Tensor:
        top, left = self.corners[i].tolist()
        return self.photo[:, top : top + 64, left : left + 64]


def channel_stats(loader: DataLoader) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and std per channel over every pixel of every image, one pass, float64 sums."""
    n, total, total_sq = 0, torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    for batch in loader:  # batch: B x 3 x H x W
        pixels = batch.transpose(0, 1).reshape(3, -1).double()
        n += pixels.shape[1]
        total += pixels.sum(dim=1)
        total_sq += (pixels**2).sum(dim=1)
    mean = total / n
    return mean.float(), (total_sq / n - mean**2).sqrt().float()


crops = PhotoCrops()
mean, std = channel_stats(DataLoader(crops, batch_size=32))
print([round(v, 3) for v in mean.tolist()], [round(v, 3) for v in std.tolist()])  # ✓ dataset-stats
#> [0.437, 0.327, 0.321] [0.335, 0.261, 0.263]
everything = torch.stack([crops[i] for i in range(len(crops))])
assert torch.allclose(mean, everything.mean(dim=(0, 2, 3)), atol=1e-6)  # ✓ stats-match
assert torch.allclose(std, everything.std(dim=(0, 2, 3), correction=0), atol=1e-6)  # ✓ stats-match-std
# --8<-- [end:dataset-stats]

# --8<-- [start:zero-mean-unit-std]
normalized = transforms.Normalize(mean.tolist(), std.tolist())(everything)
print([round(v, 3) + 0.0 for v in normalized.mean(dim=(0, 2, 3)).tolist()])  # + 0.0: no "-0.0" ✓ zero-mean
#> [0.0, 0.0, 0.0]
print([round(v, 3) for v in normalized.std(dim=(0, 2, 3), correction=0).tolist()])  # ✓ unit-std
#> [1.0, 1.0, 1.0]
print([round(v, 3) for v in y.mean(dim=(1, 2)).tolist()])  # ImageNet stats on this photo: not 0 ✓ imagenet-not-zero
#> [-0.705, -0.767, -0.298]
# --8<-- [end:zero-mean-unit-std]

# --8<-- [start:tensor-only]
try:
    transforms.Normalize(MEAN, STD)(sample_photo())  # a PIL image, before ToTensor
except TypeError as err:
    print(f"TypeError: {err}")  # ✓ tensor-only
    #> TypeError: img should be Tensor Image. Got <class 'PIL.Image.Image'>
# --8<-- [end:tensor-only]

# Figure-only (hidden): write the figure drawn in the `figure` section for the page.
from docverify.figures import save_figure  # noqa: E402

save_figure(fig, "data/normalize", dpi=80)
