"""Shape errors of layers and losses: each message reproduced, explained and fixed.

Page: docs/errors/shape_errors.md
"""

# --8<-- [start:setup]
import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader


def error_of(fn, *args) -> str:
    """What `fn(*args)` raises, written `Type: message` ("no error" when it returns)."""
    try:
        fn(*args)
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:mat1]
images = torch.randn(8, 3, 28, 28)  # 8 RGB images of 28×28 pixels
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))  # sized for 1-channel images
print(error_of(model, images))  # ✓ mat1-message
#> RuntimeError: addmm: mat1 and mat2 shapes cannot be multiplied (8x2352 and 784x10)
# --8<-- [end:mat1]

# --8<-- [start:mat1-why]
print(model[0](images).shape, model[1].weight.T.shape)  # mat1: the flat input; mat2: weight.T ✓ mat1-operands
#> torch.Size([8, 2352]) torch.Size([784, 10])
print(error_of(model[1], torch.randn(2, 8, 2352)))  # leading dims merged: 2·8 = 16 rows ✓ mat1-rows
#> RuntimeError: addmm: mat1 and mat2 shapes cannot be multiplied (16x2352 and 784x10)
assert "(48x2352 and 784x10)" in error_of(model[1], torch.zeros(2, 3, 8, 2352))  # 4-D: 2·3·8 = 48 rows ✓ mat1-rows
print(error_of(nn.Linear(28 * 28, 10, bias=False), images.flatten(1)))  # no bias: mm ✓ mat1-prefix
#> RuntimeError: mm: mat1 and mat2 shapes cannot be multiplied (8x2352 and 784x10)
# --8<-- [end:mat1-why]

# --8<-- [start:mat1-fix]
features = nn.Flatten()  # everything before the Linear
n_features = features(torch.zeros(1, 3, 28, 28)).shape[1]  # measured on one dummy image
fixed = nn.Sequential(features, nn.Linear(n_features, 10))
print(n_features, fixed(images).shape)  # ✓ mat1-fix
#> 2352 torch.Size([8, 10])
lazy = nn.Sequential(nn.Flatten(), nn.LazyLinear(10))  # or let the first call set in_features
assert lazy(images).shape == (8, 10) and lazy[1].in_features == 3 * 28 * 28  # ✓ mat1-lazy
# --8<-- [end:mat1-fix]

# --8<-- [start:channels]
conv = nn.Conv2d(3, 16, kernel_size=3)  # expects RGB input
gray = torch.randn(8, 1, 28, 28)  # a batch of grayscale images
print(error_of(conv, gray))  # ✓ channels-message
#> RuntimeError: Given groups=1, weight of size [16, 3, 3, 3], expected input[8, 1, 28, 28] to have 3 channels, but got 1 channels instead
hwc = torch.randn(8, 24, 28, 3)  # channels last (height 24, width 28), as PIL and NumPy store images
print(error_of(conv, hwc))  # ✓ channels-last
#> RuntimeError: Given groups=1, weight of size [16, 3, 3, 3], expected input[8, 24, 28, 3] to have 3 channels, but got 24 channels instead
# --8<-- [end:channels]

# --8<-- [start:channels-why]
print(conv.weight.shape)  # (out_channels, in_channels // groups, kH, kW) ✓ channels-weight
#> torch.Size([16, 3, 3, 3])
grouped = nn.Conv2d(4, 8, kernel_size=(3, 5), groups=2)  # weight [8, 4 / 2, 3, 5], expects 2 × 2 = 4 channels
print(error_of(grouped, torch.randn(8, 2, 28, 28)))  # ✓ channels-groups
#> RuntimeError: Given groups=2, weight of size [8, 2, 3, 5], expected input[8, 2, 28, 28] to have 4 channels, but got 2 channels instead
# --8<-- [end:channels-why]

