"""Saving and loading: state_dict, whole-model pickles, weights_only, partial loads, resuming.

Page: docs/models/saving.md
"""

import importlib
import pickletools
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import torch
from torch import nn

from ptnotes.models_checkpoint import load_matching

torch.manual_seed(0)
scratch = tempfile.TemporaryDirectory()
tmp = Path(scratch.name)


# --8<-- [start:state-dict]
class Net(nn.Module):
    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).mean(dim=(2, 3)))


model = Net()
print(list(model.state_dict())[:6])  # parameters AND buffers (BN statistics), by name
#> ['body.0.weight', 'body.0.bias', 'body.1.weight', 'body.1.bias', 'body.1.running_mean', 'body.1.running_var']
torch.save(model.state_dict(), tmp / "weights.pt")  # the recommended way

restored = Net()
restored.load_state_dict(torch.load(tmp / "weights.pt"))  # code builds the model, file fills it
x = torch.randn(2, 3, 16, 16)
assert torch.equal(model.eval()(x), restored.eval()(x))
# --8<-- [end:state-dict]

# --8<-- [start:whole-model]
project = tmp / "project"
project.mkdir()
(project / "mynet.py").write_text(
    textwrap.dedent("""
        from torch import nn

        class MyNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)
    """)
)
sys.path.insert(0, str(project))  # as if main.py sat next to mynet.py
mynet = importlib.import_module("mynet")
torch.save(mynet.MyNet(), tmp / "whole.pt")  # pickles the whole object

# What the pickle holds: references to classes by module and name, not their code
with zipfile.ZipFile(tmp / "whole.pt") as archive:
    data_pkl = next(name for name in archive.namelist() if name.endswith("data.pkl"))
    ops = pickletools.genops(archive.read(data_pkl))
    print(sorted({arg for op, arg, _ in ops if op.name == "GLOBAL"}))
    #> ['__builtin__ set', 'collections OrderedDict', 'mynet MyNet', 'torch FloatStorage', 'torch._utils _rebuild_parameter', 'torch._utils _rebuild_tensor_v2', 'torch.nn.modules.linear Linear']
# --8<-- [end:whole-model]

# --8<-- [start:weights-only]
print(torch.__version__.split("+")[0])
#> 2.14.1
try:
    torch.load(tmp / "whole.pt")  # weights_only=True is the default since torch 2.6
except Exception as err:
    print(type(err).__name__)
    #> UnpicklingError
    print(re.sub(r"\x1b\[[0-9;]*m", "", str(err).splitlines()[0]).strip())  # drop terminal colours
    #> Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
    print(next(line for line in str(err).splitlines() if "Unsupported global" in line).strip())
    #> WeightsUnpickler error: Unsupported global: GLOBAL mynet.MyNet was not an allowed global by default. Please use `torch.serialization.add_safe_globals([mynet.MyNet])` or the `torch.serialization.safe_globals([mynet.MyNet])` context manager to allowlist this global if you trust this class/function.

whole = torch.load(tmp / "whole.pt", weights_only=False)  # runs arbitrary pickle code: trusted files only
print(type(whole).__module__, type(whole).__name__)
#> mynet MyNet
# --8<-- [end:weights-only]

sys.path.remove(str(project))  # leave this interpreter as we found it
del sys.modules["mynet"]

# --8<-- [start:code-moved]
(project / "models").mkdir()
shutil.move(project / "mynet.py", project / "models" / "mynet.py")  # tidy the code into models/

loader = """
import sys, torch
try:
    torch.load("whole.pt", weights_only=False)
except ModuleNotFoundError as err:
    print("whole model:", type(err).__name__, err)

from project.models.mynet import MyNet  # the state_dict way only needs the class, wherever it is
net = MyNet()
print("state_dict:", net.load_state_dict(torch.load("state.pt")))

sys.path.insert(0, "project/models")  # the workaround: make `mynet` importable again
print("whole model after sys.path fix:", type(torch.load("whole.pt", weights_only=False)).__name__)
"""
torch.save(whole.state_dict(), tmp / "state.pt")
run = subprocess.run(
    [sys.executable, "-c", loader], cwd=tmp, capture_output=True, text=True, check=True
)
print(run.stdout.strip())  # a fresh Python, as after moving the code
#> whole model: ModuleNotFoundError No module named 'mynet'
#> state_dict: <All keys matched successfully>
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
report = load_matching(new_model, pretrained)
print(report.shape_mismatch, report.not_in_model, report.not_in_checkpoint)
#> ['head.weight', 'head.bias'] [] ['head.weight', 'head.bias']
print(len(report.loaded))
#> 7
for key in report.loaded:
    assert torch.equal(new_model.state_dict()[key], pretrained[key])
# --8<-- [end:load-matching]


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
    return storage  # keep it where it is


torch.load(tmp / "weights.pt", map_location=where)
print(sorted(set(seen)))  # the device tag each tensor was saved with
#> ['cpu']
on_cpu = torch.load(tmp / "weights.pt", map_location="cpu")  # a GPU checkpoint on a CPU machine
print({t.device.type for t in on_cpu.values()})
#> {'cpu'}
# --8<-- [end:map-location]

scratch.cleanup()
