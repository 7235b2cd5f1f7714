"""Autograd: leaf tensors, gradients that accumulate, detach / no_grad / inference_mode, retain_graph.

Page: docs/training/autograd.md
"""

# --8<-- [start:setup]
import warnings

import torch
from torch import nn

x = torch.tensor([4.0, 5.0, 6.0])  # an input: requires no gradient
# --8<-- [end:setup]

# --8<-- [start:leaf]
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # made by you: a leaf
y = w * x  # made by an operation on a tensor that requires grad: not a leaf
print(w.is_leaf, x.is_leaf, y.is_leaf, y.requires_grad, y.grad_fn.name())  # ✓ leaves
#> True True False True MulBackward0
print(nn.Linear(3, 1).weight.is_leaf)  # a module's parameters are leaves ✓ param-leaf
#> True

y.sum().backward()
print(w.grad)  # d sum(w * x) / dw = x ✓ w-grad
#> tensor([4., 5., 6.])
print(x.grad)  # x does not require grad: nothing is stored ✓ x-grad
#> None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(y.grad)  # a non-leaf keeps no .grad, and reading it warns ✓ y-grad
    #> None
assert len(caught) == 1
print(caught[0].category.__name__, str(caught[0].message).split(". ")[0])  # ✓ nonleaf-warning
#> UserWarning The .grad attribute of a Tensor that is not a leaf Tensor is being accessed
# --8<-- [end:leaf]

# --8<-- [start:retain-grad]
w.grad = None
y = w * x
y.retain_grad()  # ask for the gradient of this non-leaf to be kept
y.sum().backward()
print(y.grad)  # d sum(y) / dy ✓ retain-grad
#> tensor([1., 1., 1.])
# --8<-- [end:retain-grad]

# --8<-- [start:not-a-leaf]
leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = leaf.double()  # a converting copy after requires_grad=True is an operation ...
print(v.is_leaf, v.grad_fn.name(), leaf.to("meta").grad_fn.name())  # ... for a dtype or a device ✓ copy-node
#> False ToCopyBackward0 ToCopyBackward0
(v * 2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert v.grad is None  # v keeps no gradient (and reading it warns) ... ✓ v-no-grad
assert len(caught) == 1 and "not a leaf" in str(caught[0].message)
print(leaf.grad)  # ... it went to the leaf it was copied from ✓ leaf-grad
#> tensor([2., 2., 2.])

v = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)  # create it as wanted
(v * 2).sum().backward()
print(v.is_leaf, v.grad)  # ✓ created-leaf
#> True tensor([2., 2., 2.], dtype=torch.float64)
# --8<-- [end:not-a-leaf]

# --8<-- [start:accumulate]
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for _ in range(3):
    (w * x).sum().backward()  # each call ADDS d/dw = x to w.grad
    print(w.grad)  # ✓ accumulates
    #> tensor([4., 5., 6.])
    #> tensor([ 8., 10., 12.])
    #> tensor([12., 15., 18.])
assert torch.equal(w.grad, 3 * x)  # ✓ three-times
layer = nn.Linear(3, 1)
layer(x).sum().backward()
layer.zero_grad()  # what a training loop calls before the next step: .grad cleared (set to None)
assert layer.weight.grad is None and layer.bias.grad is None  # ✓ zero-grad
batch = torch.arange(12.0).view(4, 3)  # 4 samples
layer(batch).sum().backward()  # a loss summed over the samples
whole = layer.weight.grad.clone()


def accumulated(parts, loss_of) -> torch.Tensor:
    """Gradient accumulation: one backward() per part of the batch, .grad cleared first."""
    layer.zero_grad()
    for part in parts:
        loss_of(layer(part), len(parts)).backward()
    return layer.weight.grad


def summed(out, n_parts):
    return out.sum()


def mean_over_parts(out, n_parts):  # a mean loss, divided by the number of parts
    return out.mean() / n_parts


def mean_by_share(out, n_parts):  # a mean loss, weighted by the part's share of the samples
    return out.mean() * len(out) / len(batch)


