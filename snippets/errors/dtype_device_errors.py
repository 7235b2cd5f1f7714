"""Errors from dtypes and devices: float64 into a float32 layer, integer or float targets, meta tensors.

Page: docs/errors/dtype_device_errors.md
"""

# --8<-- [start:setup]
import inspect
import traceback
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def raised(call) -> str:
    """What `call()` raises, written `Type: message` ("no error" when it returns)."""
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
for dtype in (torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64):  # any other dtype than the weight's
    assert raised(lambda dtype=dtype: layer(torch.ones(2, 3, dtype=dtype))).startswith("RuntimeError: mat1 and mat2 must have the same dtype")  # ✓ mat1-any
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
refusal = raised(lambda: F.cross_entropy(logits, labels)).rsplit(" ", 1)[0]  # the message, without the dtype's name
for dtype in (torch.float16, torch.float64, torch.int8, torch.int16, torch.bool):  # every other dtype as well
    assert raised(lambda dtype=dtype: F.cross_entropy(logits, labels.to(dtype))).rsplit(" ", 1)[0] == refusal  # ✓ ce-others
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
for input_dtype in (torch.float32, torch.float64):  # a target of any other dtype than the input's is refused
    for target_dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64):
        refused = raised(lambda i=input_dtype, t=target_dtype: F.binary_cross_entropy(p.to(i), targets.to(t))) != "no error"
        assert refused == (target_dtype != input_dtype), (input_dtype, target_dtype)  # ✓ bce-exact
print(raised(lambda: F.mse_loss(p, targets)), raised(lambda: F.l1_loss(p, targets)))  # ✓ mse-long
#> no error no error
assert F.mse_loss(p, targets).dtype == F.l1_loss(p, targets).dtype == p.dtype == torch.float32  # the input's dtype ✓ mse-float


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
for negative in (-2, -99, -101, -1000):  # any negative label but ignore_index
    assert raised(lambda n=negative: F.cross_entropy(logits, torch.tensor([0, n, 2, 1]))) == f"IndexError: Target {negative} is out of bounds."  # ✓ negative
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
print(big.weight.device, big.weight.shape, big.bias.device)  # ✓ meta-made
#> meta torch.Size([2, 3]) meta
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

# --8<-- [start:scalar-type]
batch = torch.randn(2, 3, 8, 8, dtype=torch.float64)  # float64 images, e.g. from NumPy
backbone = nn.Conv2d(3, 4, kernel_size=3, bias=False)  # float32 weights, no bias (as before a BatchNorm)
print(raised(lambda: backbone(batch)))  # ✓ scalar-double
#> RuntimeError: expected scalar type Double but found Float
print(raised(lambda: nn.Conv2d(3, 4, kernel_size=3)(batch)))  # with a bias, the bias is checked first ✓ scalar-bias
#> RuntimeError: Input type (double) and bias type (float) should be the same
a, b = torch.randn(1, 2, 3), torch.randn(1, 3, 2)
print(raised(lambda: torch.bmm(a.half(), b)))  # a float16 input, a float32 weight ✓ scalar-half
#> RuntimeError: expected scalar type Half but found Float
print(raised(lambda: torch.bmm(a, b.half())))  # and the other way round ✓ scalar-half
#> RuntimeError: expected scalar type Float but found Half
print(raised(lambda: torch.bmm(a, b.double())))  # ✓ scalar-float-double
#> RuntimeError: expected scalar type Float but found Double
# --8<-- [end:scalar-type]

# --8<-- [start:scalar-type-fix]
out = backbone(batch.float())  # the input in the weights' dtype
assert out.dtype == torch.float32 and out.shape == (2, 4, 6, 6)  # ✓ scalar-fix
assert torch.allclose(out, F.conv2d(batch, backbone.weight.double()).float(), atol=1e-5)  # the same convolution ✓ scalar-fix
assert torch.bmm(a.half(), b.half()).dtype == torch.float16  # both in float16: no error ✓ scalar-fix-half
# --8<-- [end:scalar-type-fix]

