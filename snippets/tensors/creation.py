"""Tensor types and creation: dtypes, constructors, ranges, random numbers, conversion.

Page: docs/tensors/creation.md
Runs on CPU and CUDA with the same output (its code uses the CPU); the lines marked
`# requires: cuda` run only in the CUDA run of a machine with a GPU.
"""
# devices: cpu, cuda

# --8<-- [start:setup]
import inspect
import warnings

import torch

# --8<-- [end:setup]

# --8<-- [start:dtypes]
legacy = ["ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor"]
legacy += ["HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor", "BoolTensor"]
for name in legacy:
    dtype = getattr(torch, name).dtype
    sign = "signed" if dtype.is_signed else "unsigned"
    print(f"torch.{name:<15} holds {str(dtype):<14} ({dtype.itemsize * 8} bits, {sign})")  # ✓ dtypes
    #> torch.ByteTensor      holds torch.uint8    (8 bits, unsigned)
    #> torch.CharTensor      holds torch.int8     (8 bits, signed)
    #> torch.ShortTensor     holds torch.int16    (16 bits, signed)
    #> torch.IntTensor       holds torch.int32    (32 bits, signed)
    #> torch.LongTensor      holds torch.int64    (64 bits, signed)
    #> torch.HalfTensor      holds torch.float16  (16 bits, signed)
    #> torch.BFloat16Tensor  holds torch.bfloat16 (16 bits, signed)
    #> torch.FloatTensor     holds torch.float32  (32 bits, signed)
    #> torch.DoubleTensor    holds torch.float64  (64 bits, signed)
    #> torch.BoolTensor      holds torch.bool     (8 bits, unsigned)
assert torch.tensor([1, 2]).dtype == torch.int64  # the default integer dtype ✓ default-int
assert (torch.zeros(2) > 0).dtype == (torch.zeros(2) == 0).dtype == torch.bool  # comparisons: bool ✓ bool-results
# --8<-- [end:dtypes]

# --8<-- [start:torch-tensor-class]
t = torch.zeros(2)
print(type(t), t.dtype, t.type())  # one class for every dtype; .type() gives the legacy name ✓ tensor-class
#> <class 'torch.Tensor'> torch.float32 torch.FloatTensor
assert {type(torch.zeros(1, dtype=getattr(torch, name).dtype)) for name in legacy} == {torch.Tensor}  # ✓ one-class
every_dtype = {d for d in vars(torch).values() if isinstance(d, torch.dtype)}  # all this torch has
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # creating an experimental or quantized dtype warns
    assert {type(torch.empty(0, dtype=d)) for d in every_dtype} == {torch.Tensor}  # ✓ one-class-every
print(isinstance(t, torch.Tensor), isinstance(t, torch.FloatTensor), isinstance(t, torch.LongTensor))  # ✓ isinstance
#> True True False
print(torch.get_default_dtype())  # what torch.Tensor(...), zeros, rand ... use ✓ default-dtype
#> torch.float32
torch.set_default_dtype(torch.float64)  # change the default ...
try:  # ... and all three follow it: float32 is not built into them
    assert torch.Tensor(1).dtype == torch.zeros(1).dtype == torch.rand(1).dtype == torch.float64  # ✓ default-used
finally:
    torch.set_default_dtype(torch.float32)  # back to the default
# --8<-- [end:torch-tensor-class]

# --8<-- [start:constructor]
a = torch.Tensor(2, 3, 4)  # sizes: 2*3*4 of UNINITIALISED memory (values not shown)
print(a.shape, a.dtype)  # ✓ sizes
#> torch.Size([2, 3, 4]) torch.float32
b = torch.Tensor([[1, 2, 3], [4, 5, 6]])  # from a list of real numbers: the default dtype
print(b)  # ✓ from-list
#> tensor([[1., 2., 3.],
#>         [4., 5., 6.]])
assert {torch.Tensor(data).dtype for data in ([1], [True], [0.5])} == {torch.float32}  # ints, bools, floats ✓ from-list-any
try:
    torch.Tensor([1j])  # complex data is not converted ...