# --8<-- [start:channels-fix]
rgb = gray.expand(-1, 3, -1, -1)  # gray repeated on 3 channels
assert rgb.data_ptr() == gray.data_ptr() and rgb.stride(1) == 0  # a view: no copy ✓ channels-expand-view
print(conv(rgb).shape)  # ✓ channels-fix
#> torch.Size([8, 16, 26, 26])
print(conv(hwc.permute(0, 3, 1, 2)).shape)  # NHWC -> NCHW ✓ channels-fix-last
#> torch.Size([8, 16, 22, 26])
print(nn.Conv2d(1, 16, kernel_size=3)(gray).shape)  # or a first layer made for 1 channel ✓ channels-fix-one
#> torch.Size([8, 16, 26, 26])
# --8<-- [end:channels-fix]

# --8<-- [start:conv-dims]
conv1 = nn.Conv2d(1, 16, kernel_size=3)
for shape in [(28,), (28, 28), (1, 28, 28), (8, 1, 28, 28), (2, 8, 1, 28, 28)]:
    print(shape, error_of(conv1, torch.zeros(shape)))  # ✓ dims-message
    #> (28,) RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [28]
    #> (28, 28) RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [28, 28]
    #> (1, 28, 28) no error
    #> (8, 1, 28, 28) no error
    #> (2, 8, 1, 28, 28) RuntimeError: Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 8, 1, 28, 28]
wrong_dims = [n for n in range(8) if n not in (3, 4)]  # 0-D to 7-D, but 3-D and 4-D
assert all(error_of(conv1, torch.zeros((1,) * n)).startswith("RuntimeError: Expected 3D (unbatched) or 4D") for n in wrong_dims)  # ✓ dims-any
print(error_of(nn.Conv1d(1, 4, kernel_size=3), torch.zeros(50)))  # the same for conv1d ✓ dims-conv1d
#> RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [50]
print(error_of(nn.Conv3d(1, 4, kernel_size=3), torch.zeros(16, 64, 64)))  # and for conv3d: a volume without channels ✓ dims-conv3d
#> RuntimeError: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [16, 64, 64]
for mode in ["reflect", "replicate", "circular"]:  # any other padding mode pads first, in F.pad
    padded = nn.Conv2d(1, 16, kernel_size=3, padding=1, padding_mode=mode)
    message = error_of(padded, torch.zeros(28, 28))
    print(mode, message.splitlines()[0])  # its first line ✓ dims-padding-mode
    #> reflect NotImplementedError: Padding size 4 is not supported for 2D input tensor.
    #> replicate NotImplementedError: Padding size 4 is not supported for 2D input tensor.
    #> circular NotImplementedError: Padding size 4 is not supported for 2D input tensor.
    assert "conv2d" not in message and error_of(padded, torch.zeros(1, 28, 28)) == "no error"  # 3-D runs
for shape in [(28,), (2, 8, 1, 28, 28)]:  # the circular layer again, with one dimension and with five
    message = error_of(padded, torch.zeros(shape))
    print(shape, message.splitlines()[0])  # ✓ dims-padding-other
    #> (28,) RuntimeError: Padding length should be less than or equal to two times the input dimension but got padding length 4 and input of dimension 1
    #> (2, 8, 1, 28, 28) NotImplementedError: Padding size 4 is not supported for 5D input tensor.
    assert "conv2d" not in message  # F.pad fails first, before the convolution's own check ✓ dims-padding-other
# --8<-- [end:conv-dims]

# --8<-- [start:conv-dims-why]
print(conv1(torch.zeros(1, 28, 28)).shape)  # 3-D in: (C, H, W), 3-D out ✓ dims-unbatched
#> torch.Size([16, 26, 26])
# --8<-- [end:conv-dims-why]

