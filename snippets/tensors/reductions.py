"""Reductions and statistics: sum, prod, mean, var, norm, min/max, argmax, eq/equal, all/any.

Page: docs/tensors/reductions.md
"""

# --8<-- [start:setup]
import inspect

import torch

# --8<-- [end:setup]

# --8<-- [start:sum-prod]
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(type(x.sum).__name__)  # x.sum without () is the method itself, not a number ✓ sum-method
#> builtin_function_or_method
print(x.sum(), x.sum(dim=0), x.sum(dim=1, keepdim=True).shape)  # ✓ sum
#> tensor(21.) tensor([5., 7., 9.]) torch.Size([2, 1])
print(x.prod())  # the PRODUCT of all elements: 1*2*3*4*5*6 ✓ prod
#> tensor(720.)
v = torch.tensor([1.0, 2.0, 3.0])
print(v.prod(), torch.dot(v, v))  # a dot product is something else: 1*1 + 2*2 + 3*3 ✓ prod-dot
#> tensor(6.) tensor(14.)
small = torch.tensor([100, 200, 250], dtype=torch.uint8)
print(small.sum(), small.prod().dtype)  # small ints are accumulated as int64: no wrap at 255 ✓ small-int
#> tensor(550) torch.int64
small_types = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32)
assert {r(torch.ones(2, dtype=d)).dtype for d in small_types for r in (torch.sum, torch.prod)} == {torch.int64}  # ✓ small-types
# --8<-- [end:sum-prod]

# --8<-- [start:mean-var]
print(x.mean(), x.mean(dim=0))  # ✓ mean
#> tensor(3.5000) tensor([2.5000, 3.5000, 4.5000])
print(x.var(), x.var(correction=0))  # default: unbiased (divides by n-1); correction=0: by n ✓ var
#> tensor(3.5000) tensor(2.9167)
assert torch.allclose(x.std() ** 2, x.var())  # std is the square root of the same var
samples = torch.randn(20000, 5, generator=torch.Generator().manual_seed(0))  # rows of 5 from N(0, 1)
print(f"{samples.var(dim=1).mean():.2f} {samples.var(dim=1, correction=0).mean():.2f}")  # true var: 1 ✓ var-unbiased
#> 1.00 0.80
around_own_mean = (samples - samples.mean(dim=1, keepdim=True)).pow(2).sum(dim=1)
around_true_mean = samples.pow(2).sum(dim=1)  # the true mean is 0
assert around_own_mean.le(around_true_mean + 1e-5).all()  # in each of the 20 000 rows (1e-5: float rounding) ✓ var-why
try:
    torch.arange(5).mean()
except RuntimeError as err:  # catches its subclasses too
    print(f"{type(err).__name__}: {err}")  # ✓ mean-int
    #> NotImplementedError: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long
refused = []
for dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
    try:
        torch.ones(2, dtype=dtype).mean()
    except RuntimeError:
        refused.append(dtype)
assert len(refused) == 6  # bool and each integer dtype: refused ✓ mean-int-all
print(torch.arange(5).float().mean(), torch.arange(5).mean(dtype=torch.float32))  # the fixes ✓ mean-fix
#> tensor(2.) tensor(2.)
print(torch.tensor([1 + 1j, 3 + 0j]).mean())  # complex works too ✓ mean-complex
#> tensor(2.+0.5000j)
# --8<-- [end:mean-var]

# --8<-- [start:norm]
deprecated = "torch.norm is deprecated and may be removed in a future PyTorch release"
print(deprecated in " ".join(inspect.getdoc(torch.norm).split()))  # the pinned torch's own docstring ✓ norm-doc
#> True
v = torch.tensor([3.0, -4.0])
print(v.norm(), v.norm(p=1), v.norm(p=float("inf")))  # the notes' x.norm(p): still runs ✓ norm-runs
#> tensor(5.) tensor(7.) tensor(4.)
vn = torch.linalg.vector_norm  # the replacement for vectors: ord instead of p, default 2
print(vn(v), vn(v, ord=1), vn(v, ord=float("inf")))  # ✓ vector-norm
#> tensor(5.) tensor(7.) tensor(4.)
print(x.norm(dim=1), vn(x, dim=1))  # per row
#> tensor([3.7417, 8.7750]) tensor([3.7417, 8.7750])
m = torch.tensor([[3.0, 0.0], [0.0, 4.0]])
print(m.norm(), vn(m), torch.linalg.matrix_norm(m))  # all elements: the Frobenius norm 5 ✓ frobenius
#> tensor(5.) tensor(5.) tensor(5.)
print(m.norm(p=2), torch.linalg.matrix_norm(m, ord=2))  # p=2 flattens; a matrix 2-norm does not ✓ matrix-2-norm
#> tensor(5.) tensor(4.)
assert torch.linalg.matrix_norm(m, ord=2) == torch.linalg.svdvals(m).max()  # the largest singular value ✓ singular
# --8<-- [end:norm]

