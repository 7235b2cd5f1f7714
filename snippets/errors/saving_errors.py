"""Saving and loading errors: each message reproduced, explained and fixed.

Page: docs/errors/saving_errors.md
"""

# --8<-- [start:setup]
import argparse
import contextlib
import pickle
import re
import sys
import tempfile
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)
scratch = tempfile.TemporaryDirectory()  # every file of this page goes here
tmp = Path(scratch.name)


class Net(nn.Module):
    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.fc = nn.Linear(16, n_classes)  # the head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.body(x))


def same_weights(a: dict, b: dict) -> bool:
    """Both state_dicts have the same keys and equal tensors under each."""
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
# --8<-- [end:setup]

# --8<-- [start:weights-only]
net = Net()
args = argparse.Namespace(lr=0.01, epochs=30)  # the training script's command line
torch.save({"model": net.state_dict(), "args": args}, tmp / "checkpoint.pt")
try:
    torch.load(tmp / "checkpoint.pt")  # weights_only=True is the default
except pickle.UnpicklingError as err:
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # drop the terminal colours
    lines = [line.strip() for line in message.splitlines()]
    print(f"{type(err).__name__}: {lines[0]}")  # ✓ weights-only-message
    #> UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
    print(next(line for line in lines if "Unsupported global" in line))  # ✓ weights-only-global
    #> WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default. Please use `torch.serialization.add_safe_globals([argparse.Namespace])` or the `torch.serialization.safe_globals([argparse.Namespace])` context manager to allowlist this global if you trust this class/function.
    print(re.search(r"In PyTorch 2\.6, .*? to `True`\.", message)[0])  # ✓ weights-only-default
    #> In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`.

torch.save({"model": net.state_dict(), "lr": 0.01, "epochs": 30, "names": ["a", "b"], "size": (28, 28)}, tmp / "plain.pt")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    plain = torch.load(tmp / "plain.pt")  # tensors, dicts, lists, tuples, numbers, strings: loaded by default
print([f"{w.category.__name__}: {str(w.message).split(', which')[0]}" for w in caught])  # no warning ✓ weights-only-warning
#> []
assert plain["names"] == ["a", "b"] and plain["size"] == (28, 28) and plain["lr"] == 0.01  # ✓ weights-only-plain
assert type(plain["model"]).__name__ == "OrderedDict" and same_weights(plain["model"], net.state_dict())  # ✓ weights-only-plain
torch.save([args, Path("runs")], tmp / "two.pt")  # two classes the loader refuses
try:
    torch.load(tmp / "two.pt")
except pickle.UnpicklingError as err:
    assert "argparse.Namespace" in str(err) and "PosixPath" not in str(err)  # only the first is named ✓ weights-only-first
torch.save({"model": net.state_dict(), "best_acc": np.float64(0.91)}, tmp / "numpy.pt")  # a metric NumPy computed
try:
    torch.load(tmp / "numpy.pt")
except pickle.UnpicklingError as err:
    print(re.search(r"Unsupported global: GLOBAL \S+", str(err))[0])  # ✓ weights-only-numpy
    #> Unsupported global: GLOBAL numpy._core.multiarray.scalar
# --8<-- [end:weights-only]

# --8<-- [start:weights-only-fix]
with torch.serialization.safe_globals([argparse.Namespace]):  # allow exactly the class the message names
    checkpoint = torch.load(tmp / "checkpoint.pt")  # still weights_only=True
print(checkpoint["args"])  # ✓ weights-only-fixed
#> Namespace(lr=0.01, epochs=30)
assert same_weights(checkpoint["model"], net.state_dict())  # ✓ weights-only-fixed
unsafe = torch.load(tmp / "checkpoint.pt", weights_only=False)  # loads too, running any code the file names
assert unsafe["args"].lr == 0.01  # ✓ weights-only-unsafe


class Payload:
    """Unpickling it calls Path.touch: a file can name any function to run while it loads."""

    def __reduce__(self):
        return (Path.touch, (tmp / "ran-while-loading",))


torch.save(Payload(), tmp / "payload.pt")
try:
    torch.load(tmp / "payload.pt")  # the default refuses the function the file names
except pickle.UnpicklingError as err:
    assert "Unsupported global" in str(err) and not (tmp / "ran-while-loading").exists()  # ✓ weights-only-runs-code
