"""Data loading errors: images of different sizes, PIL images in a batch, workers started with spawn.

Page: docs/errors/data_loading_errors.md
"""
# timeout: 120

# --8<-- [start:setup]
import gc
import io
import multiprocessing
import os
import pickle
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset, default_collate
from torchvision import transforms
from torchvision.transforms import v2


class Photos(Dataset):
    """A folder of photos, held in memory: one RGB image per (width, height) in `sizes`."""

    def __init__(self, sizes, transform=None):
        self.images = [Image.new("RGB", size, color=(40 * i, 100, 200)) for i, size in enumerate(sizes)]
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = self.images[i]
        return image if self.transform is None else self.transform(image)


to_tensor = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])  # PIL -> float C×H×W in [0, 1]
# --8<-- [end:setup]

# --8<-- [start:stack]
if __name__ == "__main__":  # the page starts workers with spawn below: see the last entry
    photos = Photos(sizes=[(32, 24), (40, 30)], transform=to_tensor)  # width × height
    try:
        next(iter(DataLoader(photos, batch_size=2)))
    except RuntimeError as err:
        loader_error = str(err)
        print(f"{type(err).__name__}: {err}")  # ✓ stack-message
        #> RuntimeError: stack expects each tensor to be equal size, but got [3, 24, 32] at entry 0 and [3, 30, 40] at entry 1
# --8<-- [end:stack]

# --8<-- [start:stack-why]
if __name__ == "__main__":
    print([tuple(image.shape) for image in photos])  # C×H×W: each sample is fine on its own ✓ stack-samples
    #> [(3, 24, 32), (3, 30, 40)]
    try:
        torch.stack([photos[0], photos[1]])  # what the default collate_fn does with a batch of tensors
    except RuntimeError as err:
        stack_error = str(err)
    assert stack_error == loader_error  # the same message, word for word ✓ stack-is-torch-stack
    try:
        torch.stack([photos[0], photos[0], photos[1], photos[1]])  # entries 0 to 3
    except RuntimeError as err:
        print(str(err)[str(err).index("but got"):])  # the first entry that differs from entry 0 ✓ stack-entry
        #> but got [3, 24, 32] at entry 0 and [3, 30, 40] at entry 2
    a, b, c = torch.zeros(1), torch.zeros(2), torch.zeros(3)
    for samples in ([a, b, c], [a, a, a, c, b], [b, b, a, c], [c, c, c, c, a]):  # three shapes, in other orders
        first = next(i for i, x in enumerate(samples) if x.shape != samples[0].shape)
        try:
            torch.stack(samples)
        except RuntimeError as err:
            message = str(err)
        expected = f"but got {list(samples[0].shape)} at entry 0 and {list(samples[first].shape)} at entry {first}"
        assert message.endswith(expected) and message.count("entry") == 2  # entry 0, the first that differs, no other ✓ stack-entry
    one_by_one = [tuple(batch.shape) for batch in DataLoader(photos, batch_size=1)]
    print(one_by_one)  # a batch of one stacks nothing unequal ✓ stack-batch-one
    #> [(1, 3, 24, 32), (1, 3, 30, 40)]
    try:
        next(iter(DataLoader(photos, batch_size=2, num_workers=1)))  # collated in a worker (fork, on Linux)
    except RuntimeError as err:
        print(str(err).splitlines()[0])  # the worker's error, re-raised in the main process ✓ stack-in-worker
        #> Caught RuntimeError in DataLoader worker process 0.
        assert "stack expects each tensor to be equal size" in str(err)  # the original, further down
# --8<-- [end:stack-why]

# --8<-- [start:stack-fix-resize]
if __name__ == "__main__":
    resized = Photos(sizes=[(32, 24), (40, 30)], transform=v2.Compose([v2.Resize((28, 28)), to_tensor]))
    batch = next(iter(DataLoader(resized, batch_size=2)))
    print(batch.shape)  # every sample resized to 28×28 in the transform ✓ stack-fix-resize
    #> torch.Size([2, 3, 28, 28])
    assert batch.shape == (2, 3, 28, 28)
    cropped = Photos(sizes=[(32, 24), (40, 30)], transform=v2.Compose([v2.CenterCrop((24, 24)), to_tensor]))
    assert next(iter(DataLoader(cropped, batch_size=2))).shape == (2, 3, 24, 24)  # or crop both to 24×24 ✓ stack-fix-crop
