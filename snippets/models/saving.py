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
from types import SimpleNamespace

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

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
print(type(model.state_dict()).__name__)  # ✓ ordered-dict
#> OrderedDict
print(list(model.state_dict())[:6])  # parameters AND buffers (BN statistics), by name ✓ params-and-buffers
#> ['body.0.weight', 'body.0.bias', 'body.1.weight', 'body.1.bias', 'body.1.running_mean', 'body.1.running_var']
torch.save(model.state_dict(), tmp / "weights.pt")  # the recommended way

restored = Net()
restored.load_state_dict(torch.load(tmp / "weights.pt"))  # code builds the model, file fills it
x = torch.randn(2, 3, 16, 16)
assert torch.equal(model.eval()(x), restored.eval()(x))  # ✓ state-dict-loads

try:
    _ = model.static_dict  # the notes' spelling
except AttributeError as err:
    print(err)  # ✓ static-dict
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
print(sorted({arg for op, arg, _ in pickletools.genops(data_pkl) if op.name == "GLOBAL"}))  # ✓ named-globals
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
    print(" " * indent + f"{name}: {obj.saved_as} {settings} {dict(obj.state['_parameters'])}")  # ✓ whole-tree
    #> (file): mynet.MyNet {} {}
    #>   block: mynet.Block {} {}
    #>     conv: torch.nn.modules.conv.Conv2d {'in_channels': 3, 'out_channels': 3, 'kernel_size': (3, 3), 'stride': (1, 1), 'padding': (1, 1), 'dilation': (1, 1), 'transposed': False, 'output_padding': (0, 0), 'groups': 1, 'padding_mode': 'zeros'} {'weight': 'tensor(3, 3, 3, 3)', 'bias': 'tensor(3,)'}
    #>     bn: torch.nn.modules.batchnorm.BatchNorm2d {'num_features': 3, 'eps': 1e-05, 'momentum': 0.1, 'affine': True, 'track_running_stats': True} {'weight': 'tensor(3,)', 'bias': 'tensor(3,)'}
    #>   fc: torch.nn.modules.linear.Linear {'in_features': 3, 'out_features': 2} {'weight': 'tensor(2, 3)', 'bias': 'tensor(2,)'}
    for child_name, child in obj.state["_modules"].items():
        show(child, child_name, indent + 2)


show(ReadWithoutCode(io.BytesIO(data_pkl)).load())
print([code in data_pkl for code in (b"def forward", b"__init__", b"self.fc(", b"relu", b"_conv_forward")])  # no code at all ✓ no-code
#> [False, False, False, False, False]
# --8<-- [end:what-is-stored]

# --8<-- [start:weights-only]
print(torch.__version__.split("+")[0])
#> 2.15.0
try:
    torch.load(tmp / "whole.pt")  # weights_only=True is the default
except pickle.UnpicklingError as err:
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # drop terminal colours
    print(message.splitlines()[0].strip())  # ✓ default-refuses
    #> Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
    print(re.search(r"In PyTorch 2\.6, .*? to `True`\.", message)[0])  # ✓ default-changed
    #> In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`.
    print(next(line for line in message.splitlines() if "Unsupported global" in line).strip())  # ✓ message-suggests
    #> WeightsUnpickler error: Unsupported global: GLOBAL mynet.MyNet was not an allowed global by default. Please use `torch.serialization.add_safe_globals([mynet.MyNet])` or the `torch.serialization.safe_globals([mynet.MyNet])` context manager to allowlist this global if you trust this class/function.

whole = torch.load(tmp / "whole.pt", weights_only=False)  # runs arbitrary pickle code: trusted files only
print(type(whole).__module__, type(whole).__name__)  # ✓ unsafe-loads
#> mynet MyNet

# or keep the default, weights_only=True, and allow-list the classes the file names
needed = [mynet.MyNet, mynet.Block, nn.Conv2d, nn.BatchNorm2d, nn.Linear]
with torch.serialization.safe_globals(needed):
    allowed = torch.load(tmp / "whole.pt")  # the default loader, these five classes allowed
