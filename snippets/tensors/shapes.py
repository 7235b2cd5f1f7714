"""Shape operations: unsqueeze, squeeze, expand, repeat, t, transpose, permute, flatten,
cat, stack, split, chunk, size.

Page: docs/tensors/shapes.md
Shapes are the point here, so the notes' own sizes are used; torch.empty allocates
without writing values, and no uninitialised value is ever printed.
"""

# --8<-- [start:setup]
import torch

# --8<-- [end:setup]

# --8<-- [start:unsqueeze]
x = torch.empty(1, 32, 32)
y = x.unsqueeze(1).unsqueeze(-1)  # insert size-1 dims at position 1 and at the end
print(y.shape)  # ✓ unsqueeze-shape
#> torch.Size([1, 1, 32, 32, 1])
y = y.squeeze()  # removes EVERY size-1 dim, the leading 1 included
print(y.shape)  # ✓ squeeze-all
#> torch.Size([32, 32])
print(x.unsqueeze(1).unsqueeze(-1).squeeze(1).shape)  # squeeze(dim) removes only that one ✓ squeeze-dim
#> torch.Size([1, 32, 32, 1])
for dims in [(1,), (1, 3, 1), (2, 1, 1, 4), (1, 1, 5, 1)]:  # every size-1 dim goes, wherever it stands
    assert torch.empty(dims).squeeze().shape == tuple(d for d in dims if d != 1), dims  # ✓ squeeze-every
# --8<-- [end:unsqueeze]

# --8<-- [start:outcome]
def outcome(method, *sizes):
    """The shape `method(*sizes)` returns, or the error it raises, as one line."""
    try:
        return method(*sizes).shape
    except RuntimeError as err:
        return f"RuntimeError: {err}"


# --8<-- [end:outcome]

# --8<-- [start:expand-3d]
x = torch.empty(1, 32, 32)  # exactly as in the notes: 3 dims
assert torch.Tensor(1, 32, 32).dim() == 3  # the notes' torch.Tensor(1,32,32): 3-D ✓ notes-x-3d
for sizes in [(4, 32, 32, 4), (4, 33, 32, 4), (4, -1, -1, -1)]:
    print(f"expand{sizes} ->", outcome(x.expand, *sizes))  # ✓ expand-3d
    #> expand(4, 32, 32, 4) -> RuntimeError: The expanded size of the tensor (4) must match the existing size (32) at non-singleton dimension 3.  Target sizes: [4, 32, 32, 4].  Tensor sizes: [1, 32, 32]
    #> expand(4, 33, 32, 4) -> RuntimeError: The expanded size of the tensor (4) must match the existing size (32) at non-singleton dimension 3.  Target sizes: [4, 33, 32, 4].  Tensor sizes: [1, 32, 32]
    #> expand(4, -1, -1, -1) -> torch.Size([4, 1, 32, 32])
for sizes in [(4, 32, 1, 1), (4, 1, 1, 1)]:
    print(f"repeat{sizes} ->", outcome(x.repeat, *sizes))  # ✓ repeat-3d
    #> repeat(4, 32, 1, 1) -> torch.Size([4, 32, 32, 32])
    #> repeat(4, 1, 1, 1) -> torch.Size([4, 1, 32, 32])
# --8<-- [end:expand-3d]

# --8<-- [start:expand-4d]
x = torch.empty(1, 32, 32, 1)  # the shape the notes' comments assume
for sizes in [(4, 32, 32, 4), (4, 33, 32, 4), (4, -1, -1, -1)]:
    print(f"expand{sizes} ->", outcome(x.expand, *sizes))  # ✓ expand-4d
    #> expand(4, 32, 32, 4) -> torch.Size([4, 32, 32, 4])
    #> expand(4, 33, 32, 4) -> RuntimeError: The expanded size of the tensor (33) must match the existing size (32) at non-singleton dimension 1.  Target sizes: [4, 33, 32, 4].  Tensor sizes: [1, 32, 32, 1]
    #> expand(4, -1, -1, -1) -> torch.Size([4, 32, 32, 1])
