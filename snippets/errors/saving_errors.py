"""Saving and loading errors: each message reproduced, explained and fixed.

Page: docs/errors/saving_errors.md
"""

# --8<-- [start:setup]
import argparse
import pickle
import re
import tempfile
from pathlib import Path

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
plain = torch.load(tmp / "plain.pt")  # tensors, dicts, lists, tuples, numbers, strings: loaded by default
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
own = model.state_dict()
matching = {k: v for k, v in state.items() if k in own and v.shape == own[k].shape}  # all but the head
head_before = model.fc.weight.clone()
result = model.load_state_dict(matching, strict=False)
print(result)  # ✓ size-mismatch-fixed
#> _IncompatibleKeys(missing_keys=['fc.weight', 'fc.bias'], unexpected_keys=[])
assert result.missing_keys == ["fc.weight", "fc.bias"] and not result.unexpected_keys  # ✓ size-mismatch-fixed
assert torch.equal(model.body[0].weight, pretrained.body[0].weight)  # the body is the pretrained one ✓ size-mismatch-fixed
assert torch.equal(model.fc.weight, head_before)  # the new head kept its fresh weights ✓ size-mismatch-fixed
print(model(torch.ones(2, 8)).shape)  # ready to fine-tune: 3 outputs per sample ✓ size-mismatch-runs
#> torch.Size([2, 3])
scratch.cleanup()  # remove every file this page wrote
# --8<-- [end:size-mismatch-fix]