print(type(allowed).__name__)  # ✓ allow-listed-loads
#> MyNet
assert all(torch.equal(a, b) for a, b in zip(allowed.state_dict().values(), whole.state_dict().values(), strict=True))  # ✓ allow-listed-loads

refused = []
for left_out in needed:  # leave one class out: the file is refused, naming that class
    with torch.serialization.safe_globals([c for c in needed if c is not left_out]):
        try:
            torch.load(tmp / "whole.pt")
        except pickle.UnpicklingError as err:
            refused.append(re.search(r"GLOBAL (\S+) was not", str(err))[1])
print(refused)  # each of the five is needed; every other name in the file is on the default allow-list ✓ each-needed
#> ['mynet.MyNet', 'mynet.Block', 'torch.nn.modules.conv.Conv2d', 'torch.nn.modules.batchnorm.BatchNorm2d', 'torch.nn.modules.linear.Linear']
try:
    torch.load(tmp / "whole.pt")  # after the with block: nothing allow-listed any more
except pickle.UnpicklingError:
    print("refused again after the with block")  # ✓ only-inside
    #> refused again after the with block

plain = {"w": torch.ones(2), "step": 3, "name": "net", "sizes": [1, 2.5, None], "flag": (True,)}
torch.save(plain, tmp / "plain.pt")
back = torch.load(tmp / "plain.pt")  # tensors, dicts, lists, tuples, numbers, strings: the default loads them
assert torch.equal(back.pop("w"), plain.pop("w")) and back == plain  # ✓ plain-types


class NotWeights:  # why the default refuses: unpickling can call any function
    def __reduce__(self):
        return (os.mkdir, (str(tmp / "made_while_loading"),))  # "to unpickle me, call os.mkdir(...)"


torch.save(NotWeights(), tmp / "not_weights.pt")
torch.load(tmp / "not_weights.pt", weights_only=False)
print((tmp / "made_while_loading").is_dir())  # loading the file ran os.mkdir ✓ pickle-runs-code
#> True
with torch.serialization.safe_globals(needed):  # the default refuses it, the five classes allowed or not
    try:
        torch.load(tmp / "not_weights.pt")
    except pickle.UnpicklingError as err:
        print(next(line for line in str(err).splitlines() if "GLOBAL" in line))  # ✓ still-refused
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
print(run.stdout.strip())  # a fresh Python, as after moving the code ✓ moved
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
    print(err)  # ✓ notes-size-mismatch
    #> Error(s) in loading state_dict for Net:
    #> 	size mismatch for head.weight: copying a param with shape torch.Size([10, 8]) from checkpoint, the shape in current model is torch.Size([5, 8]).
    #> 	size mismatch for head.bias: copying a param with shape torch.Size([10]) from checkpoint, the shape in current model is torch.Size([5]).
try:
    load_model(torch.load(tmp / "weights.pt").state_dict(), new_model)  # as the notes call it
except AttributeError as err:
    print(err)  # ✓ notes-state-dict-call
    #> 'collections.OrderedDict' object has no attribute 'state_dict'
# --8<-- [end:notes-load-model]

# --8<-- [start:strict-false]
result = new_model.load_state_dict({"body.0.weight": pretrained["body.0.weight"], "extra.w": torch.zeros(1)}, strict=False)
print(result.unexpected_keys)  # in the checkpoint, not in the model: ignored ✓ strict-false-reports
#> ['extra.w']
print(len(result.missing_keys), result.missing_keys[:3])  # in the model, not in the checkpoint: left as is ✓ strict-false-reports
#> 7 ['body.0.bias', 'body.1.weight', 'body.1.bias']
try:
    new_model.load_state_dict(pretrained, strict=False)  # strict=False does not forgive shapes