torch.load(tmp / "payload.pt", weights_only=False)
assert (tmp / "ran-while-loading").exists()  # the file ran Path.touch as it loaded ✓ weights-only-runs-code

torch.save({"model": net.state_dict(), "args": vars(args)}, tmp / "checkpoint.pt")  # better: save a plain dict
print(torch.load(tmp / "checkpoint.pt")["args"])  # loads with the default, nothing to allow ✓ weights-only-dict
#> {'lr': 0.01, 'epochs': 30}
torch.save({"model": net.state_dict(), "best_acc": np.float64(0.91).item()}, tmp / "numpy.pt")  # a Python float
best_acc = torch.load(tmp / "numpy.pt")["best_acc"]  # loads with the default
assert type(best_acc) is float and best_acc == 0.91  # ✓ weights-only-numpy-fixed
# --8<-- [end:weights-only-fix]

# --8<-- [start:prefix]
trained = Net()
wrapped = nn.DataParallel(trained)  # the model is now wrapped.module
torch.save(wrapped.state_dict(), tmp / "wrapped.pt")  # so every key starts with "module."
state = torch.load(tmp / "wrapped.pt")
print(list(state))  # ✓ prefix-keys
#> ['module.body.0.weight', 'module.body.0.bias', 'module.fc.weight', 'module.fc.bias']
try:
    Net().load_state_dict(state)
except RuntimeError as err:
    for line in f"{type(err).__name__}: {err}".splitlines():
        print(line.strip())  # ✓ prefix-message
        #> RuntimeError: Error(s) in loading state_dict for Net:
        #> Missing key(s) in state_dict: "body.0.weight", "body.0.bias", "fc.weight", "fc.bias".
        #> Unexpected key(s) in state_dict: "module.body.0.weight", "module.body.0.bias", "module.fc.weight", "module.fc.bias".
# --8<-- [end:prefix]

# --8<-- [start:prefix-fix]
consume_prefix_in_state_dict_if_present(state, "module.")  # renames the keys in place
model = Net()
print(model.load_state_dict(state))  # strict: every key matched ✓ prefix-fixed
#> <All keys matched successfully>
assert same_weights(model.state_dict(), trained.state_dict())  # the trained weights, not fresh ones ✓ prefix-fixed

torch.save(wrapped.module.state_dict(), tmp / "unwrapped.pt")  # or, when saving: the inner model's keys
print(list(torch.load(tmp / "unwrapped.pt")))  # ✓ prefix-at-save
#> ['body.0.weight', 'body.0.bias', 'fc.weight', 'fc.bias']
# --8<-- [end:prefix-fix]

# --8<-- [start:prefix-ddp]
store = dist.FileStore(str(tmp / "store"), 1)  # DDP needs a process group: here one of one process
dist.init_process_group("gloo", store=store, rank=0, world_size=1)
ddp_state = DistributedDataParallel(Net()).state_dict()
dist.destroy_process_group()  # the group is global state: end it
assert not dist.is_initialized()
print(list(ddp_state))  # DDP keeps the model as .module too ✓ prefix-ddp
#> ['module.body.0.weight', 'module.body.0.bias', 'module.fc.weight', 'module.fc.bias']
consume_prefix_in_state_dict_if_present(ddp_state, "module.")  # the same fix
print(Net().load_state_dict(ddp_state))  # ✓ prefix-ddp-fixed
#> <All keys matched successfully>
# --8<-- [end:prefix-ddp]

# --8<-- [start:size-mismatch]
pretrained = Net(n_classes=10)
torch.save(pretrained.state_dict(), tmp / "pretrained.pt")
model = Net(n_classes=3)  # the same body, a new head for 3 classes
state = torch.load(tmp / "pretrained.pt")
try:
    model.load_state_dict(state)
except RuntimeError as err:
    for line in f"{type(err).__name__}: {err}".splitlines():
        print(line.strip())  # ✓ size-mismatch-message
        #> RuntimeError: Error(s) in loading state_dict for Net:
        #> size mismatch for fc.weight: copying a param with shape torch.Size([10, 16]) from checkpoint, the shape in current model is torch.Size([3, 16]).
        #> size mismatch for fc.bias: copying a param with shape torch.Size([10]) from checkpoint, the shape in current model is torch.Size([3]).
try:
    model.load_state_dict(state, strict=False)  # strict=False skips missing and extra keys, not shapes
