"""Indexing: basic slicing (views) vs advanced indexing (copies), boolean masks, index_select,
gather with its rule, scatter_ / scatter_add_ / one-hot, take_along_dim.

Page: docs/tensors/indexing.md
"""

# --8<-- [start:setup]
import warnings

import torch
from torch.nn import functional as F

x = torch.arange(12.0).reshape(3, 4)


def shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors are views of the same storage."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# --8<-- [end:setup]

# --8<-- [start:views-copies]
print(x)
#> tensor([[ 0.,  1.,  2.,  3.],
#>         [ 4.,  5.,  6.,  7.],
#>         [ 8.,  9., 10., 11.]])
basic = {"x[0]": x[0], "x[1:, ::2]": x[1:, ::2], "x[:, 1]": x[:, 1], "x[None, ..., -1]": x[None, ..., -1]}
advanced = {"x[[0, 2]]": x[[0, 2]], "x[:, [0, 2]]": x[:, [0, 2]], "x[x > 5]": x[x > 5], "x[torch.tensor([0, 2])]": x[torch.tensor([0, 2])], "x[torch.tensor([[0], [2]])]": x[torch.tensor([[0], [2]])]}
print({k: shares_memory(v, x) for k, v in basic.items()})  # integers, slices, None, ...: views ✓ basic-views
#> {'x[0]': True, 'x[1:, ::2]': True, 'x[:, 1]': True, 'x[None, ..., -1]': True}
made_anew = (torch.empty(0), torch.zeros(0), torch.tensor([]), torch.arange(0), x[x > 100])
assert all(t.untyped_storage().data_ptr() == 0 for t in made_anew) and shares_memory(torch.empty(0), torch.zeros(0))  # ✓ empty-address
top_row = x.sum(dim=1).argmax()  # a 0-dimensional integer tensor, as argmax() returns
print(top_row.dim(), shares_memory(x[top_row], x), shares_memory(x[top_row.unsqueeze(0)], x))  # like x[2]: a view ✓ zero-dim-view
#> 0 True False
z = x.clone()
z[z.sum(dim=1).argmax()].zero_()  # writing into it writes into z: its row 2
assert z[2].eq(0).all() and torch.equal(z[:2], x[:2])  # ✓ zero-dim-view
dtypes = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool)
print({str(d)[6:]: (tuple(x[torch.tensor(2, dtype=d)].shape), shares_memory(x[torch.tensor(2, dtype=d)], x)) for d in dtypes})  # uint8, bool: a mask ✓ zero-dim-dtypes
#> {'int8': ((4,), True), 'int16': ((4,), True), 'int32': ((4,), True), 'int64': ((4,), True), 'uint8': ((1, 3, 4), False), 'bool': ((1, 3, 4), False)}
print({k: shares_memory(v, x) for k, v in advanced.items()})  # a list, a tensor or a mask: copies ✓ advanced-copies
#> {'x[[0, 2]]': False, 'x[:, [0, 2]]': False, 'x[x > 5]': False, 'x[torch.tensor([0, 2])]': False, 'x[torch.tensor([[0], [2]])]': False}

y = x.clone()
y[1:, ::2].zero_()  # writing into a view writes into y ...
rows = y[[0, 2]]
rows.zero_()  # ... writing into a copy does not
print(y)  # ✓ write-through
#> tensor([[ 0.,  1.,  2.,  3.],
#>         [ 0.,  5.,  0.,  7.],
#>         [ 0.,  9.,  0., 11.]])
expected = y.clone().index_put_((torch.tensor([0, 2]),), torch.tensor(-1.0))
y[[0, 2]] = -1.0  # but ASSIGNING through advanced indexing writes in place (index_put_)
assert torch.equal(y, expected)  # ✓ index-put
print(y)  # ✓ setitem-writes
#> tensor([[-1., -1., -1., -1.],
#>         [ 0.,  5.,  0.,  7.],
#>         [-1., -1., -1., -1.]])
# --8<-- [end:views-copies]