# --8<-- [start:not-implemented]
half_layer = nn.Linear(3, 2).half()  # a float16 model, run on the CPU
print(raised(lambda: half_layer(torch.randn(4, 3).half())))  # ✓ half-linear
#> no error
print(raised(lambda: nn.LayerNorm(3).half()(torch.randn(4, 3).half())))  # ✓ half-layernorm
#> no error
print(raised(lambda: nn.Conv2d(3, 4, 3).half()(torch.randn(1, 3, 8, 8).half())))  # ✓ half-conv
#> no error
token_ids = torch.tensor([[1, 2, 3]])  # integers, e.g. ids or labels, sent where floats belong
print(raised(lambda: F.layer_norm(token_ids, (3,))))  # ✓ not-implemented-long
#> NotImplementedError: "LayerNormKernelImpl" not implemented for 'Long'
print(raised(lambda: F.softmax(token_ids, dim=-1)))  # ✓ not-implemented-softmax
#> NotImplementedError: "softmax_lastdim_kernel_impl" not implemented for 'Long'
# --8<-- [end:not-implemented]

# --8<-- [start:not-implemented-fix]
probabilities = F.softmax(token_ids.float(), dim=-1)  # a float dtype the kernel has
assert probabilities.dtype == torch.float32 and torch.allclose(probabilities.sum(), torch.tensor(1.0))  # ✓ not-implemented-fix
assert raised(lambda: F.layer_norm(token_ids.float(), (3,))) == "no error"  # layer_norm too ✓ not-implemented-fix
full = nn.Linear(3, 2)
half = nn.Linear(3, 2).half()
half.load_state_dict(full.state_dict())  # the same weights, rounded to float16
x = torch.randn(4, 3)
assert torch.allclose(half(x.half()).float(), full(x), rtol=0, atol=1e-2)  # float16 on the CPU: close to float32 ✓ half-fix-close
# --8<-- [end:not-implemented-fix]

# --8<-- [start:to-numpy]
on_meta = torch.zeros(2, 3, device="meta")  # a device without data in host memory, like cuda:0
print(raised(on_meta.numpy))  # ✓ to-numpy-message
#> TypeError: can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.
print(raised(lambda: np.asarray(on_meta)))  # np.asarray, np.array and matplotlib call .numpy() ✓ to-numpy-asarray
#> TypeError: can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.
# --8<-- [end:to-numpy]

# --8<-- [start:to-numpy-fix]
prediction = torch.tensor([[0.5, 1.5]], requires_grad=True) * 2  # a model output, on whichever device
assert raised(prediction.numpy).startswith("RuntimeError: Can't call numpy() on Tensor that requires grad")  # ✓ to-numpy-grad
as_array = prediction.detach().cpu().numpy()  # detach from the graph, copy to host memory, convert
assert as_array.tolist() == [[1.0, 3.0]] and as_array.dtype == np.float32  # ✓ to-numpy-fix
assert prediction.detach().cpu().numpy().__array_interface__["data"][0] == prediction.data_ptr()  # on the CPU: no copy ✓ to-numpy-fix-shared
# --8<-- [end:to-numpy-fix]

# --8<-- [start:indices]
vocab = nn.Embedding(10, 4)
ids = torch.tensor([[1.0, 5.0, 9.0]])  # token ids stored as floats, e.g. read from a float array
print(raised(lambda: vocab(ids)))  # ✓ indices-message
#> RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)
print(raised(lambda: torch.zeros(3, 4).index_select(0, torch.tensor([0.0, 2.0]))))  # ✓ indices-index-select
#> RuntimeError: index_select(): Expected dtype int32 or int64 for index
print(raised(lambda: torch.zeros(3).gather(0, torch.tensor([0.0, 2.0]))))  # ✓ indices-gather
#> RuntimeError: gather(): Expected dtype int32/int64 for index
print(raised(lambda: torch.zeros(3).gather(0, torch.tensor([0, 2], dtype=torch.int32))))  # int32 indices ✓ indices-gather-int32
#> no error
# --8<-- [end:indices]

