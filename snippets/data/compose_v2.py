"""Compose in torchvision.transforms (v1) and the same pipeline in transforms.v2.

Page: docs/data/compose_v2.md
"""

# --8<-- [start:setup]
import torch
import torchvision
from matplotlib import cbook
from PIL import Image
from torchvision import transforms, tv_tensors
from torchvision.transforms import v2


def sample_photo(width: int = 128) -> Image.Image:
    """Grace Hopper's portrait (matplotlib's sample data), resized to `width` pixels wide."""
    with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as photo:
        rgb = photo.convert("RGB")  # the file is 512 x 600 (width x height)
    height = round(rgb.height * width / rgb.width)  # keep the aspect ratio
    return rgb.resize((width, height), Image.Resampling.BILINEAR)


img = sample_photo()  # PIL image
assert img.size == (128, 150)  # width x height ✓ photo-size
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]  # the ImageNet statistics
preprocessing = torchvision.models.ResNet18_Weights.IMAGENET1K_V1.transforms()  # metadata, no download
assert (preprocessing.mean, preprocessing.std) == (MEAN, STD)  # ✓ imagenet-stats
# --8<-- [end:setup]

# --8<-- [start:order]
crop_then_resize = transforms.Compose([transforms.CenterCrop(56), transforms.Resize(64)])
resize_then_crop = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(56)])
print(crop_then_resize(img).size, resize_then_crop(img).size)  # applied first to last ✓ order
#> (64, 64) (56, 56)
by_hand = transforms.CenterCrop(56)(transforms.Resize(64)(img))
assert resize_then_crop(img).tobytes() == by_hand.tobytes()  # ✓ compose-by-hand
assert crop_then_resize(img).tobytes() == transforms.Resize(64)(transforms.CenterCrop(56)(img)).tobytes()  # ✓ compose-by-hand
# --8<-- [end:order]

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
print(type(a).__name__, a.shape, type(b).__name__, b.shape)  # ✓ outputs
#> Tensor torch.Size([3, 56, 56]) Image torch.Size([3, 56, 56])
print(isinstance(b, torch.Tensor), type(b * 1).__name__)  # a Tensor; torch ops return plain ones ✓ subclass
#> True Tensor
print(type(torch.flip(b, [0])).__name__, type(b.clone()).__name__, type(b.to(torch.float64)).__name__)  # ✓ keeps-type
#> Tensor Image Image
others = [b + 1, b.sum(), b[0], b.reshape(-1), b.permute(1, 2, 0), torch.relu(b), b.mean(0), torch.cat([b, b])]
assert all(type(t) is torch.Tensor for t in others)  # eight more operations: plain tensors ✓ plain-results
return_type_doc = " ".join(tv_tensors.set_return_type.__doc__.split())
assert 'Default is "Tensor" (i.e. pure :class:`torch.Tensor`)' in return_type_doc  # the rule, for torch operations ✓ plain-rule
with tv_tensors.set_return_type("TVTensor"):  # the switch that docstring describes
    assert all(type(t) is tv_tensors.Image for t in (b * 1, b + 1, b[0], torch.relu(b)))  # ✓ plain-rule
assert type(b.detach()) is type(b.clone().requires_grad_()) is type(b)  # these two keep it too ✓ keeps-type-more
# --8<-- [end:pipelines]

# --8<-- [start:compare]
geometry_v1 = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(56), transforms.PILToTensor()])
geometry_v2 = v2.Compose([v2.Resize(64), v2.CenterCrop(56), v2.ToImage()])
assert torch.equal(geometry_v1(img), geometry_v2(img))  # identical pixels, bit for bit ✓ geometry-equal
to_float_v1 = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(56), transforms.ToTensor()])
to_float_v2 = v2.Compose([geometry_v2, v2.ToDtype(torch.float32, scale=True)])
before = (to_float_v1(img) - to_float_v2(img)).abs().max().item()  # before Normalize
print(torch.equal(a, b), before, (a - b).abs().max().item())  # float scaling: last-bit differences ✓ float-diff
#> False 5.960464477539063e-08 7.152557373046875e-07
ulp_of_one = (torch.nextafter(torch.tensor(1.0), torch.tensor(2.0)) - 1.0).item()  # float32's eps
assert before <= ulp_of_one == torch.finfo(torch.float32).eps < (a - b).abs().max() < 1e-6  # Normalize magnifies ✓ magnifies
# --8<-- [end:compare]