# --8<-- [end:stack-fix-resize]


# --8<-- [start:stack-fix-collate]
def pad_collate(samples):
    """Pads each C×H×W image with zeros at the right and bottom to the batch's largest H and W."""
    height = max(image.shape[1] for image in samples)
    width = max(image.shape[2] for image in samples)
    return torch.stack([F.pad(image, (0, width - image.shape[2], 0, height - image.shape[1])) for image in samples])


if __name__ == "__main__":
    batch = next(iter(DataLoader(photos, batch_size=2, collate_fn=pad_collate)))
    print(batch.shape)  # the largest height and width of the batch ✓ stack-fix-pad
    #> torch.Size([2, 3, 30, 40])
    assert torch.equal(batch[0, :, :24, :32], photos[0])  # the first image, unchanged, top left ✓ stack-fix-pad-content
    assert batch[0, :, 24:, :].eq(0).all() and batch[0, :, :, 32:].eq(0).all()  # zeros around it
    assert torch.equal(batch[1], photos[1])  # the largest image as it was
    mixed = Photos(sizes=[(40, 24), (32, 30)], transform=to_tensor)  # one is the wider, the other the taller
    mixed_batch = next(iter(DataLoader(mixed, batch_size=2, collate_fn=pad_collate)))
    assert mixed_batch.shape == (2, 3, 30, 40)  # the largest height and the largest width, from different images ✓ stack-fix-pad
# --8<-- [end:stack-fix-collate]

# --8<-- [start:pil]
if __name__ == "__main__":
    raw = Photos(sizes=[(32, 24), (32, 24)])  # no transform: __getitem__ returns the PIL image
    try:
        next(iter(DataLoader(raw, batch_size=2)))
    except TypeError as err:
        print(f"{type(err).__name__}: {err}")  # ✓ pil-message
        #> TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'PIL.Image.Image'>
# --8<-- [end:pil]

# --8<-- [start:pil-why]
if __name__ == "__main__":
    print(type(raw[0]))  # what the dataset returns ✓ pil-sample
    #> <class 'PIL.Image.Image'>
    kinds = [torch.zeros(2), np.zeros(2), raw[0].getpixel((0, 0)), {"label": 1}, [0.5, 1.5]]  # tensor, array, tuple, dict, list
    for sample in kinds:
        default_collate([sample, sample])  # each of these collates ✓ pil-collates-others
    assert torch.equal(default_collate([3, 3]), torch.tensor([3, 3]))  # numbers become a tensor ✓ pil-collates-others
    assert default_collate(["cat", "dog"]) == ["cat", "dog"]  # strings pass through as a list ✓ pil-collates-others
    assert default_collate([b"cat", b"dog"]) == [b"cat", b"dog"]  # and so do bytes ✓ pil-collates-others
    for other, named in [(object(), "<class 'object'>"), (np.array(["cat"]), "<U3")]:  # a type it does not know, and a NumPy array of strings
        refusal = "no error"
        try:
            default_collate([other, other])
        except TypeError as err:
            refusal = str(err)
        assert refusal.startswith("default_collate: batch must contain")  # ✓ pil-collates-others
        assert refusal.endswith(f"; found {named}")  # the type, or for a NumPy array its dtype ✓ pil-found
    try:
        default_collate([raw[0], raw[1]])  # the same call the loader made
    except TypeError as err:
        assert str(err).endswith("found <class 'PIL.Image.Image'>")  # ✓ pil-default-collate
    buffer = io.BytesIO()
    raw[0].save(buffer, format="JPEG")
    jpeg = Image.open(buffer)  # as a photo file opens
    try:
        default_collate([jpeg, jpeg])
    except TypeError as err:
        print(str(err).split("; ")[-1])  # a subclass of PIL.Image.Image, named as it is ✓ pil-jpeg
        #> found <class 'PIL.JpegImagePlugin.JpegImageFile'>
    assert isinstance(jpeg, Image.Image)
