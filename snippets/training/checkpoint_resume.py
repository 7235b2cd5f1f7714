"""Checkpoint and resume: model, optimizer, scheduler and RNG state, resumed bit for bit.

Page: docs/training/checkpoint_resume.md
"""

# --8<-- [start:setup]
import inspect
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


def make_training(seed: int, device: str = "cpu"):
    """Model (with dropout), optimizer, scheduler and a shuffling loader, built from `seed`."""
    seed_everything(seed)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 1)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)  # halves after epoch 3
    loader = DataLoader(data, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(seed))
    return model, opt, sched, loader


def train_epoch(model, opt, sched, loader) -> list[float]:
    """One epoch; every source of randomness a real loop has is used."""
    losses = []
    device = next(model.parameters()).device
    for inputs, yb in loader:  # shuffled by the loader's generator
        xb = inputs + torch.from_numpy(np.random.normal(0, 0.01, inputs.shape)).float()  # NumPy's global generator
        xb = xb * random.uniform(0.9, 1.1)  # Python's random
        loss = F.mse_loss(model(xb.to(device)), yb.to(device))  # dropout: the generator of the model's device
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
            "torch": torch.get_rng_state(),  # the CPU generator only
            "cuda": torch.cuda.get_rng_state_all(),  # one state per GPU; [] on a machine without one
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
saved = torch.load(path, weights_only=True)
print(list(saved), list(saved["rng"]))  # what the file holds ✓ checkpoint-keys
#> ['epoch', 'model', 'optimizer', 'scheduler', 'rng'] ['torch', 'cuda', 'numpy', 'python', 'loader']

print(torch.default_generator.device, torch.equal(torch.get_rng_state(), torch.default_generator.get_state()))  # ✓ cpu-generator
#> cpu True
rng_source = inspect.getsource(torch.get_rng_state)  # the installed torch's code: that generator, no other
assert rng_source.rstrip().endswith("return default_generator.get_state()")  # ✓ cpu-generator-only
print(len(torch.cuda.get_rng_state_all()) == torch.cuda.device_count())  # ✓ cuda-states
#> True
assert torch.cuda.is_available() or torch.cuda.get_rng_state_all() == []  # no GPU: an empty list ✓ cuda-states
source = inspect.getsource(torch.cuda.get_rng_state_all)  # the installed torch's code
print("ByteTensor" in source, "range(device_count())" in source)  # a byte tensor per visible GPU ✓ cuda-states-source
#> True True
# --8<-- [end:save]


# --8<-- [start:resume]
ALL_RNG = ("torch", "cuda", "numpy", "python", "loader")
ALL_STATES = ("optimizer", "scheduler")
RESUME_SEED = 123  # not the run's 0: nothing carries over but what the checkpoint holds


def resume(path: Path, device: str = "cpu", restore: tuple = ALL_RNG, states: tuple = ALL_STATES):
    """New objects from another seed, then the checkpoint: the model, the `states` and the generators in `restore`."""
    model, opt, sched, loader = make_training(seed=RESUME_SEED, device=device)  # other initial weights
    ckpt = torch.load(path, weights_only=True)  # tensors, numbers, strings, tuples, dicts: all allowed
    model.load_state_dict(ckpt["model"])
    if "optimizer" in states:
        opt.load_state_dict(ckpt["optimizer"])  # its state moves to the parameters' device
    if "scheduler" in states:
        sched.load_state_dict(ckpt["scheduler"])
    rng = ckpt["rng"]
    if "torch" in restore:
        torch.set_rng_state(rng["torch"])
    if "cuda" in restore:
        torch.cuda.set_rng_state_all(rng["cuda"])
    if "numpy" in restore:
        set_numpy_state(rng["numpy"])
    if "python" in restore:
        random.setstate(rng["python"])
    if "loader" in restore:
        loader.generator.set_state(rng["loader"])
    return ckpt["epoch"], model, opt, sched, loader


start, model, opt, sched, loader = resume(path)
second_half = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
print(first_half + second_half == straight)  # every loss, bit for bit ✓ same-losses
#> True
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), straight_params, strict=True)))  # every weight ✓ same-weights
#> True
print(sched.last_epoch, sched.get_last_lr(), opt.param_groups[0]["lr"])  # 0.01 halved once, after epoch 3 ✓ lr-halved
#> 4 [0.005] 0.005
# --8<-- [end:resume]

# --8<-- [start:without-rng]
start, model, opt, sched, loader = resume(path, restore=())
resumed = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
print(first_half + resumed == straight)  # another shuffle, other noise, other dropout masks ✓ without-rng
#> False
print(all(torch.equal(p, q) for p, q in zip(model.parameters(), straight_params, strict=True)))  # ✓ without-rng-weights
#> False


