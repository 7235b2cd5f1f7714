"""Tensor and indexing errors: a tensor used as a Python bool or number, indices, NumPy arrays, deprecated calls.

Page: docs/errors/tensor_errors.md
"""

# --8<-- [start:setup]
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch import nn


def raised(call) -> str:
    """What `call()` raises, written `Type: message` ("no error" when it returns)."""
    try:
        call()
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


def warned(call) -> str:
    """The first warning `call()` gives, as Python prints it ("no warning" when there is none)."""
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # some warnings come once per process: show them every time
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
    finally:
        torch.set_warn_always(always)
    if not caught:
        return "no warning"
    first = caught[0]
    return f"{first.category.__name__}: {str(first.message).split(' (Triggered internally')[0]}"


torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:bool]
scores = torch.tensor([0.3, 0.8, 0.6])  # one score per sample
print(raised(lambda: "keep" if scores > 0.5 else "drop"))  # `if` asks for ONE True or False ✓ bool-message
#> RuntimeError: Boolean value of Tensor with more than one value is ambiguous
print(raised(lambda: scores > 0.2 and scores < 0.9))  # `and`, `or`, `not` ask the same ✓ bool-and
#> RuntimeError: Boolean value of Tensor with more than one value is ambiguous
ambiguous = "RuntimeError: Boolean value of Tensor with more than one value is ambiguous"
assert raised(lambda: scores > 0.9 or scores < 0.1) == raised(lambda: not scores) == ambiguous  # ✓ bool-and
print(bool(torch.tensor([0.8]) > 0.5), bool(torch.tensor([]).sum() > 0))  # one value: no ambiguity ✓ bool-one
#> True False
# --8<-- [end:bool]

# --8<-- [start:bool-fix]
assert raised(lambda: "keep" if (scores > 0.5).any() else "drop") == "no error"  # ✓ bool-fix-any
assert bool((scores > 0.5).any()) and not bool((scores > 0.5).all())  # say which: any or all ✓ bool-fix-any
between = (scores > 0.2) & (scores < 0.7)  # elementwise `and`: the operator &, with brackets
assert between.tolist() == [True, False, True]  # ✓ bool-fix-and
outside = (scores < 0.5) | (scores > 0.7)  # elementwise `or`: the operator |
assert outside.tolist() == [True, True, False]  # ✓ bool-fix-and
kept = torch.where(scores > 0.5, scores, torch.zeros_like(scores))  # an `if` per element
assert kept.tolist() == [0.0, scores[1].item(), scores[2].item()]  # ✓ bool-fix-where
# --8<-- [end:bool-fix]

# --8<-- [start:scalar]
losses = torch.tensor([0.25, 0.5, 1.0])  # a loss per sample: reduction="none"
print(raised(lambda: float(losses)))  # ✓ scalar-message
#> ValueError: only one element tensors can be converted to Python scalars
print(raised(lambda: torch.tensor([losses, losses])))  # a list of tensors into torch.tensor ✓ scalar-list
#> ValueError: only one element tensors can be converted to Python scalars
assert raised(lambda: int(losses)) == raised(lambda: float(losses))  # int() the same ✓ scalar-message
assert raised(lambda: float(losses[:0])) == raised(lambda: float(losses))  # no value: refused as well ✓ scalar-one
assert float(losses[:1]) == 0.25 and int(losses[2:]) == 1 and torch.tensor([losses[:1], losses[2:]]).tolist() == [0.25, 1.0]  # one: fine ✓ scalar-one
print(raised(losses.item))  # .item() says it with the count ✓ scalar-item
#> RuntimeError: a Tensor with 3 elements cannot be converted to Scalar
# --8<-- [end:scalar]

# --8<-- [start:scalar-fix]
assert losses.mean().item() == 0.5833333134651184  # reduce first: one value, a Python float ✓ scalar-fix-mean
assert losses.tolist() == [0.25, 0.5, 1.0]  # or every value, as a list of floats ✓ scalar-fix-tolist
stacked = torch.stack([losses, losses])  # tensors into one tensor: stack, not torch.tensor
assert stacked.shape == (2, 3) and torch.equal(stacked[1], losses)  # ✓ scalar-fix-stack
# --8<-- [end:scalar-fix]

