"""DataLoader workers and shared memory: how batches travel, the sharing strategies, the open files each
one keeps, a worker killed by a signal and the messages it gives, num_workers=0 as a diagnosis.

Page: docs/data/shared_memory.md
Linux: the sharing strategies and the signals are Linux's. Worker process ids are not printed.
"""

# --8<-- [start:setup]
import contextlib
import mmap
import os
import re
import signal
import tempfile
from pathlib import Path

import torch
import torch.multiprocessing
from torch.utils.data import DataLoader, Dataset

scratch = tempfile.TemporaryDirectory()
tmp = Path(scratch.name)


class Numbers(Dataset):
    """Eight samples of four numbers each."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.full((4,), float(index))


# --8<-- [end:setup]

# --8<-- [start:how-batches-travel]
in_main = next(iter(DataLoader(Numbers(), batch_size=4)))
from_worker = next(iter(DataLoader(Numbers(), batch_size=4, num_workers=1)))
print(in_main.is_shared(), from_worker.is_shared())  # a worker's batch arrives in shared memory ✓ shared-batch
#> False True
print(torch.equal(in_main, from_worker))  # ✓ same-batch
#> True
print(DataLoader(Numbers(), batch_size=4, num_workers=2).prefetch_factor)  # batches each worker loads ahead ✓ prefetch
#> 2
dataloader_source = Path(torch.utils.data.dataloader.__file__).read_text(encoding="utf-8")
started = iter(DataLoader(Numbers(), batch_size=1, num_workers=2))  # 8 batches of one sample
print(started._tasks_outstanding)  # batches asked for as the workers start: 2 workers x 2 ahead ✓ in-flight
#> 4
del started  # stops its workers
batch_bytes = 64 * 3 * 224 * 224 * 4  # a batch of 64 float32 images, 3 x 224 x 224
print(round(2 * 2 * batch_bytes / 2**20))  # MiB in shared memory for 2 workers x 2 batches ahead ✓ estimate
#> 147
# --8<-- [end:how-batches-travel]

# --8<-- [start:strategies]
print(sorted(torch.multiprocessing.get_all_sharing_strategies()))  # on Linux ✓ strategies
#> ['file_descriptor', 'file_system']
print(torch.multiprocessing.get_sharing_strategy())  # the default on Linux ✓ default-strategy
#> file_descriptor


class ManyTensors(Dataset):
    """One sample holding 50 separate tensors (each one is shared on its own), and the worker's pid."""

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: int) -> tuple:
        return os.getpid(), [torch.full((3,), float(k)) for k in range(50)]


def shared_memory_files(pid: int) -> int:
    """How many files in /dev/shm made by process `pid` this process holds open."""
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # an fd closed since the listing
            held += os.readlink(f"/proc/self/fd/{fd}").startswith(f"/dev/shm/torch_{pid}_")
    return held


print(torch.multiprocessing.get_context().get_start_method())  # how workers start here: a copy of this process ✓ start-method
#> fork
default = torch.multiprocessing.get_sharing_strategy()
try:
    for strategy in ("file_descriptor", "file_system"):
        torch.multiprocessing.set_sharing_strategy(strategy)  # before the loader starts its workers
        [(worker_pid, tensors)] = list(DataLoader(ManyTensors(), batch_size=None, num_workers=1))
        print(strategy, tensors[7].tolist(), shared_memory_files(worker_pid))  # ✓ open-files
        #> file_descriptor [7.0, 7.0, 7.0] 50
        #> file_system [7.0, 7.0, 7.0] 0
        del tensors
finally:
    torch.multiprocessing.set_sharing_strategy(default)  # a process-wide setting: put it back
early = DataLoader(ManyTensors(), batch_size=None, num_workers=1, persistent_workers=True)
list(early)  # its worker starts now, with the default strategy, and stays
try:
    torch.multiprocessing.set_sharing_strategy("file_system")  # too late for that worker
    [(late_pid, late_tensors)] = list(early)
    print(torch.multiprocessing.get_sharing_strategy(), shared_memory_files(late_pid))  # ✓ too-late
    #> file_system 50
    del late_tensors
finally:
    torch.multiprocessing.set_sharing_strategy(default)
    del early  # stops its worker
assert torch.multiprocessing.get_sharing_strategy() == default == "file_descriptor"  # the default is back ✓ default-back
# --8<-- [end:strategies]


# --8<-- [start:killed]
class Crashes(Dataset):
    """A dataset whose worker process sends itself a signal when it loads a sample."""

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os.kill(os.getpid(), self.signal_number)  # what the kernel does on a failed shared-memory write
        return torch.zeros(2)


def worker_stderr_to_file(worker_id: int) -> None:
    """Send the worker's stderr to a file, to read what it wrote before it died."""
    os.dup2(os.open(tmp / "worker.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)


for signal_number in (0, signal.SIGBUS, signal.SIGKILL):  # 0 sends no signal: a control run
    try:
        batches = list(DataLoader(Crashes(signal_number), num_workers=1, worker_init_fn=worker_stderr_to_file))
        print(signal_number, len(batches), "batches")  # ✓ control
        #> 0 4 batches
    except RuntimeError as err:
        signal_error = err.__cause__ or err  # the loader's check of its workers
        print(re.sub(r"pid \d+", "pid N", str(signal_error)).strip())  # ✓ killed-message
        #> DataLoader worker (pid N) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
        #> DataLoader worker (pid N) is killed by signal: Killed.
        wrapped = str(err).startswith("DataLoader worker (pid(s) ") and str(err).endswith(") exited unexpectedly")
        assert wrapped or err is signal_error  # raised as it is, or under "exited unexpectedly" ✓ exited-message
    print(repr((tmp / "worker.err").read_text().strip("\x00\n")))  # what the worker wrote ✓ worker-stderr
    #> ''
    #> 'ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).'
    #> ''
# --8<-- [end:killed]


# --8<-- [start:num-workers-zero]
class Broken(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.tensor([1.0, 2.0]).view(3)  # a bug in the dataset


for workers in (1, 0):
    try:
        list(DataLoader(Broken(), num_workers=workers))
    except RuntimeError as err:
        print(workers, str(err).splitlines()[0], "Traceback (most recent call last)" in str(err))  # ✓ zero-workers
        #> 1 Caught RuntimeError in DataLoader worker process 0. True
        #> 0 shape '[3]' is invalid for input of size 2 False
# --8<-- [end:num-workers-zero]

# --8<-- [start:messages]
def library_has(name: str, *texts: bytes) -> bool:
    """Whether the installed torch's library `name` (a glob, under torch/lib) holds every text."""
    found = False
    for path in (Path(torch.__file__).parent / "lib").glob(name):
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = found or all(data.find(text) >= 0 for text in texts)  # read from disk as needed
    return found


print(  # where each message is written in the installed torch ✓ messages
    {
        "is killed by signal": library_has("*torch_python*", b"DataLoader worker (pid ", b"by signal: "),
        "out of shared memory": library_has("*torch_python*", b"workers are out of shared memory"),
        "bus error in worker": library_has("*torch_python*", b"Unexpected bus error encountered in worker"),
        "unable to open shared memory object": library_has("*torch_cpu*", b"unable to open shared memory object"),
        "Too many open files": "Too many open files. Communication with the" in dataloader_source,
        "names both fixes": "`ulimit -n`" in dataloader_source and "set_sharing_strategy('file_system')" in dataloader_source,
    }
)
#> {'is killed by signal': True, 'out of shared memory': True, 'bus error in worker': True, 'unable to open shared memory object': True, 'Too many open files': True, 'names both fixes': True}
scratch.cleanup()
# --8<-- [end:messages]
