"""Finding layers: modules(), named_modules(), children(); ModuleList, ModuleDict, Sequential.

Page: docs/models/modules.md
"""

# --8<-- [start:setup]
import inspect

import torch
from torch import nn

torch.manual_seed(0)
# --8<-- [end:setup]


# --8<-- [start:net]
class Block(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.blocks = nn.Sequential(Block(8), Block(8))
        self.head = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


model = Net()
print(model(torch.randn(2, 3, 16, 16)).shape)  # one forward: 2 images in, 10 scores each out ✓ forward
#> torch.Size([2, 10])
# --8<-- [end:net]

# --8<-- [start:children]
print([name for name, _ in model.named_children()])  # direct sub-modules only ✓ children-direct
#> ['stem', 'blocks', 'head']
print(len(list(model.children())))
#> 3
# --8<-- [end:children]

# --8<-- [start:named-modules]
for name, m in model.named_modules():  # depth-first, parent before its children, model itself first
    print(f"{name or '(root)':16} {type(m).__name__}")  # ✓ named-modules-order
    #> (root)           Net
    #> stem             Conv2d
    #> blocks           Sequential
    #> blocks.0         Block
    #> blocks.0.conv    Conv2d
    #> blocks.0.bn      BatchNorm2d
    #> blocks.1         Block
    #> blocks.1.conv    Conv2d
    #> blocks.1.bn      BatchNorm2d
    #> head             Linear
walk = model.modules()
assert iter(walk) is walk and list(walk) == [m for _, m in model.named_modules()]  # an iterator, every module ✓ modules-iterator
# --8<-- [end:named-modules]

# --8<-- [start:find-bn]
layer_bn = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
print(len(layer_bn))
#> 2

notes_bn = []  # the notes' loop, as written
for m in model.modules():
    if isinstance(m, nn.BatchNorm2d):
        notes_bn.append(m)
assert notes_bn == layer_bn  # ✓ notes-loop-equal

for m in layer_bn:  # typical use: freeze BN for fine-tuning
    m.eval()
    m.weight.requires_grad_(False)
    m.bias.requires_grad_(False)
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
bn_params = sum(p.numel() for m in layer_bn for p in m.parameters())
print(trainable, bn_params, sum(p.numel() for p in model.parameters()))  # trainable + BN = all ✓ freeze-count
#> 1466 32 1498
assert not any(m.training for m in layer_bn)  # eval() is in effect until then
model.train()  # the next train() call: BN is back in train mode, its parameters stay frozen
print(all(m.training for m in layer_bn), any(p.requires_grad for m in layer_bn for p in m.parameters()))  # ✓ train-undoes-eval
#> True False
# --8<-- [end:find-bn]

# --8<-- [start:shared]
shared = nn.Linear(4, 4)
twice = nn.Sequential(shared, nn.ReLU(), shared)  # the same module used twice
print(len(list(twice.modules())), len(list(twice.parameters())))  # de-duplicated ✓ shared-once
#> 3 2
# --8<-- [end:shared]


# --8<-- [start:list-vs-modulelist]
class WithList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = [nn.Conv2d(4, 4, 3) for _ in range(3)]  # a plain Python list


class WithModuleList(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(4, 4, 3) for _ in range(3)])


plain, registered = WithList(), WithModuleList()
for m in (plain, registered):
    print(  # ✓ list-counts
        f"{type(m).__name__:15}",
        f"modules {len(list(m.modules()))}",
        f"parameters {len(list(m.parameters()))}",
        f"state_dict keys {len(m.state_dict())}",
    )
    #> WithList        modules 1 parameters 0 state_dict keys 0
    #> WithModuleList  modules 5 parameters 6 state_dict keys 6
# --8<-- [end:list-vs-modulelist]

# --8<-- [start:list-losses]
try:
    torch.optim.SGD(plain.parameters(), lr=0.1)
except ValueError as err:
    print(err)  # ✓ empty-optimizer
    #> optimizer got an empty parameter list
plain.to(torch.float64)  # .to()/.cuda()/.half() only reach registered modules
registered.to(torch.float64)
print(plain.convs[0].weight.dtype, registered.convs[0].weight.dtype)  # ✓ to-dtype
#> torch.float32 torch.float64
print(all("_apply" in inspect.getsource(getattr(nn.Module, name)) for name in ["to", "cuda", "half"]))  # ✓ via-apply
#> True
plain.half(), registered.half()  # .half() runs here too: the listed layers keep their dtype
assert (plain.convs[0].weight.dtype, registered.convs[0].weight.dtype) == (torch.float32, torch.float16)  # ✓ via-apply
assert "for module in self.children()" in inspect.getsource(nn.Module._apply)  # _apply visits registered children ✓ via-apply
plain.to("meta"), registered.to("meta")  # a device move, as .cuda() is one: the listed layers stay behind
print(plain.convs[0].weight.device, registered.convs[0].weight.device)  # ✓ to-device
#> cpu meta
plain.eval()  # and so do train()/eval()
print(plain.convs[0].training)  # ✓ train-eval
#> True
# --8<-- [end:list-losses]