except TypeError as err:
    print(err)  # ... but refused ✓ from-list-complex
    #> must be real number, not complex
c = torch.tensor([[1, 2, 3], [4, 5, 6]])  # lower-case tensor: infers the dtype from the data
print(c.dtype, torch.tensor([1.0, 2]).dtype, torch.tensor([True]).dtype)  # ✓ infers
#> torch.int64 torch.float32 torch.bool
print(torch.Tensor(3).shape, torch.tensor(3).shape)  # a size vs a value: easy to mix up ✓ size-or-value
#> torch.Size([3]) torch.Size([])
assert torch.tensor(3).item() == 3  # ✓ size-or-value-3
torch.use_deterministic_algorithms(True)  # this mode fills uninitialised memory with NaN ...
try:  # ... so it shows that torch.Tensor(sizes), like torch.empty, sets no values
    print(torch.Tensor(2, 3).isnan().all().item(), torch.empty(2, 3).isnan().all().item())  # ✓ uninitialised
    #> True True
    floats = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128)
    assert all(torch.empty(2, dtype=d).isnan().all() for d in floats)  # not only float32 ✓ det-nan-all
    print(torch.empty(2, dtype=torch.int32), torch.empty(2, dtype=torch.bool))  # not NaN: the largest value ✓ det-int
    #> tensor([2147483647, 2147483647], dtype=torch.int32) tensor([True, True])
    integers = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64)
    assert all(torch.empty(2, dtype=d).eq(torch.iinfo(d).max).all() for d in integers)  # every integer dtype ✓ det-int-all
finally:
    torch.use_deterministic_algorithms(False)
# --8<-- [end:constructor]

# --8<-- [start:filled]
print(torch.zeros(2, 3, 4).shape, torch.ones(2, 3, 4).sum().item())
#> torch.Size([2, 3, 4]) 24.0
assert (torch.zeros(2, 3, 4) == 0).all() and (torch.ones(2, 3, 4) == 1).all()  # every element ✓ zeros-ones
print(torch.full([2, 3], 0.5))  # ✓ full
#> tensor([[0.5000, 0.5000, 0.5000],
#>         [0.5000, 0.5000, 0.5000]])
print([torch.full([2], v).dtype for v in (7, 0.5, True, 1j)])  # the dtype follows the fill value ✓ full-dtype
#> [torch.int64, torch.float32, torch.bool, torch.complex64]
print(torch.eye(3))  # ✓ eye
#> tensor([[1., 0., 0.],
#>         [0., 1., 0.],
#>         [0., 0., 1.]])
print(torch.eye(2, 3))  # rectangular: ones on the main diagonal ✓ eye-rect
#> tensor([[1., 0., 0.],
#>         [0., 1., 0.]])
# --8<-- [end:filled]

# --8<-- [start:arange]
r = torch.arange(0, 10, 2)  # like range(): the end (10) is excluded
print(r, r.dtype)  # ✓ arange
#> tensor([0, 2, 4, 6, 8]) torch.int64
assert r.tolist() == list(range(0, 10, 2))  # the same numbers as range() ✓ arange-range
triples = [(a, b, step) for a in range(-5, 6) for b in range(-5, 6) for step in (-2, -1, 1, 2)]
assert all(torch.arange(*t).tolist() == list(range(*t)) for t in triples if list(range(*t)))  # ✓ arange-range
print(torch.arange(0.0, 10, 2).dtype, torch.arange(5))  # any float argument gives float32 ✓ arange-float
#> torch.float32 tensor([0, 1, 2, 3, 4])
assert {torch.arange(*args).dtype for args in [(0, 10.0, 2), (0, 10, 2.0), (5.0,)]} == {torch.float32}  # ✓ arange-any-float
print(torch.arange(1, 1.1, 0.1))  # a non-integer step: rounding puts the end (1.1) in ✓ arange-float-end
#> tensor([1.0000, 1.1000])
assert "non-integer :attr:`step` is subject to floating point rounding errors" in torch.arange.__doc__  # ✓ arange-epsilon
assert "subtracting a small epsilon from :attr:`end`" in torch.arange.__doc__  # ✓ arange-epsilon
# --8<-- [end:arange]