# --8<-- [end:pil-why]

# --8<-- [start:pil-fix]
if __name__ == "__main__":
    converted = Photos(sizes=[(32, 24), (32, 24)], transform=to_tensor)
    batch = next(iter(DataLoader(converted, batch_size=2)))
    print(batch.shape, batch.dtype, [round(v, 4) for v in batch[1, :, 0, 0].tolist()])  # ✓ pil-fix
    #> torch.Size([2, 3, 24, 32]) torch.float32 [0.1569, 0.3922, 0.7843]
    assert torch.allclose(batch[1, :, 0, 0] * 255, torch.tensor([40.0, 100.0, 200.0]))  # bytes / 255 ✓ pil-fix-scale
    assert torch.allclose(batch[1], transforms.ToTensor()(raw[1]))  # what v1's ToTensor gives ✓ pil-fix-totensor
    every_byte = Image.fromarray(np.arange(256, dtype=np.uint8).reshape(16, 16))
    new, old = to_tensor(every_byte), transforms.ToTensor()(every_byte)  # all 256 byte values
    in_last_bit = (new.view(torch.int32) - old.view(torch.int32)).abs()  # units in the last place
    assert in_last_bit.max() == 1  # some differ, each by one unit in the last place ✓ pil-fix-last-bit
    as_bytes = next(iter(DataLoader(Photos(sizes=[(32, 24)] * 2, transform=v2.PILToTensor()), batch_size=2)))
    print(as_bytes.dtype, as_bytes[1, :, 0, 0].tolist())  # PILToTensor: the bytes, unscaled ✓ pil-fix-bytes
    #> torch.uint8 [40, 100, 200]
# --8<-- [end:pil-fix]


# --8<-- [start:pickle]
def make_loader(dataset):
    def stack_samples(samples):  # defined inside a function: a local object
        return torch.stack(samples)

    return DataLoader(dataset, batch_size=2, num_workers=1, multiprocessing_context="spawn", collate_fn=stack_samples)


if __name__ == "__main__":
    numbers = [torch.tensor([float(i)]) for i in range(4)]
    for loader in [
        make_loader(numbers),
        DataLoader(numbers, batch_size=2, num_workers=1, multiprocessing_context="spawn",
                   collate_fn=lambda samples: torch.stack(samples, dim=0)),  # a lambda: no name to look up
    ]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                next(iter(loader))
            except (AttributeError, pickle.PicklingError) as err:
                print(f"{type(err).__name__}: {err}")  # ✓ pickle-message
                #> AttributeError: Can't pickle local object 'make_loader.<locals>.stack_samples'
                #> PicklingError: Can't pickle <function <lambda> at 0x…>: attribute lookup <lambda> on __main__ failed
        print(f"{caught[0].category.__name__}: {str(caught[0].message).split('. ')[0]}.")  # ✓ pickle-warning
        #> UserWarning: Got pickle error when attempting to start a worker Process.
        #> UserWarning: Got pickle error when attempting to start a worker Process.
        assert "Python 3.14+ changed the multiprocessing start method" in str(caught[0].message)  # ✓ pickle-warning-314
    dataset_error = "no error"
    with warnings.catch_warnings(record=True):  # the same warning again
        warnings.simplefilter("always")
        try:  # a dataset holding a lambda, with the default collate_fn: the dataset is pickled too
            next(iter(DataLoader([lambda: 0], num_workers=1, multiprocessing_context="spawn")))
        except (AttributeError, pickle.PicklingError) as err:
            dataset_error = str(err)
    assert "<lambda>" in dataset_error  # ✓ pickle-dataset
# --8<-- [end:pickle]

