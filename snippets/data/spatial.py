"""Spatial transforms: RandomRotation, Resize, RandomCrop, CenterCrop, flips.

Page: docs/data/spatial.md
"""

# --8<-- [start:setup]
import torch
from matplotlib import cbook
from PIL import Image
from torchvision import transforms


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait (matplotlib's sample data), resized to `width` pixels wide."""
    with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as photo:
        rgb = photo.convert("RGB")  # the file is 512 x 600 (width x height)
    height = round(rgb.height * width / rgb.width)  # keep the aspect ratio
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


img = sample_photo()  # 128 x 150 (width x height)
# --8<-- [end:setup]

# --8<-- [start:resize]
print(img.size)  # PIL sizes are (width, height) ✓ photo-size
#> (128, 150)
print(transforms.Resize(64)(img).size)  # int: the SHORTER side becomes 64, aspect ratio kept ✓ resize-int
#> (64, 75)
print(transforms.Resize((64, 64))(img).size)  # pair: exactly (height, width), may stretch ✓ resize-pair
#> (64, 64)
print(transforms.Resize((100, 50))(img).size)  # note the order: (h, w) in, (w, h) out ✓ resize-order
#> (50, 100)
print(transforms.Resize(64, max_size=70)(img).size)  # cap the longer side too (64 * 70 / 75 = 59.7) ✓ max-size
#> (59, 70)
print(transforms.Resize(20)(Image.new("L", (100, 199))).size, round(20 * 199 / 100))  # 39.8: not to the nearest ✓ resize-floor
#> (20, 39) 40
for width in range(20, 80):  # the other side is always rounded down, never to the nearest
    assert transforms.Resize(20)(Image.new("L", (width, 97))).size == (20, 20 * 97 // width)  # ✓ resize-floor-all
for width in range(100, 160):  # landscape: the height is the shorter side, the width rounded down
    assert transforms.Resize(20)(Image.new("L", (width, 37))).size == (20 * width // 37, 20)  # ✓ resize-floor-landscape
for height in range(85, 145):  # max_size: the longer side capped at 70, the shorter rounded down again
    uncapped = 60 * height // 50  # what Resize(60) alone makes of the longer side
    assert transforms.Resize(60, max_size=70)(Image.new("L", (50, height))).size == (70 * 60 // uncapped, 70)  # ✓ max-size-all
wide = img.rotate(90, expand=True)  # a landscape image: 150 x 128
print(wide.size, transforms.Resize(64)(wide).size)  # again the shorter side -> 64 ✓ resize-wide
#> (150, 128) (75, 64)
# --8<-- [end:resize]

# --8<-- [start:crops]
print(transforms.CenterCrop(100)(img).size, transforms.CenterCrop((60, 100))(img).size)  # ✓ center-sizes
#> (100, 100) (100, 60)
torch.manual_seed(0)
print(transforms.RandomCrop(100)(img).size)  # ✓ random-size
#> (100, 100)
try:
    transforms.CentorCrop(100)  # the notes' spelling
except AttributeError as err:
    print(f"AttributeError: {err}")  # ✓ centor-typo
    #> AttributeError: module 'torchvision.transforms' has no attribute 'CentorCrop'
try:
    transforms.RandomCrop(200)(img)  # larger than the image
except ValueError as err:
    print(f"ValueError: {err}")  # ✓ crop-too-large
    #> ValueError: Required crop size (200, 200) is larger than input image size (150, 128)
print(transforms.RandomCrop(200, pad_if_needed=True)(img).size, transforms.CenterCrop(200)(img).size)  # ✓ crop-pad
#> (200, 200) (200, 200)
assert transforms.CenterCrop(200)(img).getpixel((0, 0)) == (0, 0, 0)  # padded with zeros ✓ zero-pad
padded = transforms.PILToTensor()(transforms.CenterCrop(200)(img))  # 3 x 200 x 200
inside = torch.zeros(200, 200, dtype=torch.bool)
inside[25:175, 36:164] = True  # where the 150 x 128 photo lands, in the middle
assert (padded[:, ~inside] == 0).all()  # every padded pixel is 0 ✓ zero-pad-all
assert torch.equal(padded[:, 25:175, 36:164], transforms.PILToTensor()(img))  # the photo itself, unchanged ✓ zero-pad-photo
# --8<-- [end:crops]

# --8<-- [start:center-crop-position]
t = transforms.PILToTensor()(img)  # uint8 3 x 150 x 128
top, left = round((150 - 100) / 2), round((128 - 100) / 2)
assert torch.equal(transforms.CenterCrop(100)(t), t[:, top : top + 100, left : left + 100])  # ✓ center-position
# --8<-- [end:center-crop-position]

# --8<-- [start:rotation]
rotate = transforms.RandomRotation(30)
print(rotate)  # ✓ rotation-repr
#> RandomRotation(degrees=[-30.0, 30.0], interpolation=nearest, expand=False, fill=0)
torch.manual_seed(0)
angles = [transforms.RandomRotation.get_params(rotate.degrees) for _ in range(1000)]
print(round(min(angles), 1), round(max(angles), 1))  # uniform in [-30, 30] ✓ angle-range
#> -30.0 30.0
counts = torch.histc(torch.tensor(angles), bins=6, min=-30, max=30).int().tolist()
print(counts)  # 10-degree bins: about 1000 / 6 = 167 in each ✓ angle-bins
#> [171, 172, 149, 169, 165, 174]
assert all(133 < n < 200 for n in counts)  # flat within 20%: uniform, not bell-shaped ✓ angle-flat
print(transforms.RandomRotation((10, 20)).degrees)  # or any [min, max] ✓ angle-pair
#> [10.0, 20.0]
pair = [transforms.RandomRotation.get_params([10.0, 20.0]) for _ in range(1000)]
assert 10 <= min(pair) < 11 and 19 < max(pair) <= 20  # drawn across the given pair ✓ angle-pair-drawn
torch.manual_seed(1)
rotated = rotate(img)
torch.manual_seed(1)
angle = transforms.RandomRotation.get_params(rotate.degrees)  # the angle it drew
assert rotated.tobytes() == transforms.functional.rotate(img, angle).tobytes()  # ✓ rotate-equal
print(round(angle, 1), rotated.size, rotated.getpixel((0, 0)))  # same size; corners: fill=0, black ✓ rotate-size
#> 15.5 (128, 150) (0, 0, 0)
corners = [(0, 0), (127, 0), (0, 149), (127, 149)]  # none of them black in the photo
assert all(rotated.getpixel(c) == (0, 0, 0) != img.getpixel(c) for c in corners)  # all four: fill=0 ✓ rotate-corners
uncovered = transforms.functional.rotate(Image.new("L", img.size, 255), angle)  # 0 where no photo lands
no_photo = transforms.functional.pil_to_tensor(uncovered)[0] == 0
assert no_photo.sum() > 1000 and (transforms.functional.pil_to_tensor(rotated)[:, no_photo] == 0).all()  # all ✓ rotate-corners
marked = Image.new("L", img.size, 100)  # a grey picture whose four corners are white 5 x 5 squares
for x, y in corners:
    marked.paste(255, (min(x, 122), min(y, 144), min(x, 122) + 5, min(y, 144) + 5))
white = transforms.functional.pil_to_tensor(transforms.functional.rotate(marked, angle)) == 255
print(int((transforms.functional.pil_to_tensor(marked) == 255).sum()), int(white.sum()))  # white before, after: corners cut off ✓ rotate-cut
#> 100 0
print(transforms.RandomRotation(30, expand=True)(img).size)  # expand=True: grows to fit ✓ expand
#> (160, 176)
# --8<-- [end:rotation]

# --8<-- [start:flips]
print(transforms.RandomHorizontalFlip(), transforms.RandomVerticalFlip())  # default p=0.5 ✓ flip-default
#> RandomHorizontalFlip(p=0.5) RandomVerticalFlip(p=0.5)
torch.manual_seed(0)
flip = transforms.RandomHorizontalFlip()
mirrored = t.flip(-1)  # left <-> right
flipped = [torch.equal(flip(t), mirrored) for _ in range(1000)]
print(sum(flipped))  # about half of 1000 calls flip (left <-> right); the others return t ✓ hflip-half
#> 492
vflip, upside_down = transforms.RandomVerticalFlip(), t.flip(-2)
print(sum(torch.equal(vflip(t), upside_down) for _ in range(1000)))  # about half flip upside down ✓ vflip-half
#> 517
assert torch.equal(transforms.RandomHorizontalFlip(p=1)(t), t.flip(-1))  # width is dim -1 ✓ hflip-width
assert torch.equal(transforms.RandomVerticalFlip(p=1)(t), t.flip(-2))  # height is dim -2 ✓ vflip-height
# --8<-- [end:flips]

# Figure-only (hidden): the picture at the top of the page, from the images above.
from _image_grid import save_image_grid  # noqa: E402

torch.manual_seed(1)
save_image_grid(
    [
        img,
        transforms.Resize(64)(img),
        transforms.Resize((64, 128))(img),
        transforms.RandomCrop(80)(img),
        transforms.CenterCrop(80)(img),
        rotated,  # from the rotation section
        transforms.RandomHorizontalFlip(p=1)(img),
        transforms.RandomVerticalFlip(p=1)(img),
    ],
    [
        "original 128x150",
        "Resize(64): 64x75",
        "Resize((64, 128))",
        "RandomCrop(80)",
        "CenterCrop(80)",
        f"RandomRotation(30): {angle:.0f}°",
        "HorizontalFlip(p=1)",
        "VerticalFlip(p=1)",
    ],
    "data/spatial",
    ncols=4,
    panel_inches=1.4,
    dpi=72,
)
