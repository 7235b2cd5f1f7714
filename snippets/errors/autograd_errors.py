"""Autograd errors: each message reproduced, explained and fixed.

Page: docs/errors/autograd_errors.md
"""

# --8<-- [start:setup]
import re
import warnings

import numpy as np
import torch
from torch import nn

x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # a batch of 3 inputs
# --8<-- [end:setup]

# --8<-- [start:backward-twice]
w = torch.tensor([0.5, -0.5], requires_grad=True)
hidden = (x @ w).exp()  # computed ONCE, outside the loop; exp saves its output for backward
failed_at = []
for step in range(2):
    loss = hidden.sum()
    try:
        loss.backward()
    except RuntimeError as err:
        failed_at.append(step)
        print(f"{type(err).__name__}: {err}")  # ✓ twice-message
        #> RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
print(failed_at)  # the first backward() worked, the second one failed ✓ twice-second
#> [1]

b = torch.tensor([0.5, -0.5], requires_grad=True)
plain = (b + 1).sum()  # add and sum save no tensor for backward ...
plain.backward()
plain.backward()  # ... so a second pass has nothing freed to miss ✓ twice-nothing-saved
print(b.grad)
#> tensor([2., 2.])
# --8<-- [end:backward-twice]

# --8<-- [start:backward-twice-fix]
w.grad = None
for _ in range(2):
    hidden = (x @ w).exp()  # the fix: the forward pass again, for each backward()
    loss = hidden.sum()
    loss.backward()
once = x.T @ (x @ w).exp()  # d sum(exp(x @ w)) / dw, by hand
assert torch.allclose(w.grad, 2 * once)  # two backward() calls, two gradients added ✓ twice-fixed
w.grad = None
loss = (x @ w).exp().sum()
loss.backward(retain_graph=True)  # or keep the saved values for another call ...
loss.backward()  # ... and the second call through the same graph works ✓ twice-retain
assert torch.allclose(w.grad, 2 * once)  # ✓ twice-retain
# --8<-- [end:backward-twice-fix]

# --8<-- [start:inplace]
w = torch.tensor([0.5, -0.5], requires_grad=True)


def forward(w: torch.Tensor) -> torch.Tensor:
    h = x @ w
    y = torch.sigmoid(h)  # sigmoid saves its output y: its gradient is y * (1 - y)
    y += 1  # an in-place change of y: what backward needs is gone
    return y.sum()


try:
    forward(w).backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ inplace-message
    #> RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
y = torch.sigmoid(x @ w)
y.detach().zero_()  # detach() shares y's memory: this writes into the saved y too
detached_error = ""
try:
    y.sum().backward()
except RuntimeError as err:
    detached_error = str(err)
assert "modified by an inplace operation" in detached_error  # the same error ✓ inplace-detach
# --8<-- [end:inplace]

# --8<-- [start:inplace-anomaly]
with warnings.catch_warnings(record=True) as caught:  # anomaly mode reports through a warning
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True):  # records a traceback for every forward op
        try:
            forward(w).backward()
        except RuntimeError as err:
            print(str(err).split("Hint: ")[1])  # ✓ anomaly-hint
            #> the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!
assert caught[0].category is UserWarning  # ✓ anomaly-node
report = str(caught[0].message)
print(report.splitlines()[0])  # the backward node that failed ... ✓ anomaly-node
#> Error detected in SigmoidBackward0. Traceback of forward call that caused the error:
print(re.findall(r"\n    (\S.*)", report)[-1])  # ... and the forward line that made it ✓ anomaly-line
#> y = torch.sigmoid(h)  # sigmoid saves its output y: its gradient is y * (1 - y)
# --8<-- [end:inplace-anomaly]

# --8<-- [start:inplace-fix]
def forward(w: torch.Tensor) -> torch.Tensor:
    h = x @ w
    y = torch.sigmoid(h)
    y = y + 1  # the fix: out of place, a new tensor; the saved y stays as it was
    return y.sum()