# --8<-- [start:tensor-input]
tensor_img = v2.ToImage()(img)  # resize the uint8 tensor instead of the PIL image
from_pil = v2.ToImage()(v2.Resize(64)(img))
print(v2.Resize(64).antialias, torch.equal(v2.Resize(64)(tensor_img), from_pil))  # same pixels ✓ tensor-same
#> True True
no_aa = v2.Resize(64, antialias=False)(tensor_img)
print((no_aa.int() - from_pil.int()).abs().max().item())  # without antialiasing: visibly different ✓ no-aa
#> 49
assert no_aa.dtype == from_pil.dtype == torch.uint8  # levels of a uint8 pixel ✓ uint8-levels
# --8<-- [end:tensor-input]

# --8<-- [start:boxes]
boxes = tv_tensors.BoundingBoxes([[10, 20, 50, 60]], format="XYXY", canvas_size=(150, 128))
mask = tv_tensors.Mask(torch.zeros(150, 128, dtype=torch.uint8))
mask[20:60, 10:50] = 1  # a segmentation mask of the same region
flipped_img, flipped_boxes, flipped_mask = v2.RandomHorizontalFlip(p=1)(tensor_img, boxes, mask)
print(flipped_boxes)  # x: 128 - 50 = 78 .. 128 - 10 = 118: the box moved with the image ✓ box-moved
#> BoundingBoxes([[ 78,  20, 118,  60]], format=BoundingBoxFormat.XYXY, canvas_size=(150, 128), clamping_mode=soft)
assert torch.equal(flipped_img, tensor_img.flip(-1))  # ✓ image-flipped
assert torch.equal(flipped_mask, mask.flip(-1)) and flipped_mask[20:60, 78:118].all()  # so did the mask ✓ mask-moved
torch.manual_seed(0)
pairs = [v2.RandomHorizontalFlip()(tensor_img, mask) for _ in range(20)]  # p=0.5: some flip, some not
flips = [(torch.equal(i, tensor_img.flip(-1)), torch.equal(m, mask.flip(-1))) for i, m in pairs]
assert {f for f, _ in flips} == {True, False} and all(f == g for f, g in flips)  # one draw for both ✓ one-draw
crop_1, crop_2 = v2.RandomResizedCrop(32)(tensor_img, tensor_img.clone())  # two copies, one random crop
assert torch.equal(crop_1, crop_2)  # the same box and scale for both ✓ one-draw-crop
patch = v2.CenterCrop(32)(tensor_img)  # a 32 x 32 piece of the photo, still a tv_tensors.Image
random_transforms = [  # v2's random geometric transforms, then its random colour transforms
    v2.RandomResize(16, 48), v2.RandomCrop(20), v2.RandomResizedCrop(24), v2.RandomShortestSize([20, 40]),
    v2.ScaleJitter((32, 32)), v2.RandomZoomOut(), v2.RandomRotation(30), v2.RandomAffine(20, translate=(0.2, 0.2)),
    v2.RandomPerspective(), v2.ElasticTransform(), v2.RandomHorizontalFlip(), v2.RandomVerticalFlip(),
    v2.ColorJitter(0.5, 0.5, 0.5, 0.1), v2.RandomChannelPermutation(), v2.RandomPhotometricDistort(),
    v2.RandomGrayscale(p=0.5), v2.GaussianBlur(3, sigma=(0.1, 2.0)), v2.RandomInvert(), v2.RandomPosterize(4),
    v2.RandomSolarize(128), v2.RandomAdjustSharpness(2), v2.RandomAutocontrast(), v2.RandomEqualize(),
]
for random_transform in random_transforms:
    results = []
    for _ in range(20):  # two copies of the image come out equal: one draw for both
        result_1, result_2 = random_transform(patch, patch.clone())
        assert torch.equal(result_1, result_2)  # ✓ one-draw-all
        results.append(result_1)
    assert any(r.shape != results[0].shape or not torch.equal(r, results[0]) for r in results)  # twenty draws ✓ one-draw-all
