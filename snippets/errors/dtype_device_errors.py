"""Errors from dtypes and devices: float64 into a float32 layer, integer or float targets, meta tensors.

Page: docs/errors/dtype_device_errors.md
"""

# --8<-- [start:setup]
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def raised(call) -> str:
    """What `call()` raises, as Python shows it ("no error" when it returns)."""
    try:
        call()
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:mat1-dtype]
layer = nn.Linear(3, 2)  # nn layers are created in float32
x = torch.from_numpy(np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]]))  # NumPy's float64 is kept
print(layer.weight.dtype, x.dtype)  # ✓ dtypes
#> torch.float32 torch.float64
print(raised(lambda: layer(x)))  # ✓ mat1-double
#> RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float
print(raised(lambda: layer(torch.tensor([[1, 2, 3]]))))  # integer input: int64 ✓ mat1-long
#> RuntimeError: mat1 and mat2 must have the same dtype, but got Long and Float
no_bias = nn.Linear(3, 2, bias=False)  # without a bias the product goes through matmul
print(raised(lambda: no_bias(x)))  # ✓ m1-m2
#> RuntimeError: expected m1 and m2 to have the same dtype, but got: double != float
# --8<-- [end:mat1-dtype]

# --8<-- [start:mat1-dtype-fix]
out = layer(x.to(layer.weight.dtype))  # cast the input to the layer's dtype (x.float())
assert out.dtype == torch.float32 and out.shape == (2, 2)  # ✓ fix-input
assert torch.allclose(out, x.float() @ layer.weight.T + layer.bias)  # the same layer, applied ✓ fix-same
wide = nn.Linear(3, 2).double()  # or cast the layer to the input's dtype
assert wide(x).dtype == torch.float64  # ✓ fix-layer
assert wide.weight.element_size() == 2 * layer.weight.element_size()  # 8 bytes a weight, not 4 ✓ fix-layer
# --8<-- [end:mat1-dtype-fix]

# --8<-- [start:ce-target]
logits = torch.randn(4, 3)  # 4 samples, 3 classes
labels = torch.tensor([0.0, 2.0, 1.0, 2.0])  # class indices, but stored as floats
print(raised(lambda: F.cross_entropy(logits, labels)))  # ✓ ce-float
#> RuntimeError: expected target dtype to be Long or Byte, but got Float
print(raised(lambda: F.cross_entropy(logits, labels.int())))  # int32 is refused too ✓ ce-int
#> RuntimeError: expected target dtype to be Long or Byte, but got Int
probs = torch.tensor([[0.9, 0.05, 0.05]] * 4)  # a float target of the logits' shape: probabilities
print(raised(lambda: F.cross_entropy(logits, probs)))  # ✓ ce-probs
#> no error
by_hand = -(probs * logits.log_softmax(dim=1)).sum(dim=1).mean()  # read as class probabilities
assert torch.allclose(F.cross_entropy(logits, probs), by_hand)  # ✓ ce-probs
# --8<-- [end:ce-target]

# --8<-- [start:ce-target-fix]
loss = F.cross_entropy(logits, labels.long())  # class indices as int64
assert torch.equal(loss, F.cross_entropy(logits, torch.tensor([0, 2, 1, 2])))  # ✓ ce-fix
assert torch.equal(loss, F.cross_entropy(logits, labels.to(torch.uint8)))  # uint8 is accepted ✓ ce-byte
# --8<-- [end:ce-target-fix]

# --8<-- [start:bce-logits-target]
scores = torch.tensor([0.3, -1.2, 2.0, 0.1])  # one logit per sample
targets = torch.tensor([1, 0, 1, 1])  # 0/1 labels: int64
print(raised(lambda: F.binary_cross_entropy_with_logits(scores, targets)))  # ✓ bcel-long
#> RuntimeError: result type Float can't be cast to the desired output type Long
assert F.binary_cross_entropy_with_logits(scores, targets.double()).dtype == torch.float64  # the target's dtype ✓ bcel-long
assert F.binary_cross_entropy_with_logits(scores.double(), targets.float()).dtype == torch.float32  # not promoted ✓ bcel-long
print(raised(lambda: nn.BCEWithLogitsLoss()(scores, targets.int())))  # the module, int32 ✓ bcel-int
#> RuntimeError: result type Float can't be cast to the desired output type Int
# --8<-- [end:bce-logits-target]

# --8<-- [start:bce-logits-fix]
loss = F.binary_cross_entropy_with_logits(scores, targets.float())  # the target in the input's dtype
by_hand = -(targets * F.logsigmoid(scores) + (1 - targets) * F.logsigmoid(-scores)).mean()
assert loss.dtype == torch.float32 and torch.allclose(loss, by_hand)  # ✓ bcel-fix
# --8<-- [end:bce-logits-fix]

