"""Data loading errors: images of different sizes, PIL images in a batch, workers started with spawn.

Page: docs/errors/data_loading_errors.md
"""
# timeout: 120

# --8<-- [start:setup]
import io
import pickle
import re
import subprocess
import sys
import tempfile
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
    for other in [object(), np.array(["cat"])]:  # a type it does not know, and a NumPy array of strings
        refusal = "no error"
        try:
            default_collate([other, other])
        except TypeError as err:
            refusal = str(err)
        assert refusal.startswith("default_collate: batch must contain")  # ✓ pil-collates-others
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
# --8<-- [end:pickle-why]


# --8<-- [start:pickle-fix]
def stack_samples(samples):  # at module level: the worker finds it as __main__.stack_samples
    return torch.stack(samples)


if __name__ == "__main__":
    assert pickle.loads(pickle.dumps(stack_samples)) is stack_samples  # pickled by name ✓ pickle-by-name
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
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "train.py"
        script.write_text(UNGUARDED)
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
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
# --8<-- [end:bootstrap-fix]