def next_draws(loader) -> list:
    """What each generator gives next: the epoch's order, NumPy's noise, Python's factor, a dropout mask."""
    order = torch.cat([yb for _, yb in loader]).flatten().tolist()  # the loader's generator
    noise = np.random.normal(0, 0.01, 4).tolist()
    factor = random.uniform(0.9, 1.1)
    mask = F.dropout(torch.ones(16), 0.2).tolist()  # the CPU generator, as nn.Dropout draws
    return [order, noise, factor, mask]


restored = next_draws(resume(path)[4])
not_restored = next_draws(resume(path, restore=())[4])
print([a != b for a, b in zip(restored, not_restored, strict=True)])  # shuffle, noise, factor, mask ✓ draws-differ
#> [True, True, True, True]
for name in ALL_RNG:  # each generator matters: leave out any one of them, and the run differs
    start, model, opt, sched, loader = resume(path, restore=tuple(g for g in ALL_RNG if g != name))
    resumed = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
    print(f"all but {name}: {first_half + resumed == straight}")  # ✓ each-generator
    #> all but torch: False
    #> all but cuda: True
    #> all but numpy: False
    #> all but python: False
    #> all but loader: False
for name in ALL_STATES:  # so does the optimizer's state (Adam's moments) or the scheduler's (its epoch count)
    start, model, opt, sched, loader = resume(path, states=tuple(s for s in ALL_STATES if s != name))
    resumed = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
    print(f"without the {name}'s state: {first_half + resumed == straight}, epoch count {sched.last_epoch}, lr {sched.get_last_lr()}")  # ✓ each-state
    #> without the optimizer's state: False, epoch count 4, lr [0.005]
    #> without the scheduler's state: False, epoch count 2, lr [0.01]
sched.step()  # the scheduler that lost its state, at the end of a fifth epoch: its count reaches 3
print(sched.last_epoch, sched.get_last_lr())  # halved only now, two epochs after the uninterrupted run ✓ late-halving
#> 3 [0.005]
fresh_0, fresh_resume = make_training(seed=0)[0], make_training(seed=RESUME_SEED)[0]  # before any checkpoint is loaded
assert not torch.equal(fresh_0[0].weight, fresh_resume[0].weight)  # resume's seed: other initial weights ✓ other-seed
# --8<-- [end:without-rng]

# --8<-- [start:gpu]
if torch.cuda.is_available():  # requires: cuda (on a GPU, dropout draws from the GPU's generator)
    model, opt, sched, loader = make_training(seed=0, device="cuda")
    gpu_straight = [train_epoch(model, opt, sched, loader) for epoch in range(4)]

    model, opt, sched, loader = make_training(seed=0, device="cuda")
    cpu_state = torch.get_rng_state()
    gpu_first = [train_epoch(model, opt, sched, loader) for epoch in range(2)]
    assert torch.equal(torch.get_rng_state(), cpu_state)  # the CPU generator was not drawn from ✓ gpu-not-cpu
    torch.save(checkpoint(2, model, opt, sched, loader), path)

    start, model, opt, sched, loader = resume(path, device="cuda")
    gpu_second = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
    assert gpu_first + gpu_second == gpu_straight  # bit for bit on the GPU too ✓ gpu-resume

    no_cuda = tuple(g for g in ALL_RNG if g != "cuda")  # torch.get_rng_state() alone: the CPU's
    start, model, opt, sched, loader = resume(path, device="cuda", restore=no_cuda)
    gpu_second = [train_epoch(model, opt, sched, loader) for epoch in range(start, 4)]
    assert gpu_first + gpu_second != gpu_straight  # other dropout masks ✓ gpu-needs-cuda-state
# --8<-- [end:gpu]

# --8<-- [start:weights-only]
buffer = io.BytesIO()
state = np.random.get_state()  # the state as NumPy returns it: its keys are a NumPy array
torch.save({"numpy": state}, buffer)
buffer.seek(0)
try:
    torch.load(buffer)  # the default: weights_only=True
except pickle.UnpicklingError as err:
    reason = next(line for line in str(err).splitlines() if "WeightsUnpickler error" in line)
    print(reason.strip().split(" was not")[0])  # ✓ weights-only-error
    #> WeightsUnpickler error: Unsupported global: GLOBAL numpy._core.multiarray._reconstruct
    assert "arbitrary code execution" in str(err)  # what weights_only=False would risk ✓ arbitrary-code
numpy_types = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, np.dtypes.UInt32DType]
buffer.seek(0)
with torch.serialization.safe_globals(numpy_types):  # allowed for this load only
    loaded = torch.load(buffer, weights_only=True)["numpy"]
    print(loaded[0], all(np.array_equal(a, b) for a, b in zip(loaded, state, strict=True)))  # ✓ safe-globals
    #> MT19937 True
buffer.seek(0)
print(type(torch.load(buffer, weights_only=False)["numpy"][1]))  # only for a file you trust ✓ weights-only-false
#> <class 'numpy.ndarray'>
tmp.cleanup()
# --8<-- [end:weights-only]
