"""Errors that only a GPU raises: a model on the GPU with its input on the CPU, CUDA out of memory, cuDNN, RNN weights.

Page: docs/errors/gpu_errors.md
Runs on Linux with or without a GPU; the lines marked `# requires: cuda` run only on a machine with a
CUDA GPU (the GPU runs check them). No `#>` line depends on the GPU: messages and memory are asserts.
The `#>` texts read from torch's CUDA libraries are those of a CUDA build; where a library is missing
(a CPU-only build) the helpers that read them return "" or [] instead of raising.
"""

# --8<-- [start:setup]
import ctypes
import inspect
import mmap
import multiprocessing
import os
import subprocess
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

on_gpu = torch.cuda.is_available()  # what needs a GPU below runs only when this is True
device = torch.device("cuda" if on_gpu else "cpu")
torch.manual_seed(0)


def raised(call) -> str:
    """What `call()` raises, written `Type: message` ("no error" when it returns)."""
    try:
        call()
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


def compiled_texts(fragment: bytes, name: str = "libc10_cuda.so") -> list[str]:
    """The texts holding `fragment` in a library of this torch (Linux, a CUDA build): [] if it has no such file."""
    library = Path(torch.__file__).parent / "lib" / name
    texts = library.read_bytes().split(b"\0") if library.exists() else []  # a CPU-only build has no libc10_cuda.so
    return sorted(t.decode().strip() for t in texts if fragment in t)
# --8<-- [end:setup]

# --8<-- [start:same-device]
model = nn.Linear(8, 4).to(device)  # the weights on the GPU (where there is one)
x = torch.randn(16, 8)  # a batch made on the CPU, as a DataLoader makes it
if on_gpu:  # requires: cuda
    message = "no error"
    try:
        model(x)
    except RuntimeError as err:
        message = str(err)
    assert message.startswith("Expected all tensors to be on the same device"), message  # ✓ same-device
    assert "cuda:0" in message and "cpu" in message, message  # it names both devices ✓ names-both

    message = "no error"
    try:
        model(x.to(device)) + torch.ones(16, 4)  # an elementwise op with a CPU tensor
    except RuntimeError as err:
        message = str(err)
    found_two = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert message == found_two, message  # ✓ found-two
    assert (model(x.to(device)) + torch.tensor(1.0)).is_cuda  # a 0-dim CPU tensor is allowed ✓ scalar-ok
# --8<-- [end:same-device]

# --8<-- [start:same-device-fix]
param_device = next(model.parameters()).device  # where the model is
out = model(x.to(param_device))  # move the batch there, not the model to the batch
assert out.device == param_device and out.shape == (16, 4)  # ✓ fix-device
assert torch.allclose(out.cpu(), x @ model.weight.detach().cpu().T + model.bias.detach().cpu())  # ✓ fix-same
# --8<-- [end:same-device-fix]

# --8<-- [start:oom]
assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError  # one class, two names ✓ oom-class
assert issubclass(torch.OutOfMemoryError, RuntimeError)  # `except RuntimeError` catches it too ✓ oom-runtime
for fragment in (b"CUDA out of memory", b"Including non-PyTorch", b"If reserved but unallocated"):
    print(*compiled_texts(fragment), sep="\n")  # the parts of the message, as this torch holds them ✓ oom-texts
    #> CUDA out of memory. Allocation was preemptively rejected because it would exceed per_process_memory_fraction limit. Requested size:
    #> CUDA out of memory. Tried to allocate
    #> CUDA out of memory. Tried to allocate more than 1EB memory.
    #> Including non-PyTorch memory, this process
    #> If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)
if on_gpu:  # requires: cuda
    total = torch.cuda.get_device_properties(0).total_memory  # bytes on this GPU
    message = "no error"
    try:
        torch.empty(total + 2**30, dtype=torch.uint8, device="cuda")  # 1 GiB more than the GPU has
    except torch.OutOfMemoryError as err:
        message = str(err)
    assert message.startswith("CUDA out of memory. Tried to allocate"), message  # ✓ oom
    assert "GPU 0 has a total capacity of" in message, message  # ✓ oom-capacity
