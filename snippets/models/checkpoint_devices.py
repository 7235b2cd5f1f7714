"""Checkpoints across devices and wrappers: map_location in all its forms, a GPU checkpoint on a machine
without CUDA, load_state_dict and the model's own device and dtype, the `module.` and `_orig_mod.`
prefixes, and what strict=False hides.

Page: docs/models/checkpoint_devices.md
Runs everywhere with the same output: what depends on having a GPU is in asserts.
"""

# --8<-- [start:setup]
import pickle
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present
from torch.nn.parallel import DistributedDataParallel
from torch.overrides import TorchFunctionMode

torch.manual_seed(0)
scratch = tempfile.TemporaryDirectory()
tmp = Path(scratch.name)


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


model = make_model()
# --8<-- [end:setup]


# --8<-- [start:gpu-files]
def save_as_if_on(device: str, state: dict, path: Path) -> None:
    """Save `state` with every CPU storage tagged `device`, as if saved from that GPU."""
    entry = (0, lambda storage: device if storage.device.type == "cpu" else None, lambda storage, location: None)
    torch.serialization.register_package(*entry)  # asked before PyTorch's own taggers
    try:
        torch.save(state, path)
    finally:
        torch.serialization._package_registry.remove(entry)  # no public undo


save_as_if_on("cuda:0", model.state_dict(), tmp / "gpu0.pt")
save_as_if_on("cuda:1", model.state_dict(), tmp / "gpu1.pt")
torch.save(model.state_dict(), tmp / "plain.pt")  # saved afterwards: the tagger is gone
for saved in ["gpu0.pt", "gpu1.pt", "plain.pt"]:
    tags = []
    torch.load(tmp / saved, map_location=lambda storage, loc, tags=tags: tags.append((loc, storage.device.type)) or storage, weights_only=True)
    print(saved, sorted(set(tags)))  # the saved location, and the storage as read: on the CPU ✓ tagged
    #> gpu0.pt [('cuda:0', 'cpu')]
    #> gpu1.pt [('cuda:1', 'cpu')]
    #> plain.pt [('cpu', 'cpu')]
# --8<-- [end:gpu-files]

# --8<-- [start:map-location]
forms = {
    '"cpu"': "cpu",
    'torch.device("cpu")': torch.device("cpu"),
    '{"cuda:1": "cpu"}': {"cuda:1": "cpu"},
    "lambda storage, loc: storage": lambda storage, loc: storage,
}
for name, map_location in forms.items():
    state = torch.load(tmp / "gpu1.pt", map_location=map_location, weights_only=True)
    same = all(torch.equal(state[k], v) for k, v in model.state_dict().items())
    print(f"{name:30} {sorted({t.device.type for t in state.values()})} {same}")  # ✓ forms
    #> "cpu"                          ['cpu'] True
    #> torch.device("cpu")            ['cpu'] True
    #> {"cuda:1": "cpu"}              ['cpu'] True
    #> lambda storage, loc: storage   ['cpu'] True
for saved in ["gpu0.pt", "gpu1.pt", "plain.pt"]:  # a string or a torch.device: whichever location was saved
    for map_location in ["cpu", torch.device("cpu")]:
        state = torch.load(tmp / saved, map_location=map_location, weights_only=True)
        assert {t.device for t in state.values()} == {torch.device("cpu")}, (saved, map_location)  # ✓ any-location
torch.save({"on_meta": torch.empty(2, device="meta")}, tmp / "meta.pt")
print(torch.load(tmp / "meta.pt", map_location="cpu", weights_only=True)["on_meta"].device)  # a meta tensor stays ✓ meta-stays
#> meta
# --8<-- [end:map-location]

# --8<-- [start:no-cuda]
torch.save({"on_cpu": torch.ones(2), "on_meta": torch.empty(2, device="meta")}, tmp / "mixed.pt")
mixed = torch.load(tmp / "mixed.pt", weights_only=True)  # no map_location: each back where it was saved
print({name: t.device.type for name, t in mixed.items()})  # ✓ default-device
#> {'on_cpu': 'cpu', 'on_meta': 'meta'}