# --8<-- [start:pickle-why]
if __name__ == "__main__":
    for collate_fn in [make_loader(numbers).collate_fn, lambda samples: torch.stack(samples, dim=0)]:
        print(collate_fn.__qualname__)  # what pickle would look up in the worker, by name ✓ pickle-qualname
        #> make_loader.<locals>.stack_samples
        #> <lambda>
        refusal = ""
        try:
            pickle.dumps(collate_fn)  # what starting a spawn worker does, without starting one
        except (AttributeError, pickle.PicklingError) as err:
            refusal = str(err)
        assert "local object" in refusal or "<lambda>" in refusal  # ✓ pickle-dumps
        assert collate_fn(numbers[:2]).shape == (2, 1)  # the function itself works: only pickling it fails
    forked = DataLoader(numbers, batch_size=2, num_workers=1, collate_fn=make_loader(numbers).collate_fn)  # no context
    print(multiprocessing.get_start_method(), [batch.flatten().tolist() for batch in forked])  # fork: nothing pickled ✓ pickle-fork
    #> fork [[0.0, 1.0], [2.0, 3.0]]
# --8<-- [end:pickle-why]


# --8<-- [start:pickle-fix]
def stack_samples(samples):  # at module level: the worker finds it as __main__.stack_samples
    return torch.stack(samples)


if __name__ == "__main__":
    pickled = pickle.dumps(stack_samples)  # the bytes a spawned worker receives
    assert b"__main__" in pickled and stack_samples.__qualname__.encode() in pickled  # its module and name ✓ pickle-by-name
    assert pickle.loads(pickled) is stack_samples  # looked up by that name, the same function ✓ pickle-by-name
    assert stack_samples(numbers[:2]).shape == (2, 1)  # the same function as before, here in the main process
    loader = DataLoader(numbers, batch_size=2, num_workers=1, multiprocessing_context="spawn", collate_fn=stack_samples)
    batches = [batch.flatten().tolist() for batch in loader]
    print(batches)  # collated in the spawned worker ✓ pickle-fix
    #> [[0.0, 1.0], [2.0, 3.0]]
    assert batches == [[0.0, 1.0], [2.0, 3.0]]
# --8<-- [end:pickle-fix]

# --8<-- [start:bootstrap]
UNGUARDED = """
import torch
from torch.utils.data import DataLoader

loader = DataLoader(torch.arange(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")
print(next(iter(loader)))
"""

if __name__ == "__main__":
    assert "__main__" not in UNGUARDED and 'num_workers=1, multiprocessing_context="spawn"' in UNGUARDED  # ✓ bootstrap-unguarded
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "train.py"
        script.write_text(UNGUARDED)
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert run.args == [sys.executable, str(script)] and script.parent.parent == Path(tempfile.gettempdir())  # ✓ bootstrap-fresh
    error = " ".join(run.stderr.split())  # both tracebacks, the worker's and the script's, lines joined
    print(error[error.index("RuntimeError: An attempt"):error.index("phase.") + 6])  # the worker's ✓ bootstrap-message
    #> RuntimeError: An attempt has been made to start a new process before the current process has finished its bootstrapping phase.
    print(re.sub(r"pid\(s\) \d+", "pid(s) <pid>", run.stderr.strip().splitlines()[-1]))  # the script's last line ✓ bootstrap-parent
    #> RuntimeError: DataLoader worker (pid(s) <pid>) exited unexpectedly
    assert run.returncode == 1 and run.stdout == ""  # no batch came back ✓ bootstrap-failed
    assert "if __name__ == '__main__':" in error  # the worker's message names the idiom ✓ bootstrap-idiom
# --8<-- [end:bootstrap]


# --8<-- [start:bootstrap-fix]
if __name__ == "__main__":
    traceback_lines = run.stderr.count('train.py", line 6, in <module>')
    print(traceback_lines)  # line 6, next(iter(loader)), ran in the script AND in its worker ✓ bootstrap-reran
    #> 2
    assert "_fixup_main_from_path" in run.stderr  # multiprocessing's spawn ran the script's file again ✓ bootstrap-runpy
    fixed = UNGUARDED.replace("\nloader = ", '\nif __name__ == "__main__":\n    loader = ').replace("\nprint(", "\n    print(")
    print(fixed)  # the script with the guard: what this page does ✓ bootstrap-fixed-script
    #>
    #> import torch
    #> from torch.utils.data import DataLoader
    #>
    #> if __name__ == "__main__":
    #>     loader = DataLoader(torch.arange(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    #>     print(next(iter(loader)))
    #>
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "train.py"
        script.write_text(fixed)
        fixed_run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
    print(fixed_run.returncode, fixed_run.stdout.strip())  # the guarded script runs: its worker loads the batch ✓ bootstrap-fixed-run
    #> 0 tensor([0, 1])
