"""ColorJitter: accepted ranges, sampling intervals, and what each factor does.

Page: docs/data/color_jitter.md
"""

# --8<-- [start:setup]
import inspect

import numpy as np
import torch
import torchvision.transforms.functional as F
from matplotlib import cbook
from PIL import Image
from torchvision import transforms


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait (matplotlib's sample data), resized to `width` pixels wide."""
    with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as photo:
        rgb = photo.convert("RGB")  # the file is 512 x 600 (width x height)
    height = round(rgb.height * width / rgb.width)  # keep the aspect ratio
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


# --8<-- [end:setup]

# --8<-- [start:factors]
img = sample_photo()
assert img.size == (128, 150)  # width x height ✓ photo-size
pixels = torch.from_numpy(np.asarray(img).copy()).permute(2, 0, 1)  # uint8 3 x H x W
noise = Image.fromarray(np.random.default_rng(0).integers(0, 256, (6, 7, 3), dtype=np.uint8))  # random colours
for picture in (img, noise):  # the photo and random pixels: the rules are not the photo's
    assert F.pil_to_tensor(F.adjust_brightness(picture, 0)).max() == 0  # brightness 0: black ✓ brightness-black
    for adjust in (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation):
        assert adjust(picture, 1).tobytes() == picture.tobytes()  # factor 1: unchanged ✓ factor-one
    flat = F.pil_to_tensor(F.adjust_contrast(picture, 0))  # contrast 0: one uniform grey ...
    assert flat.unique().tolist() == [int(np.asarray(F.to_grayscale(picture)).mean() + 0.5)]  # its mean ✓ contrast-grey
    grey = F.pil_to_tensor(F.adjust_saturation(picture, 0))  # saturation 0: R = G = B
    assert torch.equal(grey[0], grey[1]) and torch.equal(grey[1], grey[2])  # ✓ grey-rgb
print(F.pil_to_tensor(F.adjust_contrast(img, 0)).unique().tolist())  # the photo's grey
#> [77]
half_plus = F.pil_to_tensor(F.adjust_hue(img, 0.5))  # hue is a turn of the colour wheel:
half_minus = F.pil_to_tensor(F.adjust_hue(img, -0.5))  # +0.5 and -0.5 are the same 180 deg
difference = (half_plus.int() - half_minus.int()).abs()
print(difference.float().mean().item() < 1, difference.max().item())  # equal up to 8-bit rounding ✓ hue-half
#> True 10
orange = Image.new("RGB", (1, 1), (245, 63, 7))  # on this photo; other colours differ more
plus, minus = F.adjust_hue(orange, 0.5).getpixel((0, 0)), F.adjust_hue(orange, -0.5).getpixel((0, 0))
print(plus, minus)  # ✓ half-other
#> (8, 198, 245) (8, 186, 245)
assert max(abs(a - b) for a, b in zip(plus, minus, strict=True)) > 10  # ✓ half-no-bound
unchanged = (F.pil_to_tensor(F.adjust_hue(img, 0)).int() - pixels.int()).abs()
print(unchanged.max().item())  # hue 0 on this photo: off by at most 5 of 255 ✓ hue-zero-photo
#> 5
hsv = img.convert("HSV")  # PIL's HSV image: one byte per channel, like RGB
assert hsv.getbands() == ("H", "S", "V") and np.asarray(hsv).dtype == np.uint8  # 8 bits ✓ hsv-8bit
assert F.adjust_hue(img, 0).tobytes() == hsv.convert("RGB").tobytes()  # the trip ✓ hsv-trip
colour = (1, 7, 248)  # not a general bound: this colour moves further
moved = F.adjust_hue(Image.new("RGB", (1, 1), colour), 0).getpixel((0, 0))
print(moved)  # ✓ hue-zero-other
#> (2, 14, 248)
assert max(abs(a - b) for a, b in zip(moved, colour, strict=True)) > 5  # ✓ hue-no-bound
red = Image.new("RGB", (1, 1), (255, 0, 0))
print(F.adjust_hue(red, 0.5).getpixel((0, 0)), F.adjust_hue(red, -0.5).getpixel((0, 0)))  # ✓ red-half
#> (0, 255, 252) (0, 246, 255)
cyan = (0, 255, 255)
for half in (0.5, -0.5):  # red, half-way round the colour wheel: its opposite colour, cyan
    assert all(abs(a - b) <= 10 for a, b in zip(F.adjust_hue(red, half).getpixel((0, 0)), cyan, strict=True))  # ✓ red-cyan
# --8<-- [end:factors]

# --8<-- [start:ranges]
for kwargs in [
    {"brightness": 0},  # 0: no change at all (None)
    {"brightness": 0.5},
    {"brightness": 1},  # from 1 on, the interval starts at 0
    {"brightness": 2},  # > 1 is accepted
    {"brightness": 100},  # however large
    {"contrast": 1.5},
    {"saturation": 3},
    {"hue": 0.5},  # hue: [-x, x], not around 1
    {"hue": 0.2},
    {"brightness": (0.2, 3.0)},  # or the interval itself
    {"contrast": (0.2, 3.0)},
    {"saturation": (0.0, 5.0)},
    {"hue": (-0.2, 0.1)},
]:
    jitter = transforms.ColorJitter(**kwargs)
    name, value = next(iter(kwargs.items()))
    print(f"{name}={value} -> factor sampled from {getattr(jitter, name)}")  # ✓ ranges
    #> brightness=0 -> factor sampled from None
    #> brightness=0.5 -> factor sampled from (0.5, 1.5)
    #> brightness=1 -> factor sampled from (0.0, 2.0)
    #> brightness=2 -> factor sampled from (0.0, 3.0)
    #> brightness=100 -> factor sampled from (0.0, 101.0)
    #> contrast=1.5 -> factor sampled from (0.0, 2.5)
    #> saturation=3 -> factor sampled from (0.0, 4.0)
    #> hue=0.5 -> factor sampled from (-0.5, 0.5)
    #> hue=0.2 -> factor sampled from (-0.2, 0.2)
    #> brightness=(0.2, 3.0) -> factor sampled from (0.2, 3.0)
    #> contrast=(0.2, 3.0) -> factor sampled from (0.2, 3.0)
    #> saturation=(0.0, 5.0) -> factor sampled from (0.0, 5.0)
    #> hue=(-0.2, 0.1) -> factor sampled from (-0.2, 0.1)
off = {name: getattr(transforms.ColorJitter(**{name: 0}), name) for name in ("brightness", "contrast", "saturation")}
assert off == dict.fromkeys(off)  # 0 turns each of the three off (None) ✓ zero-off
huge = transforms.ColorJitter(brightness=float("inf"))  # accepted as well ...
print(huge.brightness)  # ✓ inf-accepted
#> (0.0, inf)
for name in ("brightness", "contrast", "saturation"):  # each of the three
    huge = transforms.ColorJitter(**{name: float("inf")})
    try:
        huge(img)  # ... but no float32 factor can be drawn from (0, inf)
    except RuntimeError as err:
        print(name, err)  # ✓ inf-fails
        #> brightness to is out of bounds for float
        #> contrast to is out of bounds for float
        #> saturation to is out of bounds for float
# --8<-- [end:ranges]

# --8<-- [start:rejected]
for kwargs in [
    {"brightness": -0.1},  # a negative number, for each of the four
    {"contrast": -0.1},
    {"saturation": -0.5},
    {"hue": -0.1},
    {"hue": 0.6},  # hue above 0.5
    {"hue": (-0.6, 0.1)},
    {"contrast": (2, 1)},  # an interval the wrong way round
]:
    try:
        transforms.ColorJitter(**kwargs)
    except ValueError as err:
        print(f"{kwargs}: ValueError: {err}")  # ✓ rejected
        #> {'brightness': -0.1}: ValueError: If brightness is a single number, it must be non negative.
        #> {'contrast': -0.1}: ValueError: If contrast is a single number, it must be non negative.
        #> {'saturation': -0.5}: ValueError: If saturation is a single number, it must be non negative.
        #> {'hue': -0.1}: ValueError: If hue is a single number, it must be non negative.
        #> {'hue': 0.6}: ValueError: hue values should be between (-0.5, 0.5), but got [-0.6, 0.6].
        #> {'hue': (-0.6, 0.1)}: ValueError: hue values should be between (-0.5, 0.5), but got [-0.6, 0.1].
        #> {'contrast': (2, 1)}: ValueError: contrast values should be between (0, inf), but got [2.0, 1.0].
# --8<-- [end:rejected]

# --8<-- [start:sampling]
jitter = transforms.ColorJitter(brightness=2, contrast=0.5, saturation=0.5, hue=0.1)
torch.manual_seed(0)
draws = [jitter.get_params(jitter.brightness, jitter.contrast, jitter.saturation, jitter.hue) for _ in range(2000)]
for i, name in enumerate(["brightness", "contrast", "saturation", "hue"], start=1):
    values = [d[i] for d in draws]
    print(f"{name:<10} min {min(values):+.2f}  max {max(values):+.2f}  mean {round(float(np.mean(values)), 2) + 0.0:+.2f}")  # ✓ sampled
    #> brightness min +0.00  max +3.00  mean +1.52
    #> contrast   min +0.50  max +1.50  mean +1.00
    #> saturation min +0.50  max +1.50  mean +1.00
    #> hue        min -0.10  max +0.10  mean +0.00
assert "uniform_(" in inspect.getsource(jitter.get_params)  # each factor drawn with uniform_ ✓ uniform
orders = {tuple(d[0].tolist()) for d in draws}
print(len(orders))  # the 4 adjustments run in a random order: all 4! = 24 orders occur ✓ orders
#> 24


class FixedDraw(transforms.ColorJitter):
    """ColorJitter whose draw is fixed: the order and the four factors given."""

    def __init__(self, order: list[int], factors: tuple[float, ...]) -> None:
        super().__init__()
        self.drawn = (torch.tensor(order), *factors)

    def get_params(self, *ranges):
        return self.drawn


factors = (1.5, 0.5, 1.5, 0.1)  # brightness, contrast, saturation, hue
adjustments = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue]
results = []
for order in ([0, 1, 2, 3], [3, 2, 1, 0]):
    by_hand = img
    for fn_id in order:
        by_hand = adjustments[fn_id](by_hand, factors[fn_id])
    results.append(FixedDraw(order, factors)(img).tobytes())
    assert results[-1] == by_hand.tobytes()  # the transform applies them in the drawn order ✓ applied-order
assert results[0] != results[1]  # and the order changes the image ✓ order-matters
# --8<-- [end:sampling]

# Figure-only (hidden): the picture grid at the top of the page.
from _image_grid import save_image_grid  # noqa: E402

small = sample_photo(52)
rows = {
    "brightness": (F.adjust_brightness, [0.0, 0.5, 1.0, 1.5, 3.0]),
    "contrast": (F.adjust_contrast, [0.0, 0.5, 1.0, 1.5, 3.0]),
    "saturation": (F.adjust_saturation, [0.0, 0.5, 1.0, 1.5, 3.0]),
    "hue": (F.adjust_hue, [-0.5, -0.25, 0.0, 0.25, 0.5]),
}
images, titles = [], []
for name, (adjust, factors) in rows.items():
    for factor in factors:
        images.append(adjust(small, factor))
        titles.append(f"{name} {factor:g}")
torch.manual_seed(0)
random_jitter = transforms.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
for i in range(5):
    images.append(random_jitter(small))
    titles.append(f"random #{i + 1}")
save_image_grid(images, titles, "data/color_jitter", ncols=5, panel_inches=0.9, dpi=60)