# --8<-- [end:oom]

# --8<-- [start:peak]
net = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
net = net.to(device)


def train_step(batch_size: int) -> None:
    """One forward and backward pass on a random batch; gradients are dropped after."""
    net(torch.randn(batch_size, 1024, device=device)).sum().backward()
    net.zero_grad(set_to_none=True)


def peak_bytes(batch_size: int) -> int:  # requires: cuda (it reads the GPU's allocator)
    """How far a training step raises the allocated GPU memory at its peak."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()  # the peak from here on
    before = torch.cuda.memory_allocated()
    train_step(batch_size)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


train_step(256)  # a first step: CUDA libraries allocate their workspaces once
if on_gpu:  # requires: cuda
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    scratch = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")  # 64 MiB for a moment
    del scratch
    assert torch.cuda.memory_allocated() == before  # freed again ...
    assert torch.cuda.max_memory_allocated() >= before + 64 * 2**20  # ... the peak remembers it ✓ peak-remembers

    peaks = {b: peak_bytes(b) for b in (1024, 2048, 4096)}
    assert peaks[1024] < peaks[2048] < peaks[4096]  # a smaller batch, a lower peak ✓ batch-peak
    assert peaks[1024] < peaks[4096] / 2  # a quarter of the batch: less than half the peak ✓ batch-half
# --8<-- [end:peak]

# --8<-- [start:no-grad]
def saved_by_forward(batch):
    """What a forward pass of `net` saves for its backward pass, and what its two ReLUs return."""
    saved, relu_results = [], []
    hooks = [net[i].register_forward_hook(lambda module, args, out: relu_results.append(out)) for i in (1, 3)]
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        net(batch)
    for hook in hooks:
        hook.remove()
    return saved, relu_results


small = torch.randn(8, 1024, device=device)  # which tensors are kept, on any device
saved, relu_results = saved_by_forward(small)
activations = {t.data_ptr() for t in saved if t.shape == small.shape}
assert activations == {small.data_ptr()} | {r.data_ptr() for r in relu_results}  # the batch, the two ReLU outputs ✓ grad-keeps
weights = {p.data_ptr() for p in net.parameters()}
assert all(t.data_ptr() in activations | weights for t in saved)  # and weights it holds anyway ✓ grad-keeps
with torch.no_grad():
    assert saved_by_forward(small)[0] == []  # nothing is saved ✓ no-grad-keeps-nothing

x = torch.randn(4096, 1024, device=device)
if on_gpu:  # requires: cuda
    base = torch.cuda.memory_allocated()
    out = net(x)  # with autograd on, the output keeps the graph and its saved activations
    held_with_grad = torch.cuda.memory_allocated() - base
    del out
    with torch.no_grad():  # evaluation: nothing is saved for a backward pass
        out = net(x)
    held_no_grad = torch.cuda.memory_allocated() - base
    del out
    relu_outputs = 2 * 4096 * 1024 * 4  # two float32 activations of 4096 x 1024
    assert held_with_grad >= relu_outputs  # saved for backward ✓ grad-holds
    assert held_no_grad < relu_outputs / 100  # only the 4096 x 10 output ✓ no-grad-frees
# --8<-- [end:no-grad]

# --8<-- [start:empty-cache]
if on_gpu:  # requires: cuda
    mib = 2**20
    big = torch.empty(256 * mib, dtype=torch.uint8, device="cuda")  # a live tensor of 256 MiB
    allocated = torch.cuda.memory_allocated()
    torch.cuda.empty_cache()  # releases cached blocks only: `big` is still in use
    assert torch.cuda.memory_allocated() == allocated  # ✓ live-kept
    reserved = torch.cuda.memory_reserved()
    del big  # the tensor is gone, its memory stays in PyTorch's cache
    assert torch.cuda.memory_allocated() == allocated - 256 * mib  # ✓ del-frees
    assert torch.cuda.memory_reserved() == reserved  # still reserved from the GPU ✓ del-cached
    torch.cuda.empty_cache()  # now the cache gives it back to the GPU
    assert torch.cuda.memory_reserved() <= reserved - 256 * mib  # ✓ empty-cache
# --8<-- [end:empty-cache]

# --8<-- [start:input-type]
conv = nn.Conv2d(3, 8, kernel_size=3)  # a model left on the CPU
images = torch.randn(2, 3, 16, 16)  # a batch, moved to the GPU where there is one
print(images.type(), images.double().type(), torch.cuda.FloatTensor)  # the names the message uses ✓ input-type-names
#> torch.FloatTensor torch.DoubleTensor <class 'torch.cuda.FloatTensor'>
print(raised(lambda: F.conv2d(images.to_mkldnn(), conv.weight.double())))  # the same check, two CPU types ✓ input-type-template
#> RuntimeError: Input type (Mkldnntorch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor
for dtype in (torch.float64, torch.float16, torch.bfloat16):  # dense weights, but not float32: refused
    weight = conv.weight.detach().to(dtype)
    assert raised(lambda w=weight: F.conv2d(images.to_mkldnn(), w)).startswith("RuntimeError: Input type")  # ✓ input-type-mkldnn
mkldnn_out = F.conv2d(images.to_mkldnn(), conv.weight.detach())  # a dense float32 weight: allowed
assert mkldnn_out.is_mkldnn and torch.allclose(mkldnn_out.to_dense(), F.conv2d(images, conv.weight.detach()), atol=1e-5)  # ✓ input-type-mkldnn
both_mkldnn = F.conv2d(images.to_mkldnn(), conv.weight.detach().to_mkldnn())  # an MKLDNN weight: allowed too
assert torch.allclose(both_mkldnn.to_dense(), mkldnn_out.to_dense())  # ✓ input-type-mkldnn-weight
if on_gpu:  # requires: cuda
    assert images.to(device).type() == "torch.cuda.FloatTensor"  # a float32 tensor on the GPU ✓ input-type-names-gpu
    gpu_input = raised(lambda: conv(images.to(device)))
    expected = "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
    assert gpu_input.startswith(expected), gpu_input  # ✓ input-type-gpu
    gpu_model = raised(lambda: nn.Conv2d(3, 8, kernel_size=3).to(device)(images))
    expected = "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"
    assert gpu_model.startswith(expected), gpu_model  # ✓ input-type-gpu-model
# --8<-- [end:input-type]

# --8<-- [start:input-type-fix]
conv = conv.to(device)  # the model on the device, once, before training
assert raised(lambda: conv(images.to(next(conv.parameters()).device))) == "no error"  # ✓ input-type-fix
out = conv(images.to(next(conv.parameters()).device))  # each batch where the model is
assert out.device == next(conv.parameters()).device and out.shape == (2, 8, 14, 14)  # ✓ input-type-fix
# --8<-- [end:input-type-fix]

# --8<-- [start:device-assert]
hint = compiled_texts(b"might be asynchronously reported") + compiled_texts(b"to enable device-side assertions")
print(*hint, sep="\n")  # torch's hint about CUDA errors ✓ assert-hint
#> CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
#> For debugging consider passing CUDA_LAUNCH_BLOCKING=1
logits = torch.randn(4, 5)  # 5 classes
labels = torch.tensor([0, 2, 5, 1])  # label 5 does not exist
print(raised(lambda: F.cross_entropy(logits, labels)))  # on the CPU the mistake names itself ✓ assert-cpu
#> IndexError: Target 5 is out of bounds.
SAME_ON_GPU = """
import torch, torch.nn.functional as F
logits = torch.randn(4, 5, device="cuda")
F.cross_entropy(logits, torch.tensor([0, 2, 5, 1], device="cuda"))
torch.cuda.synchronize()
"""
if on_gpu:  # requires: cuda
    environment = {**os.environ, "CUDA_LAUNCH_BLOCKING": "1"}  # each kernel finishes before the next line
    run = subprocess.run(
        [sys.executable, "-c", SAME_ON_GPU], env=environment, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode != 0 and "CUDA error: device-side assert triggered" in run.stderr, run.stderr  # ✓ assert-gpu
    assert "line 4" in run.stderr, run.stderr  # with CUDA_LAUNCH_BLOCKING=1: the cross_entropy line ✓ assert-gpu-line
# --8<-- [end:device-assert]

# --8<-- [start:device-assert-fix]
def check_labels(labels, n_classes):
    """Fail on the CPU, with the labels named, before a GPU kernel does."""
    bad = labels[(labels < 0) | (labels >= n_classes)]
    if len(bad):
        raise ValueError(f"labels out of range 0..{n_classes - 1}: {bad.tolist()}")


print(raised(lambda: check_labels(labels, logits.shape[1])))  # ✓ assert-fix-check
#> ValueError: labels out of range 0..4: [5]
fixed = torch.tensor([0, 2, 4, 1])
check_labels(fixed, logits.shape[1])
assert F.cross_entropy(logits.to(device), fixed.to(device)).isfinite()  # ✓ assert-fix
# --8<-- [end:device-assert-fix]

# --8<-- [start:cudnn]
def loaded_library(name: str) -> str:
    """The file of a shared library this process has loaded (Linux: /proc/self/maps): "" if none is."""
    maps = Path("/proc/self/maps")  # macOS and Windows have no /proc
    lines = maps.read_text().splitlines() if maps.exists() else []
    return next((line.split()[-1] for line in lines if f"/{name}" in line), "")  # "" in a CPU-only build


def library_text(path: str, fragment: bytes) -> str:
    """The first text (NUL-terminated) of a library file that holds `fragment`: "" if none does, or `path` is ""."""
    text = ""
    if path:
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            at = data.find(fragment)
            text = "" if at == -1 else data[data.rfind(b"\0", 0, at) + 1 : data.find(b"\0", at)].decode()
    return text


assert loaded_library("libnot_loaded.so") == "" and library_text("", b"cuDNN error: ") == ""  # ✓ no-library
assert compiled_texts(b"CUDA out of memory", "libnot_there.so") == []  # no such library: no texts ✓ no-library


print(torch.backends.cudnn.is_available(), torch.backends.cudnn.enabled)  # convolutions and RNNs use it on a GPU ✓ cudnn-on
#> True True
print(repr(library_text(loaded_library("libtorch_cuda.so"), b"cuDNN error: ")))  # torch's prefix ✓ cudnn-prefix
#> 'cuDNN error: '
cudnn_file = loaded_library("libcudnn.so")  # the cuDNN library torch loaded: "" in a CPU-only build
if cudnn_file:
    cudnn = ctypes.CDLL(cudnn_file)
    cudnn.cudnnGetErrorString.restype = ctypes.c_char_p
    print([cudnn.cudnnGetErrorString(code).decode() for code in (1001, 2000, 5000)])  # cuDNN 9's names for three of its codes ✓ cudnn-names
    #> ['CUDNN_STATUS_NOT_INITIALIZED', 'CUDNN_STATUS_BAD_PARAM', 'CUDNN_STATUS_EXECUTION_FAILED']
# --8<-- [end:cudnn]

# --8<-- [start:cudnn-fix]
with torch.backends.cudnn.flags(enabled=False):  # the same layer without cuDNN: PyTorch's own kernels
    assert not torch.backends.cudnn.enabled
    without_cudnn = conv(images.to(device))
assert torch.backends.cudnn.enabled  # switched on again after the block ✓ cudnn-off
assert torch.allclose(conv(images.to(device)), without_cudnn, rtol=1e-2, atol=1e-2)  # the same result ✓ cudnn-off
three_dtypes = (torch.float32, torch.float64, torch.float16)
not_cuda = [images.to(place, dtype) for place in ("cpu", "meta") for dtype in three_dtypes]  # CPU and meta, three dtypes each
assert not any(torch.backends.cudnn.is_acceptable(t) for t in not_cuda)  # none may go to cuDNN ✓ cudnn-cpu
acceptable = inspect.getsource(torch.backends.cudnn.is_acceptable)
assert 'if tensor.device.type != "cuda"' in acceptable  # the rule: any device but CUDA is refused ✓ cudnn-cpu
if on_gpu:  # requires: cuda
    assert torch.backends.cudnn.is_acceptable(images.to(device))  # a float32 CUDA tensor: cuDNN may take it ✓ cudnn-off-gpu
    with torch.backends.cudnn.flags(enabled=False):
        assert not torch.backends.cudnn.is_acceptable(images.to(device))  # now it does not ✓ cudnn-off-gpu
# --8<-- [end:cudnn-fix]

# --8<-- [start:ordinal]
count = torch.cuda.device_count()  # the GPUs this process sees
if on_gpu:  # requires: cuda
    too_far = raised(lambda: torch.zeros(1, device=f"cuda:{count}"))  # GPUs are numbered 0..count-1
    assert "invalid device ordinal" in too_far, too_far  # ✓ ordinal-gpu
# --8<-- [end:ordinal]

# --8<-- [start:ordinal-fix]
def usable_device(wanted: int, count: int) -> torch.device:
    """The GPU asked for if it exists, else the last GPU, else the CPU."""
    return torch.device(f"cuda:{min(wanted, count - 1)}") if count else torch.device("cpu")


assert [str(usable_device(1, n)) for n in (0, 1, 2)] == ["cpu", "cuda:0", "cuda:1"]  # 0, 1 and 2 GPUs ✓ ordinal-fix
chosen = usable_device(1, count)  # e.g. --gpu 1 on the command line, on this machine
assert torch.ones(1, device=chosen).device.type == chosen.type  # ✓ ordinal-fix
# --8<-- [end:ordinal-fix]

# --8<-- [start:no-kernel]
template = inspect.getsource(torch.cuda._check_cubins)  # the warning torch gives for a GPU it has no kernels for
print(next(line for line in template.splitlines() if "is not compatible" in line))  # ✓ no-kernel-template
#> {} with CUDA capability sm_{} is not compatible with the current PyTorch installation.
assert "arch_list = get_arch_list()" in template  # the generations this build has kernels for ... ✓ no-kernel-major
assert "supported = any(sm // 10 == cap_major for sm in supported_sm)" in template  # ... one of the GPU's major ✓ no-kernel-major
if on_gpu:  # requires: cuda
    major, minor = torch.cuda.get_device_capability()
    built_for = torch.cuda.get_arch_list()  # e.g. ['sm_80', 'sm_90', ...]
    assert any(arch.startswith("sm_") for arch in built_for), built_for  # ✓ no-kernel-arch-list
    assert (torch.ones(2, device="cuda") * 2).sum().item() == 4.0  # this build runs kernels on this GPU ✓ no-kernel-runs
# --8<-- [end:no-kernel]

# --8<-- [start:no-kernel-fix]
print(torch.version.cuda is not None)  # a CUDA build: torch.version.cuda names its CUDA ✓ no-kernel-build
#> True
assert (torch.version.cuda is not None) == torch.backends.cuda.is_built()  # built with CUDA: both agree ✓ no-kernel-build
# --8<-- [end:no-kernel-fix]

# --8<-- [start:fork]
lazy_init = inspect.getsource(torch.cuda._lazy_init)
print(next(line.strip() for line in lazy_init.splitlines() if "forked subprocess" in line))  # ✓ fork-source
#> "Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
assert "if _is_in_bad_fork():" in lazy_init  # raised in a child forked after CUDA started ✓ fork-source
assert "multiprocessing, you must use the 'spawn' start method" in lazy_init  # the message goes on ✓ fork-source


def use_cuda_in_child(results):  # requires: cuda (a forked child on a GPU machine runs it)
    results.put(raised(lambda: torch.zeros(1, device="cuda")))


if on_gpu:  # requires: cuda
    torch.zeros(1, device="cuda")  # the parent has initialised CUDA
    results = multiprocessing.get_context("fork").SimpleQueue()
    child = multiprocessing.get_context("fork").Process(target=use_cuda_in_child, args=(results,))
    child.start()
    child.join(timeout=60)
    message = results.get()
    assert "Cannot re-initialize CUDA in forked subprocess" in message, message  # ✓ fork-gpu
# --8<-- [end:fork]

# --8<-- [start:fork-fix]
class OnTheCpu(torch.utils.data.Dataset):
    """Samples made on the CPU, in the worker: no CUDA there."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((3,), float(i))