if not torch.cuda.is_available():
    message = (
        "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
        "If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU."
    )
    refused = []
    for file, map_location in [("gpu0.pt", None), ("gpu1.pt", None), ("gpu0.pt", {"cuda:1": "cpu"})]:
        try:
            torch.load(tmp / file, map_location=map_location, weights_only=True)  # None: back to the saved device
        except (RuntimeError, pickle.UnpicklingError) as err:  # torch 2.4 wraps it in an UnpicklingError
            refused.append((type(err).__name__, message in str(err), "Weights only load failed" in str(err)))
    wrapped = torch.__version__ < (2, 6)
    expected = ("UnpicklingError" if wrapped else "RuntimeError", True, wrapped)
    assert refused[:2] == [expected] * 2, refused  # the same for cuda:0 and cuda:1 ✓ refused
    assert refused[2] == expected, refused  # a dict leaves the locations it does not name (cuda:0) alone ✓ dict-unnamed
else:  # requires: cuda
    on_gpu = torch.load(tmp / "gpu0.pt", weights_only=True)
    assert {t.device for t in on_gpu.values()} == {torch.device("cuda", 0)}  # ✓ gpu-default
    moved = torch.load(tmp / "gpu1.pt", map_location={"cuda:1": "cuda:0"}, weights_only=True)  # GPU 1 -> GPU 0
    assert {t.device for t in moved.values()} == {torch.device("cuda", 0)}  # ✓ gpu-remap
    if torch.cuda.device_count() == 1:
        message = ""
        try:
            torch.load(tmp / "gpu1.pt", weights_only=True)
        except RuntimeError as err:
            message = str(err)
        count_message = "Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1"
        assert message.startswith(count_message), message  # ✓ gpu-count

source = Path(torch.serialization.__file__).read_text(encoding="utf-8")
print(  # the two messages torch.load can give, in the installed torch's source ✓ both-messages
    "is_available() is False" in source,
    "Attempting to deserialize object on {backend_name.upper()} device" in source,
    "{device_index} but torch.{backend_name}.device_count() is {device_count}" in source,
    "Please use torch.load with map_location to map your storages" in source,
)
#> True True True True
# --8<-- [end:no-cuda]

# --8<-- [start:into-model]
state = torch.load(tmp / "gpu1.pt", map_location="cpu", weights_only=True)  # float32 tensors on the CPU
target = make_model().double()  # a model in float64
pointer = target[0].weight.data_ptr()


