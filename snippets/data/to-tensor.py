"""ToTensor and ToPILImage, step by step on a real photo.

Page: docs/data/to-tensor.md
"""

import warnings

import numpy as np
import torch
import torchvision.transforms.functional as F
from PIL import Image
from torchvision import transforms
from torchvision.transforms import v2

from ptnotes.data_images import sample_photo, save_image_grid

# --8<-- [start:photo]
img = sample_photo()  # matplotlib's grace_hopper.jpg, resized to 128 pixels wide
print(type(img).__name__, img.mode, img.size)  # PIL: size is (width, height)
#> Image RGB (128, 150)
# --8<-- [end:photo]

# --8<-- [start:to-tensor]
t = transforms.ToTensor()(img)
print(t.shape, t.dtype, t.min().item(), t.max().item())
#> torch.Size([3, 150, 128]) torch.float32 0.0313725508749485 1.0
# --8<-- [end:to-tensor]

# --8<-- [start:to-tensor-steps]
raw = img.tobytes()  # 1. the pixels as bytes, row by row, R G B R G B ...
print(len(raw), 150 * 128 * 3)
#> 57600 57600
flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8)  # 2. bytes -> 1-D uint8 tensor
hwc = flat.view(img.height, img.width, 3)  # 3a. reshape to height x width x channels
chw = hwc.permute(2, 0, 1)  # 3b. channels first: 3 x H x W (a transpose, not a reshape)
manual = chw.float().div(255)  # 4. scale 0..255 to 0..1
print(flat.shape, hwc.shape, chw.shape)
#> torch.Size([57600]) torch.Size([150, 128, 3]) torch.Size([3, 150, 128])
assert torch.equal(manual, t)  # exactly what ToTensor returned
# --8<-- [end:to-tensor-steps]

# --8<-- [start:scaling]
int_image = Image.fromarray(np.array([[1000, 2]], dtype=np.int32))  # mode "I": 32-bit pixels
print(int_image.mode, transforms.ToTensor()(int_image))  # not uint8: not divided by 255
#> I tensor([[[1000,    2]]], dtype=torch.int32)
print(transforms.ToTensor()(np.full((1, 1, 1), 0.5)))  # a float array is not scaled either
#> tensor([[[0.5000]]], dtype=torch.float64)
# --8<-- [end:scaling]

# --8<-- [start:to-pil-steps]
back = transforms.ToPILImage()(t)
arr = t.mul(255).byte()  # 1. times 255, 2. to uint8 (truncates; it does not round)
arr = arr.numpy().transpose(1, 2, 0)  # 3. to a NumPy array, 4. CHW -> HWC
by_hand = Image.fromarray(arr)  # 5. an RGB PIL image
assert np.array_equal(np.asarray(by_hand), np.asarray(back))
print(back.mode, back.size, np.array_equal(np.asarray(back), np.asarray(img)))  # lossless
#> RGB (128, 150) True
print(np.asarray(transforms.ToPILImage()(torch.tensor([[[0.5]], [[0.999]], [[1.0]]]))))
#> [[[127 254 255]]]
# --8<-- [end:to-pil-steps]

# --8<-- [start:figure]
save_image_grid(
    [img, t[0], t[1], t[2], back],
    ["PIL image", "tensor[0] (R)", "tensor[1] (G)", "tensor[2] (B)", "ToPILImage"],
    "data/to-tensor",
)
# --8<-- [end:figure]

# --8<-- [start:boom]
img1 = t
img1 = transforms.ToPILImage(img1)  # no error here: img1 becomes the *mode* argument
print(type(img1).__name__, img1.mode is t)
#> ToPILImage True
try:
    img1.save("out.png")  # the error appears later, where an image is expected
except AttributeError as err:
    print(f"AttributeError: {err}")
    #> AttributeError: 'ToPILImage' object has no attribute 'save'
try:
    img1(t)  # used as a transform, the tensor is not a valid mode
except ValueError as err:
    print(f"ValueError: {err}")
    #> ValueError: Only modes ['RGB', 'YCbCr', 'HSV'] are supported for 3D inputs
try:
    transforms.ToTensor(img)  # ToTensor takes no argument: fails at once
except TypeError as err:
    print(f"TypeError: {err}")
    #> TypeError: ToTensor.__init__() takes 1 positional argument but 2 were given
# --8<-- [end:boom]

# --8<-- [start:functional]
assert torch.equal(F.to_tensor(img), t)  # the same conversions as plain functions
assert np.array_equal(np.asarray(F.to_pil_image(t)), np.asarray(back))
# --8<-- [end:functional]

# --8<-- [start:v2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v2_t = v2.ToTensor()(img)
print(caught[0].category.__name__, caught[0].message)
#> UserWarning The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to float precision.
modern = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
out = modern(img)
print(type(out).__name__, out.shape, torch.equal(v2_t, t))
#> Image torch.Size([3, 150, 128]) True
print(torch.equal(out, t), (out - t).abs().max().item())  # equal up to float32 rounding
#> False 5.960464477539063e-08
assert torch.allclose(out, t, rtol=0, atol=1e-7)
# --8<-- [end:v2]
