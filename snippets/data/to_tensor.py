"""ToTensor and ToPILImage, step by step on a real photo.

Page: docs/data/to_tensor.md
"""

# --8<-- [start:setup]
import inspect
import warnings

import numpy as np
import torch
import torchvision.transforms.functional as F
from matplotlib import cbook
from PIL import Image
from torchvision import transforms
from torchvision.transforms import v2


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait (matplotlib's sample data), resized to `width` pixels wide."""
    with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as photo:
        rgb = photo.convert("RGB")  # the file is 512 x 600 (width x height)
    height = round(rgb.height * width / rgb.width)  # keep the aspect ratio
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


def in_order(source: str, steps: list[str]) -> bool:
    """Whether each text of `steps` occurs in `source` after the previous one."""
    position = 0
    for step in steps:
        position = source.find(step, position)
        if position < 0:
            return False
    return True


# --8<-- [end:setup]


# --8<-- [start:photo]
with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as original:
    print(original.format, original.mode, original.size)  # the file matplotlib ships ✓ photo-file
    #> JPEG RGB (512, 600)
img = sample_photo()
print(type(img).__name__, img.mode, img.size)  # PIL: size is (width, height) ✓ photo-size
#> Image RGB (128, 150)
# --8<-- [end:photo]

# --8<-- [start:to-tensor]
t = transforms.ToTensor()(img)
print(t.shape, t.dtype, t.min().item(), t.max().item())  # ✓ to-tensor
#> torch.Size([3, 150, 128]) torch.float32 0.0313725508749485 1.0
corner = t[:, :30, -20:].mean(dim=(1, 2))  # top right: the blue background
print([round(v, 2) for v in corner.tolist()])  # channels first: t[0] red, t[1] green, t[2] blue ✓ corner
#> [0.28, 0.43, 0.71]
assert corner[2] > 2 * corner[0]  # blue more than twice as bright as red there ✓ blue-corner
rgb = torch.from_numpy(np.array(img))  # the photo's own pixels: H x W x (R, G, B)
assert all(torch.equal(t[c], rgb[..., c].float().div(255)) for c in range(3))  # t[0] R, t[1] G, t[2] B ✓ channels
# --8<-- [end:to-tensor]

# --8<-- [start:to-tensor-steps]
raw = img.tobytes()  # 1. the pixels as bytes, row by row, R G B R G B ...
print(len(raw), 150 * 128 * 3)  # ✓ byte-count
#> 57600 57600
flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8)  # 2. bytes -> 1-D uint8 tensor
hwc = flat.view(img.height, img.width, 3)  # 3a. reshape to height x width x channels
chw = hwc.permute(2, 0, 1)  # 3b. channels first: 3 x H x W (a transpose, not a reshape)
manual = chw.float().div(255)  # 4. scale 0..255 to 0..1
print(flat.shape, hwc.shape, chw.shape)  # ✓ step-shapes
#> torch.Size([57600]) torch.Size([150, 128, 3]) torch.Size([3, 150, 128])
assert torch.equal(manual, t)  # exactly what ToTensor returned ✓ steps-equal
assert not torch.equal(flat.view(3, img.height, img.width), chw)  # a reshape to 3 x H x W is wrong ✓ not-reshape
# --8<-- [end:to-tensor-steps]

# --8<-- [start:to-tensor-source]
assert "F.to_tensor(pic)" in inspect.getsource(transforms.ToTensor.__call__)  # ✓ calls-to-tensor
source = inspect.getsource(F.to_tensor)  # ToTensor()(pic) calls F.to_tensor(pic)
pil_branch = source[source.index("# handle PIL Image") :]
print(in_order(pil_branch, ["np.array(pic", "img.view(", "img.permute((2, 0, 1))", ".div(255)"]))  # ✓ source-order
#> True
print(hasattr(torch, "BytesStorage"), "frombuffer" in source)  # the notes' API does not exist ✓ no-bytes-storage
#> False False
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = torch.ByteStorage.from_buffer(raw)  # the old typed storage: deprecated
print(len(legacy), caught[0].message.args[0].split(".")[0])  # ✓ legacy-deprecated
#> 57600 TypedStorage is deprecated
# --8<-- [end:to-tensor-source]