batch = next(iter(DataLoader(OnTheCpu(), batch_size=4, num_workers=1)))  # a forked worker on Linux
batch = batch.to(device)  # moved to the GPU in the main process
assert batch.device.type == device.type and batch[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]  # ✓ fork-fix
spawning = DataLoader(OnTheCpu(), batch_size=4, num_workers=1, multiprocessing_context="spawn")  # not iterated here
assert spawning.multiprocessing_context.get_start_method() == "spawn"  # its workers would be spawned ✓ fork-spawn
# --8<-- [end:fork-fix]

# --8<-- [start:rnn-weights]
rnn_warning = library_text(loaded_library("libtorch_cuda.so"), b"single contiguous chunk")
print(rnn_warning)  # the warning, as this torch holds it ✓ rnn-text
#> RNN module weights are not part of single contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing memory usage. To compact weights again call flatten_parameters().
lstm = nn.LSTM(4, 8).to(device)  # on a GPU, .to() puts its weights in one block of memory
sequence = torch.randn(5, 2, 4, device=device)  # 5 steps, a batch of 2
lstm.weight_hh_l0 = nn.Parameter(lstm.weight_hh_l0.detach().clone())  # a weight replaced: memory of its own
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lstm(sequence)
warned = any("single contiguous chunk" in str(w.message) for w in caught)
assert warned == on_gpu  # on the CPU: no warning ✓ rnn-warns
if on_gpu:  # requires: cuda
    assert warned, caught  # ✓ rnn-warns-gpu