# --8<-- [start:linspace]
s = torch.linspace(0, 10, 4)  # 4 points, BOTH ends included, step (10-0)/(4-1)
print(s)  # ✓ linspace
#> tensor([ 0.0000,  3.3333,  6.6667, 10.0000])
print(s.dtype, torch.linspace(0, 1, 5))  # ✓ linspace-spacing
#> torch.float32 tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
try:
    torch.linspace(0, 10)  # steps has no default any more
except TypeError as err:
    print(str(err).splitlines()[0])  # ✓ linspace-required
    #> linspace() received an invalid combination of arguments - got (int, int), but expected one of:
# --8<-- [end:linspace]

# --8<-- [start:rand]
g = torch.Generator().manual_seed(0)
print(torch.rand(2, 3, generator=g))
#> tensor([[0.4963, 0.7682, 0.0885],
#>         [0.1320, 0.3074, 0.6341]])
big = torch.rand(1_000_000, generator=g)
assert big.min() >= 0 and big.max() < 1  # the interval is [0, 1): 1.0 is never produced ✓ rand-range
print(big.dtype, "[0, 1)" in inspect.getdoc(torch.rand))  # the documented interval ✓ rand-doc
#> torch.float32 True
# --8<-- [end:rand]

# --8<-- [start:randn]
g = torch.Generator().manual_seed(0)
print(torch.randn(2, 3, generator=g))
#> tensor([[ 1.5410, -0.2934, -2.1788],
#>         [ 0.5684, -1.0845, -1.3986]])
z = torch.randn(1_000_000, generator=g)
print(f"mean {z.mean():.3f}, var {z.var():.3f}")  # 0 mean, variance (and std) 1 ✓ randn
#> mean -0.002, var 1.000
# --8<-- [end:randn]

# --8<-- [start:randint]
g = torch.Generator().manual_seed(0)
x = torch.randint(-10, 10, [2, 3, 4], generator=g)
print(x.shape, x.dtype)  # ✓ randint-dtype
#> torch.Size([2, 3, 4]) torch.int64
many = torch.randint(-10, 10, (100_000,), generator=g)
counts = torch.bincount(many + 10)  # how often each of -10, -9, ... was drawn
print(many.min().item(), many.max().item(), (counts > 0).sum().item())  # low in, high out ✓ randint-range
#> -10 9 20
# --8<-- [end:randint]

# --8<-- [start:randperm]
g = torch.Generator().manual_seed(0)
p = torch.randperm(10, generator=g)  # 0..9 in random order, int64: ready to use as indices
print(p, p.dtype)  # ✓ randperm
#> tensor([4, 1, 7, 5, 3, 9, 0, 8, 6, 2]) torch.int64
assert torch.equal(p.sort().values, torch.arange(10))  # ✓ randperm-all
# --8<-- [end:randperm]

# --8<-- [start:on-device]
shape = (2, 3)
device = torch.device("cpu")  # or "cuda": the same call creates the numbers there
g = torch.Generator(device=device).manual_seed(0)
x = torch.rand(shape, device=device, generator=g)  # the modern form: no copy, no legacy type
print(x.device, x.dtype, x.shape)  # ✓ on-device
#> cpu torch.float32 torch.Size([2, 3])
if torch.cuda.is_available():  # requires: cuda
    on_gpu = torch.rand(shape, device="cuda", generator=torch.Generator(device="cuda").manual_seed(0))
    assert on_gpu.device.type == "cuda" and ((on_gpu >= 0) & (on_gpu < 1)).all()  # ✓ on-device-cuda

out = torch.full(shape, float("nan"))  # `out=` still works: fills an existing tensor in place
y = torch.rand(shape, out=out)
print(y is out)  # ✓ out-fills
#> True
assert ((out >= 0) & (out < 1)).all()  # every NaN is now a number in [0, 1) ✓ out-random
# --8<-- [end:on-device]

