"""GPU memory: reading an out-of-memory message, and what to try in what order (batch size, no_grad,
autocast, gradient accumulation, activation checkpointing, empty_cache), each step's effect measured as
the bytes autograd saves for the backward pass (on any device), and memory that grows every step.

Page: docs/training/gpu_memory.md
Runs everywhere with the same output; the lines marked `# requires: cuda` measure the GPU's allocator
and run only on a machine with a CUDA GPU.
"""

# --8<-- [start:setup]
import re
import weakref
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

on_gpu = torch.cuda.is_available()
device = torch.device("cuda" if on_gpu else "cpu")
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
parameters = {p.untyped_storage().data_ptr() for p in net.parameters()}


def nbytes(tensors) -> int:
    """Bytes of the tensors, each once (a tensor saved by two operations counts once)."""
    return sum({(t.data_ptr(), t.shape): t.numel() * t.element_size() for t in tensors}.values())


class Saved:
    """One tensor saved for backward; only the graph refers to it, so it goes when the graph does."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor.detach()


held = weakref.WeakSet()  # every `Saved` that a graph still holds


def saved_bytes(forward) -> tuple[int, torch.Tensor]:
    """Bytes of the tensors autograd saves for backward while `forward()` runs, weights not counted."""
    saved = []

    def pack(tensor: torch.Tensor):
        if tensor.untyped_storage().data_ptr() in parameters:  # the weights are in memory anyway
            return tensor
        saved.append(Saved(tensor))
        held.add(saved[-1])
        return saved[-1]

    def unpack(packed) -> torch.Tensor:
        return packed.tensor if isinstance(packed, Saved) else packed

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = forward()
    return nbytes(s.tensor for s in saved), out


def held_bytes() -> int:
    """Bytes of the saved tensors that graphs hold now (freed by backward, or with the output)."""
    return nbytes(s.tensor for s in list(held))


# --8<-- [end:setup]

# --8<-- [start:message]
# A message of the current form, as a user pasted it (tensorflow/tpu#1058):
pasted = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 0 has a total capacity "
    "of 21.99 GiB of which 6.62 GiB is free. Including non-PyTorch memory, this process has 15.35 GiB memory "
    "in use. Of the allocated memory 6.15 GiB is allocated by PyTorch, and 8.71 GiB is reserved by PyTorch "
    "but unallocated."
)
SIZE = r"[\d.]+ (?:bytes|KiB|MiB|GiB)"  # a size as the message writes it: "0 bytes", "870.00 MiB"
pattern = (
    rf"Tried to allocate (?P<tried>{SIZE})\. GPU \d+ has a total capacity of (?P<total>{SIZE}) of which (?P<free>{SIZE}) is free\. "
    rf"(?:Including non-PyTorch memory, this process has (?P<process>{SIZE}) memory in use\. )?"  # not always there
    rf"Of the allocated memory (?P<allocated>{SIZE}) is allocated by PyTorch, and (?P<cached>{SIZE}) is reserved by PyTorch but unallocated"
)


def in_gib(size: str) -> float:
    number, unit = size.split()
    return round(float(number) / 1024 ** (3 - ["bytes", "KiB", "MiB", "GiB"].index(unit)), 2)


def read_message(message: str) -> dict:
    """The sizes of a message of the current form, in GiB (None for a part it leaves out)."""
    return {k: v and in_gib(v) for k, v in re.search(pattern, message).groupdict().items()}


gib = read_message(pasted)
print(gib)  # ✓ parsed
#> {'tried': 7.5, 'total': 21.99, 'free': 6.62, 'process': 15.35, 'allocated': 6.15, 'cached': 8.71}
print(gib["tried"] > gib["free"], gib["cached"] > gib["tried"])  # too little free, but more cached than asked ✓ fragmented
#> True True
print(round(gib["process"] - gib["allocated"] - gib["cached"], 2))  # this process, outside PyTorch's cache ✓ outside
#> 0.49
in_other_units = pasted.replace("7.50 GiB", "7680.00 MiB").replace("6.62 GiB", "6941573.12 KiB")
assert read_message(in_other_units.replace("6.15 GiB", "6603512218 bytes")) == gib  # MiB, KiB, bytes ✓ units
other_process = pasted.replace(" Including", " Process 1780 has 8.04 GiB memory in use. Including")
assert re.search(pattern, other_process) is None  # a part the pattern does not know: no match ✓ not-read

# Another (huggingface/meshgen#7): sizes in MiB and bytes, and no sentence on the process
meshgen = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1002.00 MiB. GPU 0 has a total capacity of 8.00 GiB "
    "of which 0 bytes is free. Of the allocated memory 13.98 GiB is allocated by PyTorch, and 129.48 MiB is reserved "
    "by PyTorch but unallocated."
)
other = read_message(meshgen)
print(other, other["free"] + other["cached"] < other["tried"])  # free + all the cache < request ✓ held-by-tensors
#> {'tried': 0.98, 'total': 8.0, 'free': 0.0, 'process': None, 'allocated': 13.98, 'cached': 0.13} True
assert other["allocated"] > 100 * other["cached"]  # PyTorch's share: almost all of it tensors ✓ tensors-dominate

# The older form (earlier torch releases), as pasted in a question: PyTorch's reserved total instead
older = (
    "RuntimeError: CUDA out of memory. Tried to allocate 870.00 MiB (GPU 2; 23.70 GiB total capacity; "
    "19.18 GiB already allocated; 323.81 MiB free; 21.70 GiB reserved in total by PyTorch)"
)
tried, total, allocated, free, reserved = (in_gib(size) for size in re.findall(SIZE, older))
print(tried, free, round(reserved - allocated, 2))  # asked, free, and reserved but unallocated ✓ older-form
#> 0.85 0.32 2.52
# --8<-- [end:message]

# --8<-- [start:compiled]
binary = b"".join(path.read_bytes() for path in (Path(torch.__file__).parent / "lib").glob("*c10_cuda*"))
current = [
    "CUDA out of memory. Tried to allocate",
    " has a total capacity of ",
    " is free. ",
    "Including non-PyTorch memory, this process",
    "Of the allocated memory ",
    " is allocated by PyTorch, ",
    " is reserved by PyTorch but unallocated.",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
]
old = [  # what only the older forms (box below) have: each of their parts that the current form lacks
    "(GPU ", "total capacity; ", " already allocated; ", " free; ", " cached)",
    "reserved in total by PyTorch", "If reserved memory is >> allocated memory",
    "max_split_size_mb to avoid fragmentation", " has a total capacty of ",
]
print(all(part.encode() in binary for part in current))  # every part of the current form ✓ current-form
#> True
print([part for part in old if part.encode() in binary])  # none of the old ones ✓ old-form
#> []
# --8<-- [end:compiled]

# --8<-- [start:batch-size]
for batch_size in (64, 32, 16):
    batch = torch.randn(batch_size, 256, device=device)
    activations = saved_bytes(lambda batch=batch: net(batch))[0]
    print(batch_size, activations)  # ✓ batch-bytes
    #> 64 327680
    #> 32 163840
    #> 16 81920
# --8<-- [end:batch-size]

# --8<-- [start:no-grad]
x = torch.randn(64, 256, device=device)
with torch.no_grad():
    activations, out = saved_bytes(lambda: net(x))
print(activations, out.requires_grad)  # evaluation under no_grad saves nothing ✓ no-grad-bytes
#> 0 False
kept, out = saved_bytes(lambda: net(x))
print(kept, held_bytes())  # the same forward without no_grad: saved, and held ✓ with-grad-bytes
#> 327680 327680
del out  # dropping the output frees its graph, and all it saved
print(held_bytes())  # ✓ dropped-frees
#> 0
net.eval()  # eval() switches layers such as Dropout and BatchNorm, not autograd
evaluated, out = saved_bytes(lambda: net(x))
net.train()
print(evaluated, out.requires_grad)  # eval() alone: the same bytes saved ✓ eval-saves
#> 327680 True
# --8<-- [end:no-grad]


# --8<-- [start:autocast]
def autocast_forward(batch: torch.Tensor, dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    with torch.autocast(device.type, dtype=dtype):
        return net(batch)


copies = 2 * (net[2].weight.numel() + net[4].weight.numel())  # 2-byte copies of the weights backward needs
for batch_size in (64, 1024):
    batch = torch.randn(batch_size, 256, device=device)
    full = saved_bytes(lambda batch=batch: net(batch))[0]
    half, out = saved_bytes(lambda batch=batch: autocast_forward(batch))
    print(batch_size, full, half, round(half / full, 2), out.dtype, half - copies == full // 2)  # ✓ autocast-bytes
    #> 64 327680 698368 2.13 torch.bfloat16 True
    #> 1024 5242880 3155968 0.6 torch.bfloat16 True
    assert saved_bytes(lambda batch=batch: autocast_forward(batch, torch.float16))[0] == half  # ✓ float16-same
# --8<-- [end:autocast]

# --8<-- [start:accumulation]
x, y = torch.randn(64, 256, device=device), torch.randint(0, 10, (64,), device=device)
whole, out = saved_bytes(lambda: net(x))
F.cross_entropy(out, y).backward()
big_batch_grads = [p.grad.clone() for p in net.parameters()]
net.zero_grad()

steps = 4
per_step, held_per_step, after_backward = [], [], []
for xb, yb in zip(x.chunk(steps), y.chunk(steps), strict=True):  # 4 micro-batches of 16, one backward each
    activations, out = saved_bytes(lambda xb=xb: net(xb))
    per_step.append(activations)
    held_per_step.append(held_bytes())  # all the graphs hold now, before this backward
    (F.cross_entropy(out, yb) / steps).backward()  # the graph of this micro-batch is freed here
    after_backward.append(held_bytes())  # `out` is still referenced: backward alone freed them
print(whole, max(per_step))  # ✓ accumulation-bytes
#> 327680 81920
print(held_per_step)  # held at once: one micro-batch's bytes, never more ✓ accumulation-held
#> [81920, 81920, 81920, 81920]
print(after_backward)  # ✓ backward-frees
#> [0, 0, 0, 0]
same = [torch.allclose(p.grad, g, atol=1e-6) for p, g in zip(net.parameters(), big_batch_grads, strict=True)]
print(len(same), all(same))  # every parameter's gradient is the same ✓ accumulation-same
#> 6 True
net.zero_grad()
# --8<-- [end:accumulation]

# --8<-- [start:checkpointing]
plain, out = saved_bytes(lambda: net(x))
out.sum().backward()
plain_grads = [p.grad.clone() for p in net.parameters()]
net.zero_grad()

forward_passes = []
hook = net[0].register_forward_hook(lambda module, inputs, output: forward_passes.append(len(inputs[0])))
recomputed, out = saved_bytes(lambda: net[4](checkpoint(net[:4], x, use_reentrant=False)))
out.sum().backward()  # net[:4] runs a second time here, to rebuild what it did not keep
hook.remove()
print(plain, recomputed)  # ✓ checkpoint-bytes
#> 327680 196608
same = [torch.allclose(p.grad, g) for p, g in zip(net.parameters(), plain_grads, strict=True)]
print(len(same), all(same), len(forward_passes))  # every gradient the same; one more forward ✓ checkpoint-same
#> 6 True 2
net.zero_grad()
# --8<-- [end:checkpointing]


# --8<-- [start:growing]
def graph_nodes(tensor: torch.Tensor) -> int:
    """How many autograd nodes the tensor's graph holds (each keeps what it saved)."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