forward(w).backward()
s = torch.sigmoid(x @ w)
assert torch.allclose(w.grad, x.T @ (s * (1 - s)))  # the gradient of the intended function ✓ inplace-fixed
# --8<-- [end:inplace-fix]

# --8<-- [start:no-grad-fn]
model = nn.Linear(2, 1)
model.requires_grad_(False)  # frozen: e.g. a pretrained body, and nothing left trainable
loss = model(x).pow(2).mean()
print(loss.requires_grad, loss.grad_fn)  # no tensor in it requires grad: no graph was recorded ✓ no-grad-fn-why
#> False None
try:
    loss.backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ no-grad-fn-message
    #> RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

trainable = (w * 2).sum()
try:
    torch.autograd.backward([trainable, loss])  # "element" counts the tensors given to backward
except RuntimeError as err:
    print(err)  # ✓ no-grad-fn-element
    #> element 1 of tensors does not require grad and does not have a grad_fn
detached = (w * 2).sum().detach()  # a loss made of detached values ...
from_item = torch.tensor((w * 2).sum().item())  # ... or of .item() numbers: no graph either
print(detached.requires_grad, from_item.requires_grad)  # ✓ no-grad-fn-detached
#> False False
model.requires_grad_(True)
with torch.no_grad():
    loss = model(x).pow(2).mean()  # under no_grad, nothing is recorded either
print(loss.requires_grad, loss.grad_fn)  # ✓ no-grad-fn-no-grad
#> False None


def records(op, mode=torch.enable_grad) -> bool:
    """Whether the result of `op()` gets a grad_fn when run under `mode`."""
    with mode():
        return op().grad_fn is not None


a = torch.ones(2, requires_grad=True)  # the rule, case by case:
print(  # ✓ no-grad-fn-rule
    records(lambda: x[0] * x[1]),  # no input requires grad
    records(lambda: a * x[0]),  # one does
    records(lambda: a * x[0], torch.no_grad),  # ... but recording is off
    records(lambda: a * x[0], torch.inference_mode),
    records(a.argmax),  # ... but the result has no gradient (an index)
    records(lambda: a > 0),  # (a comparison)
)
#> False True False False False False
results = [a * 2, a.sum(), a.round(), a.double(), a.to(torch.complex64), a.argmax(), a.argsort(), a > 0, a.long(), a.nonzero(), torch.isnan(a)]
can_have_grad = [r.dtype.is_floating_point or r.dtype.is_complex for r in results]
assert [r.grad_fn is not None for r in results] == can_have_grad  # a graph exactly for float results ✓ no-grad-fn-dtype
# --8<-- [end:no-grad-fn]

# --8<-- [start:no-grad-fn-fix]
loss = model(x).pow(2).mean()  # the fix: parameters that require grad, outside no_grad
loss.backward()
print(loss.grad_fn.name(), model.weight.grad.shape)  # ✓ no-grad-fn-fixed
#> MeanBackward0 torch.Size([1, 2])
# --8<-- [end:no-grad-fn-fix]

# --8<-- [start:scalar]
w = torch.tensor([0.5, -0.5], requires_grad=True)
out = x @ w  # one value per sample: shape [3], not a scalar
try:
    out.backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ scalar-message
    #> RuntimeError: grad can be implicitly created only for scalar outputs
(x[:1] @ w).backward()  # shape [1]: one element is enough, it need not be 0-dimensional ✓ scalar-one-element
assert torch.equal(w.grad, x[0])  # backward() started from a gradient of 1: d(x[0] @ w)/dw ✓ scalar-one-element
# --8<-- [end:scalar]

# --8<-- [start:scalar-fix]
w.grad = None
(x @ w).sum().backward()  # the fix: reduce to the number you minimise ...
by_sum = w.grad.clone()
w.grad = None
out = x @ w
out.backward(gradient=torch.ones_like(out))  # ... or pass d(loss)/d(out) yourself
assert torch.equal(w.grad, by_sum) and torch.equal(by_sum, x.sum(dim=0))  # ✓ scalar-fixed
# --8<-- [end:scalar-fix]