# --8<-- [start:bce-target]
p = torch.sigmoid(scores)  # probabilities for binary_cross_entropy
print(raised(lambda: F.binary_cross_entropy(p, targets)))  # ✓ bce-long
#> RuntimeError: Found dtype Long but expected Float
print(raised(lambda: F.binary_cross_entropy(p, targets.double())))  # any other dtype than the input's ✓ bce-double
#> RuntimeError: Found dtype Double but expected Float
print(raised(lambda: F.mse_loss(p, targets)), raised(lambda: F.l1_loss(p, targets)))  # ✓ mse-long
#> no error no error
assert F.mse_loss(p, targets).dtype == F.l1_loss(p, targets).dtype == torch.float32  # the input's dtype ✓ mse-float


def backward_through(loss_fn) -> None:
    probabilities = torch.sigmoid(scores.clone().requires_grad_())  # a fresh graph each call
    loss_fn(probabilities, targets).backward()


print(raised(lambda: backward_through(F.mse_loss)), raised(lambda: backward_through(F.l1_loss)))  # ✓ mse-backward
#> no error no error
# --8<-- [end:bce-target]

# --8<-- [start:bce-fix]
loss = F.binary_cross_entropy(p, targets.to(p.dtype))  # float32 0./1. targets
assert torch.allclose(loss, F.binary_cross_entropy_with_logits(scores, targets.float()))  # ✓ bce-fix
# --8<-- [end:bce-fix]

# --8<-- [start:target-bounds]
logits = torch.randn(4, 3)  # 3 classes: valid indices are 0, 1, 2
labels = torch.tensor([1, 3, 2, 1])  # labels numbered 1..3
print(raised(lambda: F.cross_entropy(logits, labels)))  # ✓ out-of-bounds
#> IndexError: Target 3 is out of bounds.
print(raised(lambda: F.cross_entropy(logits, torch.tensor([0, -1, 2, 1]))))  # -1 as "no label" ✓ negative
#> IndexError: Target -1 is out of bounds.
print(raised(lambda: F.cross_entropy(logits, torch.tensor([0, -100, 2, 1]))))  # the default ignore_index ✓ ignored
#> no error
# --8<-- [end:target-bounds]

# --8<-- [start:target-bounds-fix]
assert int(labels.min()) == 1 and int(labels.max()) == logits.shape[1]  # the labels are 1..C
loss = F.cross_entropy(logits, labels - 1)  # shift them to 0..C-1 ...
picked = -logits.log_softmax(dim=1)[torch.arange(4), [0, 2, 1, 0]].mean()  # label 1 is class 0, ...
assert torch.allclose(loss, picked)  # ✓ shift-fix
wider = torch.randn(4, 4)  # ... or give the model one output per label value: C = max + 1
picked = -wider.log_softmax(dim=1)[torch.arange(4), [1, 3, 2, 1]].mean()  # label 3 is class 3
assert torch.allclose(F.cross_entropy(wider, labels), picked)  # ✓ wider-fix
padded = torch.tensor([0, -1, 2, 1])
masked = F.cross_entropy(logits, padded, ignore_index=-1)  # -1 means "no label": say so
assert torch.allclose(masked, F.cross_entropy(logits[[0, 2, 3]], padded[[0, 2, 3]]))  # ✓ ignore-fix
# --8<-- [end:target-bounds-fix]

# --8<-- [start:meta]
with torch.device("meta"):  # shapes only, no memory: how large models are built before loading weights
    big = nn.Linear(3, 2)
print(big.weight.device, big.weight.shape)  # ✓ meta-made
#> meta torch.Size([2, 3])
print(raised(lambda: big.to("cpu")))  # ✓ meta-to
#> NotImplementedError: Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta to a different device.
print(raised(lambda: big(torch.ones(4, 3))))  # the meta module on a CPU input ✓ meta-cpu-input
#> RuntimeError: Tensor on device meta is not on the expected device cpu!
# --8<-- [end:meta]

# --8<-- [start:meta-fix]
checkpoint = nn.Linear(3, 2).state_dict()  # trained weights, on the CPU
big.load_state_dict(checkpoint, assign=True)  # assign: the checkpoint's tensors become the parameters
assert big.weight.device.type == "cpu" and torch.equal(big.weight, checkpoint["weight"])  # ✓ meta-assign
assert big.weight.data_ptr() == checkpoint["weight"].data_ptr()  # the same memory, not a copy ✓ meta-assign
x = torch.randn(4, 3)
assert torch.allclose(big(x), x @ checkpoint["weight"].T + checkpoint["bias"])  # ✓ meta-runs
# --8<-- [end:meta-fix]
