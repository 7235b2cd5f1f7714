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
print(y.shape)
#> torch.Size([1, 1, 32, 32, 1])
y = y.squeeze()  # removes EVERY size-1 dim, the leading 1 included
print(y.shape)
#> torch.Size([32, 32])
print(x.unsqueeze(1).unsqueeze(-1).squeeze(1).shape)  # squeeze(dim) removes only that one
#> torch.Size([1, 32, 32, 1])
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
for sizes in [(4, 32, 32, 4), (4, 33, 32, 4), (4, -1, -1, -1)]:
    print(f"expand{sizes} ->", outcome(x.expand, *sizes))
    #> expand(4, 32, 32, 4) -> RuntimeError: The expanded size of the tensor (4) must match the existing size (32) at non-singleton dimension 3.  Target sizes: [4, 32, 32, 4].  Tensor sizes: [1, 32, 32]
    #> expand(4, 33, 32, 4) -> RuntimeError: The expanded size of the tensor (4) must match the existing size (32) at non-singleton dimension 3.  Target sizes: [4, 33, 32, 4].  Tensor sizes: [1, 32, 32]
    #> expand(4, -1, -1, -1) -> torch.Size([4, 1, 32, 32])
for sizes in [(4, 32, 1, 1), (4, 1, 1, 1)]:
    print(f"repeat{sizes} ->", outcome(x.repeat, *sizes))
    #> repeat(4, 32, 1, 1) -> torch.Size([4, 32, 32, 32])
    #> repeat(4, 1, 1, 1) -> torch.Size([4, 1, 32, 32])
# --8<-- [end:expand-3d]

# --8<-- [start:expand-4d]
x = torch.empty(1, 32, 32, 1)  # the shape the notes' comments assume
for sizes in [(4, 32, 32, 4), (4, 33, 32, 4), (4, -1, -1, -1)]:
    print(f"expand{sizes} ->", outcome(x.expand, *sizes))
    #> expand(4, 32, 32, 4) -> torch.Size([4, 32, 32, 4])
    #> expand(4, 33, 32, 4) -> RuntimeError: The expanded size of the tensor (33) must match the existing size (32) at non-singleton dimension 1.  Target sizes: [4, 33, 32, 4].  Tensor sizes: [1, 32, 32, 1]
    #> expand(4, -1, -1, -1) -> torch.Size([4, 32, 32, 1])
for sizes in [(4, 32, 1, 1), (4, 1, 1, 1), (4, -1, 1, 1)]:
    print(f"repeat{sizes} ->", outcome(x.repeat, *sizes))
    #> repeat(4, 32, 1, 1) -> torch.Size([4, 1024, 32, 1])
    #> repeat(4, 1, 1, 1) -> torch.Size([4, 32, 32, 1])
    #> repeat(4, -1, 1, 1) -> RuntimeError: Trying to create tensor with negative dimension -32: [4, -32, 32, 1]
# --8<-- [end:expand-4d]

# --8<-- [start:expand-memory]
x = torch.arange(3.0).reshape(1, 3)
e = x.expand(4, 3)  # a view: stride 0 along the new dim, no new memory
r = x.repeat(4, 1)  # a real copy: 4 times the memory
print(e.stride(), e.untyped_storage().nbytes(), e.data_ptr() == x.data_ptr())
#> (0, 1) 12 True
print(r.stride(), r.untyped_storage().nbytes(), r.data_ptr() == x.data_ptr())
#> (3, 1) 48 False
x[0, 0] = 9  # every row of the expanded view sees the change
print(e[:, 0], r[:, 0])
#> tensor([9., 9., 9., 9.]) tensor([0., 0., 0., 0.])
try:
    e.add_(1)  # in-place writes into an expanded view are refused
except RuntimeError as err:
    print(err)
    #> unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.
# --8<-- [end:expand-memory]

# --8<-- [start:transpose]
x = torch.arange(12).reshape(3, 4)
print(x.t().shape, x.t().is_contiguous())  # t(): 2-D transpose, a view
#> torch.Size([4, 3]) False
x = torch.empty(64, 3, 224, 224)
print(x.transpose(0, 1).shape, x.transpose(0, 1).is_contiguous())  # swap two dims, a view
#> torch.Size([3, 64, 224, 224]) False
print(x.permute(0, 2, 3, 1).shape, x.permute(0, 2, 3, 1).is_contiguous())  # NCHW -> NHWC
#> torch.Size([64, 224, 224, 3]) False
try:
    x.t()