# --8<-- [start:leaf]
w = torch.tensor([0.5, -0.5], requires_grad=True)
(x @ w).sum().backward()
try:
    w -= 0.1 * w.grad  # a hand-written SGD step
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ leaf-message
    #> RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
layer = nn.Linear(2, 1)
try:
    layer.weight.uniform_(-0.1, 0.1)  # initialising a parameter in place: the same error
except RuntimeError as err:
    print(err)  # ✓ leaf-parameter
    #> a leaf Variable that requires grad is being used in an in-place operation.
try:
    layer.weight[:, 0] = 0.0  # writing into a slice of it: the slice is a view of the leaf
except RuntimeError as err:
    print(err)  # ✓ leaf-view
    #> a view of a leaf Variable that requires grad is being used in an in-place operation.
changes = {
    "add_": lambda p: p.add_(1),
    "mul_": lambda p: p.mul_(2),
    "zero_": lambda p: p.zero_(),
    "fill_": lambda p: p.fill_(0.5),
    "copy_": lambda p: p.copy_(torch.zeros_like(p)),
    "clamp_": lambda p: p.clamp_(max=0.0),
    "masked_fill_": lambda p: p.masked_fill_(torch.ones_like(p, dtype=torch.bool), 0.0),
    "index_put_": lambda p: p.index_put_((torch.tensor([0]),), torch.tensor(0.0)),
}
parameters = list(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).parameters())  # 2 weights, 2 biases
refusals = dict.fromkeys(changes, 0)
for name, change in changes.items():  # every in-place change of values, on every parameter
    for parameter in parameters:
        try:
            change(parameter)
        except RuntimeError as err:
            refusals[name] += "a leaf Variable that requires grad" in str(err)
print(len(parameters), refusals)  # each change refused on every parameter ✓ leaf-every
#> 4 {'add_': 4, 'mul_': 4, 'zero_': 4, 'fill_': 4, 'copy_': 4, 'clamp_': 4, 'masked_fill_': 4, 'index_put_': 4}
frozen = nn.Parameter(torch.zeros(2), requires_grad=False)  # parameters require grad by default; a frozen one ...
frozen.add_(1)  # ... may be changed in place
assert nn.Parameter(torch.zeros(2)).requires_grad and frozen.tolist() == [1.0, 1.0]  # ✓ leaf-frozen
h = x @ w
h += 1  # a non-leaf may be changed in place (when backward does not need its old value) ✓ leaf-nonleaf-ok
assert torch.equal(torch.autograd.grad(h.sum(), w)[0], x.sum(dim=0))  # and backward through it works ✓ leaf-nonleaf-ok
# --8<-- [end:leaf]

# --8<-- [start:leaf-fix]
before_update = w
with torch.no_grad():  # the fix: update outside the graph, as optimizers do
    w -= 0.1 * w.grad
print(w, w.is_leaf, w.grad_fn)  # still a leaf that requires grad, now with the new values ✓ leaf-fixed
#> tensor([-0.4000, -1.7000], requires_grad=True) True None
assert w is before_update  # the same tensor object, updated in place ✓ leaf-fixed
by_sgd = torch.tensor([0.5, -0.5], requires_grad=True)  # the same start and the same gradient ...
(x @ by_sgd).sum().backward()
assert torch.is_grad_enabled()  # autograd records here, yet step() raises no leaf error:
torch.optim.SGD([by_sgd], lr=0.1).step()  # ... the optimizer turns it off for its update
assert torch.allclose(by_sgd, w) and by_sgd.is_leaf and by_sgd.grad_fn is None  # ✓ leaf-optimizer
before = layer.weight.detach().clone()
nn.init.uniform_(layer.weight, -0.1, 0.1)  # nn.init changes a parameter in place under no_grad for you
nn.init.zeros_(layer.bias)
assert not torch.equal(layer.weight, before) and layer.weight.abs().max() <= 0.1  # ✓ leaf-init
print(layer.bias, layer.weight.is_leaf)  # ✓ leaf-init
#> Parameter containing:
#> tensor([0.], requires_grad=True) True
with torch.no_grad():
    layer.weight[:, 0] = 0.0  # the same fix for a slice