for sizes in [(4, 32, 1, 1), (4, 1, 1, 1), (4, -1, 1, 1)]:
    print(f"repeat{sizes} ->", outcome(x.repeat, *sizes))  # ✓ repeat-4d
    #> repeat(4, 32, 1, 1) -> torch.Size([4, 1024, 32, 1])
    #> repeat(4, 1, 1, 1) -> torch.Size([4, 32, 32, 1])
    #> repeat(4, -1, 1, 1) -> RuntimeError: Trying to create tensor with negative dimension -32: [4, -32, 32, 1]
x3 = torch.empty(32, 32, 1)  # no leading 1: expand and repeat treat it as 1x32x32x1, so the comments hold too
shapes3 = [x3.expand(4, 32, 32, 4).shape, x3.expand(4, -1, -1, -1).shape, x3.repeat(4, 32, 1, 1).shape]
assert shapes3 == [(4, 32, 32, 4), (4, 32, 32, 1), (4, 1024, 32, 1)] and x3.repeat(4, 1, 1, 1).shape == (4, 32, 32, 1)  # ✓ notes-x-32-32-1
assert isinstance(outcome(x3.expand, 4, 33, 32, 4), str) and isinstance(outcome(x3.repeat, 4, -1, 1, 1), str)  # the errors ✓ notes-x-errors
for target in (1, 2, 31, 33, 64):  # a dim of size 32 (not 1) becomes nothing but 32: every try raises
    assert isinstance(outcome(x.expand, 4, target, 32, 4), str) and isinstance(outcome(x.expand, 4, 32, target, 4), str)  # ✓ expand-not-1
# --8<-- [end:expand-4d]

# --8<-- [start:expand-memory]
x = torch.arange(3.0).reshape(1, 3)
e = x.expand(4, 3)  # a view: stride 0 along the new dim, no new memory
r = x.repeat(4, 1)  # a real copy: 4 times the memory
print(e.stride(), e.untyped_storage().nbytes(), e.data_ptr() == x.data_ptr())  # ✓ expand-view
#> (0, 1) 12 True
print(r.stride(), r.untyped_storage().nbytes(), r.data_ptr() == x.data_ptr())  # ✓ repeat-copies
#> (3, 1) 48 False
x[0, 0] = 9  # every row of the expanded view sees the change
print(e[:, 0], r[:, 0])  # ✓ expand-sees-write
#> tensor([9., 9., 9., 9.]) tensor([0., 0., 0., 0.])
print(outcome(e.add_, 1))  # some in-place ops refuse to write into an expanded view ✓ expand-refused
#> RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.
print(outcome(e.mul_, 2) == outcome(e.copy_, torch.ones(4, 3)) == outcome(e.add_, 1))  # mul_, copy_ too ✓ expand-refused-too
#> True
e[0, 0] = 5  # ... but assigning a number to one element is NOT refused: it writes through to x
print(x, e[:, 0])  # ✓ expand-write
#> tensor([[5., 1., 2.]]) tensor([5., 5., 5., 5.])
e.fill_(7)  # so do fill_ ...
print(x)  # ✓ expand-fill
#> tensor([[7., 7., 7.]])
e.zero_()  # ... and zero_, silently
print(x)  # ✓ expand-zero
#> tensor([[0., 0., 0.]])
assert e.clone().add_(1).tolist() == [[1.0] * 3] * 4  # a clone() owns its memory: add_ is accepted ✓ clone-writes
# --8<-- [end:expand-memory]

# --8<-- [start:transpose]
x = torch.arange(12).reshape(3, 4)
print(x.t().shape, x.t().is_contiguous())  # t(): 2-D transpose, a view ✓ not-contiguous
#> torch.Size([4, 3]) False
assert x.t().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()  # and a view of x ✓ t-view
x = torch.empty(64, 3, 224, 224)
print(x.transpose(0, 1).shape, x.transpose(0, 1).is_contiguous())  # swap two dims, a view ✓ transpose-shape
#> torch.Size([3, 64, 224, 224]) False
print(x.permute(0, 2, 3, 1).shape, x.permute(0, 2, 3, 1).is_contiguous())  # NCHW -> NHWC ✓ permute-shape
#> torch.Size([64, 224, 224, 3]) False
for view in (x.transpose(0, 1), x.permute(0, 2, 3, 1), x[0, 0].t()):  # all three: views of x ✓ transpose-views
    assert view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
