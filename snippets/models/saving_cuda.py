"""map_location with a checkpoint saved on a GPU.

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