# --8<-- [start:zero-dim]
loss = F.mse_loss(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.5]))  # a mean: 0 dimensions
print(loss.dim(), loss.shape)  # ✓ zero-dim-shape
#> 0 torch.Size([])
print(raised(lambda: loss.data[0]))  # loss.data[0], as code written for torch 0.3 reads a loss ✓ zero-dim-message
#> IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number
# --8<-- [end:zero-dim]

# --8<-- [start:zero-dim-fix]
assert loss.item() == 0.25 and isinstance(loss.item(), float)  # ✓ zero-dim-fix
assert loss[()].item() == 0.25 and loss.reshape(1)[0].item() == 0.25  # indexing it takes no index ✓ zero-dim-fix-index
# --8<-- [end:zero-dim-fix]

# --8<-- [start:too-many]
labels = torch.tensor([2, 0, 1, 1])  # one class index per sample: 1 dimension
print(raised(lambda: labels[:, 0]))  # indexed as if it were (N, 1) ✓ too-many-message
#> IndexError: too many indices for tensor of dimension 1
boxes = torch.zeros(4, 5)  # 2 dimensions
print(raised(lambda: boxes[:, 0, 1]))  # ✓ too-many-two
#> IndexError: too many indices for tensor of dimension 2
# --8<-- [end:too-many]

# --8<-- [start:too-many-fix]
assert labels.dim() == 1 and labels.shape == (4,)  # look at the shape before indexing ✓ too-many-fix-shape
column = labels.unsqueeze(1)  # if the code wants (N, 1), make (N, 1)
assert column.shape == (4, 1) and torch.equal(column[:, 0], labels)  # ✓ too-many-fix
# --8<-- [end:too-many-fix]

# --8<-- [start:dim-range]
logits = torch.tensor([0.1, 2.0, -1.0])  # the output for ONE sample, without its batch dimension
print(raised(lambda: logits.argmax(dim=1)))  # ✓ dim-range-message
#> IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)
print(raised(lambda: F.softmax(logits, dim=1)))  # the same for ops that pick a dimension ✓ dim-range-softmax
#> IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)
print(raised(lambda: torch.zeros(2, 3).sum(dim=2)))  # 2 dimensions: valid dims -2 to 1 ✓ dim-range-two
#> IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
assert raised(lambda: torch.tensor(2.0).argmax(dim=1)) == raised(lambda: logits.argmax(dim=1))  # 0 dimensions: -1 and 0 too ✓ dim-range-zero
assert [raised(lambda d=d: torch.tensor(2.0).argmax(dim=d)) for d in (-1, 0)] == ["no error"] * 2  # ✓ dim-range-zero
assert raised(lambda: torch.cat([logits, logits], dim=1)) == raised(lambda: logits.argmax(dim=1))  # ✓ dim-range-softmax
print(raised(lambda: logits.unsqueeze(2)))  # unsqueeze and stack insert a dimension: -n - 1 to n ✓ dim-range-insert
#> IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)
assert raised(lambda: torch.stack([logits, logits], dim=2)) == raised(lambda: logits.unsqueeze(2))  # ✓ dim-range-insert
for n in range(1, 5):  # both rules, for 1 to 4 dimensions
    t = torch.zeros([2] * n)
    def accepted(op, t=t):  # the dims the op takes on t
        return [d for d in range(-9, 9) if raised(lambda d=d: op(t, d)) == "no error"]

    picks = accepted(lambda t, d: t.sum(dim=d))
    others = [lambda t, d: t.argmax(dim=d), lambda t, d: t.softmax(dim=d), lambda t, d: torch.cat([t, t], dim=d)]
    assert all(accepted(op) == picks for op in others)  # argmax, softmax and cat: the same ✓ dim-range-rule
    inserts, stacks = accepted(lambda t, d: t.unsqueeze(d)), accepted(lambda t, d: torch.stack([t, t], dim=d))
    assert picks == list(range(-n, n)) and inserts == stacks == list(range(-n - 1, n + 1))  # ✓ dim-range-rule
    assert f"range of [{-n}, {n - 1}], but got {n})" in raised(lambda t=t, n=n: t.sum(dim=n))  # ✓ dim-range-rule