# --8<-- [start:min-max]
x = torch.tensor([[1.0, 9.0, 3.0], [7.0, 2.0, 8.0]])
print(x.min(), x.max())
#> tensor(1.) tensor(9.)
print(x.argmax(), x.argmin())  # index into the FLATTENED tensor ✓ argmax-flat
#> tensor(1) tensor(0)
print(divmod(x.argmax().item(), x.shape[1]))  # back to (row, col) for a 2-D tensor ✓ divmod
#> (0, 1)
assert all(x[divmod(i, 3)] == x.flatten()[i] for i in range(6))  # for every flat index ✓ divmod-all
# --8<-- [end:min-max]

# --8<-- [start:max-dim]
out = x.max(dim=1)  # with dim: a (values, indices) named tuple, not one tensor
print(out)  # ✓ max-tuple
#> torch.return_types.max(
#> values=tensor([9., 8.]),
#> indices=tensor([1, 2]))
values, indices = out
print(values.shape, indices.dtype)  # ✓ unpack
#> torch.Size([2]) torch.int64
print(x.argmax(dim=1))  # only the indices ✓ argmax-dim
#> tensor([1, 2])
assert torch.equal(x.amax(dim=1), values)  # only the values ✓ amax
# --8<-- [end:max-dim]

# --8<-- [start:notes-shape]
g = torch.Generator().manual_seed(0)
x = torch.randn(128, 1000, generator=g)  # the notes' shape, with defined values
print(x.max(dim=1).values.shape, x.max(dim=1).indices.shape, x.argmax(dim=1).shape)  # ✓ notes-shape
#> torch.Size([128]) torch.Size([128]) torch.Size([128])
try:
    x.argmax(dim=1, keedim=True)
except TypeError as err:
    print(err)  # ✓ keedim
    #> argmax() got an unexpected keyword argument 'keedim'
print(x.argmax(dim=1, keepdim=True).shape)  # ✓ keepdim
#> torch.Size([128, 1])
# --8<-- [end:notes-shape]

# --8<-- [start:eq-equal]
a = torch.tensor([1, 2, 3])
b = torch.tensor([1, 0, 3])
print(torch.eq(a, b), a == b)  # element-wise, bool tensor ✓ eq
#> tensor([ True, False,  True]) tensor([ True, False,  True])
print(torch.equal(a, b), torch.equal(a, a.clone()))  # one Python bool: same shape and values ✓ equal
#> False True
print(torch.equal(a, a.float()), a.dtype == a.float().dtype)  # the dtype is NOT compared ✓ equal-dtype
#> True False
print(torch.eq(a, 1))  # eq broadcasts; equal does not: shapes must match ✓ eq-broadcasts
#> tensor([ True, False, False])
print(torch.equal(torch.ones(3), torch.ones(1)), torch.equal(torch.ones(3), torch.ones(3, 1)))  # ✓ equal-shapes
#> False False

# --8<-- [end:eq-equal]

# --8<-- [start:all-any]
f = torch.tensor([1.0, 0.5, -2.0])
print(torch.all(f), torch.all(f).shape)  # any dtype: "all non-zero"; a 0-dim bool tensor ✓ all
#> tensor(True) torch.Size([])
assert not torch.all(torch.tensor([1.0, 0.0]))  # one zero: False ✓ all-non-zero
print(torch.any(torch.tensor([0, 0, 3])), bool(torch.all(f)))  # ✓ python-bool
#> tensor(True) True
print(torch.all(torch.tensor([1, 2], dtype=torch.uint8)))  # uint8 in, uint8 out ✓ all-uint8
#> tensor(1, dtype=torch.uint8)
others = (torch.bool, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.complex64, torch.complex128)
assert {torch.all(torch.ones(2, dtype=d)).dtype for d in others} == {torch.bool}  # the 11 other dtypes tried: bool ✓ only-uint8
m = torch.tensor([[True, False], [True, True]])
print(m.all(dim=1), m.any(dim=0))  # ✓ all-dim
#> tensor([False,  True]) tensor([True, True])
# --8<-- [end:all-any]