# --8<-- [start:conv-dims-fix]
image = torch.zeros(28, 28)  # one grayscale image as loaded: no channel, no batch dim
print(conv1(image[None, None]).shape)  # (1, 1, 28, 28): a batch of 1 with 1 channel ✓ dims-fix
#> torch.Size([1, 16, 26, 26])
clips = torch.zeros(2, 8, 1, 28, 28)  # 2 clips of 8 frames
out = conv1(clips.flatten(0, 1)).unflatten(0, (2, 8))  # frames into the batch dim, and back
print(out.shape)  # ✓ dims-fix-clips
#> torch.Size([2, 8, 16, 26, 26])
# --8<-- [end:conv-dims-fix]

# --8<-- [start:view]
maps = torch.randn(8, 16, 4, 4).permute(0, 2, 3, 1)  # channels last: (8, 4, 4, 16)
print(error_of(maps.view, 8, -1))  # ✓ view-message
#> RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
print(maps.is_contiguous(), maps.stride())  # ✓ view-why
#> False (256, 4, 1, 16)
merged = maps.view(8, 16, 16)  # height and width merged: next to each other in memory (strides 4, 1)
assert merged.data_ptr() == maps.data_ptr() and not maps.is_contiguous()  # a view, no copy ✓ view-adjacent
swapped = torch.arange(60.0).view(4, 3, 5).transpose(1, 2)  # transpose moves dimensions in the same way
print(error_of(swapped.view, 4, -1))  # ✓ view-transpose
#> RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
# --8<-- [end:view]

# --8<-- [start:view-fix]
flat = maps.reshape(8, -1)  # a copy here, because it must
assert flat.data_ptr() != maps.data_ptr()  # ✓ view-reshape-copies
dense = maps.contiguous()
assert dense.reshape(8, -1).data_ptr() == dense.data_ptr()  # a view where it can ✓ view-reshape-view
assert torch.equal(flat, maps.contiguous().view(8, -1))  # the same as contiguous().view ✓ view-fix
assert torch.equal(flat[0, :16], maps[0, 0, 0])  # row-major order of the permuted shape ✓ view-order
print(flat.shape)  # ✓ view-fix-shape
#> torch.Size([8, 256])
# --8<-- [end:view-fix]

# --8<-- [start:batchnorm]
net = nn.Sequential(nn.Linear(20, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 2))
print(error_of(net, torch.randn(1, 20)))  # one sample, in training mode ✓ bn-message
#> ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 32])
# --8<-- [end:batchnorm]

# --8<-- [start:batchnorm-why]
bn = nn.BatchNorm2d(16)
for shape in [(1, 16, 1, 1), (1, 16, 2, 2), (2, 16, 1, 1)]:  # values per channel: N·H·W
    print(shape, error_of(bn, torch.randn(shape)))  # ✓ bn-values
    #> (1, 16, 1, 1) ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 16, 1, 1])
    #> (1, 16, 2, 2) no error
    #> (2, 16, 1, 1) no error
pair = torch.randn(2, 16, 1, 1)
batch_mean, batch_var = pair.mean((0, 2, 3), keepdim=True), pair.var((0, 2, 3), unbiased=False, keepdim=True)
assert torch.allclose(bn(pair), (pair - batch_mean) / torch.sqrt(batch_var + bn.eps))  # ✓ bn-batch-stats
one = torch.randn(1, 16, 1, 1)
assert torch.equal(one - one.mean((0, 2, 3), keepdim=True), torch.zeros_like(one))  # ✓ bn-one-value
# --8<-- [end:batchnorm-why]