class Calls(TorchFunctionMode):
    """Inside it, the name of every torch function and Tensor method called is recorded."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(func.__name__)
        return func(*args, **(kwargs or {}))


with Calls() as calls:
    target.load_state_dict(state)  # copies the values INTO the model's own tensors
print(target[0].weight.dtype, target[0].weight.data_ptr() == pointer)  # its dtype, its memory ✓ copy-into
#> torch.float64 True
print(torch.allclose(target[0].weight.float(), model[0].weight))  # with the checkpoint's values ✓ copy-values
#> True
print(len(state), calls.names.count("copy_"))  # tensors in the checkpoint, copy_ calls made ✓ copy-source
#> 4 4
if torch.cuda.is_available():  # requires: cuda
    on_gpu = make_model().cuda()
    on_gpu.load_state_dict(state)  # the CPU checkpoint into a model on the GPU: copy_ across devices
    assert on_gpu[0].weight.is_cuda and torch.equal(on_gpu[0].weight.cpu(), state["0.weight"])  # ✓ copy-gpu

target.load_state_dict(state, assign=True)  # assign=True: take the checkpoint's tensors instead
print(target[0].weight.dtype, target[0].weight.data_ptr() == state["0.weight"].data_ptr())  # its dtype, its memory ✓ assign
#> torch.float32 True
skeleton = nn.Linear(4, 8, device="meta")  # a model with no memory yet
skeleton.load_state_dict({"weight": state["0.weight"], "bias": state["0.bias"]}, assign=True)
print(skeleton.weight.device)  # assign=True gives it the checkpoint's tensors, on their device ✓ assign-meta
#> cpu
assert skeleton.weight.data_ptr() == state["0.weight"].data_ptr()  # the checkpoint's own tensor ✓ assign-meta
# --8<-- [end:into-model]

# --8<-- [start:prefixes]
dp = nn.DataParallel(model)  # nn.DataParallel, as saved in many repositories
dp_state = dp.state_dict()

store = dist.FileStore(str(tmp / "store"), 1)
dist.init_process_group("gloo", store=store, rank=0, world_size=1)  # DDP needs a group: one process
assert (dist.get_backend(), dist.get_world_size()) == ("gloo", 1)  # ✓ one-process-group
try:
    ddp = DistributedDataParallel(model)
    ddp_state = ddp.state_dict()
finally:
    dist.destroy_process_group()

compiled = torch.compile(model)
compiled_state = compiled.state_dict()  # state_dict() compiles nothing
compiles = []
torch.compile(model, backend=lambda graph, inputs: compiles.append(graph) or graph.forward).state_dict()
assert compiles == []  # the backend was never asked for the state_dict ✓ compile-lazy
assert dp.module is model and ddp.module is model and compiled._orig_mod is model  # the model itself ✓ wrapped-attribute

for name, state in [("DataParallel", dp_state), ("DDP", ddp_state), ("torch.compile", compiled_state)]:
    firsts = {key.split(".")[0] for key in state}  # the first part of every key
    print(f"{name:14} {next(iter(state))}  every key starts with: {firsts}")  # ✓ prefixes
    #> DataParallel   module.0.weight  every key starts with: {'module'}
    #> DDP            module.0.weight  every key starts with: {'module'}
    #> torch.compile  _orig_mod.0.weight  every key starts with: {'_orig_mod'}
# --8<-- [end:prefixes]

# --8<-- [start:strip]
for prefix, state in [("module.", dp_state), ("module.", ddp_state), ("_orig_mod.", compiled_state)]:
    consume_prefix_in_state_dict_if_present(state, prefix)  # in place; keys without it stay
    print(make_model().load_state_dict(state))  # ✓ stripped
    #> <All keys matched successfully>
    #> <All keys matched successfully>
    #> <All keys matched successfully>

plain = {k.removeprefix("module."): v for k, v in nn.DataParallel(model).state_dict().items()}  # by hand
print(make_model().load_state_dict(plain))  # ✓ removeprefix
#> <All keys matched successfully>

wrapped = nn.DataParallel(make_model())
print(wrapped.module.load_state_dict(model.state_dict()))  # a plain checkpoint into a wrapper: into .module ✓ into-module
#> <All keys matched successfully>
assert list(wrapped.module.state_dict()) == list(model.state_dict())  # saved from .module: no prefix ✓ save-module
# --8<-- [end:strip]

# --8<-- [start:strict-false]
fresh = make_model()
before = {k: v.clone() for k, v in fresh.state_dict().items()}
result = fresh.load_state_dict(nn.DataParallel(model).state_dict(), strict=False)  # the prefix left in
print(len(result.missing_keys), len(result.unexpected_keys))  # every key missed, every key unexpected ✓ strict-false-all
#> 4 4
print(all(torch.equal(fresh.state_dict()[k], v) for k, v in before.items()))  # no error, and nothing was loaded ✓ strict-false-nothing
#> True
three_classes = dict(model.state_dict(), **{"2.weight": torch.zeros(3, 8), "2.bias": torch.zeros(3)})
try:
    make_model().load_state_dict(three_classes, strict=False)  # a head of another shape
except RuntimeError as err:
    print(str(err).splitlines()[1].strip())  # strict=False does not skip it ✓ strict-false-shape
    #> size mismatch for 2.weight: copying a param with shape torch.Size([3, 8]) from checkpoint, the shape in current model is torch.Size([2, 8]).


def load_checked(model: nn.Module, state: dict, may_miss: tuple[str, ...] = ()) -> None:
    """load_state_dict(strict=False), refusing to go on when a key it should have loaded is missing."""
    result = model.load_state_dict(state, strict=False)
    missing = [k for k in result.missing_keys if not k.startswith(may_miss)]
    if missing:
        raise KeyError(f"{len(missing)} keys not loaded, e.g. {missing[:2]}; unexpected: {result.unexpected_keys[:2]}")


try:
    load_checked(make_model(), nn.DataParallel(model).state_dict())
except KeyError as err:
    print(err)  # ✓ load-checked
    #> "4 keys not loaded, e.g. ['0.weight', '0.bias']; unexpected: ['module.0.weight', 'module.0.bias']"
without_head = {k: v for k, v in model.state_dict().items() if not k.startswith("2.")}  # a new head: not in it
load_checked(make_model(), without_head, may_miss=("2.",))  # the head may be missing, nothing else ✓ load-checked-ok
scratch.cleanup()
# --8<-- [end:strict-false]