except RuntimeError as err:
    print(err)
    #> t() expects a tensor with <= 2 dimensions, but self is 4D
# --8<-- [end:transpose]

# --8<-- [start:flatten]
try:
    x.flatten(startdim=2)
except TypeError as err:
    print(err)
    #> flatten() got an unexpected keyword argument 'startdim'
print(x.flatten(start_dim=2).shape, x.flatten(2).shape)  # 224*224 = 50176
#> torch.Size([64, 3, 50176]) torch.Size([64, 3, 50176])
print(x.flatten(1).shape, x.flatten().shape)  # default start_dim=0: everything
#> torch.Size([64, 150528]) torch.Size([9633792])
# --8<-- [end:flatten]

# --8<-- [start:cat-stack]
a = torch.empty(64, 16, 56, 56)
b = torch.empty(64, 16, 56, 56)
print(torch.cat([a, b], dim=1).shape)  # joins along an existing dim
#> torch.Size([64, 32, 56, 56])
print(torch.stack([a, b], dim=1).shape)  # adds a new dim
#> torch.Size([64, 2, 16, 56, 56])
print(torch.cat([a, b[:, :3]], dim=1).shape)  # cat: other dims must match, this one may differ
#> torch.Size([64, 19, 56, 56])
try:
    torch.cat([a, b[:, :, :3]], dim=1)  # ... but every other dim must match
except RuntimeError as err:
    print(err)
    #> Sizes of tensors must match except in dimension 1. Expected size 56 but got size 3 for tensor number 1 in the list.
try:
    torch.stack([a, b[:, :3]], dim=1)  # stack: shapes must be identical
except RuntimeError as err:
    print(err)
    #> stack expects each tensor to be equal size, but got [64, 16, 56, 56] at entry 0 and [64, 3, 56, 56] at entry 1
# --8<-- [end:cat-stack]

# --8<-- [start:split-chunk]
parts = a.split(5, dim=1)  # pieces of size 5 along dim 1; the last gets the rest
print(len(parts), [p.shape[1] for p in parts])
#> 4 [5, 5, 5, 1]
parts = a.chunk(5, dim=1)  # at most 5 pieces, each of size ceil(16/5) = 4
print(len(parts), [p.shape[1] for p in parts])
#> 4 [4, 4, 4, 4]
print([p.shape[1] for p in a.split([10, 6], dim=1)])  # split also takes explicit sizes
#> [10, 6]
print([p.shape[1] for p in torch.empty(2, 6).chunk(4, dim=1)])  # 6 in 4 chunks: ceil = 2, 3 chunks
#> [2, 2, 2]
print([p.shape[1] for p in torch.empty(2, 17).chunk(5, dim=1)])  # 17 in 5 chunks: the last gets the rest
#> [4, 4, 4, 4, 1]
for length in range(1, 21):  # chunk(n) is split(ceil(length / n)), for every length and count
    for n in range(1, 9):
        row = torch.empty(1, length)
        by_chunk = [p.shape[1] for p in row.chunk(n, dim=1)]
        assert by_chunk == [p.shape[1] for p in row.split(-(-length // n), dim=1)], (length, n)
print(parts[0].data_ptr() == a.data_ptr())  # pieces are views into a
#> True
print(a.split(5, dim=1)[1].untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
#> True
# --8<-- [end:split-chunk]

# --8<-- [start:size]
data = torch.empty(32, 3, 224, 224)
print(data.size(0), data.size(-1), data.size(), data.shape == data.size())
#> 32 224 torch.Size([32, 3, 224, 224]) True
try:
    data.size(4)
except IndexError as err:
    print(type(err).__name__, err)
    #> IndexError Dimension out of range (expected to be in range of [-4, 3], but got 4)
feat = torch.zeros(32, 512, 7, 7)  # the notes' "常用方法": features before the classifier
flat = feat.view(32, -1)  # keep the batch dim, flatten the rest: 512*7*7 = 25088
fc = torch.nn.Linear(512 * 7 * 7, 10)
print(flat.shape, fc(flat).shape, flat.view(-1).shape)
#> torch.Size([32, 25088]) torch.Size([32, 10]) torch.Size([802816])
last = torch.zeros(2, 512, 7, 7)  # a last batch of 2 samples
print(last.view(32, -1).shape)  # no error, but 32 "rows" of 2 samples cut into pieces
#> torch.Size([32, 1568])
print(last.view(last.size(0), -1).shape, last.flatten(1).shape)  # read the batch size instead
#> torch.Size([2, 25088]) torch.Size([2, 25088])
# --8<-- [end:size]
