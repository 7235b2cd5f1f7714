"""Reproducibility: seeds, deterministic algorithms, and DataLoader workers seeded through a generator.

Page: docs/training/reproducibility.md
"""

# --8<-- [start:setup]
import random
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


def seed_everything(seed: int) -> None:
    """Seed the three global generators a training script usually draws from."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
# --8<-- [end:setup]

# --8<-- [start:seeds]
def draw() -> tuple:
    return random.random(), np.random.rand(), torch.rand(1).item()


seed_everything(0)
first = draw()
seed_everything(0)
print(draw() == first)  # the same seeds, the same numbers
#> True
print([round(v, 4) for v in first])
#> [0.8444, 0.5488, 0.4963]

np.random.seed(0)
torch.manual_seed(0)  # each library has its own generator: this one leaves NumPy's alone ...
random.seed(1)  # ... and so does this one
print(np.random.rand() == first[1])
#> True
# --8<-- [end:seeds]

# --8<-- [start:deterministic]
values = torch.tensor([1.0, 2.0, 3.0, 4.0])
index = torch.tensor([0, 1, 1, 3])  # position 1 is written twice: which write wins?
torch.use_deterministic_algorithms(True)
try:
    torch.zeros(5).put_(index, values)
except RuntimeError as err:
    print(str(err).split(", but")[0])
    #> put_ does not have a deterministic implementation
    assert "torch.use_deterministic_algorithms(True)" in str(err)
finally:
    torch.use_deterministic_algorithms(False)

torch.use_deterministic_algorithms(True, warn_only=True)  # a warning instead of the error
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.zeros(5).put_(index, values)
    assert len(caught) == 1 and caught[0].category is UserWarning
    print(str(caught[0].message).split(", but")[0])
    #> put_ does not have a deterministic implementation

    print(torch.zeros(5).put_(index, values, accumulate=True))  # summing the duplicates: allowed
    #> tensor([1., 5., 0., 4., 0.])
finally:
    torch.use_deterministic_algorithms(False)
# --8<-- [end:deterministic]


# --8<-- [start:workers]
class NoisySquares(Dataset):
    """Sample i is (i, i**2 + noise); the noise comes from a generator the dataset owns."""

    def __init__(self, n: int = 8):
        self.n = n
        self.rng = np.random.default_rng(0)  # copied as it is into every worker

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return i, i**2 + round(float(self.rng.normal()), 3)


def seed_worker(worker_id: int) -> None:
    """Runs in each worker before it loads anything: re-seed the worker's copy of the dataset's generator."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)  # info.seed: drawn from the loader's generator


def one_epoch(seed: int, worker_init_fn=seed_worker) -> list:
    loader = DataLoader(
        NoisySquares(),
        batch_size=2,
        shuffle=True,
        num_workers=2,
        worker_init_fn=worker_init_fn,
        generator=torch.Generator().manual_seed(seed),  # shuffling AND the workers' seeds
    )
    return [(i.tolist(), v.tolist()) for i, v in loader]


run_1 = one_epoch(seed=0)
torch.rand(1000)  # other code drawing from the global generator between the runs
run_2 = one_epoch(seed=0)
print(run_1 == run_2)  # two runs: the same order and the same noise
#> True
for indices, values in run_1:
    print(indices, values)
    #> [5, 3] [24.593, 8.722]
    #> [1, 7] [1.467, 49.163]
    #> [2, 6] [5.836, 36.714]
    #> [4, 0] [14.697, -0.743]
print(one_epoch(seed=1) != run_1)  # and the generator's seed is what decides them
#> True
# --8<-- [end:workers]

# --8<-- [start:no-init-fn]
noise = [round(v - i**2, 3) for indices, values in one_epoch(seed=0, worker_init_fn=None)
         for i, v in zip(indices, values, strict=True)]
print(noise)  # without worker_init_fn: both workers draw the same noise sequence
#> [0.126, -0.132, 0.126, -0.132, 0.64, 0.105, 0.64, 0.105]
assert noise[0:2] == noise[2:4] and noise[4:6] == noise[6:8]  # worker 1's batches repeat worker 0's
# --8<-- [end:no-init-fn]
