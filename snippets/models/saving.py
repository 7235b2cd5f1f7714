"""Saving and loading: state_dict, whole-model pickles, weights_only, partial loads, resuming.

Page: docs/models/saving.md
"""

# --8<-- [start:setup]
import importlib
import io
import os
import pickle
import pickletools
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
scratch = tempfile.TemporaryDirectory()  # every file of this page goes here
tmp = Path(scratch.name)
# --8<-- [end:setup]


# --8<-- [start:state-dict]
class Net(nn.Module):
    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).mean(dim=(2, 3)))


model = Net()
print(type(model.state_dict()).__name__)
#> OrderedDict
print(list(model.state_dict())[:6])  # parameters AND buffers (BN statistics), by name
#> ['body.0.weight', 'body.0.bias', 'body.1.weight', 'body.1.bias', 'body.1.running_mean', 'body.1.running_var']
torch.save(model.state_dict(), tmp / "weights.pt")  # the recommended way

restored = Net()
restored.load_state_dict(torch.load(tmp / "weights.pt"))  # code builds the model, file fills it
x = torch.randn(2, 3, 16, 16)
assert torch.equal(model.eval()(x), restored.eval()(x))

try:
    _ = model.static_dict  # the notes' spelling
except AttributeError as err:
    print(err)
    #> 'Net' object has no attribute 'static_dict'
# --8<-- [end:state-dict]

# --8<-- [start:whole-model]
project = tmp / "project"
project.mkdir()
module_file = project / "mynet.py"
module_file.write_text(
    textwrap.dedent("""
        from torch import nn

        class Block(nn.Module):  # like the notes' BasicBlock
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)
                self.bn = nn.BatchNorm2d(c)

            def forward(self, x):
                return self.bn(self.conv(x)).relu()

        class MyNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block(3)
                self.fc = nn.Linear(3, 2)

            def forward(self, x):
                return self.fc(self.block(x).mean(dim=(2, 3)))
    """)
)
sys.path.insert(0, str(project))  # as if main.py sat next to mynet.py
mynet = importlib.import_module(module_file.stem)  # import mynet
torch.save(mynet.MyNet(), tmp / "whole.pt")  # pickles the whole object

with zipfile.ZipFile(tmp / "whole.pt") as archive:
    data_pkl = archive.read(next(name for name in archive.namelist() if name.endswith("data.pkl")))
# the classes and functions the pickle names: by module and name
print(sorted({arg for op, arg, _ in pickletools.genops(data_pkl) if op.name == "GLOBAL"}))
#> ['__builtin__ set', 'collections OrderedDict', 'mynet Block', 'mynet MyNet', 'torch FloatStorage', 'torch LongStorage', 'torch._utils _rebuild_parameter', 'torch._utils _rebuild_tensor_v2', 'torch.nn.modules.batchnorm BatchNorm2d', 'torch.nn.modules.conv Conv2d', 'torch.nn.modules.linear Linear']
# --8<-- [end:whole-model]


# --8<-- [start:what-is-stored]
class Stub:
    """Stands in for a class the file names: keeps the saved attributes, runs none of its code."""

    def __setstate__(self, state):
        self.state = state


class ReadWithoutCode(pickle.Unpickler):
    def find_class(self, module, name):
        if module in ("collections", "__builtin__", "builtins"):  # OrderedDict, set
            return super().find_class(module, name)
        if name == "_rebuild_tensor_v2":  # a tensor: keep its shape only
            return lambda storage, offset, size, *rest: f"tensor{tuple(size)}"
        if name == "_rebuild_parameter":
            return lambda data, *rest: data
        return type(name, (Stub,), {"saved_as": f"{module}.{name}"})  # any class: a stand-in

    def persistent_load(self, saved_id):  # tensor data sits in other files of the archive
        return None


def show(obj, name="(file)", indent=0):
    settings = {k: v for k, v in obj.state.items() if not k.startswith("_") and k != "training"}
    print(" " * indent + f"{name}: {obj.saved_as} {settings} {dict(obj.state['_parameters'])}")
    #> (file): mynet.MyNet {} {}
    #>   block: mynet.Block {} {}
    #>     conv: torch.nn.modules.conv.Conv2d {'in_channels': 3, 'out_channels': 3, 'kernel_size': (3, 3), 'stride': (1, 1), 'padding': (1, 1), 'dilation': (1, 1), 'transposed': False, 'output_padding': (0, 0), 'groups': 1, 'padding_mode': 'zeros'} {'weight': 'tensor(3, 3, 3, 3)', 'bias': 'tensor(3,)'}
    #>     bn: torch.nn.modules.batchnorm.BatchNorm2d {'num_features': 3, 'eps': 1e-05, 'momentum': 0.1, 'affine': True, 'track_running_stats': True} {'weight': 'tensor(3,)', 'bias': 'tensor(3,)'}
    #>   fc: torch.nn.modules.linear.Linear {'in_features': 3, 'out_features': 2} {'weight': 'tensor(2, 3)', 'bias': 'tensor(2,)'}
    for child_name, child in obj.state["_modules"].items():
        show(child, child_name, indent + 2)