for parts in (batch.split(2), batch.split(1), batch.split(3), batch.split([1, 3]), batch.split([2, 1, 1])):  # 2+2, 1+1+1+1, 3+1, 1+3, 2+1+1
    assert torch.allclose(accumulated(parts, summed), whole)  # adds up for any split ✓ accumulation
    equal = len({len(part) for part in parts}) == 1
    assert torch.allclose(accumulated(parts, mean_over_parts), whole / 4) == equal  # equal parts only ✓ accumulation
    assert torch.allclose(accumulated(parts, mean_by_share), whole / 4)  # any split ✓ mean-share
# --8<-- [end:accumulate]

# --8<-- [start:detach]
a = torch.tensor([0.0, 1.0], requires_grad=True)
s = a.sigmoid()  # sigmoid keeps its output for the backward pass
d = s.detach()  # no history, no gradient, but the SAME memory as s
print(d.requires_grad, d.data_ptr() == s.data_ptr())  # ✓ detach-shares
#> False True
d.zero_()  # so writing into d overwrites the value that backward needs
try:
    s.sum().backward()
except RuntimeError as err:
    print(str(err).split(". Hint")[0])  # ✓ inplace-error
    #> one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead

s = a.sigmoid()
d = s.detach().clone()  # a copy to write into
d.zero_()
s.sum().backward()  # fine: s itself was not changed
print(a.grad)  # sigmoid'(a) = s * (1 - s) ✓ clone-fine
#> tensor([0.2500, 0.1966])
# --8<-- [end:detach]

# --8<-- [start:no-grad]
with torch.no_grad():
    out = (a * 2).sum()  # no graph is recorded inside no_grad
print(out.requires_grad, out.grad_fn)  # ✓ no-graph
#> False None
try:
    out.backward()
except RuntimeError as err:
    print(err)  # ✓ no-grad-error
    #> element 0 of tensors does not require grad and does not have a grad_fn

a.grad = None
(a * out).sum().backward()  # but a no_grad result may enter a graph later, as a constant
print(a.grad)  # ✓ constant
#> tensor([2., 2.])
# --8<-- [end:no-grad]

# --8<-- [start:no-grad-update]
try:
    a -= 0.1 * a.grad  # a hand-written update outside no_grad
except RuntimeError as err:
    print(err)  # ✓ leaf-inplace-error
    #> a leaf Variable that requires grad is being used in an in-place operation.
with torch.no_grad():
    a -= 0.1 * a.grad  # the right place for it (what optimizers do)
print(a, a.is_leaf)  # ✓ update-in-no-grad
#> tensor([-0.2000,  0.8000], requires_grad=True) True
# --8<-- [end:no-grad-update]

# --8<-- [start:inference-mode]
with torch.inference_mode():
    t = torch.ones(2) * 3  # an "inference tensor"
with torch.no_grad():
    n = torch.ones(2) * 3  # an ordinary tensor without history
print(torch.is_inference(t), torch.is_inference(n), t.requires_grad, n.requires_grad)  # ✓ is-inference
#> True False False False

(a * n).sum().backward()  # a no_grad tensor may be saved for backward ✓ no-grad-saved
try:
    (a * t).sum().backward()  # an inference tensor may not: mul saves t to compute d/da
except RuntimeError as err:
    print(str(err).split(". ")[0])  # ✓ saved-error
    #> Inference tensors cannot be saved for backward
try:
    t.add_(1)  # nor changed in place outside inference_mode ...
except RuntimeError as err:
    print(str(err).split(".")[0])  # ✓ inference-inplace-error
    #> Inplace update to inference tensor outside InferenceMode is not allowed
print(t)  # ... but the error comes after the write: t has changed all the same ✓ after-write
#> tensor([4., 4.])

a.grad = None
(a * t.clone()).sum().backward()  # a clone made outside inference_mode is an ordinary tensor
print(a.grad)  # ✓ clone-ordinary
#> tensor([4., 4.])
# --8<-- [end:inference-mode]

# --8<-- [start:retain-graph]
a.grad = None
loss = a.sigmoid().sum()
loss.backward(retain_graph=True)  # keep the graph's saved values for another pass
loss.backward()  # the second pass works, and adds to .grad; this one frees them
once = torch.sigmoid(a) * (1 - torch.sigmoid(a))
assert torch.allclose(a.grad, 2 * once)  # ✓ twice
try:
    loss.backward()  # a third pass: the saved values are gone
except RuntimeError as err:
    print(str(err).split(". ")[0])  # ✓ second-time-error
    #> Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed)
# --8<-- [end:retain-graph]