# --8<-- [end:bootstrap-fix]


# --8<-- [start:killed]
class SecondItemWaits(torch.utils.data.Dataset):
    """64 numbers; item 1 says it is being loaded, then waits: the kill lands in the dataset's code.

    (A worker killed between two batches, while it held the loader's shared lock, once left
    that lock taken in this suite, and freeing the loader waited for it until the time limit.)"""

    def __init__(self):
        self.loading = multiprocessing.Event()  # shared with the forked worker

    def __len__(self):
        return 64

    def __getitem__(self, i):
        waits = i == 1 and not self.loading.set()  # item 1 (in the worker): say it is being loaded ...
        time.sleep(60 if waits else 0)  # ... and wait there for the kill
        return torch.tensor(i)


def killed_worker_error(sig, stderr_file):
    """Kill a DataLoader's worker with `sig`, as the system does, and return what the loader raises.

    The worker's own stderr goes to `stderr_file`, and it writes no core file."""
    saved_stderr, saved_core = os.dup(2), resource.getrlimit(resource.RLIMIT_CORE)
    os.dup2(stderr_file.fileno(), 2)  # the worker inherits these two when it is forked
    resource.setrlimit(resource.RLIMIT_CORE, (0, saved_core[1]))
    others = set(multiprocessing.active_children())  # workers of earlier loaders may still run
    dataset = SecondItemWaits()
    assert dataset[0] == 0 and not dataset.loading.is_set()  # item 0, at once
    try:
        batches = iter(DataLoader(dataset, num_workers=1))  # starts the worker
    finally:
        os.dup2(saved_stderr, 2)
        os.close(saved_stderr)
        resource.setrlimit(resource.RLIMIT_CORE, saved_core)
    [worker] = set(multiprocessing.active_children()) - others  # this loader's own worker
    try:
        next(batches)
        assert dataset.loading.wait(30)  # the worker is loading item 1
        os.kill(worker.pid, sig)
        time.sleep(10)  # the loader notices its worker's death at once, and raises
    except RuntimeError as err:
        return re.sub(r"pid \d+", "pid <pid>", str(err)).rstrip()


if __name__ == "__main__":
    with tempfile.TemporaryFile(mode="w+") as worker_stderr:
        for sig in (signal.SIGBUS, signal.SIGKILL, signal.SIGSEGV, signal.SIGILL):
            print(killed_worker_error(sig, worker_stderr))  # ✓ killed-message
            #> DataLoader worker (pid <pid>) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
            #> DataLoader worker (pid <pid>) is killed by signal: Killed.
            #> DataLoader worker (pid <pid>) is killed by signal: Segmentation fault.
            #> DataLoader worker (pid <pid>) is killed by signal: Illegal instruction.
        worker_stderr.seek(0)
        written = [line.strip(" \0\n") for line in worker_stderr if line.strip(" \0\n")]  # C strings end in \0
    print("\n".join(written))  # what the workers themselves wrote before dying ✓ killed-worker-stderr
    #> ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
    #> ERROR: Unexpected segmentation fault encountered in worker.
# --8<-- [end:killed]