# --8<-- [start:batchnorm-fix]
net(torch.randn(16, 20))  # a training batch: it updates the running statistics
net.eval()  # running statistics instead of the batch's own
sample = torch.randn(1, 20)
print(net(sample).shape)  # ✓ bn-eval
#> torch.Size([1, 2])
norm = net[1]
hidden = net[0](sample)
assert torch.allclose(norm(hidden), (hidden - norm.running_mean) / torch.sqrt(norm.running_var + norm.eps) * norm.weight + norm.bias)  # ✓ bn-eval-running
assert not torch.allclose(norm(hidden), norm.weight * hidden + norm.bias, atol=1e-3)  # not a pass-through ✓ bn-eval-not-identity
net.train()
data = torch.randn(65, 20)  # 65 = 2 × 32 + 1
print([len(b) for b in DataLoader(data, batch_size=32)])  # ✓ bn-last-one
#> [32, 32, 1]
print([len(b) for b in DataLoader(data, batch_size=32, drop_last=True)])  # ✓ bn-drop-last
#> [32, 32]
untracked = nn.BatchNorm1d(32, track_running_stats=False).eval()  # keeps no running statistics
assert untracked.running_mean is None and untracked.running_var is None  # ✓ bn-eval-untracked
four_rows = torch.arange(128.0).view(4, 32).sin()  # 4 samples, 32 channels
batch_normalised = (four_rows - four_rows.mean(0)) / torch.sqrt(four_rows.var(0, unbiased=False) + untracked.eps)
assert torch.allclose(untracked(four_rows), batch_normalised, atol=1e-6)  # the batch's own statistics in eval() ✓ bn-eval-untracked
print(error_of(untracked, torch.ones(1, 32)))  # so eval() still uses the batch's own ✓ bn-eval-untracked
#> ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 32])
# --8<-- [end:batchnorm-fix]

# --8<-- [start:batch-size]
feats = torch.randn(6, 20, 8, 8)  # 6 samples; the head was written for 4×4 maps: 20·4·4 = 320
labels = torch.randint(0, 10, (6,))
head = nn.Linear(320, 10)
logits = head(feats.view(-1, 320))  # -1 turns 6 samples into 24 rows, silently
print(error_of(F.cross_entropy, logits, labels))  # ✓ batch-message
#> ValueError: Expected input batch_size (24) to match target batch_size (6).
# --8<-- [end:batch-size]

# --8<-- [start:batch-size-why]
print(logits.shape, labels.shape)  # ✓ batch-rows
#> torch.Size([24, 10]) torch.Size([6])
print(error_of(nn.NLLLoss(), logits.log_softmax(1), labels))  # the same check in nll_loss ✓ batch-nll
#> ValueError: Expected input batch_size (24) to match target batch_size (6).
same = error_of(F.cross_entropy, logits, labels)
assert error_of(nn.CrossEntropyLoss(), logits, labels) == error_of(F.nll_loss, logits.log_softmax(1), labels) == same  # ✓ batch-modules
fewer = [error_of(f, logits[:4], labels) for f in (F.cross_entropy, nn.CrossEntropyLoss(), F.nll_loss, nn.NLLLoss())]
assert all("input batch_size (4) to match target batch_size (6)" in e for e in fewer)  # fewer rows, too ✓ batch-fewer
# --8<-- [end:batch-size-why]

# --8<-- [start:batch-size-fix]
head = nn.Linear(20 * 8 * 8, 10)
logits = head(feats.flatten(1))  # keep dim 0 (the samples), flatten the rest
print(logits.shape, F.cross_entropy(logits, labels).shape)  # ✓ batch-fix
#> torch.Size([6, 10]) torch.Size([])
assert feats.is_contiguous() and torch.equal(feats.flatten(1), feats.view(feats.size(0), -1))  # view(x.size(0), -1): the same rows ✓ batch-fix-view
feats_t = feats.transpose(2, 3)  # not contiguous: view refuses it, flatten(1) does not
assert error_of(feats_t.view, feats_t.size(0), -1).startswith("RuntimeError: view size is not compatible")  # ✓ batch-fix-view-strided
assert feats_t.flatten(1).shape == (6, 1280)  # ✓ batch-fix-view-strided
print(error_of(nn.Linear(320, 10), feats.flatten(1)))  # a Linear sized wrongly: 1280 is the size to use ✓ batch-fix-mat1
#> RuntimeError: addmm: mat1 and mat2 shapes cannot be multiplied (6x1280 and 320x10)
# --8<-- [end:batch-size-fix]