# --8<-- [start:masks]
mask = x > 5
print(mask.dtype, x[mask])  # a bool mask of x's shape selects elements, into a 1-D copy ✓ mask-select
#> torch.bool tensor([ 6.,  7.,  8.,  9., 10., 11.])
row_mask = torch.tensor([True, False, True])
print(x[row_mask].shape)  # a mask over the first dimension selects rows ✓ mask-rows
#> torch.Size([2, 4])
y = x.clone()
y[mask] = 0.0  # assigning through a mask: in place
print(torch.equal(y, x.masked_fill(mask, 0.0)))  # the same as masked_fill ✓ mask-assign
#> True

print((~mask).sum().item(), mask.logical_not().sum().item())  # invert a bool mask with ~ or logical_not ✓ invert
#> 6 6
try:
    1 - mask  # the old uint8-mask idiom
except RuntimeError as err:  # NotImplementedError (a RuntimeError) in torch 2.14 and later
    print(type(err).__name__, str(err).split(". ")[0])  # ✓ bool-minus
    #> NotImplementedError Subtraction, the `-` operator, with a bool tensor is not supported
old_mask = mask.to(torch.uint8)  # a uint8 mask, as old code made them
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(torch.equal(x[old_mask], x[mask]))  # still selects, with a warning ✓ uint8-index
    #> True
print(caught[0].category.__name__, str(caught[0].message).split(" (")[0])  # ✓ uint8-warning
#> UserWarning indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.
try:
    x.masked_fill(old_mask, 0.0)
except RuntimeError as err:
    print(err)  # masked_fill refuses it ✓ uint8-masked-fill
    #> masked_fill_ only supports boolean masks, but got mask with dtype unsigned char
try:
    x[torch.tensor([True, False])]  # a mask must match the dimensions it indexes
except IndexError as err:
    print(err)  # ✓ mask-shape
    #> The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0
# --8<-- [end:masks]

# --8<-- [start:index-select]
index = torch.tensor([2, 0, 2])
picked = x.index_select(0, index)  # rows 2, 0, 2: repeats allowed, in the index's order
print(picked)  # ✓ index-select
#> tensor([[ 8.,  9., 10., 11.],
#>         [ 0.,  1.,  2.,  3.],
#>         [ 8.,  9., 10., 11.]])
print(torch.equal(picked, x[index]), shares_memory(picked, x))  # the same as x[index], a copy ✓ index-select-same
#> True False
try:
    x.index_select(0, torch.tensor([2.0, 0.0]))
except RuntimeError as err:
    print(err)  # ✓ index-select-dtype
    #> index_select(): Expected dtype int32 or int64 for index
# --8<-- [end:index-select]

# --8<-- [start:gather]
inp = torch.tensor([[1, 2, 3], [4, 5, 6]])
index = torch.tensor([[2, 0], [1, 1]])
out = inp.gather(1, index)  # dim=1: in row i, take the columns that index[i] lists
print(out)  # ✓ gather-example
#> tensor([[3, 1],
#>         [5, 5]])
rule_dim1 = [[inp[i][index[i][j]].item() for j in range(2)] for i in range(2)]  # out[i][j] = inp[i][index[i][j]]
print(out.tolist() == rule_dim1, out.shape == index.shape)  # ✓ gather-rule
#> True True

index0 = torch.tensor([[1, 0, 1]])
out0 = inp.gather(0, index0)  # dim=0: out[i][j] = inp[index[i][j]][j]
print(out0, out0.tolist() == [[inp[index0[0][j]][j].item() for j in range(3)]])  # ✓ gather-dim0
#> tensor([[4, 2, 6]]) True
# --8<-- [end:gather]

