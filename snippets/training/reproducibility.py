"""Reproducibility: seeds, deterministic algorithms, and DataLoader workers seeded through a generator.

Page: docs/training/reproducibility.md
"""

# --8<-- [start:setup]
import inspect
import multiprocessing
import random
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

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


if __name__ == "__main__":  # not when a worker started with spawn imports this file: see below
    seed_everything(0)
    first = draw()
    seed_everything(0)
    print(draw() == first)  # the same seeds, the same numbers ✓ same-seeds
    #> True
    print([round(v, 4) for v in first])
    #> [0.8444, 0.5488, 0.4963]

    np.random.seed(0)
    torch.manual_seed(0)  # each library has its own generator: this one leaves NumPy's alone ...
    random.seed(1)  # ... and so does this one
    print(np.random.rand() == first[1])  # ✓ own-generators
    #> True
# --8<-- [end:seeds]

# --8<-- [start:deterministic]
if __name__ == "__main__":
    values = torch.tensor([1.0, 2.0, 3.0, 4.0])
    index = torch.tensor([0, 1, 1, 3])  # position 1 is written twice: which write wins?
    put_doc = " ".join(torch.Tensor.put_.__doc__.split())
    assert "the behavior is undefined if :attr:`index` contain duplicate elements" in put_doc  # ✓ put-undefined
    documented = " ".join(inspect.getdoc(torch.use_deterministic_algorithms).split())
    rule = "if only nondeterministic algorithms are available they will throw a :class:`RuntimeError` when called"
    assert rule in documented  # the general rule, as the docstring states it ✓ throws-doc
    torch.use_deterministic_algorithms(True)
    try:
        for positions in (index, torch.tensor([0, 1, 2, 3])):  # with a repeat, and without: both refused
            target = torch.zeros(5)
            try:
                target.put_(positions, values)
            except RuntimeError as err:
                print(positions.tolist(), str(err).split(", but")[0])  # ✓ put-error
                #> [0, 1, 1, 3] put_ does not have a deterministic implementation
                #> [0, 1, 2, 3] put_ does not have a deterministic implementation
                assert "torch.use_deterministic_algorithms(True)" in str(err)
            assert target.tolist() == [0.0] * 5  # refused before writing anything ✓ put-refused
    finally:
        torch.use_deterministic_algorithms(False)

    torch.use_deterministic_algorithms(True, warn_only=True)  # a warning instead of the error
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            written = torch.zeros(5).put_(index, values)
        assert len(caught) == 1 and caught[0].category is UserWarning  # ✓ warn-only
        assert written[0] == 1 and written[1] in (2, 3) and written[3] == 4  # and the call ran ✓ warn-only
        print(str(caught[0].message).split(", but")[0])
        #> put_ does not have a deterministic implementation

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(torch.zeros(5).put_(index, values, accumulate=True))  # summing the duplicates: allowed ✓ accumulate
            #> tensor([1., 5., 0., 4., 0.])
        assert caught == []  # and no warning ✓ accumulate-silent
    finally:
        torch.use_deterministic_algorithms(False)
    print(torch.are_deterministic_algorithms_enabled())  # a global setting: switched off again ✓ switched-off
    #> False

    # on a GPU (the box below): what the docstrings say, and a default
    refused = documented.split("operations will throw")[1]  # the ops that raise in deterministic mode
    examples = ["AdaptiveAvgPool2d` when attempting to differentiate a CUDA tensor", "NLLLoss` when called on a CUDA tensor"]
    assert all(op in refused for op in examples)  # ✓ cuda-refused
    assert "put_` when ``accumulate=True`` and called on a CUDA tensor" in refused  # ✓ accumulate-cuda-refused
    assert "on all devices" in inspect.getdoc(torch.manual_seed)  # ✓ seeds-all-devices
    print(torch.backends.cudnn.benchmark)  # cuDNN does not time algorithms unless asked to ✓ benchmark-off
    #> False
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


def one_epoch(seed: int, worker_init_fn=seed_worker, start_method: str | None = None) -> list:
    loader = DataLoader(
        NoisySquares(),
        batch_size=2,
        shuffle=True,
        num_workers=2,
        worker_init_fn=worker_init_fn,
        generator=torch.Generator().manual_seed(seed),  # shuffling AND the workers' seeds
        multiprocessing_context=start_method,  # None: the platform's default
    )
    return [(i.tolist(), v.tolist()) for i, v in loader]


def noise_of(run: list) -> list:
    """The noise an epoch drew, sorted: the same values whatever the order of the samples."""
    return sorted(round(v - i**2, 3) for indices, values in run for i, v in zip(indices, values, strict=True))


if __name__ == "__main__":  # a spawned worker imports this file: it must not start loaders itself
    loader_doc = " ".join(DataLoader.__doc__.split())  # worker_init_fn: "called on each worker subprocess ..."
    assert "after seeding and before data loading" in loader_doc  # ✓ init-before-load
    run_1 = one_epoch(seed=0)
    torch.rand(1000)  # other code drawing from the global generator between the runs
    run_2 = one_epoch(seed=0)
    print(run_1 == run_2)  # two runs: the same order and the same noise ✓ two-runs
    #> True
    for indices, values in run_1:
        print(indices, values)
        #> [5, 3] [24.593, 8.722]
        #> [1, 7] [1.467, 49.163]
        #> [2, 6] [5.836, 36.714]
        #> [4, 0] [14.697, -0.743]
    other = one_epoch(seed=1)  # the generator's seed decides the order and the workers' noise:
    print([i for i, _ in other] != [i for i, _ in run_1], noise_of(other) != noise_of(run_1))  # ✓ other-seed
    #> True True
    print(multiprocessing.get_start_method())  # the default here, on Linux ✓ default-fork
    #> fork
    print(one_epoch(seed=0, start_method="spawn") == run_1)  # as macOS and Windows start workers ✓ spawn-same
    #> True
# --8<-- [end:workers]

# --8<-- [start:no-init-fn]
if __name__ == "__main__":
    noise = [round(v - i**2, 3) for indices, values in one_epoch(seed=0, worker_init_fn=None)
             for i, v in zip(indices, values, strict=True)]
    print(noise)  # without worker_init_fn: both workers draw the same noise sequence ✓ same-noise
    #> [0.126, -0.132, 0.126, -0.132, 0.64, 0.105, 0.64, 0.105]
    assert noise[0:2] == noise[2:4] and noise[4:6] == noise[6:8]  # worker 1's batches repeat worker 0's ✓ repeats
# --8<-- [end:no-init-fn]

# --8<-- [start:no-guard]
UNGUARDED = """
import multiprocessing

print("running as", __name__, flush=True)  # the script; then, in the worker, the script again
worker = multiprocessing.get_context("spawn").Process(target=print)  # as a DataLoader starts a worker
worker.start()
worker.join()
print("exit code of the worker:", worker.exitcode)
"""

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "unguarded.py"
        script.write_text(UNGUARDED)
        run = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
        )  # the script itself exits 0: only its worker fails
    print(run.stdout.strip())  # ✓ unguarded-exit
    #> running as __main__
    #> running as __mp_main__
    #> exit code of the worker: 1
    error = " ".join(run.stderr.split())  # the worker's traceback, its lines joined
    print(error[error.index("An attempt"):error.index("phase.") + 6])  # ✓ unguarded-error
    #> An attempt has been made to start a new process before the current process has finished its bootstrapping phase.
    assert "if __name__ == '__main__':" in error  # the message names the fix ✓ names-the-fix
# --8<-- [end:no-guard]