assert layer.weight[0, 0] == 0.0 and layer.weight[0, 1] != 0.0 and layer.weight.is_leaf  # ✓ leaf-view-fixed
# --8<-- [end:leaf-fix]

# --8<-- [start:numpy]
w = torch.tensor([0.5, -0.5], requires_grad=True)
preds = x @ w  # predictions, e.g. for a plot or a NumPy metric
try:
    preds.numpy()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ numpy-message
    #> RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
print(torch.tensor([1.0, 2.0]).numpy())  # a tensor that requires no grad converts ✓ numpy-no-grad
#> [1. 2.]
# --8<-- [end:numpy]

# --8<-- [start:numpy-fix]
array = preds.detach().numpy()  # the fix: leave the graph first
print(type(array).__name__, array)  # ✓ numpy-fixed
#> ndarray [-0.5 -0.5 -0.5]
assert np.shares_memory(array, preds.detach().numpy())  # no copy: the array views preds' memory ✓ numpy-shares
print(preds.numpy(force=True))  # force=True detaches (and copies to the CPU when needed) for you ✓ numpy-force
#> [-0.5 -0.5 -0.5]
# --8<-- [end:numpy-fix]

# --8<-- [start:nan-find]
def first_non_finite(**tensors: torch.Tensor) -> str | None:
    """The name of the first tensor holding a nan or an inf, or None."""
    return next((name for name, t in tensors.items() if not torch.isfinite(t).all()), None)


points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [9.0, 0.0], [9.0, 4.0]])
centre = torch.tensor([3.0, 4.0], requires_grad=True)  # starts ON a point: a distance of 0
for step in range(3):
    centre.grad = None
    distance = (points - centre).pow(2).sum(dim=1).sqrt()  # Euclidean distance, by hand
    loss = distance.mean()
    loss.backward()
    bad = first_non_finite(loss=loss, grad=centre.grad)
    print(step, f"{loss.item():.3f}", bad)  # ✓ nan-steps
    #> 0 4.553 grad
    #> 1 nan loss
    #> 2 nan loss
    with torch.no_grad():
        centre -= 0.5 * centre.grad  # a plain SGD step, learning rate 0.5
# --8<-- [end:nan-find]