# --8<-- [start:mse]
regressor = nn.Linear(5, 1)  # one output per sample: shape (N, 1)
inputs, target = torch.randn(8, 5), torch.randn(8)  # targets stored as (N,)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss = F.mse_loss(regressor(inputs), target)
    nn.MSELoss()(regressor(inputs), target)  # the module warns the same
assert len(caught) == 2 and str(caught[1].message) == str(caught[0].message)  # ✓ mse-module
print(f"{caught[0].category.__name__}: {caught[0].message}")  # ✓ mse-message
#> UserWarning: Using a target size (torch.Size([8])) that is different to the input size (torch.Size([8, 1])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
# --8<-- [end:mse]

# --8<-- [start:mse-why]
pred = regressor(inputs)
print((pred - target).shape)  # (8, 1) against (8,) broadcasts to (8, 8) ✓ mse-shapes
#> torch.Size([8, 8])
assert torch.allclose(loss, ((pred - target) ** 2).mean())  # all 64 pairs, not 8 ✓ mse-broadcast
# --8<-- [end:mse-why]

# --8<-- [start:mse-fix]
with warnings.catch_warnings():
    warnings.simplefilter("error")  # in this block a warning raises
    right = F.mse_loss(pred.squeeze(1), target)  # (8,) and (8,): no warning ✓ mse-fix
    assert torch.allclose(right, F.mse_loss(pred, target.unsqueeze(1)))  # (8, 1) and (8, 1): the same ✓ mse-fix-either
assert torch.allclose(right, ((pred.squeeze(1) - target) ** 2).mean())  # 8 pairs ✓ mse-fix-value
print(f"{loss.item():.4f} {right.item():.4f}")  # the warned loss was a different number ✓ mse-differs
#> 0.5179 0.5007
# --8<-- [end:mse-fix]

# --8<-- [start:bce]
binary_head = nn.Linear(5, 1)  # a binary classifier: one logit per sample, (N, 1)
flags = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])  # its labels, stored as (N,)
scores = binary_head(inputs)
print(error_of(nn.BCEWithLogitsLoss(), scores, flags))  # ✓ bce-message
#> ValueError: Target size (torch.Size([8])) must be the same as input size (torch.Size([8, 1]))
assert error_of(F.binary_cross_entropy_with_logits, scores, flags) == error_of(nn.BCEWithLogitsLoss(), scores, flags)  # ✓ bce-functional
print(error_of(F.binary_cross_entropy, torch.sigmoid(scores), flags))  # BCELoss words it otherwise ✓ bce-bceloss
#> ValueError: Using a target size (torch.Size([8])) that is different to the input size (torch.Size([8, 1])) is deprecated. Please ensure they have the same size.
assert error_of(nn.BCELoss(), torch.sigmoid(scores), flags) == error_of(F.binary_cross_entropy, torch.sigmoid(scores), flags)  # the module too ✓ bce-bceloss-module
mse_sentences = str(caught[0].message).split(". ")  # "Using a target size (...) that is different to the input size (...)", ..., "Please ensure ..."
assert error_of(nn.BCELoss(), torch.sigmoid(scores), flags) == f"ValueError: {mse_sentences[0]} is deprecated. {mse_sentences[-1]}"  # ✓ bce-bceloss-wording
# --8<-- [end:bce]

# --8<-- [start:bce-fix]
bce = F.binary_cross_entropy_with_logits(scores.squeeze(1), flags)  # or flags.unsqueeze(1)
assert torch.equal(bce, F.binary_cross_entropy_with_logits(scores, flags.unsqueeze(1)))  # ✓ bce-fix-either
by_hand = -(flags * F.logsigmoid(scores.squeeze(1)) + (1 - flags) * F.logsigmoid(-scores.squeeze(1))).mean()
assert torch.allclose(bce, by_hand)  # one term per sample: 8, not 64 ✓ bce-fix
print(bce.shape)  # ✓ bce-fix-shape
#> torch.Size([])
# --8<-- [end:bce-fix]