try:
    x.t()
except RuntimeError as err:
    print(err)  # ✓ t-2d
    #> t() expects a tensor with <= 2 dimensions, but self is 4D
for n in range(1, 7):  # transpose and permute take any number of dims; t() at most 2 ✓ any-dims
    z = torch.empty([2] * n)
    assert z.transpose(0, -1).dim() == z.permute(*reversed(range(n))).dim() == n
    assert isinstance(outcome(z.t), torch.Size) == (n <= 2), n
# --8<-- [end:transpose]

# --8<-- [start:flatten]
try:
    x.flatten(startdim=2)
except TypeError as err:
    print(err)  # ✓ flatten-keyword
    #> flatten() got an unexpected keyword argument 'startdim'
print(x.flatten(start_dim=2).shape, x.flatten(2).shape)  # 224*224 = 50176 ✓ flatten-shape
#> torch.Size([64, 3, 50176]) torch.Size([64, 3, 50176])
assert x.flatten(start_dim=1, end_dim=2).shape == (64, 3 * 224, 224)  # end_dim: the last one flattened ✓ flatten-end-dim
print(x.flatten(1).shape, x.flatten().shape)  # default start_dim=0: everything
#> torch.Size([64, 150528]) torch.Size([9633792])
# --8<-- [end:flatten]

# --8<-- [start:cat-stack]
a = torch.empty(64, 16, 56, 56)
b = torch.empty(64, 16, 56, 56)
print(torch.cat([a, b], dim=1).shape)  # joins along an existing dim ✓ cat-shape
#> torch.Size([64, 32, 56, 56])
print(torch.stack([a, b], dim=1).shape)  # adds a new dim ✓ stack-shape
#> torch.Size([64, 2, 16, 56, 56])
print(torch.cat([a, b[:, :3]], dim=1).shape)  # cat: other dims must match, this one may differ ✓ cat-differ
#> torch.Size([64, 19, 56, 56])
try:
    torch.cat([a, b[:, :, :3]], dim=1)  # ... but every other dim must match
except RuntimeError as err:
    print(err)  # ✓ cat-error
    #> Sizes of tensors must match except in dimension 1. Expected size 56 but got size 3 for tensor number 1 in the list.
for other in (b[:3], b[:, :, :3], b[:, :, :, :3]):  # a mismatch in dim 0, 2 or 3: each one refused
    assert str(outcome(torch.cat, [a, other], 1)).startswith("RuntimeError: Sizes of tensors must match"), other.shape  # ✓ cat-every-other
try:
    torch.stack([a, b[:, :3]], dim=1)  # stack: shapes must be identical
except RuntimeError as err:
    print(err)  # ✓ stack-error
    #> stack expects each tensor to be equal size, but got [64, 16, 56, 56] at entry 0 and [64, 3, 56, 56] at entry 1
for mismatched in (b[:3], b[:, :, :3], b[:, :, :, :3]):  # stack: a mismatch in dim 0, 2 or 3 is refused too
    assert str(outcome(torch.stack, [a, mismatched], 1)).startswith("RuntimeError: stack expects each tensor to be equal size"), mismatched.shape  # ✓ stack-every-dim
# --8<-- [end:cat-stack]