# --8<-- [start:killed-fix]
if __name__ == "__main__":
    print(torch.multiprocessing.get_sharing_strategy())  # how batches travel from workers: shared memory ✓ killed-strategy
    #> file_descriptor
    shm = os.statvfs("/dev/shm") if os.path.exists("/dev/shm") else None  # the shared memory the workers use
    assert shm is None or shm.f_bsize * shm.f_blocks > 0  # its size: `df -h /dev/shm` ✓ killed-shm
    if os.path.exists("/proc/self/maps"):  # Linux: which file each range of this process's memory maps
        batch = next(iter(DataLoader(torch.randn(8, 3, 32, 32), batch_size=4, num_workers=1)))
        with open("/proc/self/maps") as maps:
            ranges = [line.split() for line in maps]
        start, end = batch.data_ptr(), batch.data_ptr() + batch.nbytes
        files = [r[5] for r in ranges if len(r) > 5 and int(r[0].split("-")[0], 16) <= start < end <= int(r[0].split("-")[1], 16)]
        print(files[0].split("_")[0])  # the batch from the worker lives in a file in /dev/shm ✓ killed-shm
        #> /dev/shm/torch
    images = torch.randn(8, 3, 32, 32)
    for workers in (0, 1):  # no worker processes, then one
        batches = list(DataLoader(images, batch_size=4, num_workers=workers))
        assert torch.equal(torch.cat(batches), images)  # the same batches either way ✓ killed-fix-workers
        assert all(b.is_shared() == (workers > 0) for b in batches)  # shared memory only from workers ✓ killed-shared
# --8<-- [end:killed-fix]


# --8<-- [start:caught]
class OwnError(Exception):
    """An exception class of one's own: made from a message, as Exception is."""


class Raises(Dataset):
    """One sample, whose loading raises `error`."""

    def __init__(self, error):
        self.error = error

    def __len__(self):
        return 1

    def __getitem__(self, i):
        raise self.error


class Undecodable(Dataset):
    """A sample whose bytes are not UTF-8: UnicodeDecodeError needs more than a message to be built."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return b"\xff".decode()


class Labelled(Dataset):
    """Samples with a label looked up in a dict: one id has no label."""

    labels = {0: 1, 1: 0, 3: 1}

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i)]), self.labels[i]


if __name__ == "__main__":
    try:
        list(DataLoader(Labelled(), batch_size=1, num_workers=1))
    except KeyError as err:
        worker_error = str(err)
        traceback.clear_frames(err.__traceback__)  # frees the loader now (see "A pause of 5 s" below)
        print(worker_error.splitlines()[0])  # ✓ caught-message
        #> Caught KeyError in DataLoader worker process 0.
        print(worker_error.splitlines()[-1])  # the worker's own error: the last line ✓ caught-original
        #> KeyError: 2
    try:
        next(iter(DataLoader(Undecodable(), num_workers=1)))
    except Exception as err:
        rebuilt = err
        traceback.clear_frames(err.__traceback__)
    try:
        Undecodable()[0]  # in the main process: the dataset's own error
    except UnicodeDecodeError as err:
        original = err
    assert type(original) is UnicodeDecodeError and type(rebuilt) is RuntimeError  # ✓ caught-runtime
    assert str(rebuilt).startswith("Caught UnicodeDecodeError in DataLoader worker process 0.")  # ✓ caught-runtime
    for failure in [ValueError("bad"), IndexError(5), OSError("disk"), OwnError("own"), original]:  # the last: UnicodeDecodeError
        try:
            type(failure)("a message alone")  # can the type be made from a message?
            comes_back_as = type(failure)
        except TypeError:  # UnicodeDecodeError needs five arguments
            comes_back_as = RuntimeError
        try:
            next(iter(DataLoader(Raises(failure), num_workers=1)))
        except Exception as err:
            raised = type(err)
            traceback.clear_frames(err.__traceback__)
        assert raised is comes_back_as  # the same type if a message makes one, else RuntimeError ✓ caught-same-type
# --8<-- [end:caught]

# --8<-- [start:caught-fix]
if __name__ == "__main__":
    assert "in __getitem__" in worker_error  # the worker's traceback names the dataset's line ✓ caught-traceback
    assert worker_error.index("Original Traceback") < worker_error.index("in __getitem__")  # under this heading ✓ caught-traceback
    try:
        list(DataLoader(Labelled(), batch_size=1, num_workers=0))  # no workers: the plain error
    except KeyError as err:
        plain_error = err
    assert plain_error.args == (2,)  # the original exception, as the dataset raised it ✓ caught-fix-no-workers
    fixed = [Labelled()[i] for i in Labelled.labels]  # the bug itself: sample 2 has no label
    assert [int(x) for x, _ in fixed] == [0, 1, 3]  # ✓ caught-fix
# --8<-- [end:caught-fix]

# --8<-- [start:caught-pause]
class Broken(Dataset):
    """Every sample fails."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise ValueError(f"sample {i} is broken")