# --8<-- [start:multi-target]
class_logits = torch.randn(8, 10)  # 8 samples, 10 classes
class_labels = torch.randint(0, 10, (8, 1))  # class indices loaded as a column, (N, 1)
print(error_of(F.cross_entropy, class_logits, class_labels))  # ✓ multi-message
#> RuntimeError: 0D or 1D target tensor expected, multi-target not supported
print(error_of(F.nll_loss, class_logits.log_softmax(1), class_labels))  # nll_loss says the same ✓ multi-nll
#> RuntimeError: 0D or 1D target tensor expected, multi-target not supported
assert error_of(nn.CrossEntropyLoss(), class_logits, class_labels) == error_of(F.cross_entropy, class_logits, class_labels)  # ✓ multi-module
# --8<-- [end:multi-target]

# --8<-- [start:multi-target-why]
print(error_of(F.cross_entropy, class_logits, class_labels.squeeze(1)))  # (N,) class indices ✓ multi-indices
#> no error
print(error_of(F.cross_entropy, class_logits, torch.rand(8, 10).softmax(1)))  # (N, C) probabilities ✓ multi-probs
#> no error
# --8<-- [end:multi-target-why]

# --8<-- [start:multi-target-fix]
ce = F.cross_entropy(class_logits, class_labels.squeeze(1))  # or class_labels.view(-1)
picked = class_logits.log_softmax(1).gather(1, class_labels)  # each sample's log-probability of its class
assert torch.allclose(ce, -picked.mean())  # ✓ multi-fix
assert torch.equal(ce, F.cross_entropy(class_logits, class_labels.view(-1)))  # view(-1): the same loss ✓ multi-fix-view
# --8<-- [end:multi-target-fix]

# --8<-- [start:target-size]
token_logits = torch.randn(8, 5, 10)  # a sequence model: (batch, steps, classes)
token_labels = torch.randint(0, 10, (8, 5))  # one class per step: (batch, steps)
print(error_of(F.cross_entropy, token_logits, token_labels))  # ✓ seq-message
#> RuntimeError: Expected target size [8, 10], got [8, 5]
# --8<-- [end:target-size]

# --8<-- [start:target-size-fix]
by_channel = F.cross_entropy(token_logits.permute(0, 2, 1), token_labels)  # classes in dim 1: (8, 10, 5)
by_row = F.cross_entropy(token_logits.reshape(-1, 10), token_labels.reshape(-1))  # or 40 rows of 10
assert torch.allclose(by_channel, by_row)  # the same loss ✓ seq-fix
picked = token_logits.log_softmax(2).gather(2, token_labels.unsqueeze(2))
assert torch.allclose(by_channel, -picked.mean())  # each step's own class ✓ seq-fix-value
# --8<-- [end:target-size-fix]

# --8<-- [start:broadcast]
batch = torch.rand(8, 3, 32, 32)
mean = torch.tensor([0.485, 0.456, 0.406])  # one value per channel
print(error_of(torch.sub, batch, mean))  # batch - mean ✓ broadcast-message
#> RuntimeError: The size of tensor a (32) must match the size of tensor b (3) at non-singleton dimension 3
# --8<-- [end:broadcast]

# --8<-- [start:broadcast-why]
print(error_of(torch.sub, mean, batch))  # a and b: the operands, in order ✓ broadcast-order
#> RuntimeError: The size of tensor a (3) must match the size of tensor b (32) at non-singleton dimension 3
print(error_of(torch.sub, batch, torch.zeros(3, 32)))  # dims counted in the 4-D result ✓ broadcast-dim
#> RuntimeError: The size of tensor a (32) must match the size of tensor b (3) at non-singleton dimension 2
print((batch - torch.zeros(32)).shape, (batch - torch.zeros(3, 1, 1)).shape)  # equal or 1, from the right ✓ broadcast-rule
#> torch.Size([8, 3, 32, 32]) torch.Size([8, 3, 32, 32])
# --8<-- [end:broadcast-why]