except RuntimeError as err:
    print(str(err).splitlines()[1].split(":")[0].strip())  # ✓ strict-false-shapes
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
print(report.shape_mismatch, report.not_in_model, report.not_in_checkpoint)  # ✓ partial-report
#> ['head.weight', 'head.bias'] ['extra.w'] ['head.weight', 'head.bias']
print(len(report.loaded))  # ✓ partial-report
#> 7
for key in report.loaded:  # the body now holds the pretrained values ...
    assert torch.equal(new_model.state_dict()[key], pretrained[key])  # ✓ partial-body
assert torch.equal(new_model.head.weight, head_before)  # ... and the new head is untouched ✓ partial-head
# --8<-- [end:load-matching-use]


# --8<-- [start:resume]
features, targets = torch.randn(64, 4), torch.randn(64, 1)
shuffled = DataLoader(TensorDataset(features, targets), batch_size=16, shuffle=True)  # no generator of its own


def make(seed: int = 0):
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
    opt = torch.optim.Adam(net.parameters(), lr=0.1)
    return net, opt, torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def train(net, opt, sched, epochs: int) -> None:
    for _ in range(epochs):
        for xb, yb in shuffled:  # each epoch, a new order, drawn from the global RNG
            opt.zero_grad()
            nn.functional.mse_loss(net(xb), yb).backward()  # Dropout draws its masks there too
            opt.step()
        sched.step()  # the learning rate halves every 2 epochs


def draws() -> list[torch.Tensor]:
    """What the global RNG decides here: two epochs' orders, then two dropout masks."""
    orders = [torch.cat([yb for _, yb in shuffled]) for _ in range(2)]
    return orders + [nn.Dropout(0.5)(torch.ones(16)) for _ in range(2)]


# torch.get_rng_state() is the state of one generator: the CPU's default one
print(torch.equal(torch.get_rng_state(), torch.default_generator.get_state()), torch.default_generator.device)  # ✓ rng-cpu-only
#> True cpu
rng_state = torch.get_rng_state()
first = draws()
torch.set_rng_state(rng_state)
assert not torch.equal(first[0], first[1]) and not torch.equal(first[2], first[3])  # new ones each time ...
assert all(torch.equal(a, b) for a, b in zip(first, draws(), strict=True))  # ... the same from the same state ✓ order-from-rng

straight = make()
train(*straight, epochs=4)  # reference: 4 epochs in one go

net, opt, sched = make()
train(net, opt, sched, epochs=1)
checkpoint = {
    "model": net.state_dict(),
    "optimizer": opt.state_dict(),  # Adam's moments and step counts
    "scheduler": sched.state_dict(),  # where the learning-rate schedule is
    "rng": torch.get_rng_state(),  # the next dropout masks and data order
}
torch.save(checkpoint, tmp / "ckpt.pt")
print(sorted(torch.load(tmp / "ckpt.pt")["optimizer"]["state"][0]))  # Adam's per-parameter state ✓ adam-state
#> ['exp_avg', 'exp_avg_sq', 'step']
saved_state, params = torch.load(tmp / "ckpt.pt")["optimizer"]["state"], list(net.parameters())
kept = [(sorted(saved_state[i]), saved_state[i]["exp_avg"].shape, saved_state[i]["exp_avg_sq"].shape) for i in range(len(params))]
assert len(saved_state) == len(params) == 4  # every parameter: two moments of its shape, a step count
assert kept == [(["exp_avg", "exp_avg_sq", "step"], p.shape, p.shape) for p in params]  # ✓ adam-state-all
assert [saved_state[i]["step"].item() for i in range(len(params))] == [len(shuffled)] * 4  # one epoch: 4 steps ✓ adam-state-all


def resume(*restored: str) -> bool:
    """Resume from the checkpoint, restoring the model and `restored`: is it where `straight` is?"""
    ckpt = torch.load(tmp / "ckpt.pt")
    net, opt, sched = make(seed=1)  # another init and RNG state: what counts must come from the file
    net.load_state_dict(ckpt["model"])
    if "optimizer" in restored:
        opt.load_state_dict(ckpt["optimizer"])
    if "scheduler" in restored:
        sched.load_state_dict(ckpt["scheduler"])
    if "rng" in restored:
        torch.set_rng_state(ckpt["rng"])
    train(net, opt, sched, epochs=3)
    return all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), straight[0].state_dict().values(), strict=True))


