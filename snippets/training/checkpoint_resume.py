"""Checkpoint and resume: model, optimizer, scheduler and RNG state, resumed bit for bit.

Page: docs/training/checkpoint_resume.md
"""

# --8<-- [start:setup]
import io
import pickle
import random
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.linspace(-1, 1, 48).view(24, 2), torch.linspace(0, 1, 24).view(24, 1))


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def make_training(seed: int):
    """Model (with dropout), optimizer, scheduler and a shuffling loader, built from `seed`."""
    seed_everything(seed)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    loader = DataLoader(data, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(seed))
    return model, opt, sched, loader


def train_epoch(model, opt, sched, loader) -> list[float]:
    """One epoch; every source of randomness a real loop has is used."""
    losses = []
    for inputs, yb in loader:  # shuffled by the loader's generator
        xb = inputs + torch.from_numpy(np.random.normal(0, 0.01, inputs.shape)).float()  # NumPy's global generator
        xb = xb * random.uniform(0.9, 1.1)  # Python's random
        loss = F.mse_loss(model(xb), yb)  # dropout: torch's global generator
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sched.step()
    return losses
# --8<-- [end:setup]

# --8<-- [start:uninterrupted]
model, opt, sched, loader = make_training(seed=0)
straight = [train_epoch(model, opt, sched, loader) for epoch in range(4)]
straight_params = [p.detach().clone() for p in model.parameters()]
# --8<-- [end:uninterrupted]


# --8<-- [start:save]
def numpy_state() -> tuple:
    """NumPy's global generator state, with its array as a tensor (loadable with weights_only=True)."""
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return kind, torch.from_numpy(keys.astype(np.int64)), pos, has_gauss, cached


def set_numpy_state(state: tuple) -> None:
    kind, keys, pos, has_gauss, cached = state
    np.random.set_state((kind, keys.numpy().astype(np.uint32), pos, has_gauss, cached))


def checkpoint(epoch, model, opt, sched, loader) -> dict:
    return {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),  # Adam's moments and step counts
        "scheduler": sched.state_dict(),  # where in the schedule we are
        "rng": {
            "torch": torch.get_rng_state(),
            "numpy": numpy_state(),
            "python": random.getstate(),
            "loader": loader.generator.get_state(),  # the order of the next epochs
        },
    }


tmp = tempfile.TemporaryDirectory()
path = Path(tmp.name) / "checkpoint.pt"

model, opt, sched, loader = make_training(seed=0)
first_half = [train_epoch(model, opt, sched, loader) for epoch in range(2)]
torch.save(checkpoint(2, model, opt, sched, loader), path)
del model, opt, sched, loader  # the run is interrupted here
# --8<-- [end:save]


# --8<-- [start:resume]
def resume(path: Path, restore_rng: bool = True):
    model, opt, sched, loader = make_training(seed=123)  # new objects, other initial weights
    ckpt = torch.load(path, weights_only=True)  # tensors, numbers, strings, tuples, dicts: all allowed
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    sched.load_state_dict(ckpt["scheduler"])
    if restore_rng:
        torch.set_rng_state(ckpt["rng"]["torch"])
        set_numpy_state(ckpt["rng"]["numpy"])
        random.setstate(ckpt["rng"]["python"])
        loader.generator.set_state(ckpt["rng"]["loader"])
    return ckpt["epoch"], model, opt, sched, loader


start, model, opt, sched, loader = resume(path)
second_half = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
print(first_half + second_half == straight)  # every loss, bit for bit
#> True
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), straight_params, strict=True)))  # every weight
#> True
print(sched.get_last_lr(), opt.param_groups[0]["lr"])  # 0.01 halved four times
#> [0.000625] 0.000625
# --8<-- [end:resume]

# --8<-- [start:without-rng]
start, model, opt, sched, loader = resume(path, restore_rng=False)
resumed = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
print(first_half + resumed == straight)  # another shuffle, other noise, other dropout masks
#> False
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), straight_params, strict=True)))
#> False
# --8<-- [end:without-rng]

# --8<-- [start:weights-only]
buffer = io.BytesIO()
torch.save({"numpy": np.random.get_state()}, buffer)  # the state as NumPy returns it
buffer.seek(0)
try:
    torch.load(buffer)  # the default: weights_only=True
except pickle.UnpicklingError as err:
    reason = next(line for line in str(err).splitlines() if "WeightsUnpickler error" in line)
    print(reason.strip().split(" was not")[0])
    #> WeightsUnpickler error: Unsupported global: GLOBAL numpy._core.multiarray._reconstruct
    assert "arbitrary code execution" in str(err)  # what weights_only=False would risk
buffer.seek(0)
print(type(torch.load(buffer, weights_only=False)["numpy"][1]))  # only for a file you trust
#> <class 'numpy.ndarray'>
tmp.cleanup()
# --8<-- [end:weights-only]