# --8<-- [start:broadcast-fix]
normalised = batch - mean.view(3, 1, 1)  # (3,) -> (3, 1, 1): lined up with the channel dim
assert torch.allclose(normalised[:, 1], batch[:, 1] - mean[1])  # channel 1 minus mean[1] ✓ broadcast-fix
print(normalised.shape)  # ✓ broadcast-fix-shape
#> torch.Size([8, 3, 32, 32])
# --8<-- [end:broadcast-fix]

# --8<-- [start:cat]
skip = torch.randn(8, 16, 14, 14)  # an encoder's feature maps, kept for a skip connection
up = torch.randn(8, 32, 7, 7)  # the decoder's maps, not yet upsampled
print(error_of(torch.cat, [skip, up], 1))  # joined on dim 1, the channels ✓ cat-message
#> RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 14 but got size 7 for tensor number 1 in the list.
# --8<-- [end:cat]

# --8<-- [start:cat-why]
print(error_of(torch.cat, [skip, skip, up[:, :16]], 0))  # joined on dim 0; the third tensor is number 2 ✓ cat-number
#> RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 14 but got size 7 for tensor number 2 in the list.
print(error_of(torch.cat, [skip, torch.zeros(8, 32, 10, 7)], 1))  # dims 2 and 3 differ: the first is named ✓ cat-first
#> RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 14 but got size 10 for tensor number 1 in the list.
# --8<-- [end:cat-why]

# --8<-- [start:cat-fix]
up = F.interpolate(up, size=skip.shape[-2:])  # upsample to the skip's 14×14 first
print(torch.cat([skip, up], 1).shape)  # 16 + 32 channels ✓ cat-fix
#> torch.Size([8, 48, 14, 14])
# --8<-- [end:cat-fix]

# --8<-- [start:invalid-shape]
conv_out = torch.randn(8, 16, 5, 5)  # after the conv layers: 16·5·5 = 400 numbers per sample
print(error_of(conv_out.view, 8, 16 * 4 * 4))  # written for 4×4 maps ✓ invalid-message
#> RuntimeError: shape '[8, 256]' is invalid for input of size 3200
# --8<-- [end:invalid-shape]

# --8<-- [start:invalid-shape-why]
print(conv_out.numel(), error_of(conv_out.reshape, -1, 256))  # -1 does not help: 3200 / 256 = 12.5 ✓ invalid-minus-one
#> 3200 RuntimeError: shape '[-1, 256]' is invalid for input of size 3200
print(conv_out.reshape(-1, 400).shape)  # 400 divides 3200: -1 becomes 8 ✓ invalid-minus-one-divides
#> torch.Size([8, 400])
# --8<-- [end:invalid-shape-why]

# --8<-- [start:invalid-shape-fix]
print(conv_out.flatten(1).shape)  # one row per sample, whatever the map size ✓ invalid-fix
#> torch.Size([8, 400])
# --8<-- [end:invalid-shape-fix]

# --8<-- [start:kernel]
small = torch.randn(1, 3, 4, 4)  # 4×4 maps: a 32×32 image after three halvings
print(error_of(nn.Conv2d(3, 8, kernel_size=5), small))  # ✓ kernel-message
#> RuntimeError: Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5). Kernel size can't be greater than actual input size
print(error_of(nn.MaxPool2d(2), torch.randn(1, 3, 1, 1)))  # pooling words it otherwise ✓ kernel-pool
#> RuntimeError: Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small
print(error_of(nn.MaxPool1d(2), torch.zeros(1, 3, 1)))  # and not every pooling layer the same way ✓ kernel-pool-1d
#> RuntimeError: max_pool1d() Invalid computed output size: 0
# --8<-- [end:kernel]