# --8<-- [start:indices-fix]
assert torch.equal(vocab(ids.long()), vocab.weight[[1, 5, 9]].unsqueeze(0))  # rows 1, 5, 9 ✓ indices-fix
assert torch.equal(vocab(ids.int()), vocab(ids.long()))  # int32 ids work as well ✓ indices-fix-int
assert torch.zeros(3).gather(0, torch.tensor([0, 2])).shape == (2,)  # int64 for gather and scatter ✓ indices-fix-gather
assert torch.zeros(3).scatter(0, torch.tensor([0, 2]), torch.ones(2)).tolist() == [1.0, 0.0, 1.0]  # ✓ indices-fix-gather
# --8<-- [end:indices-fix]

# --8<-- [start:hidden-device]
rnn = nn.GRU(input_size=3, hidden_size=4)  # on the CPU
sequence = torch.randn(5, 1, 3)  # 5 steps, a batch of 1
h0 = torch.zeros(1, 1, 4, device="meta")  # the initial state made on another device
print(raised(lambda: rnn(sequence, h0)))  # ✓ hidden-device-message
#> RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cpu and hidden tensor at meta
message = raised(lambda: rnn(sequence, h0))
assert raised(lambda: nn.RNN(3, 4)(sequence, h0)) == message  # ✓ hidden-device-all
c0 = torch.zeros(1, 1, 4)  # an LSTM's state is (h0, c0): either one on the other device
assert raised(lambda: nn.LSTM(3, 4)(sequence, (h0, c0))) == raised(lambda: nn.LSTM(3, 4)(sequence, (c0, h0))) == message  # ✓ hidden-device-all
# --8<-- [end:hidden-device]

# --8<-- [start:hidden-device-fix]
h0 = torch.zeros(1, sequence.shape[1], 4, device=sequence.device)  # the state on the input's device
output, h_n = rnn(sequence, h0)
assert output.shape == (5, 1, 4) and h_n.device == sequence.device  # ✓ hidden-device-fix
assert torch.equal(output, rnn(sequence)[0])  # zeros are the default state: passing none works too ✓ hidden-device-fix-default
# --8<-- [end:hidden-device-fix]

# --8<-- [start:no-cuda]
lazy_init = inspect.getsource(torch.cuda._lazy_init)  # what torch runs the first time CUDA is used
print([line.strip() for line in lazy_init.splitlines() if "not compiled with CUDA" in line])  # ✓ no-cuda-source
#> ['raise AssertionError("Torch not compiled with CUDA enabled")']
assert 'if not hasattr(torch._C, "_cuda_getDeviceCount"):' in lazy_init  # raised by a torch built without CUDA ✓ no-cuda-source
c10_cuda = Path(torch.__file__).parent / "lib" / "libc10_cuda.so"  # in a CUDA build of torch for Linux
texts = c10_cuda.read_bytes().split(b"\0") if c10_cuda.exists() else []
print(sorted(t.decode() for t in texts if t.startswith((b"Found no NVIDIA driver", b"The NVIDIA driver on"))))  # ✓ no-cuda-driver
#> ['Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx', 'The NVIDIA driver on your system is too old (found version ']
if torch.cuda.is_available():  # requires: cuda
    assert torch.zeros(1, device="cuda").is_cuda  # ✓ no-cuda-gpu
else:
    try:
        torch.zeros(1, device="cuda")  # a first use of CUDA: a tensor there
    except RuntimeError as err:
        failure = f"RuntimeError: {err}"
        raised_in = traceback.extract_tb(err.__traceback__)[-1].name  # the function it came from
    no_driver = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
    assert torch.version.cuda is not None and failure == no_driver, failure  # a CUDA build, no driver ✓ no-cuda-here
    assert raised_in == "_lazy_init", raised_in  # raised inside torch.cuda._lazy_init ✓ no-cuda-lazy
    try:
        torch.distributed.ProcessGroupNCCL(torch.distributed.HashStore(), 0, 1)  # an NCCL group of one process
    except ValueError as err:
        nccl_failure = str(err)
    assert nccl_failure == "ProcessGroupNCCL is only supported with GPUs, no GPUs found!", nccl_failure  # NCCL refuses to start here ✓ no-cuda-nccl
# --8<-- [end:no-cuda]

# --8<-- [start:no-cuda-fix]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # use the GPU only where there is one
model = nn.Linear(3, 2).to(device)
assert model(torch.ones(1, 3, device=device)).device.type == device.type  # ✓ no-cuda-fix
# --8<-- [end:no-cuda-fix]