# --8<-- [start:scaling]
int_image = Image.fromarray(np.array([[1000, 2]], dtype=np.int32))  # mode "I": 32-bit pixels
print(int_image.mode, transforms.ToTensor()(int_image))  # not uint8: not divided by 255 ✓ int-unscaled
#> I tensor([[[1000,    2]]], dtype=torch.int32)
for float_type in (np.float64, np.float32, np.float16):  # a float array, of any width, is not scaled either
    print(transforms.ToTensor()(np.full((1, 1, 1), 0.5, float_type)))  # ✓ float-unscaled
    #> tensor([[[0.5000]]], dtype=torch.float64)
    #> tensor([[[0.5000]]])
    #> tensor([[[0.5000]]], dtype=torch.float16)
grey = img.convert("L")  # 8-bit input, PIL image or uint8 array: divided by 255
print(transforms.ToTensor()(grey).max().item(), transforms.ToTensor()(np.full((1, 1, 1), 255, np.uint8)))  # ✓ byte-scaled
#> 1.0 tensor([[[1.]]])
bits = Image.fromarray(np.array([[0, 255]], dtype=np.uint8)).convert("1")  # mode "1": 1 bit per pixel
print(repr(bits.mode), transforms.ToTensor()(bits))  # also ends as uint8, divided: 0 and 1 ✓ one-bit
#> '1' tensor([[[0., 1.]]])
lines = inspect.getsource(F.to_tensor).splitlines()  # where does to_tensor divide by 255?
scaled = [i for i, line in enumerate(lines) if ".div(255)" in line]
assert scaled and all("isinstance(img, torch.ByteTensor)" in lines[i - 1] for i in scaled)  # uint8 only ✓ only-bytes
# --8<-- [end:scaling]

# --8<-- [start:to-pil-steps]
back = transforms.ToPILImage()(t)
arr = t.mul(255).byte()  # 1. times 255, 2. to uint8 (truncates; it does not round)
arr = arr.numpy().transpose(1, 2, 0)  # 3. to a NumPy array, 4. CHW -> HWC
by_hand = Image.fromarray(arr)  # 5. an RGB PIL image
assert np.array_equal(np.asarray(by_hand), np.asarray(back))  # ✓ pil-steps-equal
print(back.mode, back.size, np.array_equal(np.asarray(back), np.asarray(img)))  # lossless ✓ lossless
#> RGB (128, 150) True
every_byte = torch.arange(256, dtype=torch.uint8)  # every 8-bit value, through / 255 and back
assert torch.equal(every_byte.float().div(255).mul(255).byte(), every_byte)  # lossless for all ✓ lossless-all
levels = Image.fromarray(every_byte.numpy().reshape(16, 16))  # the same 256 values as a grey image
round_trip = transforms.ToPILImage()(transforms.ToTensor()(levels))  # through the two transforms
assert np.array_equal(np.asarray(round_trip), np.asarray(levels))  # ✓ lossless-transforms
print(np.asarray(transforms.ToPILImage()(torch.tensor([[[0.5]], [[0.999]], [[1.0]]]))))  # ✓ truncates
#> [[[127 254 255]]]
print(torch.tensor([0.5, 0.999, 1.0]).mul(255).tolist())  # before the cast: the products ✓ times-255
#> [127.5, 254.74501037597656, 255.0]
# --8<-- [end:to-pil-steps]