print(len(random_transforms))  # ✓ one-draw-all
#> 23
float_patch = v2.ToDtype(torch.float32, scale=True)(patch)
noisy_1, noisy_2 = v2.GaussianNoise()(float_patch, float_patch.clone())
print(torch.equal(noisy_1, noisy_2))  # not GaussianNoise: new noise for each input ✓ noise-per-input
#> False
mask_patch = v2.CenterCrop(32)(mask)
for auto in (v2.AutoAugment(), v2.RandAugment(), v2.TrivialAugmentWide(), v2.AugMix()):
    for inputs in [(patch, mask_patch), (patch, patch.clone())]:  # an image with its mask; two images
        try:
            auto(*inputs)
        except TypeError as err:  # the auto-augment family takes one image or video ✓ auto-refuses
            print(type(auto).__name__, err)
            #> AutoAugment Inputs of type Mask are not supported by AutoAugment()
            #> AutoAugment Auto augment transformations are only properly defined for a single image or video, but found 2.
            #> RandAugment Inputs of type Mask are not supported by RandAugment()
            #> RandAugment Auto augment transformations are only properly defined for a single image or video, but found 2.
            #> TrivialAugmentWide Inputs of type Mask are not supported by TrivialAugmentWide()
            #> TrivialAugmentWide Auto augment transformations are only properly defined for a single image or video, but found 2.
            #> AugMix Inputs of type Mask are not supported by AugMix()
            #> AugMix Auto augment transformations are only properly defined for a single image or video, but found 2.
video = tv_tensors.Video(torch.stack([patch, patch.flip(-1)]))  # two frames
for auto in (v2.AutoAugment(), v2.RandAugment(), v2.TrivialAugmentWide(), v2.AugMix()):
    assert type(auto(patch)) is tv_tensors.Image and type(auto(video)) is tv_tensors.Video  # each alone ✓ auto-single
box_patch = tv_tensors.BoundingBoxes([[4, 4, 20, 20]], format="XYXY", canvas_size=(32, 32))
for auto in (v2.AutoAugment(), v2.RandAugment(), v2.TrivialAugmentWide(), v2.AugMix()):
    refusal = "no error"
    try:
        auto(patch, box_patch)
    except TypeError as err:
        refusal = str(err)
    assert refusal.startswith("Inputs of type BoundingBoxes are not supported")  # boxes too ✓ auto-refuses-boxes
    for label in (3, "cat", torch.tensor(3)):  # a plain label passes through, untouched
        image_out, out = auto(patch, label)
        assert type(image_out) is tv_tensors.Image and out is label  # ✓ auto-label
# --8<-- [end:boxes]

# --8<-- [start:which]
names = [type(t).__name__ for t in v1_pipeline.transforms if not isinstance(t, transforms.ToTensor)]
print(names, all(hasattr(v2, name) for name in names))  # the same classes exist in v2 ✓ same-names
#> ['Resize', 'CenterCrop', 'Normalize'] True
v1_classes = [name for name, value in vars(transforms).items() if isinstance(value, type)]
print(len(v1_classes), [name for name in v1_classes if not hasattr(v2, name)])  # every v1 class ✓ all-in-v2
#> 41 []
# --8<-- [end:which]

# Figure-only (hidden): the picture of the page, from the tensors above.
from _image_grid import save_image_grid  # noqa: E402

mean, std = torch.tensor(MEAN).view(3, 1, 1), torch.tensor(STD).view(3, 1, 1)
save_image_grid(
    [img, a * std + mean, b * std + mean, no_aa, (no_aa.int() - from_pil.int()).abs().sum(0) / 255],
    ["input 128x150", "v1 Compose", "v2 Compose", "Resize(64), no antialias", "|difference|"],
    "data/compose_v2",
)