# --8<-- [start:kernel-why]
for pad in (0, 1):
    print(pad, error_of(nn.Conv2d(3, 8, kernel_size=5, padding=pad), small))  # padded: 4 + 2·pad ✓ kernel-padded
    #> 0 RuntimeError: Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5). Kernel size can't be greater than actual input size
    #> 1 no error
print(error_of(nn.Conv2d(3, 8, kernel_size=7, padding=1), small))  # 4 + 2·1 = 6, smaller than 7 ✓ kernel-padded-size
#> RuntimeError: Calculated padded input size per channel: (6 x 6). Kernel size: (7 x 7). Kernel size can't be greater than actual input size
# --8<-- [end:kernel-why]

# --8<-- [start:kernel-fix]
print(nn.Conv2d(3, 8, kernel_size=5, padding="same")(small).shape)  # keeps 4×4 ✓ kernel-fix-same
#> torch.Size([1, 8, 4, 4])
print(nn.Conv2d(3, 8, kernel_size=5)(F.interpolate(small, size=8)).shape)  # or a larger input ✓ kernel-fix-larger
#> torch.Size([1, 8, 4, 4])
# --8<-- [end:kernel-fix]

# --8<-- [start:rnn]
lstm = nn.LSTM(input_size=10, hidden_size=20, batch_first=True)
seqs = torch.randn(4, 10, 7)  # 4 sequences, laid out as for Conv1d: (batch, features, steps)
print(error_of(lstm, seqs))  # ✓ rnn-message
#> RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 7
# --8<-- [end:rnn]

# --8<-- [start:rnn-why]
print(error_of(nn.LSTM(input_size=10, hidden_size=20), seqs))  # the same without batch_first ✓ rnn-last-dim
#> RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 7
print(error_of(nn.GRU(10, 20, batch_first=True), seqs), error_of(nn.RNN(10, 20, batch_first=True), seqs), sep="\n")  # ✓ rnn-gru-rnn
#> RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 7
#> RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 7
# --8<-- [end:rnn-why]

# --8<-- [start:rnn-fix]
output, _ = lstm(seqs.transpose(1, 2))  # (batch, steps, features): features last
print(output.shape)  # 4 sequences, 7 steps, 20 hidden units ✓ rnn-fix
#> torch.Size([4, 7, 20])
# --8<-- [end:rnn-fix]

# --8<-- [start:hidden]
steps = torch.randn(4, 7, 10)  # a last batch of 4 sequences, (batch, steps, features)
h0, c0 = torch.zeros(1, 5, 20), torch.zeros(1, 5, 20)  # initial states made for batches of 5
print(error_of(lstm, steps, (h0, c0)))  # ✓ hidden-message
#> RuntimeError: Expected hidden[0] size (1, 4, 20), got [1, 5, 20]
# --8<-- [end:hidden]

# --8<-- [start:hidden-why]
h0, c0 = torch.zeros(4, 1, 20), torch.zeros(4, 1, 20)  # batch first, as the input
print(error_of(lstm, steps, (h0, c0)))  # batch_first does not apply to the states ✓ hidden-batch-second
#> RuntimeError: Expected hidden[0] size (1, 4, 20), got [4, 1, 20]
deep = nn.LSTM(10, 20, num_layers=3, bidirectional=True, batch_first=True)
print(error_of(deep, steps, (h0, c0)))  # 3 layers × 2 directions = 6 ✓ hidden-layers
#> RuntimeError: Expected hidden[0] size (6, 4, 20), got [4, 1, 20]
# --8<-- [end:hidden-why]

# --8<-- [start:hidden-fix]
h0 = c0 = torch.zeros(1, steps.size(0), 20)  # (layers, batch, hidden), batch taken from the input
output, (h_n, c_n) = lstm(steps, (h0, c0))
assert torch.equal(output, lstm(steps)[0])  # no states given: zeros, the same output ✓ hidden-default
print(output.shape, h_n.shape)  # ✓ hidden-fix
#> torch.Size([4, 7, 20]) torch.Size([1, 4, 20])
# --8<-- [end:hidden-fix]