show(ReadWithoutCode(io.BytesIO(data_pkl)).load())
print([code in data_pkl for code in (b"def forward", b"__init__", b"self.fc(", b"relu")])  # no code at all
#> [False, False, False, False]
# --8<-- [end:what-is-stored]

# --8<-- [start:weights-only]
print(torch.__version__.split("+")[0])
#> 2.15.0
try:
    torch.load(tmp / "whole.pt")  # weights_only=True is the default
except pickle.UnpicklingError as err:
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # drop terminal colours
    print(message.splitlines()[0].strip())
    #> Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
    print(re.search(r"In PyTorch 2\.6, .*? to `True`\.", message)[0])
    #> In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`.
    print(next(line for line in message.splitlines() if "Unsupported global" in line).strip())
    #> WeightsUnpickler error: Unsupported global: GLOBAL mynet.MyNet was not an allowed global by default. Please use `torch.serialization.add_safe_globals([mynet.MyNet])` or the `torch.serialization.safe_globals([mynet.MyNet])` context manager to allowlist this global if you trust this class/function.

whole = torch.load(tmp / "whole.pt", weights_only=False)  # runs arbitrary pickle code: trusted files only
print(type(whole).__module__, type(whole).__name__)
#> mynet MyNet

# or allow-list exactly the classes the file names, and keep weights_only=True
with torch.serialization.safe_globals([mynet.MyNet, mynet.Block, nn.Conv2d, nn.BatchNorm2d, nn.Linear]):
    print(type(torch.load(tmp / "whole.pt")).__name__)
    #> MyNet


class NotWeights:  # why the default refuses: unpickling can call any function
    def __reduce__(self):
        return (os.mkdir, (str(tmp / "made_while_loading"),))  # "to unpickle me, call os.mkdir(...)"


torch.save(NotWeights(), tmp / "not_weights.pt")
torch.load(tmp / "not_weights.pt", weights_only=False)
print((tmp / "made_while_loading").is_dir())  # loading the file ran os.mkdir
#> True
try:
    torch.load(tmp / "not_weights.pt")
except pickle.UnpicklingError as err:
    print(next(line for line in str(err).splitlines() if "GLOBAL" in line))
    #> Trying to load unsupported GLOBAL posix.mkdir whose module posix is blocked.
# --8<-- [end:weights-only]

# --8<-- [start:code-moved]
sys.path.remove(str(project))  # this interpreter forgets where mynet was ...
del sys.modules["mynet"]
(project / "models").mkdir()
shutil.move(module_file, project / "models" / "mynet.py")  # ... and the code moves to models/

loader = """
import sys, torch
try:
    torch.load("whole.pt", weights_only=False)
except ModuleNotFoundError as err:
    print("whole model:", type(err).__name__, err)

from project.models.mynet import MyNet  # the state_dict way only needs the class, wherever it is
net = MyNet()
print("state_dict:", net.load_state_dict(torch.load("state.pt")))

import project.models.mynet  # fix 1: an alias under the old name
sys.modules["mynet"] = project.models.mynet
print("whole model with an alias:", type(torch.load("whole.pt", weights_only=False)).__name__)
del sys.modules["mynet"]

sys.path.insert(0, "project/models")  # fix 2: make `mynet` importable again
print("whole model after sys.path fix:", type(torch.load("whole.pt", weights_only=False)).__name__)
"""
torch.save(whole.state_dict(), tmp / "state.pt")
run = subprocess.run(
    [sys.executable, "-c", loader], cwd=tmp, capture_output=True, text=True, check=True
)
print(run.stdout.strip())  # a fresh Python, as after moving the code
#> whole model: ModuleNotFoundError No module named 'mynet'
#> state_dict: <All keys matched successfully>
#> whole model with an alias: MyNet
#> whole model after sys.path fix: MyNet
# --8<-- [end:code-moved]

# --8<-- [start:notes-load-model]
pretrained = Net(n_classes=10).state_dict()
new_model = Net(n_classes=5)  # same body, new head


def load_model(trained_dict, new):  # the notes' helper, verbatim
    model_dict = new.state_dict()
    trained_dict = {k: v for k, v in trained_dict.items() if k in model_dict}
    model_dict.update(trained_dict)
    new.load_state_dict(model_dict)


try:
    load_model(pretrained, new_model)
except RuntimeError as err:
    print(err)
    #> Error(s) in loading state_dict for Net:
    #> 	size mismatch for head.weight: copying a param with shape torch.Size([10, 8]) from checkpoint, the shape in current model is torch.Size([5, 8]).
    #> 	size mismatch for head.bias: copying a param with shape torch.Size([10]) from checkpoint, the shape in current model is torch.Size([5]).
try:
    load_model(torch.load(tmp / "weights.pt").state_dict(), new_model)  # as the notes call it