# --8<-- [start:to-pil-source]
assert "F.to_pil_image(pic" in inspect.getsource(transforms.ToPILImage.__call__)  # ✓ calls-to-pil
source = inspect.getsource(F.to_pil_image)  # ToPILImage()(pic) calls F.to_pil_image(pic)
implementation = ["pic.permute((1, 2, 0))", "pic.numpy(", "npimg * 255", ".astype(np.uint8)", "fromarray("]
notes = ["* 255", ".astype(np.uint8)", ".numpy(", ".permute(", "fromarray("]  # the notes' order
print(in_order(source, implementation), in_order(source, notes))  # ✓ pil-order
#> True False
in_that_order = Image.fromarray((t.permute(1, 2, 0).numpy() * 255).astype(np.uint8))
assert np.array_equal(np.asarray(in_that_order), np.asarray(by_hand))  # same pixels either way ✓ order-same
# --8<-- [end:to-pil-source]

# --8<-- [start:boom]
print(inspect.signature(transforms.ToPILImage))  # one optional argument: the mode ✓ pil-signature
#> (mode=None)
img1 = t
img1 = transforms.ToPILImage(img1)  # no error here: img1 becomes the *mode* argument
print(type(img1).__name__, img1.mode is t)  # ✓ silent-mode
#> ToPILImage True
try:
    img1.save("out.png")  # the error appears later, where an image is expected
except AttributeError as err:
    print(f"AttributeError: {err}")  # ✓ later-attribute
    #> AttributeError: 'ToPILImage' object has no attribute 'save'
try:
    img1(t)  # used as a transform, the tensor is not a valid mode
except ValueError as err:
    print(f"ValueError: {err}")  # ✓ later-value
    #> ValueError: Only modes ['RGB', 'YCbCr', 'HSV'] are supported for 3D inputs
try:
    F.to_tensor(img1)  # passed to a function that expects an image
except TypeError as err:
    print(f"TypeError: {err}")  # ✓ later-type
    #> TypeError: pic should be PIL Image or ndarray. Got <class 'torchvision.transforms.transforms.ToPILImage'>
try:
    transforms.ToTensor(img)  # ToTensor takes no argument: fails at once
except TypeError as err:
    print(f"TypeError: {err}")  # ✓ to-tensor-arg
    #> TypeError: ToTensor.__init__() takes 1 positional argument but 2 were given
# --8<-- [end:boom]

# --8<-- [start:functional]
assert torch.equal(F.to_tensor(img), t)  # the same conversions as plain functions ✓ fn-to-tensor
assert np.array_equal(np.asarray(F.to_pil_image(t)), np.asarray(back))  # ✓ fn-to-pil
# --8<-- [end:functional]

# --8<-- [start:v2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v2_t = v2.ToTensor()(img)
print(caught[0].category.__name__, caught[0].message)  # ✓ v2-warning
#> UserWarning The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to float precision.
as_image = v2.ToImage()(img)  # step 1: a uint8 tv_tensors.Image, channels first
print(type(as_image).__name__, as_image.dtype, as_image.shape)  # ✓ to-image
#> Image torch.uint8 torch.Size([3, 150, 128])
modern = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
out = modern(img)
print(type(out).__name__, out.shape, torch.equal(v2_t, t))  # ✓ v2-same
#> Image torch.Size([3, 150, 128]) True
print(torch.equal(out, t), (out - t).abs().max().item())  # equal up to float32 rounding ✓ v2-rounding
#> False 5.960464477539063e-08
assert (out - t).abs().max() <= torch.finfo(torch.float32).eps  # within one unit in the last place at 1.0 ✓ v2-ulp
levels = Image.fromarray(np.arange(256, dtype=np.uint8).reshape(16, 16))  # every 8-bit value, not just this photo's
assert (modern(levels) - transforms.ToTensor()(levels)).abs().max() <= torch.finfo(torch.float32).eps  # ✓ v2-ulp-all
# --8<-- [end:v2]

# Figure-only (hidden): the picture of the page, from the tensors above.
from _image_grid import save_image_grid  # noqa: E402

save_image_grid(
    [img, t[0], t[1], t[2], back],
    ["PIL image", "tensor[0] (R)", "tensor[1] (G)", "tensor[2] (B)", "ToPILImage"],
    "data/to_tensor",
)
