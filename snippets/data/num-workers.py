"""num_workers: worker processes, seeding them, persistent workers.

Page: docs/data/num-workers.md
Timing lives in benchmarks/num_workers.py (`make bench-num-workers`), not here:
this script checks facts that do not depend on the machine's speed.
"""

import multiprocessing
import os
import random
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

COUNTER = 0  # a module-level variable the workers will try to change


# --8<-- [start:processes]
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
            "pid": os.getpid(),
            "parent": parent.pid if parent else None,
            "worker": info.id if info else -1,
            "threads": torch.get_num_threads(),
        }


main_pid = os.getpid()
loader = DataLoader(WhoLoadsMe(), batch_size=None, num_workers=2)  # batch_size=None: no batching
samples = list(loader)
worker_pids = {s["pid"] for s in samples}
print(len(worker_pids), main_pid in worker_pids, {s["parent"] == main_pid for s in samples})
#> 2 False {True}
print([s["worker"] for s in samples])  # index i is loaded by worker i % 2, returned in order
#> [0, 1, 0, 1, 0, 1, 0, 1]
print({s["threads"] for s in samples}, COUNTER)  # each worker: 1 torch thread; main's COUNTER: 0
#> {1} 0
# --8<-- [end:processes]

# --8<-- [start:main-process]
samples = list(DataLoader(WhoLoadsMe(), batch_size=None, num_workers=0))
print({s["pid"] == main_pid for s in samples}, {s["worker"] for s in samples}, COUNTER)
#> {True} {-1} 8
# --8<-- [end:main-process]

# --8<-- [start:persistent]
second_epoch = {s["pid"] for s in loader}  # the loader of the first section, again
print("persistent_workers=False, same processes in epoch 2:", second_epoch == worker_pids)
#> persistent_workers=False, same processes in epoch 2: False
loader = DataLoader(WhoLoadsMe(), batch_size=None, num_workers=2, persistent_workers=True)
pids_per_epoch = [{s["pid"] for s in loader} for _ in range(2)]
print("persistent_workers=True, same processes in epoch 2:", pids_per_epoch[0] == pids_per_epoch[1])
#> persistent_workers=True, same processes in epoch 2: True
del loader  # persistent workers live as long as their loader: stop them now
# --8<-- [end:persistent]


# --8<-- [start:too-many]
cpus = len(os.sched_getaffinity(0))  # CPUs this process may run on
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    DataLoader(WhoLoadsMe(), num_workers=cpus + 1)  # warns already here, before any worker starts
message = str(caught[0].message)
print(message.replace(str(cpus + 1), "<cpus+1>").replace(str(cpus), "<cpus>"))
#> This DataLoader will create <cpus+1> worker processes in total. Our suggested max number of worker in current system is <cpus>, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
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


print(epochs(NoisyDataset()))  # every worker forks a copy of the same Generator, every epoch
#> [[0.637, 0.637, 0.27, 0.27], [0.637, 0.637, 0.27, 0.27]]
# --8<-- [end:pitfall]


# --8<-- [start:fix]
def seed_worker(worker_id: int) -> None:
    info = get_worker_info()  # info.seed = base_seed + worker_id, new base_seed each epoch
    info.dataset.rng = np.random.default_rng(info.seed)  # the worker's own copy of the dataset


g = torch.Generator().manual_seed(0)  # base_seed comes from here: reproducible runs
fixed = epochs(NoisyDataset(), worker_init_fn=seed_worker, generator=g)
print(fixed)
#> [[0.777, 0.653, 0.641, 0.267], [0.715, 0.005, 0.721, 0.815]]
values = fixed[0] + fixed[1]
assert len(set(values)) == len(values)  # no repeats across workers or epochs
g.manual_seed(0)
again = epochs(NoisyDataset(), n=1, worker_init_fn=seed_worker, generator=g)
assert again[0] == fixed[0]  # same seed, same numbers
# --8<-- [end:fix]


# --8<-- [start:global-rng]
g.manual_seed(0)
[samples] = epochs(GlobalRandom(), n=1, generator=g)
print(samples)  # (random, numpy, torch) per sample: the DataLoader seeds all three per worker
#> [(0.213, 0.837, 0.782), (0.773, 0.67, 0.694), (0.276, 0.388, 0.054), (0.163, 0.076, 0.298)]
assert len(set(samples)) == len(samples)
# --8<-- [end:global-rng]