except AttributeError as err:
    print(err)
    #> 'collections.OrderedDict' object has no attribute 'state_dict'
# --8<-- [end:notes-load-model]

# --8<-- [start:strict-false]
result = new_model.load_state_dict({"body.0.weight": pretrained["body.0.weight"], "extra.w": torch.zeros(1)}, strict=False)
print(result.unexpected_keys)  # in the checkpoint, not in the model: ignored
#> ['extra.w']
print(len(result.missing_keys), result.missing_keys[:3])  # in the model, not in the checkpoint: left as is
#> 7 ['body.0.bias', 'body.1.weight', 'body.1.bias']
try:
    new_model.load_state_dict(pretrained, strict=False)  # strict=False does not forgive shapes
except RuntimeError as err:
    print(str(err).splitlines()[1].split(":")[0].strip())
    #> size mismatch for head.weight
# --8<-- [end:strict-false]


# --8<-- [start:load-matching]
@dataclass
class PartialLoad:
    loaded: list[str] = field(default_factory=list)  # copied from the checkpoint
    shape_mismatch: list[str] = field(default_factory=list)  # in both, different shapes: kept
    not_in_model: list[str] = field(default_factory=list)  # checkpoint keys the model lacks
    not_in_checkpoint: list[str] = field(default_factory=list)  # model keys left as they were


def load_matching(model: nn.Module, checkpoint: Mapping[str, torch.Tensor]) -> PartialLoad:
    """Copy every checkpoint entry whose name AND shape match the model; report the rest."""
    own = model.state_dict()
    report = PartialLoad()
    usable = {}
    for key, value in checkpoint.items():
        if key not in own:
            report.not_in_model.append(key)
        elif own[key].shape != value.shape:
            report.shape_mismatch.append(key)
        else:
            usable[key] = value
            report.loaded.append(key)
    report.not_in_checkpoint = [key for key in own if key not in usable]
    model.load_state_dict(usable, strict=False)
    return report
# --8<-- [end:load-matching]


# --8<-- [start:load-matching-use]
head_before = new_model.head.weight.detach().clone()
report = load_matching(new_model, {**pretrained, "extra.w": torch.zeros(1)})
print(report.shape_mismatch, report.not_in_model, report.not_in_checkpoint)
#> ['head.weight', 'head.bias'] ['extra.w'] ['head.weight', 'head.bias']
print(len(report.loaded))
#> 7
for key in report.loaded:  # the body now holds the pretrained values ...
    assert torch.equal(new_model.state_dict()[key], pretrained[key])
assert torch.equal(new_model.head.weight, head_before)  # ... and the new head is untouched
# --8<-- [end:load-matching-use]


# --8<-- [start:resume]
def make(seed: int = 0) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(seed)
    net = nn.Linear(4, 1)
    return net, torch.optim.Adam(net.parameters(), lr=0.1)


def train(net, opt, steps: int, start: int) -> None:
    for step in range(start, start + steps):
        gen = torch.Generator().manual_seed(step)  # batch k is the same whatever the split into runs
        xb, yb = torch.randn(8, 4, generator=gen), torch.randn(8, 1, generator=gen)
        opt.zero_grad()
        nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()


straight, opt = make()
train(straight, opt, steps=6, start=0)  # reference: 6 steps in one go

first, opt = make()
train(first, opt, steps=3, start=0)
checkpoint = {"model": first.state_dict(), "optimizer": opt.state_dict(), "step": 3}
torch.save(checkpoint, tmp / "ckpt.pt")

ckpt = torch.load(tmp / "ckpt.pt")
print(sorted(ckpt["optimizer"]["state"][0]))  # Adam's per-parameter moments travel too
#> ['exp_avg', 'exp_avg_sq', 'step']
resumed, opt = make(seed=1)  # different init: everything must come from the file
resumed.load_state_dict(ckpt["model"])
opt.load_state_dict(ckpt["optimizer"])
train(resumed, opt, steps=3, start=ckpt["step"])
print(torch.equal(resumed.weight, straight.weight))
#> True

forgetful, opt = make(seed=1)  # weights restored, optimizer state not
forgetful.load_state_dict(ckpt["model"])
train(forgetful, opt, steps=3, start=ckpt["step"])
print(torch.equal(forgetful.weight, straight.weight))
#> False
# --8<-- [end:resume]

# --8<-- [start:map-location]
seen = []


def where(storage, location):  # map_location may be a function of (storage, saved location)
    seen.append(location)
    return storage  # the storage as read, on the CPU


torch.load(tmp / "weights.pt", map_location=where)
print(sorted(set(seen)))  # the device tag each tensor was saved with
#> ['cpu']
on_cpu = torch.load(tmp / "weights.pt", map_location="cpu")  # what loads a GPU checkpoint on a CPU machine
print({t.device.type for t in on_cpu.values()})
#> {'cpu'}
scratch.cleanup()  # remove every file this page wrote
# --8<-- [end:map-location]