# --8<-- [start:nan-anomaly]
centre = torch.tensor([3.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True):  # check_nan=True by default
        try:
            (points - centre).pow(2).sum(dim=1).sqrt().mean().backward()
        except RuntimeError as err:
            print(f"{type(err).__name__}: {err}")  # ✓ nan-message
            #> RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.
print(re.findall(r"\n    (\S.*)", str(caught[0].message))[-1])  # the forward line of that node ✓ nan-line
#> (points - centre).pow(2).sum(dim=1).sqrt().mean().backward()

r = torch.zeros(1, requires_grad=True)
with torch.autograd.set_detect_anomaly(True):  # the same mode, on sqrt alone: no error
    r.sqrt().backward()  # sqrt's gradient at 0 is 1 / (2 * sqrt(0))
print(r.grad)  # inf, not nan: anomaly mode lets it pass; pow's backward multiplies it by 0 ✓ nan-inf
#> tensor([inf])
# --8<-- [end:nan-anomaly]

# --8<-- [start:nan-fix]
centre = torch.tensor([3.0, 4.0], requires_grad=True)
losses = []
for _ in range(3):
    centre.grad = None
    loss = torch.linalg.vector_norm(points - centre, dim=1).mean()  # the fix: its gradient at 0 is 0
    loss.backward()
    assert first_non_finite(loss=loss, grad=centre.grad) is None  # ✓ nan-fixed
    with torch.no_grad():
        centre -= 0.5 * centre.grad  # a plain SGD step, learning rate 0.5
    losses.append(loss.item())
print([round(v, 3) for v in losses])  # finite, and going down ✓ nan-fixed
#> [4.553, 4.507, 4.489]
assert losses[0] > losses[1] > losses[2]  # ✓ nan-fixed
zero = torch.zeros(2, requires_grad=True)
torch.linalg.vector_norm(zero).backward()
print(zero.grad)  # the norm's gradient at a zero vector: 0, not nan ✓ nan-norm-zero
#> tensor([0., 0.])
# --8<-- [end:nan-fix]

# --8<-- [start:custom-function]
class Clip(torch.autograd.Function):
    """A custom operation with a forward pass only."""

    @staticmethod
    def forward(ctx, t):
        return t.clamp(-1, 1)


t = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
out = Clip.apply(t)
print(out.grad_fn.name())  # the forward pass works and records a node ✓ custom-forward
#> ClipBackward
try:
    out.sum().backward()
except NotImplementedError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ custom-message
    #> NotImplementedError: You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.
# --8<-- [end:custom-function]

# --8<-- [start:custom-function-fix]
class ClipWithGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.clamp(-1, 1)

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * (t.abs() <= 1)  # 1 inside the range, 0 where clamp cut


t.grad = None
ClipWithGrad.apply(t).sum().backward()
assert t.grad.tolist() == [0.0, 1.0, 0.0]  # ✓ custom-fixed
reference = t.detach().clone().requires_grad_()
reference.clamp(-1, 1).sum().backward()
assert torch.equal(t.grad, reference.grad)  # the gradient clamp itself has ✓ custom-fixed
# --8<-- [end:custom-function-fix]

# --8<-- [start:non-leaf-grad]
w = torch.tensor([1.0, 2.0], requires_grad=True)
scaled = w * 3  # made by an operation: not a leaf
scaled.sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(scaled.grad)  # ✓ non-leaf-none
    #> None
print(f"{caught[0].category.__name__}: {str(caught[0].message).split(' Its .grad')[0]}")  # ✓ non-leaf-message
#> UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.
print(w.is_leaf, scaled.is_leaf, w.grad)  # the leaf got its gradient ✓ non-leaf-leaf
#> True False tensor([3., 3.])
# --8<-- [end:non-leaf-grad]

# --8<-- [start:non-leaf-grad-fix]
w.grad = None
scaled = w * 3
scaled.retain_grad()  # keep this intermediate's gradient too
scaled.sum().backward()
assert scaled.grad.tolist() == [1.0, 1.0] and w.grad.tolist() == [3.0, 3.0]  # ✓ non-leaf-fixed
moved = [torch.tensor([1.0, 2.0], requires_grad=True).to(to) for to in (torch.float64, "meta")]  # .to(), .cuda()
assert not any(m.is_leaf for m in moved)  # another dtype, another device: not leaves ✓ non-leaf-to
leaf = torch.tensor([1.0, 2.0], dtype=torch.float64, device="meta", requires_grad=True)  # made as it is used
assert leaf.is_leaf  # a leaf ✓ non-leaf-to
# --8<-- [end:non-leaf-grad-fix]

# --8<-- [start:inference]
model = nn.Linear(2, 1)
with torch.inference_mode():
    features = model(x)  # computed under inference_mode: an inference tensor
print(features.is_inference())  # ✓ inference-is
#> True
head = nn.Linear(1, 1)  # trained on top of those features
try:
    head(features).sum().backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")  # ✓ inference-message
    #> RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.
# --8<-- [end:inference]

# --8<-- [start:inference-fix]
with torch.no_grad():
    features = model(x)  # no_grad: a normal tensor without history
assert not features.is_inference()
head(features).sum().backward()
assert head.weight.grad is not None and model.weight.grad is None  # only the head learns ✓ inference-fixed
with torch.inference_mode():
    frozen = model(x)
head.zero_grad()
head(frozen.clone()).sum().backward()  # or clone the inference tensor outside inference_mode
assert torch.equal(head.weight.grad, frozen.sum(dim=0, keepdim=True).T)  # ✓ inference-clone
# --8<-- [end:inference-fix]