# --8<-- [end:dim-range]

# --8<-- [start:dim-range-fix]
batch = logits.unsqueeze(0)  # give the sample its batch dimension: (1, 3)
assert batch.argmax(dim=1).tolist() == [1]  # ✓ dim-range-fix
assert logits.argmax(dim=-1).item() == 1  # or count from the end: the last dim, batched or not ✓ dim-range-fix-last
assert torch.equal(F.softmax(batch, dim=-1)[0], F.softmax(logits, dim=-1))  # ✓ dim-range-fix-last
# --8<-- [end:dim-range-fix]

# --8<-- [start:embedding]
embed = nn.Embedding(num_embeddings=10, embedding_dim=4)  # rows for token ids 0..9
tokens = torch.tensor([[3, 7, 10]])  # id 10: the vocabulary has 11 tokens, not 10
print(raised(lambda: embed(tokens)))  # ✓ embedding-message
#> IndexError: index out of range in self
print(raised(lambda: embed(torch.tensor([[3, -1]]))))  # a negative id, e.g. -1 as padding ✓ embedding-negative
#> IndexError: index out of range in self
print(raised(lambda: torch.zeros(10, 4).index_select(0, torch.tensor([10]))))  # the op Embedding runs ✓ embedding-index-select
#> IndexError: index out of range in self
# --8<-- [end:embedding]

# --8<-- [start:embedding-fix]
vocabulary = int(tokens.max()) + 1  # ids run from 0 to max: max + 1 rows
embed = nn.Embedding(vocabulary, 4)
assert embed(tokens).shape == (1, 3, 4)  # ✓ embedding-fix
padded = nn.Embedding(vocabulary + 1, 4, padding_idx=vocabulary)  # a row of its own for padding
out = padded(torch.tensor([[3, vocabulary]]))
assert out[0, 1].abs().sum() == 0  # the padding row is zeros ✓ embedding-fix-padding
# --8<-- [end:embedding-fix]

# --8<-- [start:not-writable]
photo = Image.new("RGB", (4, 3), color=(10, 20, 30))
pixels = np.asarray(photo)  # a read-only view of the image's bytes
print(pixels.flags.writeable)  # ✓ not-writable-flag
#> False
print(warned(lambda: torch.from_numpy(pixels)))  # ✓ not-writable-message
#> UserWarning: The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it writable before converting it to a tensor. This type of warning will be suppressed for the rest of this program.