# --8<-- [end:rnn-weights]

# --8<-- [start:rnn-weights-fix]
class Encoder(nn.Module):
    """An LSTM that compacts its weights at each call, as code run under DataParallel does."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8)

    def forward(self, x):
        self.lstm.flatten_parameters()  # one block of memory again (on a GPU with cuDNN)
        return self.lstm(x)[0]


doc = " ".join(nn.LSTM.flatten_parameters.__doc__.split())
assert "this works only if the module is on the GPU and cuDNN is enabled. Otherwise, it's a no-op." in doc  # ✓ rnn-flatten-doc
pointers = [p.data_ptr() for p in lstm.parameters()]
with warnings.catch_warnings(record=True):  # on a GPU this call still warns
    warnings.simplefilter("always")
    before = lstm(sequence)[0]
lstm.flatten_parameters()
moved = [p.data_ptr() for p in lstm.parameters()] != pointers
assert moved == on_gpu  # on the CPU nothing moves: a no-op ✓ rnn-flatten-cpu
assert torch.allclose(lstm(sequence)[0], before, atol=1e-5)  # the same weights, the same output ✓ rnn-flatten-same
encoder = Encoder().to(device)
assert encoder(sequence).shape == (5, 2, 8)  # ✓ rnn-flatten-forward
if on_gpu:  # requires: cuda
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lstm(sequence)
    assert not any("single contiguous chunk" in str(w.message) for w in caught), caught  # flattened: no warning ✓ rnn-flat-gpu
# --8<-- [end:rnn-weights-fix]