# --8<-- [start:registration]
layer_classes = [nn.Conv2d, nn.BatchNorm2d, nn.ReLU, nn.Linear, nn.Sequential, nn.ModuleList, nn.ModuleDict]
print(all(issubclass(cls, nn.Module) for cls in layer_classes), isinstance(torch.relu, nn.Module))  # ✓ all-modules
#> True False
# named_parameters() walks the same tree: each module's own parameters, prefixed by its name
own = [f"{name}.{p}".lstrip(".") for name, m in model.named_modules() for p, _ in m.named_parameters(recurse=False)]
print(own == [name for name, _ in model.named_parameters()])  # ✓ params-walk
#> True
own_params = [p for _, m in model.named_modules() for p in m.parameters(recurse=False)]
assert [id(p) for p in model.parameters()] == [id(p) for p in own_params]  # parameters() too, in that order ✓ params-walk


class Hiding(nn.Module):
    """Two registered children; its named_modules() leaves out the child "b"."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)

    def named_modules(self, *args, **kwargs):
        return ((name, m) for name, m in super().named_modules(*args, **kwargs) if not name.startswith("b"))


hiding = Hiding()  # "b" is registered, but the walk skips it: so do modules() and parameters()
print([name for name, _ in hiding.named_children()], len(list(hiding.modules())), [name for name, _ in hiding.named_parameters()])  # ✓ hiding
#> ['a', 'b'] 2 ['a.weight', 'a.bias']
assert [id(p) for p in hiding.parameters()] == [id(hiding.a.weight), id(hiding.a.bias)]  # parameters() too ✓ hiding

late = nn.Module()
late.fc = nn.Linear(2, 2)  # assignment goes through nn.Module.__setattr__, which registers a module
late.convs = [nn.Linear(2, 2)]  # a list is not an nn.Module: kept as a plain attribute
object.__setattr__(late, "hidden", nn.Linear(2, 2))  # bypass __setattr__: not registered
print([name for name, _ in late.named_children()], type(late.convs).__name__, isinstance(late.hidden, nn.Module))  # ✓ late-registered
#> ['fc'] list True
late.add_module("added", nn.Linear(2, 2))  # registered by name, without an assignment ...
late.register_module("also", nn.Linear(2, 2))  # ... (register_module is the same call)
print([name for name, _ in late.named_children()])  # ✓ add-module
#> ['fc', 'added', 'also']
try:
    late.add_module("listed", [nn.Linear(2, 2)])  # add_module looks at the type too
except TypeError as err:
    print(err)  # ✓ add-module-type
    #> list is not a Module subclass
# --8<-- [end:registration]

# --8<-- [start:res2net]
width_per_group, kernel_size, stride, padding = 8, 3, 1, 1  # the names the notes' line uses


class MultiScale(nn.Module):
    """Splits the channels into groups: the first conv gets the first group, each later conv its
    group plus the previous conv's output; the last group passes through."""

    def __init__(self, scale: int = 4) -> None:
        super().__init__()
        self.nums = scale - 1  # one conv per group but the last, which passes through
        self.convs = nn.ModuleList([nn.Conv2d(width_per_group, width_per_group, kernel_size=kernel_size,
                                              stride=stride, padding=padding) for _ in range(self.nums)])  # the notes' line

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        groups = x.split(width_per_group, dim=1)
        out, y = [], groups[0]
        for i, conv in enumerate(self.convs):  # forward decides how the convs are used
            y = conv(y if i == 0 else y + groups[i])
            out.append(y)
        return torch.cat([*out, groups[self.nums]], dim=1)


block = MultiScale()
conv_params = width_per_group * width_per_group * kernel_size * kernel_size + width_per_group
print(len(block.convs), sum(p.numel() for p in block.parameters()), block.nums * conv_params)  # all 3 convs registered ✓ res2net-params
#> 3 1752 1752
print(block(torch.randn(2, 4 * width_per_group, 6, 6)).shape)  # ✓ res2net-shape
#> torch.Size([2, 32, 6, 6])
print(hasattr(nn, "Conv2D"), type(block.convs[0]).__name__)  # ✓ no-conv2d
#> False Conv2d
try:
    nn.Conv2D(width_per_group, width_per_group, kernel_size)  # the notes' spelling
except AttributeError as err:
    print(f"AttributeError: {err}")  # ✓ conv2d-error
    #> AttributeError: module 'torch.nn' has no attribute 'Conv2D'
# --8<-- [end:res2net]

# --8<-- [start:moduledict]
heads = nn.ModuleDict({"cls": nn.Linear(8, 10), "box": nn.Linear(8, 4)})
print(list(heads.state_dict()))  # ✓ moduledict-keys
#> ['cls.weight', 'cls.bias', 'box.weight', 'box.bias']
features = torch.randn(2, 8)
print({name: tuple(head(features).shape) for name, head in heads.items()})  # ✓ moduledict-use
#> {'cls': (2, 10), 'box': (2, 4)}
# --8<-- [end:moduledict]

# --8<-- [start:sequential]
seq = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
print(seq)
#> Sequential(
#>   (0): Linear(in_features=8, out_features=16, bias=True)
#>   (1): ReLU()
#>   (2): Linear(in_features=16, out_features=2, bias=True)
#> )
print(seq(features).shape, seq[0], len(seq[1:]))  # callable, indexable, sliceable ✓ sequential-runs
#> torch.Size([2, 2]) Linear(in_features=8, out_features=16, bias=True) 2

layers = nn.ModuleList([nn.Linear(8, 8), nn.ReLU()])
try:
    layers(features)  # a ModuleList only holds modules: it has no forward
except NotImplementedError as err:
    print(type(err).__name__, err)  # ✓ modulelist-no-forward
    #> NotImplementedError Module [ModuleList] is missing the required "forward" function
# --8<-- [end:sequential]