except RuntimeError as err:
    print(str(err).splitlines()[1].strip())  # ✓ size-mismatch-strict-false
    #> size mismatch for fc.weight: copying a param with shape torch.Size([10, 16]) from checkpoint, the shape in current model is torch.Size([3, 16]).
# --8<-- [end:size-mismatch]

# --8<-- [start:size-mismatch-fix]
model = Net(n_classes=3)  # a fresh model: the failed loads above copied part of the body already
own = model.state_dict()
matching = {k: v for k, v in state.items() if k in own and v.shape == own[k].shape}  # all but the head
head_before = [p.clone() for p in model.fc.parameters()]
result = model.load_state_dict(matching, strict=False)
print(result)  # ✓ size-mismatch-fixed
#> _IncompatibleKeys(missing_keys=['fc.weight', 'fc.bias'], unexpected_keys=[])
assert result.missing_keys == ["fc.weight", "fc.bias"] and not result.unexpected_keys  # ✓ size-mismatch-fixed
assert all(torch.equal(a, b) for a, b in zip(model.body.state_dict().values(), pretrained.body.state_dict().values(), strict=True))  # every body tensor is the pretrained one ✓ size-mismatch-fixed
assert all(torch.equal(p, q) for p, q in zip(model.fc.parameters(), head_before, strict=True))  # the new head kept its fresh weight and bias ✓ size-mismatch-fixed
print(model(torch.ones(2, 8)).shape)  # ready to fine-tune: 3 outputs per sample ✓ size-mismatch-runs
#> torch.Size([2, 3])
# --8<-- [end:size-mismatch-fix]

# --8<-- [start:on-gpu]
def tag_as_gpu(storage):
    """Save every storage as if it were on the second GPU (the tag torch.save writes per storage)."""
    return "cuda:1" if storage.device.type == "cpu" else None


as_gpu = (0, tag_as_gpu, lambda storage, location: None)  # asked before PyTorch's own taggers
torch.serialization.register_package(*as_gpu)
try:
    torch.save(Net().state_dict(), tmp / "gpu.pt")  # a checkpoint as a machine with 2 GPUs writes it
finally:  # register_package has no public undo: take it out, so that later saves are plain again
    torch.serialization._package_registry.remove(as_gpu)


def gpus(count):
    """Inside this block torch.cuda reports `count` GPUs: what torch.load checks on such a machine."""
    return mock.patch.multiple("torch.cuda", is_available=lambda: count > 0, device_count=lambda: count)


messages = {}
for count in (0, 1, 2):
    with gpus(count):
        try:
            torch.load(tmp / "gpu.pt")
        except RuntimeError as err:
            messages[count] = str(err)
for count in (0, 1):
    print(f"RuntimeError: {messages[count]}")  # ✓ on-gpu-message
    #> RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
    #> RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.
assert "CUDA device 1 but torch.cuda.device_count() is 1" in messages[1]  # one GPU is too few for cuda:1 ✓ on-gpu-count
# two GPUs pass torch.load's check (on a machine without them, the copy to cuda:1 then fails for its own reason)
assert "device_count()" not in messages.get(2, "")  # ✓ on-gpu-count
# --8<-- [end:on-gpu]

# --8<-- [start:on-gpu-fix]
state = torch.load(tmp / "gpu.pt", map_location="cpu")  # every storage onto the CPU
assert {t.device.type for t in state.values()} == {"cpu"} and Net().load_state_dict(state)  # ✓ on-gpu-fix
state = torch.load(tmp / "gpu.pt", map_location={"cuda:1": "cpu"})  # or map one device to another
assert {t.device.type for t in state.values()} == {"cpu"}  # ✓ on-gpu-fix-map
# --8<-- [end:on-gpu-fix]

# --8<-- [start:whole-checkpoint]
net = Net()
torch.save({"epoch": 30, "state_dict": net.state_dict()}, tmp / "resume.pt")  # a training checkpoint
checkpoint = torch.load(tmp / "resume.pt")
try:
    Net().load_state_dict(checkpoint)  # the whole checkpoint, not the weights in it
except RuntimeError as err:
    for line in str(err).splitlines()[1:]:
        print(line.strip())  # ✓ whole-checkpoint-message
        #> Missing key(s) in state_dict: "body.0.weight", "body.0.bias", "fc.weight", "fc.bias".
        #> Unexpected key(s) in state_dict: "epoch", "state_dict".
