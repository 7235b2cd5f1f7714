"""Copying a tensor: assignment, clone, detach, copy_, deepcopy.

Page: docs/tensors/copies.md
"""

# --8<-- [start:setup]
import copy

import torch

# --8<-- [end:setup]


# --8<-- [start:same-storage]
def same_storage(t1: torch.Tensor, t2: torch.Tensor) -> bool:
    """True when both tensors read the same memory block."""
    return t1.untyped_storage().data_ptr() == t2.untyped_storage().data_ptr()


base = torch.zeros(4)
views = (base[1:], base.view(2, 2), base.expand(3, 4), base[::2])  # base[1:] starts at element 1, yet shares
clones = (base.clone(), base[1:].clone(), base.view(2, 2).clone())
assert all(same_storage(base, v) for v in views) and not any(same_storage(base, c) for c in clones)  # ✓ same-storage-rule
# --8<-- [end:same-storage]

# --8<-- [start:assignment]
a = torch.zeros(3)
b = a  # no copy at all: a second name for the same object
b[0] = 1
print(b is a, a)  # ✓ assignment
#> True tensor([1., 0., 0.])
# --8<-- [end:assignment]

# --8<-- [start:clone]
a = torch.zeros(3)
c = a.clone()  # new memory, same values, dtype and device
c[0] = 1
print(same_storage(a, c), a, c)  # ✓ clone-new
#> False tensor([0., 0., 0.]) tensor([1., 0., 0.])
assert not any(same_storage(t, t.clone()) for t in (a, a[1:], a.expand(2, 3)))  # views too ✓ clone-always

w = torch.ones(3, requires_grad=True)
wc = w.clone()  # clone stays in the autograd graph ...
print(wc.requires_grad, wc.grad_fn.name())  # ✓ clone-graph
#> True CloneBackward0
wc.sum().backward()  # ... so gradients flow back to w
print(w.grad)  # ✓ clone-backward
#> tensor([1., 1., 1.])
# --8<-- [end:clone]

# --8<-- [start:detach]
w = torch.ones(3, requires_grad=True)
d = w.detach()  # leaves the graph but SHARES memory with w
print(d.requires_grad, same_storage(d, w))  # ✓ detach-shares
#> False True
d[0] = 5  # writes into w too
print(w)  # ✓ detach-writes
#> tensor([5., 1., 1.], requires_grad=True)
# --8<-- [end:detach]

# --8<-- [start:detach-clone]
w = torch.ones(3, requires_grad=True)
snapshot = w.detach().clone()  # the usual "independent copy of a parameter"
with torch.no_grad():
    w.add_(1)
print(snapshot, snapshot.requires_grad, snapshot.grad_fn, same_storage(snapshot, w))  # ✓ snapshot
#> tensor([1., 1., 1.]) False None False
# --8<-- [end:detach-clone]

# --8<-- [start:copy_]
dst = torch.zeros(2, 3, dtype=torch.int64)
keep = dst.untyped_storage().data_ptr()
dst.copy_(torch.tensor([1.9, -2.9, 3.9]))  # in place: broadcasts and converts the dtype
print(dst.shape, dst.dtype)  # shape and dtype are dst's own ✓ copy-keeps
#> torch.Size([2, 3]) torch.int64
print(dst)  # truncated toward zero: -2.9 becomes -2, not -3 as floor() gives ✓ copy-converts
#> tensor([[ 1, -2,  3],
#>         [ 1, -2,  3]])
print(dst.untyped_storage().data_ptr() == keep)  # dst keeps its own memory ✓ copy-memory
#> True
try:
    torch.zeros(2).copy_(torch.ones(3))
except RuntimeError as err:
    print(err)  # ✓ copy-error
    #> The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0
copy_refused = 0
for dst_shape, src_shape in [((2,), (3,)), ((2, 3), (6,)), ((2, 3), (3, 2)), ((3,), (2, 3))]:
    try:  # the last pair broadcasts together to (2, 3), but the source cannot shrink to the destination's (3,)
        torch.zeros(dst_shape).copy_(torch.ones(src_shape))
    except RuntimeError:
        copy_refused += 1
assert copy_refused == 4  # every source that does not broadcast to dst's shape is refused ✓ copy-error-rule
# --8<-- [end:copy_]

# --8<-- [start:deepcopy]
x = torch.arange(6.0)
v = x.view(2, 3)
x2, v2 = copy.deepcopy([x, v])  # new memory, but aliasing inside the copied object is kept
print(same_storage(x2, x), same_storage(x2, v2))  # ✓ deepcopy-aliasing
#> False True

leaf = torch.ones(2, requires_grad=True)
leaf_copy = copy.deepcopy(leaf)
print(leaf_copy.requires_grad, leaf_copy.is_leaf, same_storage(leaf_copy, leaf))  # a new leaf ✓ deepcopy-leaf
#> True True False
try:
    copy.deepcopy(leaf * 2)  # not a leaf: deepcopy refuses
except RuntimeError as err:
    print(str(err).split(".")[0])  # ✓ deepcopy-error
    #> Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment
deepcopy_refused = 0
for computed in (leaf + 1, leaf[:1], leaf.clone(), leaf.view(1, 2)):  # an op's result, views, a clone: none a leaf
    try:
        copy.deepcopy(computed)
    except RuntimeError as refusal:
        assert str(refusal).startswith("Only Tensors created explicitly by the user")  # the message shown above
        deepcopy_refused += 1
assert deepcopy_refused == 4  # all four refused, each with that message ✓ deepcopy-non-leaf
fixed = copy.deepcopy((leaf * 2).detach())  # the fix: detach first (a new leaf, without grad)
assert torch.equal(fixed, leaf * 2) and fixed.is_leaf and not fixed.requires_grad  # ✓ deepcopy-fix
# --8<-- [end:deepcopy]