def count_warnings(conversions: int) -> int:
    """How many warnings that many conversions of the read-only array give."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(conversions):
            torch.from_numpy(pixels)
    return len(caught)


once = count_warnings(2)  # as torch gives it: once per program at most
torch.set_warn_always(True)  # what `warned` turns on
every_time = count_warnings(2)
torch.set_warn_always(False)
assert once <= 1 and every_time == 2  # ✓ warn-always
# --8<-- [end:not-writable]

# --8<-- [start:not-writable-fix]
copied = torch.from_numpy(np.array(photo))  # np.array copies: a writable array
assert warned(lambda: torch.from_numpy(np.array(photo))) == "no warning"  # ✓ not-writable-fix
copied[0, 0, 0] = 99  # writing to the tensor leaves the image alone
assert photo.getpixel((0, 0)) == (10, 20, 30) and copied[0, 0].tolist() == [99, 20, 30]  # ✓ not-writable-fix-own
own = torch.tensor(pixels)  # torch.tensor copies too: no warning, its own memory
assert warned(lambda: torch.tensor(pixels)) == "no warning" and own.data_ptr() != pixels.ctypes.data  # ✓ not-writable-fix-tensor
# --8<-- [end:not-writable-fix]

# --8<-- [start:negative-stride]
bgr = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)  # an image as OpenCV gives it: B, G, R
rgb = bgr[:, :, ::-1]  # reversed channels: a view that steps backwards
print(rgb.strides)  # ✓ negative-stride-strides
#> (6, 3, -1)
print(raised(lambda: torch.from_numpy(rgb)).rstrip())  # (the message ends with a space) ✓ negative-stride-message
#> ValueError: At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().)
# --8<-- [end:negative-stride]

# --8<-- [start:negative-stride-fix]
tensor = torch.from_numpy(rgb.copy())  # a copy has positive strides
assert tensor[0, 0].tolist() == [2, 1, 0]  # R, G, B ✓ negative-stride-fix
flipped = torch.from_numpy(bgr).flip(-1)  # or flip in torch, which copies
assert torch.equal(flipped, tensor)  # ✓ negative-stride-fix-flip
# --8<-- [end:negative-stride-fix]

# --8<-- [start:list-of-arrays]
frames = [np.full(3, i, dtype=np.float32) for i in range(4)]  # e.g. one array per sample
print(warned(lambda: torch.tensor(frames)))  # ✓ list-of-arrays-message
#> UserWarning: Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to a single numpy.ndarray with numpy.array() before converting to a tensor.
# --8<-- [end:list-of-arrays]

# --8<-- [start:list-of-arrays-fix]
joined = torch.from_numpy(np.stack(frames))  # one array first, then one tensor
assert warned(lambda: torch.from_numpy(np.stack(frames))) == "no warning"  # ✓ list-of-arrays-fix
assert joined.shape == (4, 3) and joined[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]  # ✓ list-of-arrays-fix
# --8<-- [end:list-of-arrays-fix]

# --8<-- [start:object-array]
sequences = [[1, 2, 3], [4, 5]]  # samples of different lengths
assert raised(lambda: np.array(sequences)).startswith("ValueError: setting an array element with a sequence")  # ✓ object-array-numpy
ragged = np.array([np.array(s) for s in sequences], dtype=object)  # NumPy holds them only as objects
print(ragged.dtype, raised(lambda: torch.from_numpy(ragged)))  # ✓ object-array-message
#> object TypeError: can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.
# --8<-- [end:object-array]

# --8<-- [start:object-array-fix]
padded = nn.utils.rnn.pad_sequence([torch.tensor(s) for s in sequences], batch_first=True)  # pad to the longest
assert padded.tolist() == [[1, 2, 3], [4, 5, 0]]  # ✓ object-array-fix
# --8<-- [end:object-array-fix]

# --8<-- [start:bool-minus]
mask = torch.tensor([3, 0, 5]) > 0  # e.g. "is padding"
assert mask.dtype == torch.bool and mask.tolist() == [True, False, True]  # a comparison gives bools ✓ bool-minus-comparison
print(raised(lambda: 1 - mask))  # ✓ bool-minus-message
#> NotImplementedError: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.
print(raised(lambda: -mask))  # ✓ bool-minus-negation
#> NotImplementedError: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.
# --8<-- [end:bool-minus]

# --8<-- [start:bool-minus-fix]
assert (~mask).tolist() == [False, True, False] and torch.equal(~mask, mask.logical_not())  # ✓ bool-minus-fix
weights = 1 - mask.float()  # as numbers: convert first
assert weights.tolist() == [0.0, 1.0, 0.0] and weights.dtype == torch.float32  # ✓ bool-minus-fix-float
# --8<-- [end:bool-minus-fix]

# --8<-- [start:uint8-mask]
values = torch.tensor([1.0, 2.0, 3.0])
old_mask = torch.tensor([1, 0, 1], dtype=torch.uint8)  # a mask as torch 1.1 made it: x > 0 gave uint8
print(warned(lambda: values[old_mask]))  # ✓ uint8-index-message
#> UserWarning: indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert values[old_mask].tolist() == [1.0, 3.0]  # it still works as a mask ✓ uint8-index-works
print(raised(lambda: values.masked_fill(old_mask, 0.0)))  # masked_fill refuses it outright ✓ uint8-masked-fill
#> RuntimeError: masked_fill_ only supports boolean masks, but got mask with dtype unsigned char
# --8<-- [end:uint8-mask]

# --8<-- [start:uint8-mask-fix]
assert values[old_mask.bool()].tolist() == [1.0, 3.0]  # ✓ uint8-fix
assert values.masked_fill(old_mask.bool(), 0.0).tolist() == [0.0, 2.0, 0.0]  # ✓ uint8-fix-masked-fill
assert (values > 1).dtype == torch.bool  # comparisons give bool masks ✓ uint8-fix-comparison
# --8<-- [end:uint8-mask-fix]

# --8<-- [start:meshgrid]
rows, cols = torch.arange(2), torch.arange(3)
print(warned(lambda: torch.meshgrid(rows, cols)))  # ✓ meshgrid-message
#> UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.
# --8<-- [end:meshgrid]

# --8<-- [start:meshgrid-fix]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    old_y, old_x = torch.meshgrid(rows, cols)  # what the call without indexing returned
ij_y, ij_x = torch.meshgrid(rows, cols, indexing="ij")  # the same grids, said explicitly
assert torch.equal(ij_y, old_y) and torch.equal(ij_x, old_x) and ij_y.shape == (2, 3)  # ✓ meshgrid-fix
xy_x, xy_y = torch.meshgrid(cols, rows, indexing="xy")  # NumPy's default: x first, shape (rows, cols)
assert torch.equal(xy_x, ij_x) and torch.equal(xy_y, ij_y)  # ✓ meshgrid-fix-xy
np_x, np_y = np.meshgrid(cols.numpy(), rows.numpy())  # NumPy's default indexing is "xy" ✓ meshgrid-fix-xy
assert np.array_equal(np_x, xy_x.numpy()) and np.array_equal(np_y, xy_y.numpy())
# --8<-- [end:meshgrid-fix]

# --8<-- [start:softmax-dim]
scores = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])  # (batch 1, 2 tokens, 2 classes)
print(warned(lambda: F.softmax(scores)))  # ✓ softmax-dim-message
#> UserWarning: Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an argument.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    implicit = F.softmax(scores)
    assert torch.equal(F.softmax(scores[0]), F.softmax(scores[0], dim=1))  # 2 dimensions: dim 1 ✓ softmax-dim-two
print(implicit[0])  # for 3 dimensions it picked dim 0: the batch of one, so every value is 1 ✓ softmax-dim-zero
#> tensor([[1., 1.],
#>         [1., 1.]])
# --8<-- [end:softmax-dim]

# --8<-- [start:softmax-dim-fix]
probabilities = F.softmax(scores, dim=-1)  # over the classes, the last dimension
assert torch.allclose(probabilities.sum(dim=-1), torch.ones(1, 2))  # each row sums to 1 ✓ softmax-dim-fix
assert torch.equal(nn.Softmax(dim=-1)(scores), probabilities)  # the module takes dim too ✓ softmax-dim-fix
# --8<-- [end:softmax-dim-fix]

# --8<-- [start:copy-construct]
weights = torch.tensor([0.5, 1.5], requires_grad=True)
print(warned(lambda: torch.tensor(weights)))  # ✓ copy-construct-message
#> UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).
# --8<-- [end:copy-construct]

# --8<-- [start:copy-construct-fix]
copy = weights.detach().clone()  # new memory, no history
assert copy.data_ptr() != weights.data_ptr() and not copy.requires_grad  # ✓ copy-construct-fix
assert torch.equal(copy, weights.detach())  # ✓ copy-construct-fix
copy[0] = 9.0
assert weights[0].item() == 0.5  # the original is untouched ✓ copy-construct-fix
same = torch.as_tensor(weights.detach())  # no copy when none is needed: the same memory
assert same.data_ptr() == weights.data_ptr()  # ✓ copy-construct-fix-as-tensor
# --8<-- [end:copy-construct-fix]