# --8<-- [start:legacy-cuda]
def legacy_call() -> tuple[str, int]:
    """The notes' call, once: what it gives, and how many "no longer recommended" warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # record every warning, repeats included
        try:
            x = torch.cuda.FloatTensor(2, 3)  # the notes' "random numbers on the GPU"
            outcome = f"a {x.device} {x.dtype} tensor"  # requires: cuda
        except (TypeError, RuntimeError) as err:
            outcome = f"{type(err).__name__}: {err}"
    notice = "The torch.cuda.*DtypeTensor constructors are no longer recommended"
    return outcome, sum(w.category is UserWarning and str(w.message).startswith(notice) for w in caught)


legacy_call()  # by default PyTorch gives the warning once per process: at most here ...
assert legacy_call()[1] == 0  # ... and not on the next call ✓ warns-once
torch.set_warn_always(True)  # now on every call, so each call shows the same in any process
try:
    first, second = legacy_call(), legacy_call()
finally:
    torch.set_warn_always(False)  # the default
assert first == second  # the second call does what the first did ✓ same-twice
outcome, warnings_caught = first
if torch.cuda.is_available():  # requires: cuda (a GPU: the call works, after the warning)
    assert outcome.startswith("a cuda:0 torch.float32 tensor") and warnings_caught == 1, first  # ✓ legacy-gpu
elif torch.backends.cuda.is_built():  # a CUDA build on a machine without a GPU
    assert outcome.startswith("RuntimeError: Found no NVIDIA driver"), outcome  # ✓ legacy-no-gpu
    assert warnings_caught == 1, first  # the warning comes first ✓ warns-first
assert torch.cuda.FloatTensor.dtype == torch.float32 and torch.cuda.FloatTensor.is_cuda  # ✓ legacy-type
torch.use_deterministic_algorithms(True)  # memory a call leaves unset is NaN in this mode ...
try:  # ... so the same legacy constructor for the CPU shows that it sets no values
    assert torch.FloatTensor(2, 3).isnan().all()  # ✓ legacy-cpu-unset
    if torch.cuda.is_available():  # requires: cuda
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the "no longer recommended" warning, checked above
            assert torch.cuda.FloatTensor(2, 3).isnan().all()  # no values set on the GPU ✓ legacy-gpu-unset
finally:
    torch.use_deterministic_algorithms(False)
# --8<-- [end:legacy-cuda]

# --8<-- [start:convert]
f = torch.tensor([0.9, 1.5, 2.7, 255.0])
print(f.byte())  # float -> uint8 truncates toward zero ✓ byte
#> tensor([  0,   1,   2, 255], dtype=torch.uint8)
n = torch.tensor([-1.7, -0.5, 2.9])
print(n.long(), n.to(torch.int32))  # the same truncation, negative side included ✓ truncates
#> tensor([-1,  0,  2]) tensor([-1,  0,  2], dtype=torch.int32)
in_range = torch.linspace(-100.9, 100.9, 4001)  # 4001 values, each within int8's range
for d in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):  # every integer dtype with a method
    kept = in_range[in_range >= 0] if d == torch.uint8 else in_range  # uint8: the non-negative ones
    assert kept.to(d).tolist() == [int(v) for v in kept.tolist()]  # Python's int() truncates toward zero ✓ truncates-all
print(n.to(torch.float16).dtype, n.double().dtype, n.half().dtype, n.bool())
#> torch.float16 torch.float64 torch.float16 tensor([True, True, True])
methods = ["byte", "char", "short", "int", "long", "half", "bfloat16", "float", "double", "bool"]
print([str(getattr(n, name)().dtype).removeprefix("torch.") for name in methods])  # ✓ methods
#> ['uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64', 'bool']
print(n.type(torch.IntTensor).dtype, n.type())  # .type(T) converts; .type() only names ✓ type-converts
#> torch.int32 torch.FloatTensor
print(n.to(torch.float32) is n)  # .to() returns the tensor itself when nothing changes
#> True
# --8<-- [end:convert]
