"""map_location with a checkpoint saved on a GPU; the CUDA generator a GPU run also needs saved.

Page: docs/models/saving.md
GPU only. It asserts facts and prints nothing, so it shows the same on every GPU.
"""
# requires: cuda

# --8<-- [start:gpu-checkpoint]
import tempfile
from pathlib import Path

import torch
from torch import nn

gpu_scratch = tempfile.TemporaryDirectory()
gpu_dir = Path(gpu_scratch.name)
torch.save(nn.Linear(4, 2).to("cuda:0").state_dict(), gpu_dir / "gpu.pt")  # saved from cuda:0

tags = []


def keep_on_cpu(storage, location):
    tags.append(location)
    return storage  # the storage as read from the file: on the CPU


loaded = torch.load(gpu_dir / "gpu.pt", map_location=keep_on_cpu)
assert set(tags) == {"cuda:0"}  # the device each tensor was saved from travels in the file ✓ gpu-tag
assert {t.device.type for t in loaded.values()} == {"cpu"}  # ✓ gpu-map-function

default = torch.load(gpu_dir / "gpu.pt")  # no map_location: back to the saved device
assert {t.device for t in default.values()} == {torch.device("cuda", 0)}  # ✓ gpu-default
on_cpu = torch.load(gpu_dir / "gpu.pt", map_location="cpu")
assert {t.device.type for t in on_cpu.values()} == {"cpu"}  # ✓ gpu-map-cpu
renamed = torch.load(gpu_dir / "gpu.pt", map_location={"cuda:0": "cpu"})  # a dict renames locations
assert {t.device.type for t in renamed.values()} == {"cpu"}  # ✓ gpu-map-dict
assert all(torch.equal(on_cpu[k], renamed[k]) and torch.equal(on_cpu[k], default[k].cpu()) for k in on_cpu)  # ✓ gpu-same-values
gpu_scratch.cleanup()
# --8<-- [end:gpu-checkpoint]

# --8<-- [start:gpu-rng]
drop = nn.Dropout(0.5)  # training mode: draws a mask on every call
ones = torch.ones(64, device="cuda:0")
cpu_state, cuda_states = torch.get_rng_state(), torch.cuda.get_rng_state_all()
mask = drop(ones)  # drawn from the CUDA generator of cuda:0
torch.set_rng_state(cpu_state)  # the CPU generator alone ...
assert not torch.equal(drop(ones), mask)  # ... does not bring a GPU mask back ✓ gpu-rng-cpu-only
torch.cuda.set_rng_state_all(cuda_states)  # the CUDA generators' states do
assert torch.equal(drop(ones), mask)  # ✓ gpu-rng-restored
# --8<-- [end:gpu-rng]
