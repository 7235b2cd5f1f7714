"""Tensor <-> NumPy: which conversions share memory.

Page: docs/tensors/numpy_interop.md
"""

# --8<-- [start:setup]
import numpy as np
import torch

# --8<-- [end:setup]

# --8<-- [start:numpy]
x = torch.zeros(2, 3)  # the notes use torch.Tensor(2, 3): same dtype, undefined values
y = x.numpy()  # no copy: y is a view of x's memory
print(type(y).__name__, y.dtype)  # ✓ numpy-dtype
#> ndarray float32
assert y.device == "cpu"  # a NumPy array lives in host memory ✓ host-memory
try:
    np.zeros(2, device="cuda")  # NumPy has no other device
except ValueError as err:
    print(err)  # ✓ cpu-only
    #> Device not understood. Only "cpu" is allowed, but received: cuda
y[0, 0] = 7  # mutate the NumPy side ...
print(x[0, 0].item())  # ... and the tensor sees it ✓ numpy-shares
#> 7.0
x[1, 1] = -1  # and the other way round
print(y[1, 1])  # ✓ tensor-to-array
#> -1.0
# --8<-- [end:numpy]

# --8<-- [start:from-numpy]
arr = np.arange(4.0)  # NumPy's default float is float64 ...
assert arr.dtype == np.zeros(2).dtype == np.array([0.5]).dtype == np.float64  # ✓ numpy-float64
t = torch.from_numpy(arr)  # ... and from_numpy keeps it: a DoubleTensor, not FloatTensor
print(t.dtype)  # ✓ from-numpy-dtype
#> torch.float64
assert torch.from_numpy(np.zeros(2, dtype=np.float32)).dtype == torch.float32  # it keeps any dtype ✓ keeps-dtype
layers = (torch.nn.Linear(2, 2), torch.nn.Conv2d(1, 1, 3), torch.nn.Embedding(5, 2), torch.nn.LSTM(2, 2))
params = {p.dtype for layer in layers for p in layer.parameters()}  # what layers use by default:
assert params == {torch.get_default_dtype()} == {torch.float32}  # torch's default dtype ✓ layers-float32
arr[0] = 100  # shares memory
print(t)  # ✓ from-numpy-shares
#> tensor([100.,   1.,   2.,   3.], dtype=torch.float64)
# --8<-- [end:from-numpy]

# --8<-- [start:copying-conversions]
arr = np.arange(4.0)
copied = torch.tensor(arr)  # always copies
shared = torch.as_tensor(arr)  # shares when dtype and device allow
converted = torch.as_tensor(arr, dtype=torch.float32)  # a dtype change forces a copy
arr[0] = -1
print(copied[0].item(), shared[0].item(), converted[0].item())  # ✓ conversions
#> 0.0 -1.0 0.0
same = torch.as_tensor(arr, dtype=torch.float64, device="cpu")  # the array's own dtype and device, named
assert same.data_ptr() == arr.ctypes.data  # nothing to change: still shared ✓ as-tensor-same
f32 = torch.from_numpy(arr).float()  # the usual way to get float32 for a model ...
arr[1] = -2
print(f32.dtype, f32[1].item())  # ... is a copy: the change to arr does not reach it ✓ float-copies
#> torch.float32 1.0
arrays = [np.arange(4, dtype=np.int32), np.array([True, False]), np.zeros((2, 3), np.float32).T, np.arange(8.0)[::2]]
arrays += [np.arange(4, dtype=np.uint8), np.ones(2, np.float16), np.ones(2, np.complex64), np.array(3.0)]
assert all(np.shares_memory(torch.from_numpy(a).numpy(), a) for a in arrays)  # dtypes, strides, 0-d ✓ from-numpy-always
assert all(np.shares_memory(torch.as_tensor(a).numpy(), a) for a in arrays)  # no change asked: shared ✓ as-tensor-always
assert not any(np.shares_memory(torch.tensor(a).numpy(), a) for a in arrays)  # ✓ tensor-always-copies
docs = {f.__name__: " ".join(f.__doc__.split()) for f in (torch.from_numpy, torch.as_tensor)}  # and the rules as documented:
assert "The returned tensor and :attr:`ndarray` share the same memory." in docs["from_numpy"]  # ✓ from-numpy-doc
assert "ndarray) with the same dtype and device then a tensor is constructed using :func:`torch.from_numpy`" in docs["as_tensor"]  # ✓ as-tensor-doc
assert ":func:`torch.tensor` never shares its data" in docs["as_tensor"]  # ✓ tensor-doc
# --8<-- [end:copying-conversions]

# --8<-- [start:requires-grad]
w = torch.ones(2, requires_grad=True)
try:
    w.numpy()
except RuntimeError as err:
    print(err)  # ✓ grad-error
    #> Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
d = w.detach().numpy()  # shares memory with w, outside the graph
d[0] = 3
print(w)  # ✓ detach-shares
#> tensor([3., 1.], requires_grad=True)
print(w.numpy(force=True))  # force=True: detach (and copy to CPU) for you ✓ force
#> [3. 1.]
assert "t.detach().cpu().resolve_conj().resolve_neg().numpy()" in torch.Tensor.numpy.__doc__  # ✓ force-doc
# --8<-- [end:requires-grad]

# --8<-- [start:negative-strides]
rev = np.arange(3)[::-1]  # a NumPy view with a negative stride
assert rev.strides[0] < 0  # ✓ negative-stride
for convert in (torch.from_numpy, torch.tensor, torch.as_tensor):
    try:
        convert(rev)
    except ValueError as err:
        print(f"{convert.__name__}: {str(err).split('.')[0]}")  # ✓ rejected
        #> from_numpy: At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported
        #> tensor: At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported
        #> as_tensor: At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported
print(torch.from_numpy(rev.copy()))  # a positive-stride copy works ✓ copy-first
#> tensor([2, 1, 0])
# --8<-- [end:negative-strides]