parts = ("optimizer", "scheduler", "rng")
print("model + all three:", resume(*parts))  # ✓ resume-all
#> model + all three: True
for missing in parts:
    print(f"without {missing}:", resume(*(part for part in parts if part != missing)))  # ✓ resume-without
    #> without optimizer: False
    #> without scheduler: False
    #> without rng: False
print("model + optimizer only:", resume("optimizer"))  # not enough with Dropout and a scheduler ✓ resume-model-optimizer
#> model + optimizer only: False
# --8<-- [end:resume]

# --8<-- [start:map-location]
seen = []


def where(storage, location):  # map_location may be a function of (storage, saved location)
    seen.append((location, storage.device.type))
    return storage  # the storage as read, on the CPU


torch.load(tmp / "weights.pt", map_location=where)
print(sorted(set(seen)))  # the device tag each tensor was saved with, and where the storage was read ✓ where-tag
#> [('cpu', 'cpu')]
on_cpu = torch.load(tmp / "weights.pt", map_location="cpu")
print({t.device.type for t in on_cpu.values()})  # ✓ map-cpu
#> {'cpu'}

# the tag is the device: PyTorch's taggers, asked about storages on three devices
on_gpu = SimpleNamespace(device=torch.device("cuda", 0))  # a stand-in: the taggers only ask its device
storages = [torch.ones(1).untyped_storage(), torch.empty(1, device="meta").untyped_storage(), on_gpu]
print([torch.serialization.location_tag(storage) for storage in storages])  # ✓ tag-is-device
#> ['cpu', 'meta', 'cuda:0']
torch.save(torch.empty(2, device="meta"), tmp / "meta.pt")
print(torch.load(tmp / "meta.pt").device)  # no map_location: back to the device it was saved from ✓ default-saved-device
#> meta
assert {t.device.type for t in torch.load(tmp / "weights.pt").values()} == {"cpu"}  # saved from the CPU: back on it ✓ default-cpu
# --8<-- [end:map-location]


# --8<-- [start:gpu-file]
def tag_as_gpu(storage):  # asked first while registered: a CPU storage is tagged as a GPU's would be
    return "cuda:0" if storage.device.type == "cpu" else None


# Priority 0: asked before PyTorch's taggers (cpu is 10). The third function would restore
# storages at load time; returning None leaves that to PyTorch's own rules.
as_gpu = (0, tag_as_gpu, lambda storage, location: None)
torch.serialization.register_package(*as_gpu)
try:
    torch.save(model.state_dict(), tmp / "gpu.pt")  # a GPU checkpoint, made on any machine
finally:  # register_package has no public undo: take it out, so that later saves are plain again
    torch.serialization._package_registry.remove(as_gpu)

seen.clear()
torch.load(tmp / "gpu.pt", map_location=where)
print(sorted(set(seen)))  # saved as cuda:0; the function gets each storage as read, on the CPU ✓ gpu-file-tag
#> [('cuda:0', 'cpu')]
for location in ("cpu", {"cuda:0": "cpu"}, where):  # the three kinds of map_location
    back = torch.load(tmp / "gpu.pt", map_location=location)
    assert {t.device.type for t in back.values()} == {"cpu"}  # ✓ gpu-file-to-cpu
    assert all(torch.equal(back[k], v) for k, v in model.state_dict().items())  # same values ✓ gpu-file-to-cpu
if not torch.cuda.is_available():  # no map_location, no CUDA: the saved device cannot be restored
    refusal = ""
    try:
        torch.load(tmp / "gpu.pt")
    except RuntimeError as err:
        refusal = str(err)
    assert refusal.startswith("Attempting to deserialize object on a CUDA device") and "map_location" in refusal  # ✓ plain-load-refuses
scratch.cleanup()  # remove every file this page wrote
# --8<-- [end:gpu-file]
