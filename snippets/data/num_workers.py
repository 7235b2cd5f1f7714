"""num_workers: worker processes, seeding them, persistent workers, and the benchmark's pipeline.

Page: docs/data/num_workers.md
Timing lives in benchmarks/num_workers.py (`make bench-num-workers`), not here:
this script checks facts that do not depend on the machine's speed, and runs
the benchmark's pipeline (the `pipeline` section, which the benchmark itself
loads from this file) once on a small size.
"""

# --8<-- [start:setup]
import inspect
import multiprocessing
import os
import random
import re
import time
import warnings

import numpy as np
import torch
from matplotlib import cbook
from PIL import Image
from torch.utils.data import DataLoader, Dataset, get_worker_info
from torchvision import transforms

# --8<-- [end:setup]

# --8<-- [start:processes]
COUNTER = 0  # a module-level variable the workers will try to change


class WhoLoadsMe(Dataset):
    """Each sample records the process, worker and torch threads that produced it."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> dict:
        global COUNTER
        COUNTER += 1  # in a worker this changes the worker's copy only
        info = get_worker_info()  # None in the main process
        parent = multiprocessing.parent_process()
        return {
            "index": index,
            "pid": os.getpid(),
            "parent": parent.pid if parent else None,
            "worker": info.id if info else -1,
            "threads": torch.get_num_threads(),
            "counter": COUNTER,
        }


main_pid = os.getpid()
print(multiprocessing.get_start_method())  # how worker processes are started (Linux) ✓ fork
#> fork
loader = DataLoader(WhoLoadsMe(), batch_size=None, num_workers=2)  # batch_size=None: no batching
samples = list(loader)
worker_pids = {s["pid"] for s in samples}
print(len(worker_pids), main_pid in worker_pids, {s["parent"] == main_pid for s in samples})  # ✓ two-pids
#> 2 False {True}
print([s["worker"] for s in samples])  # index i is loaded by worker i % 2 ... ✓ round-robin
#> [0, 1, 0, 1, 0, 1, 0, 1]
print([s["index"] for s in samples])  # ... and the loader returns the samples in order ✓ in-order
#> [0, 1, 2, 3, 4, 5, 6, 7]
print([s["counter"] for s in samples], COUNTER)  # each worker counts in its own copy; main: 0 ✓ own-copy
#> [1, 1, 2, 2, 3, 3, 4, 4] 0
print({s["threads"] for s in samples})  # each worker: 1 torch thread ✓ one-thread
#> {1}
# --8<-- [end:processes]

# --8<-- [start:main-process]
samples = list(DataLoader(WhoLoadsMe(), batch_size=None, num_workers=0))
print({s["pid"] == main_pid for s in samples}, {s["worker"] for s in samples}, COUNTER)  # ✓ main-process
#> {True} {-1} 8
before = COUNTER
lazy = iter(DataLoader(WhoLoadsMe(), batch_size=None, num_workers=0))
started = COUNTER - before  # the iterator exists, nothing is loaded yet
next(lazy)
after_one = COUNTER - before
next(lazy)
print(started, after_one, COUNTER - before)  # loaded when the loop asks for it, one sample per next ✓ on-demand
#> 0 1 2
COUNTER = before  # undo, so that the counts below stay as they were
# --8<-- [end:main-process]


# --8<-- [start:persistent]
def running(pids: set[int]) -> int:
    """How many of these processes are still running children of this process."""
    return len(pids & {p.pid for p in multiprocessing.active_children()})


second_epoch = list(loader)  # the loader of the first section, again
print("default, epoch 2: same processes?", {s["pid"] for s in second_epoch} == worker_pids)  # ✓ new-processes
#> default, epoch 2: same processes? False
print(running(worker_pids), running({s["pid"] for s in second_epoch}))  # stopped after each epoch ✓ stopped
#> 0 0
print([s["counter"] for s in second_epoch])  # new copies of the main process's COUNTER (8) ✓ new-copies
#> [9, 9, 10, 10, 11, 11, 12, 12]

loader = DataLoader(WhoLoadsMe(), batch_size=None, num_workers=2, persistent_workers=True)
epoch_1, epoch_2 = list(loader), list(loader)
pids = {s["pid"] for s in epoch_1}
print("persistent, epoch 2: same processes?", {s["pid"] for s in epoch_2} == pids, running(pids))  # ✓ persistent
#> persistent, epoch 2: same processes? True 2
print([s["counter"] for s in epoch_2])  # the same copies, still counting ✓ still-counting
#> [13, 13, 14, 14, 15, 15, 16, 16]
del loader  # persistent workers live as long as their loader: stop them now
# --8<-- [end:persistent]


# --8<-- [start:too-many]
cpus = len(os.sched_getaffinity(0))  # CPUs this process may run on
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    DataLoader(WhoLoadsMe(), num_workers=cpus + 1)  # warns already here, before any worker starts
message = str(caught[0].message)
print(message.replace(str(cpus + 1), "<cpus+1>").replace(str(cpus), "<cpus>"))  # ✓ too-many
#> This DataLoader will create <cpus+1> worker processes in total. Our suggested max number of worker in current system is <cpus>, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
with warnings.catch_warnings(record=True) as at_cpus:
    warnings.simplefilter("always")
    DataLoader(WhoLoadsMe(), num_workers=cpus)  # as many workers as CPUs
assert not at_cpus  # no warning: only more workers than CPUs warn ✓ at-cpus-quiet
all_cpus = os.sched_getaffinity(0)
try:
    os.sched_setaffinity(0, {min(all_cpus)})  # for a moment, this process may use one CPU
    with warnings.catch_warnings(record=True) as one_cpu:
        warnings.simplefilter("always")
        DataLoader(WhoLoadsMe(), num_workers=2)
finally:
    os.sched_setaffinity(0, all_cpus)  # all of them again
print(re.search(r"current system is (\d+),", str(one_cpu[0].message)).group(1))  # the suggested maximum ✓ may-use
#> 1
with warnings.catch_warnings(record=True) as twenty:
    warnings.simplefilter("always")
    DataLoader(WhoLoadsMe(), num_workers=20)  # the notes' value
assert bool(twenty) == (cpus < 20)  # a warning exactly where fewer than 20 CPUs ✓ notes-twenty
assert "self.num_workers > max_num_worker_suggest" in inspect.getsource(DataLoader.check_worker_number_rationality)  # on any machine ✓ notes-twenty
# --8<-- [end:too-many]


# --8<-- [start:pitfall]
class NoisyDataset(Dataset):
    """Random augmentation from a NumPy Generator the dataset owns."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)  # created once, in the main process

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> float:
        return round(float(self.rng.random()), 3)