print(list(checkpoint))  # ✓ whole-checkpoint-keys
#> ['epoch', 'state_dict']
# --8<-- [end:whole-checkpoint]

# --8<-- [start:whole-checkpoint-fix]
model = Net()
print(model.load_state_dict(checkpoint["state_dict"]))  # the weights are one level down ✓ whole-checkpoint-fix
#> <All keys matched successfully>
assert same_weights(model.state_dict(), net.state_dict())  # ✓ whole-checkpoint-fix
# --8<-- [end:whole-checkpoint-fix]

# --8<-- [start:truncated]
torch.save(Net().state_dict(), tmp / "model.pt")
data = (tmp / "model.pt").read_bytes()
(tmp / "partial.pt").write_bytes(data[: len(data) // 2])  # a download or a save cut off halfway
try:
    torch.load(tmp / "partial.pt")
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ truncated-message
    #> RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory. This is an internal miniz error. If you are seeing this error, there is a high likelihood that your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was transferred incorrectly, or the file was modified after saving.
print(data[:2], data[-22:-18])  # a checkpoint is a zip archive: it starts with PK, its directory is at the end ✓ truncated-zip
#> b'PK' b'PK\x05\x06'
# --8<-- [end:truncated]

# --8<-- [start:truncated-fix]
def save_whole(obj, path):
    """Save to a temporary file, then rename: the path holds either the old file or the whole new one."""
    partial = path.with_name(path.name + ".partial")
    torch.save(obj, partial)
    partial.replace(path)  # a rename within one folder is atomic


save_whole(Net().state_dict(), tmp / "model.pt")
assert Net().load_state_dict(torch.load(tmp / "model.pt"))  # ✓ truncated-fix
assert not (tmp / "model.pt.partial").exists()  # ✓ truncated-fix


class Interrupted:
    """Stands for a save cut off halfway, by an exception raised while pickling."""

    def __reduce__(self):
        raise RuntimeError("save interrupted")


good = Net().state_dict()
for save in (torch.save, save_whole):
    save_whole(good, tmp / "model.pt")  # a whole checkpoint at the path ...
    with contextlib.suppress(RuntimeError):  # ... then a save cut off
        save({"model": good, "cut": Interrupted()}, tmp / "model.pt")
    try:
        intact = same_weights(torch.load(tmp / "model.pt"), good)
    except RuntimeError:  # a file that no longer loads
        intact = False
    print(save.__name__, intact)  # does the path still hold the whole old checkpoint? ✓ truncated-interrupted
    #> save False
    #> save_whole True
with contextlib.suppress(RuntimeError):
    torch.save({"model": good, "cut": Interrupted()}, tmp / "model.pt")  # Python stops the save
try:
    torch.load(tmp / "model.pt")
except RuntimeError as err:
    print(err)  # the archive has its end, but no pickled data ✓ interrupted-message
    #> PytorchStreamReader failed locating file data.pkl: file not found. This is an internal miniz error. If you are seeing this error, there is a high likelihood that your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was transferred incorrectly, or the file was modified after saving.
# --8<-- [end:truncated-fix]

# --8<-- [start:load-key]
(tmp / "html.pt").write_bytes(b"<!DOCTYPE html>\n...")  # a web page saved under the checkpoint's name
(tmp / "lfs.pt").write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 46827520\n")
for name in ("html.pt", "lfs.pt"):
    try:
        torch.load(tmp / name, weights_only=False)
    except pickle.UnpicklingError as err:
        print(f"{type(err).__name__}: {err}")  # ✓ load-key-message
        #> UnpicklingError: invalid load key, '<'.
        #> UnpicklingError: invalid load key, 'v'.
try:
    torch.load(tmp / "html.pt")  # weights_only=True, the default from torch 2.6
except pickle.UnpicklingError as err:
    print(str(err).splitlines()[0])  # ✓ load-key-weights-only
    #> Weights only load failed. In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
    print(re.search(r"Unsupported operand \d+|invalid load key, '.'", str(err))[0], ord("<"))  # the byte, '<' ✓ load-key-operand
    #> Unsupported operand 60 60
# --8<-- [end:load-key]

# --8<-- [start:load-key-fix]
def what_is(path):
    """What a file named like a checkpoint really holds, from its first bytes."""
    head = path.read_bytes()[:64]
    if head.startswith(b"PK"):
        return "a checkpoint (zip archive)"
    if head.startswith(b"\x80"):
        return "a checkpoint (legacy format)"
    if head.startswith(b"version https://git-lfs"):
        return "a Git LFS pointer: run `git lfs pull`"
    if head.lstrip().lower().startswith(b"<!doctype html"):
        return "a web page: download the file itself"
    return "something else"


(tmp / "empty.pt").write_bytes(b"")  # e.g. a failed download
torch.save(good, tmp / "legacy.pt", _use_new_zipfile_serialization=False)  # the format before the zip archive
assert same_weights(torch.load(tmp / "legacy.pt"), good)  # torch.load reads it too ✓ load-key-legacy
print((tmp / "legacy.pt").read_bytes()[:1])  # it starts with pickle's first byte ✓ load-key-legacy
#> b'\x80'
print([what_is(tmp / name) for name in ("model.pt", "legacy.pt", "html.pt", "lfs.pt", "empty.pt")])  # ✓ load-key-fix
#> ['a checkpoint (zip archive)', 'a checkpoint (legacy format)', 'a web page: download the file itself', 'a Git LFS pointer: run `git lfs pull`', 'something else']
# --8<-- [end:load-key-fix]

# --8<-- [start:get-attribute]
class Classifier(nn.Module):  # defined in the training script
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)


torch.save(Classifier(), tmp / "whole.pt")  # the whole module, pickled by reference to its class
del Classifier  # what another script that never defines it sees
try:
    torch.load(tmp / "whole.pt", weights_only=False)
except AttributeError as err:
    print(re.sub(r" from '[^']*'", "", f"{type(err).__name__}: {err}"))  # (its file's path cut) ✓ get-attribute-message
    #> AttributeError: Can't get attribute 'Classifier' on <module '__main__'>
    main = sys.modules["__main__"]  # the message ends with the module as Python writes it ...
    assert str(err).endswith(f" on {main!r}") and " from '" in repr(main)  # ... with the script's path ✓ get-attribute-path
# --8<-- [end:get-attribute]

# --8<-- [start:get-attribute-fix]
class Classifier(nn.Module):  # the fix, 1: the class defined (or imported) before loading
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)


