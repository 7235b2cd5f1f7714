"""Errors that only a GPU raises: a model on the GPU with its input on the CPU, CUDA out of memory.

Page: docs/errors/gpu_errors.md
Runs everywhere; the lines marked `# requires: cuda` run only on a machine with a CUDA GPU
(the GPU runs check them). No `#>` line depends on the GPU: messages and memory are asserts.
"""

# --8<-- [start:setup]
import torch
from torch import nn

on_gpu = torch.cuda.is_available()  # what needs a GPU below runs only when this is True
device = torch.device("cuda" if on_gpu else "cpu")
torch.manual_seed(0)
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