# --8<-- [start:split-chunk]
parts = a.split(5, dim=1)  # pieces of size 5 along dim 1; the last gets the rest
print(len(parts), [p.shape[1] for p in parts])  # ✓ split-sizes
#> 4 [5, 5, 5, 1]
parts = a.chunk(5, dim=1)  # at most 5 pieces, each of size ceil(16/5) = 4
print(len(parts), [p.shape[1] for p in parts])  # ✓ chunk-sizes
#> 4 [4, 4, 4, 4]
print([p.shape[1] for p in a.split([10, 6], dim=1)])  # split also takes explicit sizes
#> [10, 6]
print([p.shape[1] for p in torch.empty(2, 6).chunk(4, dim=1)])  # 6 in 4 chunks: ceil = 2, 3 chunks ✓ chunk-six
#> [2, 2, 2]
print([p.shape[1] for p in torch.empty(2, 17).chunk(5, dim=1)])  # 17 in 5 chunks: the last gets the rest ✓ chunk-seventeen
#> [4, 4, 4, 4, 1]
for length in range(1, 21):  # chunk(n) is split(ceil(length / n)), for every length and count
    for n in range(1, 9):
        row = torch.empty(1, length)
        by_chunk = [p.shape[1] for p in row.chunk(n, dim=1)]
        assert by_chunk == [p.shape[1] for p in row.split(-(-length // n), dim=1)], (length, n)  # ✓ chunk-is-split
        piece = -(-length // n)  # ceil(length / n): every piece but the last has it, the last gets the rest
        assert set(by_chunk[:-1]) <= {piece} and 0 < by_chunk[-1] <= piece and sum(by_chunk) == length  # ✓ chunk-pieces
print(parts[0].data_ptr() == a.data_ptr())  # pieces are views into a ✓ chunk-view
#> True
print(a.split(5, dim=1)[1].untyped_storage().data_ptr() == a.untyped_storage().data_ptr())  # ✓ split-view
#> True
pieces = a.chunk(5, dim=1) + a.split(5, dim=1) + a.split([10, 6], dim=1)
assert all(p.untyped_storage().data_ptr() == a.untyped_storage().data_ptr() for p in pieces)  # every one ✓ pieces-views
# --8<-- [end:split-chunk]

# --8<-- [start:size]
data = torch.empty(32, 3, 224, 224)
print(data.size(0), data.size(-1), data.size(), data.shape == data.size())  # ✓ size
#> 32 224 torch.Size([32, 3, 224, 224]) True
try:
    data.size(4)
except IndexError as err:
    print(type(err).__name__, err)  # ✓ size-error
    #> IndexError Dimension out of range (expected to be in range of [-4, 3], but got 4)
feat = torch.zeros(32, 512, 7, 7)  # the notes' "常用方法": features before the classifier
flat = feat.view(32, -1)  # keep the batch dim, flatten the rest: 512*7*7 = 25088
fc = torch.nn.Linear(512 * 7 * 7, 10)
print(flat.shape, fc(flat).shape, flat.view(-1).shape)  # ✓ view-batch
#> torch.Size([32, 25088]) torch.Size([32, 10]) torch.Size([802816])
last = torch.arange(2 * 512 * 7 * 7.0).reshape(2, 512, 7, 7)  # a last batch of 2 samples
batches = [len(b) for b in torch.utils.data.DataLoader(range(66), batch_size=32)]
assert batches == [32, 32, 2]  # 66 samples: the last batch is short ... ✓ last-batch-short
for n in range(1, 100):  # ... for every number of samples that is not a multiple of 32
    *full, final = [len(b) for b in torch.utils.data.DataLoader(range(n), batch_size=32)]
    assert set(full) <= {32} and final == (n % 32 or 32)  # ✓ last-batch-any
assert [len(b) for b in torch.utils.data.DataLoader(range(66), batch_size=32, drop_last=True)] == [32, 32]  # ✓ drop-last
print(last.view(32, -1).shape)  # no error, but 32 "rows" of 2 samples cut into pieces ✓ last-batch
#> torch.Size([32, 1568])
assert last.view(32, -1)[16:].equal(last[1].reshape(16, -1))  # rows 16..31: sample 1 in 16 pieces ✓ last-batch-rows
print(last.view(last.size(0), -1).shape, last.flatten(1).shape)  # read the batch size instead ✓ last-batch-fix
#> torch.Size([2, 25088]) torch.Size([2, 25088])
# --8<-- [end:size]
