"""Training-loop errors and warnings: mixed precision, optimizers, schedulers, checkpointing, pretrained weights.

Page: docs/errors/training_errors.md
"""

# --8<-- [start:setup]
import inspect
import warnings
from unittest import mock

import torch
import torchvision
from torch import nn
from torch.utils.checkpoint import checkpoint


def raised(call) -> str:
    """What `call()` raises, written `Type: message` ("no error" when it returns)."""
    try:
        call()
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "no error"


def warned(call) -> list[str]:
    """Every warning `call()` gives, as Python prints it: `Category: message`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def without_gpu():
    """Inside this block torch.cuda.is_available() is False: what a machine without a GPU sees."""
    return mock.patch("torch.cuda.is_available", return_value=False)


torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:unscale]
model = nn.Linear(4, 1).half()  # the whole model in float16: its gradients are float16 too
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")  # on a GPU: torch.amp.GradScaler("cuda")
loss = model(torch.ones(2, 4, dtype=torch.float16)).float().sum()
scaler.scale(loss).backward()
print(model.weight.grad.dtype)  # ✓ unscale-grad-dtype
#> torch.float16
print(raised(lambda: scaler.unscale_(optimizer)))  # what scaler.step(optimizer) calls ✓ unscale-message
#> ValueError: Attempting to unscale FP16 gradients.
assert raised(lambda: scaler.step(optimizer)) == raised(lambda: scaler.unscale_(optimizer))  # step: the same ✓ unscale-step
assert "self.unscale_(optimizer)" in inspect.getsource(torch.amp.GradScaler.step)  # step calls unscale_ ✓ unscale-step
# --8<-- [end:unscale]

# --8<-- [start:unscale-fix]
model = nn.Linear(4, 1)  # float32 weights; autocast runs the layer in a lower precision
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.bfloat16):  # on a GPU: torch.autocast("cuda", dtype=torch.float16)
    out = model(torch.ones(2, 4))
assert out.dtype == torch.bfloat16  # the layer ran in low precision ✓ unscale-fix-autocast
scaler.scale(out.float().sum()).backward()
assert model.weight.grad.dtype == torch.float32  # gradients in the weights' dtype ✓ unscale-fix
before, scaled_grad = model.weight.detach().clone(), model.weight.grad.clone()
assert raised(lambda: scaler.step(optimizer)) == "no error"  # unscales, then steps ✓ unscale-fix
assert torch.allclose(before - model.weight.detach(), 0.1 * scaled_grad / scaler.get_scale())  # lr × unscaled grad ✓ unscale-fix
scaler.update()
# --8<-- [end:unscale-fix]

# --8<-- [start:amp-deprecated]
with without_gpu():
    for line in warned(torch.cuda.amp.GradScaler):  # the old spelling
        print(line)  # ✓ amp-scaler-message
        #> FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.
        #> UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.
print(warned(torch.cuda.amp.autocast)[0])  # ✓ amp-autocast-message
#> FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.
# --8<-- [end:amp-deprecated]

# --8<-- [start:amp-deprecated-fix]
new_style = warned(lambda: torch.amp.GradScaler("cuda"))  # the same scaler, the new spelling
assert not any(w.startswith("FutureWarning") for w in new_style)  # ✓ amp-fix-scaler
assert issubclass(torch.cuda.amp.GradScaler, torch.amp.GradScaler)  # the old classes are subclasses ✓ amp-fix-same
assert issubclass(torch.cuda.amp.autocast, torch.autocast)  # ✓ amp-fix-same
assert not any(w.startswith("FutureWarning") for w in warned(lambda: torch.autocast("cuda")))  # ✓ amp-fix-autocast
# --8<-- [end:amp-deprecated-fix]

# --8<-- [start:amp-no-cuda]
def autocast_on_cuda():
    with torch.autocast("cuda"):  # requested on a machine without a GPU
        return torch.is_autocast_enabled("cuda")


with without_gpu():
    for line in warned(autocast_on_cuda):
        print(line)  # ✓ amp-no-cuda-message
        #> UserWarning: CUDA is not available or torch_xla is imported. Disabling autocast.
    for line in warned(lambda: torch.amp.GradScaler("cuda")):
        print(line)  # ✓ amp-no-cuda-scaler
        #> UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert autocast_on_cuda() is False  # autocast is off: the block runs in float32 ✓ amp-no-cuda-off
        assert not torch.amp.GradScaler("cuda").is_enabled()  # and the scaler does nothing ✓ amp-no-cuda-off
        with torch.autocast("cuda"):  # nor does CPU autocast take over: a layer in the block returns float32
            assert nn.Linear(4, 1)(torch.ones(2, 4)).dtype == torch.float32  # ✓ amp-no-cuda-float32
with mock.patch("torch.cuda.is_available", return_value=True):  # the same calls where CUDA is available:
    assert warned(lambda: torch.amp.GradScaler("cuda")) == warned(autocast_on_cuda) == []  # no warning ✓ amp-no-cuda-mock
# --8<-- [end:amp-no-cuda]

# --8<-- [start:amp-no-cuda-fix]
on_gpu = torch.cuda.is_available()
device_type = "cuda" if on_gpu else "cpu"  # ask for the device the model runs on
dtype = torch.float16 if on_gpu else torch.bfloat16
assert warned(lambda: torch.autocast(device_type, dtype=dtype)) == []  # ✓ amp-no-cuda-fix
with torch.autocast(device_type, dtype=dtype):
    assert nn.Linear(4, 1).to(device_type)(torch.ones(2, 4, device=device_type)).dtype == dtype  # ✓ amp-no-cuda-fix
# --8<-- [end:amp-no-cuda-fix]

# --8<-- [start:empty-params]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(4, 8), nn.Linear(8, 1)]  # a plain list: the layers are not registered


net = Net()
print(len(list(net.parameters())))  # ✓ empty-params-count
#> 0
print(raised(lambda: torch.optim.SGD(net.parameters(), lr=0.1)))  # ✓ empty-params-message
#> ValueError: optimizer got an empty parameter list
frozen = nn.Linear(4, 1).requires_grad_(False)
print(raised(lambda: torch.optim.SGD([p for p in frozen.parameters() if p.requires_grad], lr=0.1)))  # ✓ empty-params-frozen
#> ValueError: optimizer got an empty parameter list
# --8<-- [end:empty-params]

# --8<-- [start:empty-params-fix]
class Fixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 8), nn.Linear(8, 1)])  # registered: its parameters count


fixed = Fixed()
assert len(list(fixed.parameters())) == 4  # two weights, two biases ✓ empty-params-fix
assert len(torch.optim.SGD(fixed.parameters(), lr=0.1).param_groups[0]["params"]) == 4  # ✓ empty-params-fix
assert len(list(nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 1)).parameters())) == 4  # nn.Sequential too ✓ empty-params-fix
as_attributes = nn.Module()
as_attributes.first, as_attributes.second = nn.Linear(4, 8), nn.Linear(8, 1)  # or attributes
assert len(list(as_attributes.parameters())) == 4  # ✓ empty-params-fix
# --8<-- [end:empty-params-fix]

# --8<-- [start:get-lr]
StepLR = torch.optim.lr_scheduler.StepLR
optimizer = torch.optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=1, gamma=0.5)
optimizer.step()
scheduler.step()
probe_opt = torch.optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)  # a second scheduler, to watch its step()
probe = StepLR(probe_opt, step_size=1, gamma=0.5)
probe_opt.step()
with mock.patch.object(StepLR, "get_lr", autospec=True, side_effect=StepLR.get_lr) as spy:
    assert warned(probe.step) == []  # step() calls get_lr() without a warning ✓ get-lr-step
assert spy.call_count == 1  # once per step ✓ get-lr-step
print(warned(scheduler.get_lr))  # ✓ get-lr-message
#> ['UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`.']
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(scheduler.get_lr(), scheduler.get_last_lr())  # this StepLR's get_lr(): one more step, 0.05 * 0.5 ✓ get-lr-differs
    #> [0.025] [0.05]
    by_lambda_opt = torch.optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)
    by_lambda = torch.optim.lr_scheduler.LambdaLR(by_lambda_opt, lambda epoch: 0.5**epoch)  # the same rates
    by_lambda_opt.step()
    by_lambda.step()
    assert by_lambda.get_lr() == by_lambda.get_last_lr() == [0.05]  # a LambdaLR's: the rate in use ✓ get-lr-lambda
# --8<-- [end:get-lr]

# --8<-- [start:get-lr-fix]
assert warned(scheduler.get_last_lr) == []  # ✓ get-lr-fix
assert scheduler.get_last_lr() == [optimizer.param_groups[0]["lr"]] == [0.05]  # what the optimizer uses ✓ get-lr-fix
# --8<-- [end:get-lr-fix]

# --8<-- [start:use-reentrant]
block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
x = torch.ones(2, 4, requires_grad=True)
caught = warned(lambda: checkpoint(block, x))
print(caught[0][: caught[0].index(" use_reentrant=False is")])  # ✓ use-reentrant-message
#> UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future release, calling checkpoint without use_reentrant will raise an exception.
# --8<-- [end:use-reentrant]

# --8<-- [start:use-reentrant-fix]
assert "use_reentrant=False is recommended" in caught[0]  # the value the warning recommends ✓ use-reentrant-fix
assert warned(lambda: checkpoint(block, x, use_reentrant=False).sum().backward()) == []  # forward and backward ✓ use-reentrant-fix
by_hand = x.grad.clone()
x.grad = None
block(x).sum().backward()  # the same gradient without checkpointing
assert torch.equal(x.grad, by_hand)  # ✓ use-reentrant-fix-grad
# --8<-- [end:use-reentrant-fix]

# --8<-- [start:volatile]
features = torch.ones(2, 4)
print(warned(lambda: torch.autograd.Variable(features, volatile=True)))  # ✓ volatile-message
#> ['UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead.']
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = nn.Linear(4, 1)(torch.autograd.Variable(features, volatile=True))
print(out.requires_grad)  # no effect: the graph is still recorded ✓ volatile-no-effect
#> True
# --8<-- [end:volatile]

# --8<-- [start:volatile-fix]
with torch.no_grad():
    out = nn.Linear(4, 1)(features)
assert not out.requires_grad and out.grad_fn is None  # no graph, no saved tensors ✓ volatile-fix
wrapped = torch.autograd.Variable(features)
assert wrapped is not features and wrapped.data_ptr() == features.data_ptr()  # a new tensor on x's memory ✓ volatile-fix-variable
assert type(wrapped) is torch.Tensor  # of the plain tensor class ✓ volatile-fix-variable
weights = torch.ones(4, requires_grad=True)
wrapped = torch.autograd.Variable(weights)
assert not wrapped.requires_grad and wrapped.grad_fn is None  # detached, like weights.detach() ✓ volatile-fix-detached
assert wrapped.data_ptr() == weights.detach().data_ptr()  # ✓ volatile-fix-detached
with torch.no_grad():
    layer = nn.Linear(4, 1)
    assert torch.equal(layer(torch.autograd.Variable(features)), layer(features))  # the same result without it ✓ volatile-fix-drop
# --8<-- [end:volatile-fix]

# --8<-- [start:pretrained]
for line in warned(lambda: torchvision.models.resnet18(pretrained=False)):
    print(line)  # ✓ pretrained-message
    #> UserWarning: The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, please use 'weights' instead.
    #> UserWarning: Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 and may be removed in the future. The current behavior is equivalent to passing `weights=None`.
assert warned(lambda: torchvision.models.resnet18(weights=False)) == [line]  # the second: a bool for weights ✓ pretrained-bool
builders = [torchvision.models.get_model_builder(name) for name in torchvision.models.list_models()]
signatures = [inspect.signature(builder).parameters for builder in builders]
assert all("weights" in s and "pretrained" not in s for s in signatures)  # every model builder ✓ weights-everywhere
print(len(builders), "model builders, each with `weights` and without `pretrained` in its signature")
#> 121 model builders, each with `weights` and without `pretrained` in its signature
# --8<-- [end:pretrained]

# --8<-- [start:pretrained-fix]
assert warned(lambda: torchvision.models.resnet18(weights=None)) == []  # random weights, said the new way ✓ pretrained-fix
first, second = torchvision.models.resnet18(weights=None), torchvision.models.resnet18(weights=None)
assert not torch.equal(first.fc.weight, second.fc.weight)  # random: each build draws its own ✓ pretrained-fix-random
weights = torchvision.models.ResNet18_Weights.DEFAULT  # what pretrained=True meant: ImageNet weights
assert weights is torchvision.models.ResNet18_Weights.IMAGENET1K_V1  # ✓ pretrained-fix-default
assert weights.meta["num_params"] == 11689512  # resnet18(weights=weights) downloads them ✓ pretrained-fix-default
# --8<-- [end:pretrained-fix]