def caught_with_worker(free_now):
    """Catch a worker's error as a training script would, and return that worker."""
    others = set(multiprocessing.active_children())
    try:
        next(iter(DataLoader(Broken(), num_workers=1)))
    except ValueError as err:
        [worker] = set(multiprocessing.active_children()) - others
        if free_now:
            traceback.clear_frames(err.__traceback__)  # the traceback's frames let go of the loader
            assert not worker.is_alive()  # stopped already, inside the except block ✓ pause-fix
            assert "next(iter(DataLoader(" in "".join(traceback.format_tb(err.__traceback__))  # still printable ✓ pause-printable
    return worker


if __name__ == "__main__":
    assert gc.isenabled() and gc.get_threshold()[0] > 0  # it runs by itself, after enough allocations ✓ pause-auto
    worker = caught_with_worker(free_now=False)
    print(worker.is_alive())  # the loader and its worker outlive the except block ✓ pause-alive
    #> True
    start = time.perf_counter()
    gc.collect()  # only the garbage collector frees them, at a moment of its choosing
    print(time.perf_counter() - start >= 5, worker.is_alive())  # it took 5 s or more ✓ pause-gc
    #> True False
    worker = caught_with_worker(free_now=True)
    print(worker.is_alive())  # stopped already in the except block ✓ pause-fix
    #> False
# --8<-- [end:caught-pause]

# --8<-- [start:num-samples]
if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        files = sorted(Path(folder).glob("train/*.jpg"))  # a wrong path finds no files, silently
        print(len(files))  # ✓ num-samples-empty
        #> 0
        assert type(DataLoader([0], shuffle=True).sampler).__name__ == "RandomSampler"  # what shuffle=True builds ✓ num-samples-sampler
        try:
            DataLoader(files, batch_size=2, shuffle=True)
        except ValueError as err:
            print(f"{type(err).__name__}: {err}")  # ✓ num-samples-message
            #> ValueError: num_samples should be a positive integer value, but got num_samples=0
# --8<-- [end:num-samples]

# --8<-- [start:num-samples-fix]
def checked(dataset, where):
    """The dataset, or an error that names what is empty."""
    if len(dataset) == 0:
        raise FileNotFoundError(f"no training samples found under {where}")
    return dataset


if __name__ == "__main__":
    try:
        checked([], "data/train")
    except FileNotFoundError as err:
        empty_error = err
    assert str(empty_error) == "no training samples found under data/train"  # ✓ num-samples-fix
    assert len(checked([Path("a.jpg")], "data/train")) == 1  # ✓ num-samples-fix
    assert list(DataLoader([], batch_size=2)) == []  # without shuffle an empty loader gives no batches ✓ num-samples-no-shuffle
# --8<-- [end:num-samples-fix]

# --8<-- [start:too-many-workers]
if __name__ == "__main__":
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DataLoader(torch.arange(8), num_workers=cpus + 2)  # two more workers than CPUs
    message = str(caught[0].message)
    print(message.replace(f" {cpus + 2} ", " <cpus + 2> ").replace(f" {cpus}, ", " <cpus>, "))  # ✓ workers-message
    #> This DataLoader will create <cpus + 2> worker processes in total. Our suggested max number of worker in current system is <cpus>, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.
# --8<-- [end:too-many-workers]

# --8<-- [start:too-many-workers-fix]
if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # in this block a warning raises
        loader = DataLoader(torch.arange(8), batch_size=4, num_workers=min(4, cpus))
    assert loader.num_workers <= cpus  # ✓ workers-fix
    for n_workers in range(1, cpus + 3):  # every count from 1 to two more than the CPUs
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            DataLoader(torch.arange(8), num_workers=n_workers)
        assert len(warned) == (n_workers > cpus)  # a warning exactly above the CPU count ✓ workers-rule
    if hasattr(os, "sched_setaffinity"):  # Linux: the CPUs this process may use, not the machine's
        allowed = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(allowed)})  # for a moment, one CPU only
        try:
            with warnings.catch_warnings(record=True) as one_cpu:
                warnings.simplefilter("always")
                DataLoader(torch.arange(8), num_workers=1)  # no warning
                DataLoader(torch.arange(8), num_workers=2)  # a warning, on a machine of any size
        finally:
            os.sched_setaffinity(0, allowed)
        suggested = [str(w.message).split(". ")[1] for w in one_cpu]  # one warning, for two workers
        assert suggested == ["Our suggested max number of worker in current system is 1, which is smaller than what this DataLoader is going to create"]  # ✓ workers-affinity