# --8<-- [start:gather-use]
torch.manual_seed(0)
logits = torch.randn(4, 3)  # 4 samples, 3 classes
target = torch.tensor([2, 0, 1, 2])
picked = logits.gather(1, target.unsqueeze(1)).squeeze(1)  # each sample's score for its own class
print(torch.equal(picked, logits[torch.arange(4), target]))  # the same, with two index tensors ✓ gather-pick
#> True
nll = -F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).mean()
print(torch.allclose(nll, F.cross_entropy(logits, target)))  # cross-entropy, written with gather ✓ gather-ce
#> True

for dtype in (torch.int32, torch.float32):  # indices of other dtypes
    try:
        logits.gather(1, target.unsqueeze(1).to(dtype))
        print(dtype, "accepted")  # ✓ gather-int32
        #> torch.int32 accepted
    except RuntimeError as err:
        print(dtype, err)  # "int64" only in torch 2.4 to 2.6 ✓ gather-dtype
        #> torch.float32 gather(): Expected dtype int32/int64 for index
index = target.unsqueeze(1).float().long()  # .long(): int64, which every version takes
print(torch.equal(logits.gather(1, index).squeeze(1), picked))  # ✓ gather-long
#> True
for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.float16, torch.float64):
    index = target.unsqueeze(1).to(dtype).long()
    assert index.dtype == torch.int64 and torch.equal(logits.gather(1, index).squeeze(1), picked)  # ✓ gather-long
try:
    logits.gather(1, target)  # an index with one dimension fewer than the input
except RuntimeError as err:
    print(err)  # ✓ gather-ndim
    #> Index tensor must have the same number of dimensions as input tensor
# --8<-- [end:gather-use]

# --8<-- [start:scatter]
labels = torch.tensor([2, 0, 1])
one_hot = torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1.0)  # dim=1: self[i][index[i][j]] = src
print(one_hot)  # ✓ one-hot
#> tensor([[0., 0., 1., 0.],
#>         [1., 0., 0., 0.],
#>         [0., 1., 0., 0.]])
print(torch.equal(one_hot, F.one_hot(labels, num_classes=4).float()))  # ✓ one-hot-same
#> True

src = torch.tensor([[1.0, 2.0, 3.0]])
print(torch.zeros(1, 3).scatter_add_(1, torch.tensor([[0, 2, 0]]), src))  # repeated indices add up ✓ scatter-add
#> tensor([[4., 0., 2.]])

try:
    torch.zeros(3).scatter_(1, labels.view(-1, 1), 1.0)  # the target made 1-D by mistake
except IndexError as err:
    print(err)  # ✓ scatter-dim
    #> Dimension out of range (expected to be in range of [-1, 0], but got 1)
# --8<-- [end:scatter]

# --8<-- [start:take-along-dim]
scores = torch.tensor([[0.1, 0.9, 0.5], [0.7, 0.2, 0.4]])
order = scores.argsort(dim=1, descending=True)
print(torch.take_along_dim(scores, order, dim=1))  # sorted rows, from argsort's indices ✓ take-sorted
#> tensor([[0.9000, 0.5000, 0.1000],
#>         [0.7000, 0.4000, 0.2000]])
print(torch.equal(torch.take_along_dim(scores, order, dim=1), scores.gather(1, order)))  # gather, same here ✓ take-gather
#> True
best = scores.argmax(dim=1, keepdim=True)
print(torch.take_along_dim(scores, best, dim=1).squeeze(1))  # the maximum of each row ✓ take-max
#> tensor([0.9000, 0.7000])
values, indices = scores.topk(2, dim=1)
print(torch.equal(torch.take_along_dim(scores, indices, dim=1), values))  # topk's indices give its values ✓ take-topk
#> True
for found in (order, best, indices):  # argsort's, argmax's and topk's indices: gather takes the same values
    assert torch.equal(torch.take_along_dim(scores, found, dim=1), scores.gather(1, found))  # ✓ take-gather
print(torch.take_along_dim(scores, torch.tensor([4])))  # without dim: indices into the flattened tensor ✓ take-flat
#> tensor([0.2000])
# --8<-- [end:take-along-dim]