class GlobalRandom(NoisyDataset):
    """The same, drawing from the global NumPy and torch generators instead."""

    def __getitem__(self, index: int) -> tuple[float, float, float]:
        return round(random.random(), 3), round(float(np.random.rand()), 3), round(torch.rand(1).item(), 3)


def epochs(dataset: Dataset, n: int = 2, **kwargs) -> list[list]:
    loader = DataLoader(dataset, batch_size=None, num_workers=2, **kwargs)
    return [[tuple(x) if isinstance(x, list) else x for x in loader] for _ in range(n)]


print(epochs(NoisyDataset()))  # every worker forks a copy of the same Generator, every epoch ✓ pitfall
#> [[0.637, 0.637, 0.27, 0.27], [0.637, 0.637, 0.27, 0.27]]
print(epochs(NoisyDataset(), persistent_workers=True))  # workers kept: copied once, the twins remain ✓ pitfall-persistent
#> [[0.637, 0.637, 0.27, 0.27], [0.041, 0.041, 0.017, 0.017]]
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def seed_worker(worker_id: int) -> None:
    info = get_worker_info()  # info.seed = base_seed + worker_id, new base_seed each epoch
    info.dataset.rng = np.random.default_rng(info.seed)  # the worker's own copy of the dataset


g = torch.Generator().manual_seed(0)  # base_seed comes from here: reproducible runs
fixed = epochs(NoisyDataset(), worker_init_fn=seed_worker, generator=g)
print(fixed)  # ✓ fixed
#> [[0.777, 0.653, 0.641, 0.267], [0.715, 0.005, 0.721, 0.815]]
values = fixed[0] + fixed[1]
assert len(set(values)) == len(values)  # no repeats across workers or epochs ✓ no-repeats
g.manual_seed(0)
again = epochs(NoisyDataset(), n=2, worker_init_fn=seed_worker, generator=g)
assert again == fixed  # same seed, same numbers, in both epochs ✓ reproducible


class WorkerSeeds(Dataset):
    """Each sample: (worker id, that worker's seed)."""

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> tuple[int, int]:
        return get_worker_info().id, get_worker_info().seed


for (w0, seed0), (w1, seed1) in epochs(WorkerSeeds()):  # two epochs
    print((w0, w1), seed1 - seed0)  # worker 1's seed is worker 0's + 1 ✓ seed-plus-id
    #> (0, 1) 1
    #> (0, 1) 1
first, second = (epoch[0][1] for epoch in epochs(WorkerSeeds()))
assert first != second  # a new base_seed every epoch ✓ new-base-seed
# --8<-- [end:fix]


# --8<-- [start:global-rng]
g.manual_seed(0)
[samples] = epochs(GlobalRandom(), n=1, generator=g)
print(samples)  # (random, numpy, torch) per sample: the DataLoader seeds all three per worker ✓ global-rng
#> [(0.213, 0.837, 0.782), (0.773, 0.67, 0.694), (0.276, 0.388, 0.054), (0.163, 0.076, 0.298)]
assert all(len({s[k] for s in samples}) == len(samples) for k in range(3))  # each generator ✓ each-generator
# --8<-- [end:global-rng]


# --8<-- [start:pipeline]
class AugmentedPhotos(Dataset):
    """`n` random ImageNet-style augmentations of one full-size photo (512 x 600)."""

    def __init__(self, n: int) -> None:
        with cbook.get_sample_data("grace_hopper.jpg") as f, Image.open(f) as img:
            self.photo = img.convert("RGB")
        self.n = n
        self.augment = transforms.Compose(
            [
                transforms.RandomResizedCrop(224),
                transforms.RandomHorizontalFlip(),
                transforms.ColorJitter(0.4, 0.4, 0.4, 0.1),
                transforms.ToTensor(),
                transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
            ]
        )

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> torch.Tensor:
        return self.augment(self.photo)


def epoch(loader: DataLoader, step_s: float) -> None:
    for _batch in loader:
        time.sleep(step_s)  # the training step, running on an accelerator


# --8<-- [end:pipeline]

# --8<-- [start:pipeline-run]
torch.manual_seed(0)
photos = AugmentedPhotos(16)
print(photos.photo.size)  # ✓ full-size
#> (512, 600)
for workers in (0, 2):  # one batch of 16, as in the benchmark
    [batch] = list(DataLoader(photos, batch_size=16, num_workers=workers))
    print(workers, batch.shape, f"{batch.nbytes / 1e6:.1f} MB", batch.is_shared())  # ✓ batch-shared
    #> 0 torch.Size([16, 3, 224, 224]) 9.6 MB False
    #> 2 torch.Size([16, 3, 224, 224]) 9.6 MB True
epoch(DataLoader(photos, batch_size=8, num_workers=2), step_s=0.01)  # what the benchmark times ✓ epoch-runs
# --8<-- [end:pipeline-run]
