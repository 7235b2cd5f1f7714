"""Compose in torchvision.transforms (v1) and the same pipeline in transforms.v2.

Page: docs/data/compose-v2.md
"""

import torch
from torchvision import transforms, tv_tensors
from torchvision.transforms import v2

from ptnotes.data_images import sample_photo, save_image_grid

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
img = sample_photo()  # PIL, 128 x 150

# --8<-- [start:pipelines]
v1_pipeline = transforms.Compose(
    [
        transforms.Resize(64),
        transforms.CenterCrop(56),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ]
)
v2_pipeline = v2.Compose(
    [
        v2.Resize(64),
        v2.CenterCrop(56),
        v2.ToImage(),  # PIL -> tv_tensors.Image (a uint8 tensor subclass)
        v2.ToDtype(torch.float32, scale=True),  # uint8 -> float in [0, 1]: ToTensor's two jobs
        v2.Normalize(MEAN, STD),
    ]
)
a, b = v1_pipeline(img), v2_pipeline(img)
print(type(a).__name__, a.shape, type(b).__name__, b.shape)
#> Tensor torch.Size([3, 56, 56]) Image torch.Size([3, 56, 56])
# --8<-- [end:pipelines]

# --8<-- [start:compare]
geometry_v1 = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(56), transforms.PILToTensor()])
geometry_v2 = v2.Compose([v2.Resize(64), v2.CenterCrop(56), v2.ToImage()])
assert torch.equal(geometry_v1(img), geometry_v2(img))  # identical pixels, bit for bit
print(torch.equal(a, b), (a - b).abs().max().item())  # float scaling: last-bit differences only
#> False 7.152557373046875e-07
assert torch.allclose(a, b, rtol=0, atol=1e-6)
# --8<-- [end:compare]

# --8<-- [start:tensor-input]
tensor_img = v2.ToImage()(img)  # resize the uint8 tensor instead of the PIL image
from_pil = v2.ToImage()(v2.Resize(64)(img))
print(torch.equal(v2.Resize(64)(tensor_img), from_pil))  # antialias=True (default): same pixels
#> True
no_aa = v2.Resize(64, antialias=False)(tensor_img)
print((no_aa.int() - from_pil.int()).abs().max().item())  # without antialiasing: visibly different
#> 49
# --8<-- [end:tensor-input]

# --8<-- [start:boxes]
boxes = tv_tensors.BoundingBoxes([[10, 20, 50, 60]], format="XYXY", canvas_size=(150, 128))
flipped_img, flipped_boxes = v2.RandomHorizontalFlip(p=1)(tensor_img, boxes)
print(flipped_boxes)  # x: 128 - 50 = 78 .. 128 - 10 = 118: the box moved with the image
#> BoundingBoxes([[ 78,  20, 118,  60]], format=BoundingBoxFormat.XYXY, canvas_size=(150, 128), clamping_mode=soft)
assert torch.equal(flipped_img, tensor_img.flip(-1))
# --8<-- [end:boxes]

# --8<-- [start:figure]
mean, std = torch.tensor(MEAN).view(3, 1, 1), torch.tensor(STD).view(3, 1, 1)
save_image_grid(
    [img, a * std + mean, b * std + mean, no_aa, (no_aa.int() - from_pil.int()).abs().sum(0) / 255],
    ["input 128x150", "v1 Compose", "v2 Compose", "Resize(64), no antialias", "|difference|"],
    "data/compose-v2",
)
# --8<-- [end:figure]