whole = torch.load(tmp / "whole.pt", weights_only=False)
assert type(whole) is Classifier  # ✓ get-attribute-fix
torch.save(whole.state_dict(), tmp / "weights.pt")  # the fix, 2: save the weights, not the object
fresh = Classifier()
fresh.load_state_dict(torch.load(tmp / "weights.pt"))  # weights_only=True is enough for a state_dict
assert torch.equal(fresh.fc.weight, whole.fc.weight)  # ✓ get-attribute-state-dict
# --8<-- [end:get-attribute-fix]

# --8<-- [start:missing-attribute]
old = nn.Upsample(scale_factor=2)
del old.recompute_scale_factor  # an Upsample as torch 1.10 and older pickled it: without the newer attribute
try:
    old(torch.ones(1, 1, 2, 2))
except AttributeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ missing-attribute-message
    #> AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'
print(nn.Upsample(scale_factor=2).recompute_scale_factor)  # a module made by this torch has it ✓ missing-attribute-default
#> None
torch.save(old, tmp / "old_upsample.pt")  # the module without the attribute, pickled whole
loaded = torch.load(tmp / "old_upsample.pt", weights_only=False)
print(loaded.recompute_scale_factor, tuple(loaded(torch.ones(1, 1, 2, 2)).shape))  # this torch fills it in ✓ missing-attribute-loaded
#> True (1, 1, 4, 4)
# --8<-- [end:missing-attribute]

# --8<-- [start:missing-attribute-fix]
old.recompute_scale_factor = None  # the default of this torch
assert old(torch.ones(1, 1, 2, 2)).shape == (1, 1, 4, 4)  # ✓ missing-attribute-fix
rebuilt = nn.Sequential(nn.Conv2d(1, 1, 1), nn.Upsample(scale_factor=2))  # better: rebuild, load the weights
rebuilt.load_state_dict(nn.Sequential(nn.Conv2d(1, 1, 1), old).state_dict())
assert rebuilt(torch.ones(1, 1, 2, 2)).shape == (1, 1, 4, 4)  # ✓ missing-attribute-rebuilt
scratch.cleanup()  # remove every file this page wrote
# --8<-- [end:missing-attribute-fix]
