"""Tensors on a CUDA device: random numbers created there, legacy cuda types, NumPy.

Page: docs/tensors/gpu.md
Runs everywhere: on a CPU it checks what a CPU can show (the documentation of
`torch.manual_seed` and `Tensor.numpy`, the legacy type, the error for a tensor that
is not on the CPU); the blocks marked `# requires: cuda` run only on a machine with a
CUDA GPU (the GPU runs check them). Every claim is an assert, so the file has no `#>`
lines that could go stale between GPU models.
"""
# devices: cpu, cuda

# --8<-- [start:setup]
import inspect
import warnings

import numpy as np
import torch

on_gpu = torch.cuda.is_available()  # what needs a GPU below runs only when this is True
# --8<-- [end:setup]

# --8<-- [start:rand-on-device]
assert "on all devices" in inspect.getdoc(torch.manual_seed)  # the documented promise ✓ all-devices
if on_gpu:  # requires: cuda
    device = torch.device("cuda")
    g = torch.Generator(device=device).manual_seed(0)  # a generator that lives on the GPU
    cpu_state = torch.get_rng_state()
    x = torch.rand(2, 3, device=device, generator=g)  # created on the GPU ...
    assert torch.equal(torch.get_rng_state(), cpu_state)  # ... the CPU generator was not used ✓ cpu-untouched
    assert x.device.type == "cuda" and x.dtype == torch.float32  # ✓ on-gpu
    assert torch.rand(2, 3, device=device).is_cuda  # without a generator: the device's default one ...
    assert torch.equal(torch.get_rng_state(), cpu_state)  # ... the CPU generator still unused ✓ default-untouched
    assert bool(((x >= 0) & (x < 1)).all())

    g.manual_seed(0)
    assert torch.equal(x, torch.rand(2, 3, device=device, generator=g))  # reproducible ✓ reproducible

    cpu_g = torch.Generator().manual_seed(0)
    cpu_x = torch.rand(2, 3, generator=cpu_g)
    assert not torch.equal(x.cpu(), cpu_x)  # same seed, different generator: different numbers ✓ different

    torch.manual_seed(0)  # seeds the CPU generator AND every CUDA device's default generator
    a, c = torch.rand(3, device=device), torch.rand(3)
    torch.manual_seed(0)
    assert torch.equal(a, torch.rand(3, device=device)) and torch.equal(c, torch.rand(3))  # both repeat ✓ manual-seed
# --8<-- [end:rand-on-device]

# --8<-- [start:legacy-type]
assert torch.cuda.FloatTensor.dtype == torch.float32 and torch.cuda.FloatTensor.is_cuda  # on any build ✓ legacy-type
if on_gpu:  # requires: cuda
    with warnings.catch_warnings(record=True):  # warns once per process: not recommended
        warnings.simplefilter("always")
        legacy = torch.cuda.FloatTensor(2, 3)  # uninitialised memory, not random numbers
    assert legacy.is_cuda and legacy.dtype == torch.float32 and legacy.shape == (2, 3)  # ✓ legacy-alloc
    y = torch.rand((2, 3), out=legacy)  # the notes' second line fills it in place ...
    assert y is legacy and bool(((y >= 0) & (y < 1)).all())  # ✓ out-fills
    z = torch.rand((2, 3), device="cuda")  # ... one call does both
    assert z.is_cuda and z.dtype == legacy.dtype  # ✓ one-call
    assert legacy.type() == "torch.cuda.FloatTensor" and z.type() == "torch.cuda.FloatTensor"
# --8<-- [end:legacy-type]

# --8<-- [start:numpy]
not_on_cpu = torch.ones(2, 3, device="meta")  # a device other than the CPU, one that holds no data
raised = []
try:
    not_on_cpu.numpy()
except TypeError as err:
    raised.append(str(err))
assert len(raised) == 1 and "Use Tensor.cpu() to copy the tensor to host memory first" in raised[0], raised  # ✓ not-cpu-numpy
doc = inspect.getdoc(torch.Tensor.numpy)
assert "t.detach().cpu().resolve_conj().resolve_neg().numpy()" in doc  # what force=True does ✓ force-doc
if on_gpu:  # requires: cuda
    t = torch.ones(2, 3, device="cuda")
    raised = []
    try:
        t.numpy()
    except TypeError as err:
        raised.append(str(err))
    assert len(raised) == 1 and "Use Tensor.cpu() to copy the tensor to host memory first" in raised[0], raised  # ✓ numpy-error
    host = t.cpu().numpy()  # .cpu() copies to host memory; numpy() then shares with that copy
    host[0, 0] = 5
    assert t[0, 0].item() == 1.0  # the GPU tensor is untouched ✓ gpu-untouched
    cpu_copy = t.cpu()
    cpu_copy.numpy()[0, 0] = 7  # the array shares memory with the CPU copy
    assert cpu_copy[0, 0].item() == 7.0 and t[0, 0].item() == 1.0  # ✓ shares-cpu-copy
    assert isinstance(t.numpy(force=True), np.ndarray)  # force=True does the .cpu() for you ✓ force
    assert torch.ones(2, device="cuda", requires_grad=True).numpy(force=True).sum() == 2  # and the detach() ✓ force-detach
    back = torch.from_numpy(host).to("cuda")  # and back: from_numpy is CPU, .to copies
    assert back.is_cuda and back[0, 0].item() == 5.0
# --8<-- [end:numpy]