total = 0.0
for step in range(3):
    loss = F.cross_entropy(net(x), y)
    total = total + loss  # a tensor: it keeps this step's graph, and every earlier one
    print(step, graph_nodes(total))  # ✓ graph-grows
    #> 0 17
    #> 1 28
    #> 2 39

total = 0.0
for _ in range(3):
    loss = F.cross_entropy(net(x), y)
    total += loss.item()  # a Python number: the graph is freed with `loss`
print(type(total).__name__)  # ✓ item-frees
#> float
# --8<-- [end:growing]

# --8<-- [start:empty-cache]
assert torch.cuda.empty_cache() is None  # without CUDA there is nothing to free, and no error ✓ empty-cache-cpu
if on_gpu:  # requires: cuda
    torch.cuda.synchronize()
    peaks = {}
    for name, step in [
        ("batch 64", lambda: net(torch.randn(64, 256, device="cuda")).sum().backward()),
        ("batch 16", lambda: net(torch.randn(16, 256, device="cuda")).sum().backward()),
    ]:
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        step()
        peaks[name] = torch.cuda.max_memory_allocated() - base
        net.zero_grad(set_to_none=True)
    assert peaks["batch 16"] < peaks["batch 64"]  # ✓ gpu-batch-peak
    kept = torch.empty(2**28, dtype=torch.uint8, device="cuda")  # 256 MiB, still referenced
    allocated = torch.cuda.memory_allocated()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() == allocated  # empty_cache cannot free a live tensor ✓ gpu-live-kept
    reserved = torch.cuda.memory_reserved()
    del kept  # freed for PyTorch, still reserved in its cache
    assert torch.cuda.memory_reserved() == reserved  # ✓ gpu-del-cached
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() <= reserved - 2**28  # now returned to the GPU ✓ gpu-returned
# --8<-- [end:empty-cache]
