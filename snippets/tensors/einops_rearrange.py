"""einops rearrange / reduce / repeat next to their plain-torch equivalents.

Page: docs/tensors/einops_rearrange.md
"""

# --8<-- [start:setup]
import torch
from einops import EinopsError, rearrange, reduce, repeat

# --8<-- [end:setup]

# --8<-- [start:transpose]
x = torch.arange(6).reshape(2, 3)  # x.shape [c, t]
y1 = x.transpose(0, 1)
y2 = rearrange(x, "c t -> t c")
assert torch.equal(y1, y2)  # ✓ transpose
print(y2.shape)
#> torch.Size([3, 2])
# --8<-- [end:transpose]

# --8<-- [start:merge]
x = torch.arange(24).reshape(2, 3, 4)  # x.shape [b, c, t]
b, c, t = x.size()
y1 = x.view(b * c, t)
y2 = rearrange(x, "b c t -> (b c) t")
assert torch.equal(y1, y2)  # ✓ merge
assert torch.equal(rearrange(x, "b c t -> (c b) t"), x.transpose(0, 1).reshape(c * b, t))  # in the order written ✓ merge-order
print(y2.shape)
#> torch.Size([6, 4])
# --8<-- [end:merge]

# --8<-- [start:add-axis]
y1 = x.view(b, c, t, 1)
y2 = rearrange(x, "b c (t a) -> b c t a", a=1)  # the notes' spelling: split t into t*1
y3 = rearrange(x, "b c t -> b c t 1")  # simpler: a literal 1 adds the axis
assert torch.equal(y1, y2) and torch.equal(y1, y3) and torch.equal(y1, x.unsqueeze(-1))  # ✓ add-axis
print(y3.shape)
#> torch.Size([2, 3, 4, 1])
# --8<-- [end:add-axis]

# --8<-- [start:squeeze]
x1 = torch.arange(12).reshape(1, 3, 4)  # x.shape [1, c, t]
y1 = x1.squeeze(0)
y2 = rearrange(x1, "b c t -> (b c) t")  # the notes' version: equal here, because b == 1
y3 = rearrange(x1, "1 c t -> c t")  # says what is meant: drop an axis that must be 1
assert torch.equal(y1, y2) and torch.equal(y1, y3)  # ✓ squeeze-b1
print(y1.shape, y2.shape, y3.shape)
#> torch.Size([3, 4]) torch.Size([3, 4]) torch.Size([3, 4])

x2 = torch.arange(24).reshape(2, 3, 4)  # now b == 2: the three disagree
print(x2.squeeze(0).shape)  # silently does nothing ✓ squeeze-noop
#> torch.Size([2, 3, 4])
print(rearrange(x2, "b c t -> (b c) t").shape)  # silently merges b into c ✓ merges-b
#> torch.Size([6, 4])
for b in (0, 2, 3, 4, 5, 64, 1000):  # the same for every batch size but 1 ✓ any-batch
    xb = torch.zeros(b, 3, 4)
    assert xb.squeeze(0).shape == (b, 3, 4) and rearrange(xb, "b c t -> (b c) t").shape == (b * 3, 4)
try:
    rearrange(x2, "1 c t -> c t")
except EinopsError as err:
    print(type(err).__name__, str(err).strip().splitlines()[-1].strip())  # ✓ must-be-1
    #> EinopsError Shape mismatch, 2 != 1
mismatches = []  # any size but 1 is refused
for b in (0, 3, 4, 64):
    try:
        rearrange(torch.zeros(b, 3, 4), "1 c t -> c t")
    except EinopsError as err:
        mismatches.append(str(err).strip().splitlines()[-1].strip())
assert mismatches == [f"Shape mismatch, {size} != 1" for size in (0, 3, 4, 64)]  # ✓ must-be-1-any
# --8<-- [end:squeeze]

# --8<-- [start:reduce]
g = torch.Generator().manual_seed(0)
imgs = torch.rand(8, 3, 4, 4, generator=g)  # b c h w
gap = reduce(imgs, "b c h w -> b c", "mean")  # global average pooling
assert torch.allclose(gap, imgs.mean(dim=(2, 3)))  # ✓ gap
pooled = reduce(imgs, "b c (h h2) (w w2) -> b c h w", "max", h2=2, w2=2)  # 2x2 max pool
assert torch.equal(pooled, torch.nn.functional.max_pool2d(imgs, 2))  # ✓ maxpool
print(gap.shape, pooled.shape)
#> torch.Size([8, 3]) torch.Size([8, 3, 2, 2])
# --8<-- [end:reduce]

# --8<-- [start:repeat]
img = torch.arange(6).reshape(1, 2, 3)  # c h w
batch = repeat(img, "c h w -> b c h w", b=4)  # like unsqueeze(0).expand(4, -1, -1, -1)
assert torch.equal(batch, img.unsqueeze(0).expand(4, -1, -1, -1))
print(batch.shape, batch.stride(), batch.data_ptr() == img.data_ptr())  # stride 0: no copy ✓ repeat-view
#> torch.Size([4, 1, 2, 3]) (0, 6, 3, 1) True
tiled = repeat(img, "c h w -> c (2 h) w")  # like img.repeat(1, 2, 1): a real copy
assert torch.equal(tiled, img.repeat(1, 2, 1))
print(tiled.shape, tiled.stride(), tiled.data_ptr() == img.data_ptr())  # ✓ repeat-copy
#> torch.Size([1, 4, 3]) (12, 3, 1) False
rgb = repeat(img, "c h w -> (3 c) h w")  # 1 channel to 3: the axis repeated inside has length 1
assert torch.equal(rgb, img.repeat(3, 1, 1))
print(rgb.stride(), rgb.data_ptr() == img.data_ptr(), img.repeat(3, 1, 1).data_ptr() == img.data_ptr())  # ✓ repeat-len1-view
#> (0, 3, 1) True False
try:
    rgb.add_(1)  # an in-place write into the stride-0 view
except RuntimeError as err:
    print(str(err).split(".")[0])  # ✓ repeat-len1-write
    #> unsupported operation: more than one element of the written-to tensor refers to a single memory location
source = img.clone()
repeat(source, "c h w -> (3 c) h w").fill_(5)  # fill_ (like zero_ and view[...] = 5) is not refused
print(source.unique().tolist())  # it wrote into the source ✓ repeat-len1-fill
#> [5]
source = img.clone()
repeat(source, "c h w -> (3 c) h w")[0].mul_(0)  # a write to one channel of the view: no error
print(source.sum().item())  # it went through into the source, and so into every channel ✓ repeat-len1-channel
#> 0
rgb = rgb.clone()  # memory of its own: the same write works, and img is left alone
rgb.add_(1)
assert torch.equal(rgb, img.repeat(3, 1, 1) + 1) and torch.equal(img, torch.arange(6).reshape(1, 2, 3))  # ✓ clone-writable
for n in (1, 2, 3, 5):  # the axis's length: a new axis gives a view for each n, repeating inside it only for n == 1
    t = torch.zeros(n, 4)
    assert repeat(t, "h w -> b h w", b=2).data_ptr() == t.data_ptr()  # ✓ new-axis-rule
    for pattern in ("h w -> (2 h) w", "h w -> (h 2) w"):
        assert (repeat(t, pattern).data_ptr() == t.data_ptr()) == (n == 1)  # ✓ inside-axis-rule
# --8<-- [end:repeat]
