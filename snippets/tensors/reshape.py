"""Reshaping tensors: view, reshape, clone, contiguous.

Page: docs/tensors/reshape.md
"""

# --8<-- [start:setup]
import torch


def same_storage(t1: torch.Tensor, t2: torch.Tensor) -> bool:
    """True when both tensors read the same memory block."""
    return t1.untyped_storage().data_ptr() == t2.untyped_storage().data_ptr()


base = torch.zeros(4)
assert same_storage(base, base[1:]) and not same_storage(base, base.clone())  # a view, a copy ✓ same-storage-rule
# --8<-- [end:setup]

# --8<-- [start:view]
x = torch.arange(4 * 64).reshape(4, 64)  # defined values, unlike torch.Tensor(4, 64)
a = x.view(2, 2, 8, 8)
print(a.shape)
#> torch.Size([2, 2, 8, 8])
print(x.view(-1, 4, 16).shape)  # -1: inferred from the other sizes ✓ infer
#> torch.Size([4, 4, 16])
print(x.view(32, -1).shape)  # 32 rows: -1 becomes 256 / 32 = 8 (NOT "keep 4 rows, flatten") ✓ view-32
#> torch.Size([32, 8])
# --8<-- [end:view]


# --8<-- [start:view-errors]
for shape in [(7, 36), (7, -1), (-1, -1, 16)]:
    try:
        x.view(*shape)
    except RuntimeError as err:
        print(f"view{shape}: {err}")  # ✓ view-errors
        #> view(7, 36): shape '[7, 36]' is invalid for input of size 256
        #> view(7, -1): shape '[7, -1]' is invalid for input of size 256
        #> view(-1, -1, 16): only one dimension can be inferred
# --8<-- [end:view-errors]

# --8<-- [start:uninitialised]
torch.use_deterministic_algorithms(True)  # this mode fills uninitialised memory with NaN
try:
    legacy, empty = torch.Tensor(4, 64), torch.empty(4, 64)
    print(legacy.isnan().all().item(), empty.isnan().all().item(), x.float().isnan().any().item())  # ✓ uninitialised
    #> True True False
finally:
    torch.use_deterministic_algorithms(False)
# --8<-- [end:uninitialised]


# --8<-- [start:shares-memory]
a = x.view(2, 2, 8, 8)
a[0, 0, 0, 0] = -1  # writing through the view ...
print(x[0, 0].item())  # ... changes x: same memory ✓ view-writes
#> -1
print(same_storage(a, x))  # ✓ shares
#> True
# --8<-- [end:shares-memory]

# --8<-- [start:non-contiguous]
xt = x.t()  # a transpose is a view with swapped strides, not a copy
print(xt.shape, xt.stride(), xt.is_contiguous(), same_storage(xt, x))  # ✓ transposed
#> torch.Size([64, 4]) (1, 64) False True
for v in (x.transpose(0, 1), x.view(2, 2, 64).permute(2, 0, 1)):  # the same for these two
    print(v.stride(), v.is_contiguous(), same_storage(v, x))  # ✓ transpose-permute
    #> (1, 64) False True
    #> (1, 128, 64) False True
for shape in [(3, 5), (2, 3, 4), (4, 1, 6), (2, 2, 1, 3)]:  # contiguous tensors of other shapes
    c = torch.zeros(shape)
    pairs = [(i, j) for i in range(c.dim()) for j in range(i + 1, c.dim()) if shape[i] > 1 and shape[j] > 1]
    assert not any(c.transpose(i, j).is_contiguous() for i, j in pairs)  # every swap of two dims > 1 ✓ swap-rule
print(xt.t().is_contiguous(), same_storage(xt.t(), x))  # swapping back: contiguous again, still a view ✓ swap-back
#> True True
try:
    xt.view(-1)
except RuntimeError as err:
    print(err)  # ✓ view-refused
    #> view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
print(xt.view(64, 2, 2).stride())  # a shape that only splits a dimension still works ✓ split-works
#> (1, 128, 64)


def view_works(t: torch.Tensor, *shape: int) -> bool:
    """True when t.view(*shape) succeeds, False when view refuses it."""
    try:
        t.view(*shape)
    except RuntimeError:
        return False
    return True


assert not any(view_works(xt, *s) for s in [(256,), (4, 64), (16, 16), (32, 8)])  # a new order: refused ✓ view-refused-all
splits = [(64, 2, 2), (2, 32, 4), (1, 64, 4)]
assert all(view_works(xt, *s) and same_storage(xt.view(*s), x) for s in splits)  # splits, a size-1 dim: views ✓ split-works-all
# --8<-- [end:non-contiguous]

# --8<-- [start:reshape]
r1 = x.reshape(2, 128)  # x is contiguous: reshape returns a view
r2 = xt.reshape(-1)  # xt is not: reshape silently copies
print(same_storage(r1, x), same_storage(r2, x))  # ✓ reshape-cases
#> True False
assert same_storage(xt.reshape(64, 2, 2), x)  # not contiguous, but a view is possible: a view ✓ reshape-view-possible
r2[0] = -7  # a write into the copy ...
assert not (x == -7).any()  # ... does not reach x ✓ reshape-write
# --8<-- [end:reshape]

# --8<-- [start:contiguous]
c = xt.contiguous()  # copies into row-major order ...
print(c.is_contiguous(), same_storage(c, x), c.stride())  # ✓ contiguous-copies
#> True False (4, 1)
print(x.contiguous() is x)  # ... but returns the tensor itself when already contiguous ✓ contiguous-self
#> True
print(c.view(-1).shape)  # now view works
#> torch.Size([256])
# --8<-- [end:contiguous]

# --8<-- [start:clone]
y = x.clone()  # always new memory, same values, same dtype and device
y[0, 0] = 12345
print(same_storage(y, x), x[0, 0].item(), y[0, 0].item())  # ✓ clone
#> False -1 12345
assert not same_storage(xt.clone(), x)  # a non-contiguous input too ✓ clone-non-contiguous
# --8<-- [end:clone]
