"""Module hooks (forward, forward pre-, full backward; removing them) and buffers vs plain attributes.

Page: docs/performance/hooks.md
"""

# --8<-- [start:setup]
import gc
import warnings
import weakref

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))
images = torch.randn(4, 3, 16, 16)
# --8<-- [end:setup]

# --8<-- [start:forward-hook]
features = {}


def keep_output(module: nn.Module, args: tuple, output: torch.Tensor) -> None:
    features[type(module).__name__] = output.detach()  # detach: keep the values, not the graph


handle = model[1].register_forward_hook(keep_output)  # on the ReLU: the feature map after conv + ReLU
logits = model(images)
print(features["ReLU"].shape, features["ReLU"].min().item() >= 0)  # ✓ feature-map
#> torch.Size([4, 8, 16, 16]) True
print(features["ReLU"].grad_fn, features["ReLU"].requires_grad)  # detached: no graph behind it ✓ detached
#> None False
handle.remove()
# --8<-- [end:forward-hook]

# --8<-- [start:all-layers]
shapes = {}
handles = [
    module.register_forward_hook(lambda m, args, out, name=name: shapes.__setitem__(name, tuple(out.shape)))
    for name, module in model.named_children()
]
model(images)
print(shapes)  # ✓ all-shapes
#> {'0': (4, 8, 16, 16), '1': (4, 8, 16, 16), '2': (4, 8, 1, 1), '3': (4, 8), '4': (4, 2)}
for h in handles:
    h.remove()
# --8<-- [end:all-layers]

# --8<-- [start:replace-output]
handle = model[4].register_forward_hook(lambda m, args, out: out * 0)  # a returned value replaces the output
print(model(images).abs().sum().item())  # ✓ replaced
#> 0.0
handle.remove()
print(torch.equal(model(images), logits))  # removed: the model is back to what it was ✓ restored
#> True
# --8<-- [end:replace-output]

# --8<-- [start:pre-hook]
def half_input(module: nn.Module, args: tuple) -> tuple:
    return (args[0] * 0.5,)  # a returned tuple replaces the positional arguments


linear = nn.Linear(3, 1, bias=False)
nn.init.ones_(linear.weight)
handle = linear.register_forward_pre_hook(half_input)
print(linear(torch.tensor([[2.0, 4.0, 6.0]])))  # (1 + 2 + 3), not (2 + 4 + 6) ✓ pre-hook
#> tensor([[6.]], grad_fn=<MmBackward0>)
handle.remove()
# --8<-- [end:pre-hook]

# --8<-- [start:backward-hook]
grads = {}


def keep_grads(module: nn.Module, grad_input: tuple, grad_output: tuple) -> None:
    grads["in"] = [None if g is None else tuple(g.shape) for g in grad_input]
    grads["out"] = [tuple(g.shape) for g in grad_output]


handle = model[0].register_full_backward_hook(keep_grads)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model(images).sum().backward()
print(grads)  # the input images do not require grad: no gradient for them ✓ backward-hook
#> {'in': [None], 'out': [(4, 8, 16, 16)]}
print([str(w.message).split(" since ")[0] for w in caught])  # ✓ no-input-grad-warning
#> ['Full backward hook is firing when gradients are computed with respect to module outputs']
model(images.requires_grad_()).sum().backward()
print(grads["in"])  # ✓ grad-input
#> [(4, 3, 16, 16)]
images.requires_grad_(False)
handle.remove()
# --8<-- [end:backward-hook]

# --8<-- [start:old-backward-hook]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    handle = model.register_backward_hook(lambda m, gi, go: None)  # the old, non-full kind
    model(images).sum().backward()
print(caught[0].category.__name__, "|", str(caught[0].message).split(" and ")[0])  # ✓ old-hook-warning
#> FutureWarning | Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated
assert "Please use register_full_backward_hook" in str(caught[0].message)  # ✓ old-hook-advice
handle.remove()
# --8<-- [end:old-backward-hook]

# --8<-- [start:not-removed]
class Keeper:
    """A hook that keeps every output it sees, without detach."""

    def __init__(self) -> None:
        self.outputs = []

    def __call__(self, module: nn.Module, args: tuple, output: torch.Tensor) -> None:
        self.outputs.append(output)


keeper = Keeper()
handle = model[1].register_forward_hook(keeper)
for _ in range(3):
    model(images)
print(len(keeper.outputs), sum(t.numel() * t.element_size() for t in keeper.outputs))  # one more every call ✓ grows
#> 3 98304
print(keeper.outputs[0].grad_fn.name())  # each holds on to the autograd graph that made it ✓ holds-graph
#> ReluBackward0
assert all(t.grad_fn is not None for t in keeper.outputs)  # every one of them ✓ all-hold-graph
print(tuple(keeper.outputs[0].grad_fn._saved_result.shape))  # a tensor that graph saved for backward ✓ holds-saved
#> (4, 8, 16, 16)
alive = weakref.ref(keeper)
del keeper
gc.collect()
print(alive() is not None, len(alive().outputs))  # your name is gone; the model still holds the hook ✓ kept-alive
#> True 3
handle.remove()
gc.collect()
print(alive())  # removed: the hook, and all it kept, can be freed ✓ released
#> None
relu = nn.ReLU()  # a module that stays alive
scoped = Keeper()
with relu.register_forward_hook(scoped):  # the handle as a context manager: remove() at the end
    relu(images)
assert len(scoped.outputs) == 1  # the hook ran inside the block
alive = weakref.ref(scoped)
del scoped
gc.collect()
print(alive())  # removed by the with block, so freed while relu lives ✓ with-handle
#> None
other = nn.ReLU()
kept_by_other = Keeper()
other.register_forward_hook(kept_by_other)  # its handle is not even kept
other(images)
alive = weakref.ref(kept_by_other)
del kept_by_other, other  # the module itself goes
gc.collect()
print(alive())  # the hook went with the module that held it ✓ freed-with-module
#> None
# --8<-- [end:not-removed]

# --8<-- [start:buffers]
class Normalizer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(3))  # state: saved and moved with the module
        self.register_buffer("cache", torch.zeros(3), persistent=False)  # moved, not saved
        self.plain = torch.zeros(3)  # a plain attribute: neither
        self.scale = nn.Parameter(torch.ones(3))  # a parameter: trained, saved, moved


norm = Normalizer()
print(list(norm.state_dict()))  # ✓ state-dict
#> ['scale', 'mean']
print(Normalizer().load_state_dict(norm.state_dict()))  # strict, and `cache` is not expected ✓ load-without-cache
#> <All keys matched successfully>
print([name for name, _ in norm.named_buffers()], [name for name, _ in norm.named_parameters()])  # ✓ buffers
#> ['mean', 'cache'] ['scale']
norm.to(torch.float64)  # as .to("cuda") moves them: buffers follow the module, a plain attribute does not
print(norm.mean.dtype, norm.cache.dtype, norm.plain.dtype, norm.scale.dtype)  # ✓ to-dtype
#> torch.float64 torch.float64 torch.float32 torch.float64
norm.to("meta")
print(norm.mean.device, norm.cache.device, norm.plain.device, norm.scale.device)  # ✓ to-device
#> meta meta cpu meta
# --8<-- [end:buffers]