# --8<-- [end:too-many-workers-fix]

# --8<-- [start:to-tensor-twice]
if __name__ == "__main__":
    twice = transforms.Compose([transforms.ToTensor(), transforms.ToTensor()])  # e.g. the dataset already converts
    gray = Image.new("L", (28, 28), color=128)  # a grayscale digit
    try:
        twice(gray)
    except TypeError as err:
        print(f"{type(err).__name__}: {err}")  # ✓ to-tensor-message
        #> TypeError: pic should be PIL Image or ndarray. Got <class 'torch.Tensor'>
    try:
        transforms.ToPILImage()(gray)  # the reverse: a PIL image into ToPILImage
    except TypeError as err:
        print(f"{type(err).__name__}: {err}")  # ✓ to-pil-message
        #> TypeError: pic should be Tensor or ndarray. Got <class 'PIL.Image.Image'>.
# --8<-- [end:to-tensor-twice]

# --8<-- [start:to-tensor-twice-fix]
if __name__ == "__main__":
    once = transforms.ToTensor()(gray)  # convert once, at the end of the PIL transforms
    assert once.shape == (1, 28, 28) and once.dtype == torch.float32  # ✓ to-tensor-fix
    assert torch.equal(transforms.ToTensor()(np.array(gray)), once)  # an H×W uint8 array converts the same ✓ to-tensor-array
    either = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])  # v2 takes a PIL image or a tensor
    assert torch.equal(either(gray), either(v2.PILToTensor()(gray)))  # the same from a PIL image or a tensor ✓ to-tensor-fix-v2
    assert torch.allclose(either(gray), once)  # and ToTensor's values (to the last bit: see above) ✓ to-tensor-fix-v2
# --8<-- [end:to-tensor-twice-fix]

# --8<-- [start:normalize]
if __name__ == "__main__":
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])  # ImageNet's, 3 channels
    try:
        normalize(once)  # a 1-channel image
    except RuntimeError as err:
        print(f"{type(err).__name__}: {err}")  # ✓ normalize-message
        #> RuntimeError: output with shape [1, 28, 28] doesn't match the broadcast shape [3, 28, 28]
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    assert (once - mean).shape == (3, 28, 28)  # into a new tensor, the means broadcast to 3 channels ✓ normalize-copy
    in_place = ""
    try:
        once.clone().sub_(mean)  # in place, the result must fit the 1-channel tensor
    except RuntimeError as err:
        in_place = str(err)
    assert in_place == "output with shape [1, 28, 28] doesn't match the broadcast shape [3, 28, 28]"  # ✓ normalize-in-place
    three = torch.ones(3, 2, 2)
    normalize(three)
    assert torch.equal(three, torch.ones(3, 2, 2))  # the input is unchanged: inplace=False works on a copy ✓ normalize-copy
    assert transforms.Normalize(mean=[0.5] * 3, std=[0.5] * 3, inplace=True)(three) is three  # inplace=True: the input itself ✓ normalize-copy
# --8<-- [end:normalize]

# --8<-- [start:normalize-fix]
if __name__ == "__main__":
    rgb = transforms.ToTensor()(gray.convert("RGB"))  # three equal channels, for an RGB model
    assert normalize(rgb).shape == (3, 28, 28) and torch.equal(rgb[0], rgb[2])  # ✓ normalize-fix-rgb
    one_channel = transforms.Normalize(mean=[0.5], std=[0.5])(once)  # or statistics for one channel
    assert torch.allclose(one_channel, (once - 0.5) / 0.5)  # ✓ normalize-fix-gray
# --8<-- [end:normalize-fix]
