"""model.train() / model.eval(): what eval() switches (BatchNorm, Dropout), what it does not (autograd),
why test accuracy depends on it and on the test batch size, and no_grad / inference_mode beside it.

Page: docs/models/train_eval.md
"""

# --8<-- [start:setup]
import copy
import warnings

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


def make_data(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Two classes in 4 features, every feature offset by 5 (so BatchNorm's statistics matter)."""
    y = torch.randint(0, 2, (n,), generator=generator)
    x = torch.randn(n, 4, generator=generator) + 5 + (2 * y - 1).unsqueeze(1) * 0.8
    return x, y


g = torch.Generator().manual_seed(0)
x_train, y_train = make_data(512, g)
x_test, y_test = make_data(64, g)
order = y_test.argsort(stable=True)  # a test set stored class by class
x_test, y_test = x_test[order], y_test[order]
assert torch.equal(y_test, y_test.sort().values)  # all of class 0 first, then all of class 1 ✓ class-by-class

model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for _ in range(5):  # a short training run, in train mode (the default)
    for i in range(0, len(x_train), 32):
        loss = F.cross_entropy(model(x_train[i : i + 32]), y_train[i : i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
bn, dropout = model[1], model[3]
# --8<-- [end:setup]

# --8<-- [start:flags]
print(model.training, bn.training, dropout.training)  # a new module is in train mode ✓ default-train
#> True True True


def held(module: nn.Module) -> dict:
    """What a module's __dict__ holds, its own dicts (parameters, buffers, submodules, hooks) opened one level."""
    return {
        (name, key): item
        for name, value in vars(module).items()
        for key, item in (value.items() if isinstance(value, dict) else [(None, value)])
    }


def rebound(modules: list[nn.Module], before: list[dict]) -> set[str]:
    """The __dict__ names whose contents are no longer the same objects as in `before`, in any of `modules`."""
    gone = object()
    return {
        name
        for module, old in zip(modules, before, strict=True)
        for name, key in old.keys() | held(module).keys()
        if old.get((name, key), gone) is not held(module).get((name, key), gone)
    }


held_in_train = [held(m) for m in model.modules()]
values_in_train = {name: value.clone() for name, value in model.state_dict().items()}
same = model.eval()  # sets .training = False on the model and every submodule ...
print(same is model, [m.training for m in model.modules()])  # ... and returns the model itself ✓ eval-flags
#> True [False, False, False, False, False, False]
held_in_eval = [held(m) for m in model.modules()]
assert rebound(list(model.modules()), held_in_train) == {"training"}  # eval() changes nothing else ✓ one-flag
assert all(torch.equal(model.state_dict()[name], value) for name, value in values_in_train.items())  # nor a value in place ✓ one-flag
model.train()  # back: train(True)
print(all(m.training for m in model.modules()))  # ✓ train-flags
#> True
assert rebound(list(model.modules()), held_in_eval) == {"training"}  # nor does train() ✓ one-flag
assert all(torch.equal(model.state_dict()[name], value) for name, value in values_in_train.items())  # ✓ one-flag
print(model.train(False) is model, any(m.training for m in model.modules()))  # from train mode: the same as eval() ✓ train-false
#> True False
# --8<-- [end:flags]

# --8<-- [start:dropout]
x = torch.ones(1, 10)
dropout.train()
print(dropout(x))  # train mode: about p of the elements zeroed, the rest scaled by 1 / (1 - p) ✓ dropout-train
#> tensor([[1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 0.0000, 0.0000, 0.0000, 1.2500,
#>          1.2500]])
with torch.random.fork_rng(devices=[]):  # a larger draw, leaving the random numbers of the rest of the page as they were
    many = dropout(torch.ones(100_000))
zeroed = (many == 0).float().mean().item()
assert dropout.p == 0.2 and set(many.unique().tolist()) == {0.0, 1.25} and abs(zeroed - 0.2) < 0.01  # about p of them zeroed ✓ dropout-train
dropout.eval()
print(torch.equal(dropout(x), x))  # eval mode: Dropout passes its input through unchanged ✓ dropout-eval
#> True
# --8<-- [end:dropout]

# --8<-- [start:batchnorm]
h = model[0](x_test[:8]).detach()  # what BatchNorm receives: 8 samples of 16 features
saved_mean, saved_var = bn.running_mean.clone(), bn.running_var.clone()

bn.train()
out = bn(h)  # train mode: normalised with THIS batch's mean and variance ...
batch_formula = (h - h.mean(0)) / torch.sqrt(h.var(0, unbiased=False) + bn.eps) * bn.weight + bn.bias
print(torch.allclose(out, batch_formula, atol=1e-5))  # ✓ bn-train-batch
#> True
towards = (1 - bn.momentum) * saved_mean + bn.momentum * h.mean(0)  # momentum 0.1: a tenth of the way
print(torch.equal(bn.running_mean, saved_mean), torch.allclose(bn.running_mean, towards))  # ... and the running statistics move towards it ✓ bn-train-updates
#> False True
var_towards = (1 - bn.momentum) * saved_var + bn.momentum * h.var(0, unbiased=True)  # the UNBIASED variance (n - 1)
biased_towards = (1 - bn.momentum) * saved_var + bn.momentum * h.var(0, unbiased=False)  # what it normalised with
assert torch.allclose(bn.running_var, var_towards) and not torch.allclose(bn.running_var, biased_towards)  # ✓ bn-train-var

bn.running_mean.copy_(saved_mean)  # put the mean back
var_before = bn.running_var.clone()
bn.eval()
out = bn(h)  # eval mode: normalised with the running statistics, which stay as they are
running_formula = (h - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight + bn.bias
print(torch.allclose(out, running_formula, atol=1e-5), torch.equal(bn.running_mean, saved_mean))  # ✓ bn-eval-running
#> True True
assert torch.equal(bn.running_var, var_before)  # the variance stays too ✓ bn-eval-running
# --8<-- [end:batchnorm]

# --8<-- [start:still-grad]
model.eval()
out = model(x_test[:4])
print(out.requires_grad, out.grad_fn is not None)  # eval() does not stop autograd: a graph is still built ✓ eval-records
#> True True
out.sum().backward()
print(model[0].weight.grad is not None)  # and backward() still fills .grad ✓ eval-backward
#> True
model.zero_grad()
with torch.no_grad():  # no_grad stops the graph, not BatchNorm or Dropout
    out = model(x_test[:4])
print(out.requires_grad, out.grad_fn)  # ✓ no-grad-no-graph
#> False None
# --8<-- [end:still-grad]


# --8<-- [start:accuracy]
def accuracy(net: nn.Module, batch_size: int, order: torch.Tensor | None = None) -> float:
    """Accuracy on the test set, fed in batches of `batch_size`, in the order it is stored (or in `order`)."""
    x, y = (x_test, y_test) if order is None else (x_test[order], y_test[order])
    with torch.no_grad():
        preds = [net(x[i : i + batch_size]).argmax(1) for i in range(0, len(x), batch_size)]
    return round((torch.cat(preds) == y).float().mean().item(), 4)


model.eval()
print([accuracy(model, bs) for bs in (1, 16, 64)])  # eval: the same for every test batch size ✓ eval-same
#> [0.9062, 0.9062, 0.9062]
with torch.no_grad():
    one_at_a_time = torch.cat([model(x_test[i : i + 1]) for i in range(len(x_test))])
    print(torch.allclose(one_at_a_time, model(x_test), atol=1e-5))  # the same outputs, up to rounding ✓ eval-outputs
    #> True

in_train_mode = copy.deepcopy(model).train()  # the same weights, evaluated without eval()
print([accuracy(in_train_mode, bs) for bs in (2, 16, 64)])  # train mode: depends on the batch ✓ train-differs
#> [0.5156, 0.5781, 0.9062]
bn_alone = copy.deepcopy(model).train()
bn_alone[3].eval()  # Dropout off: BatchNorm alone in train mode
mixed = torch.randperm(len(y_test), generator=torch.Generator().manual_seed(1))  # the same samples, shuffled
print(accuracy(bn_alone, 16), accuracy(bn_alone, 16, order=mixed))  # one-class batches vs mixed ones ✓ class-batches
#> 0.5781 0.9062
moved = not torch.equal(in_train_mode[1].running_mean, model[1].running_mean)
print(moved)  # and evaluating in train mode changed the running statistics, under no_grad too ✓ eval-in-train-moves
#> True

try:
    in_train_mode(x_test[:1])  # one sample: BatchNorm1d has no batch statistics to compute
except ValueError as err:
    print(err)  # ✓ one-value
    #> Expected more than 1 value per channel when training, got input size torch.Size([1, 16])
print(nn.BatchNorm2d(16).train()(torch.ones(1, 16, 4, 4)).shape)  # one image still has 4 x 4 values per channel ✓ bn2d-one
#> torch.Size([1, 16, 4, 4])
for height, width in [(1, 2), (2, 1), (2, 2), (7, 5)]:  # any map larger than 1 x 1: two values or more
    assert nn.BatchNorm2d(16).train()(torch.ones(1, 16, height, width)).shape == (1, 16, height, width)  # ✓ bn2d-one
try:
    nn.BatchNorm2d(16).train()(torch.ones(1, 16, 1, 1))  # 1 x 1 maps: one value per channel again
except ValueError as err:
    print(err)  # ✓ bn2d-one-pixel
    #> Expected more than 1 value per channel when training, got input size torch.Size([1, 16, 1, 1])
# --8<-- [end:accuracy]

# --8<-- [start:running-stats]
stale = copy.deepcopy(model)
stale[1].reset_running_stats()  # running statistics that do not describe the data: mean 0, variance 1
print(accuracy(stale.eval(), 16))  # eval mode now does worse ... ✓ stale-eval
#> 0.4062
print(accuracy(copy.deepcopy(stale).train(), 64))  # ... than train mode on a large mixed batch ✓ stale-train
#> 0.8906

stale[1].momentum = None  # None: a plain average over the batches seen since the reset
stale.train()
batch_means = []
with torch.no_grad():
    for i in range(0, len(x_train), 32):  # forward passes over training data re-estimate the statistics
        stale(x_train[i : i + 32])
        batch_means.append(stale[0](x_train[i : i + 32]).mean(0))  # the mean of what BatchNorm saw
print(accuracy(stale.eval(), 16))  # ✓ re-estimated
#> 0.875
assert torch.allclose(stale[1].running_mean, torch.stack(batch_means).mean(0), atol=1e-5)  # every batch counts the same ✓ plain-average
# --8<-- [end:running-stats]

# --8<-- [start:modes]
rows = []
for name, context in [
    ("train", torch.enable_grad),
    ("train + no_grad", torch.no_grad),
    ("train + inference_mode", torch.inference_mode),
]:
    net = copy.deepcopy(model).train()
    before = net[1].running_mean.clone()
    with context():
        out = net(x_test[:8])
        again = net(x_test[:8])
    moved = not torch.equal(net[1].running_mean, before)
    rows.append((name, out.requires_grad, moved, torch.equal(out, again)))
net = copy.deepcopy(model).eval()
before = net[1].running_mean.clone()
with torch.no_grad():
    out = net(x_test[:8])
    again = net(x_test[:8])
rows.append(("eval + no_grad", out.requires_grad, not torch.equal(net[1].running_mean, before), torch.equal(out, again)))
for row in rows:  # (mode, graph recorded, running stats moved, two calls agree)
    print(row)  # ✓ modes-table
    #> ('train', True, True, False)
    #> ('train + no_grad', False, True, False)
    #> ('train + inference_mode', False, True, False)
    #> ('eval + no_grad', False, False, True)

model.eval()
with torch.inference_mode():
    targets = model(x_test[:8])  # e.g. a teacher's outputs, to train another model towards
print(torch.is_inference(targets))  # ✓ inference-tensor
#> True
try:
    F.mse_loss(model(x_test[:8]), targets).backward()  # the loss must save its target for backward
except RuntimeError as err:
    print(str(err).split(". ")[0])  # ✓ inference-in-graph
    #> Inference tensors cannot be saved for backward
with torch.no_grad():
    targets = model(x_test[:8])
F.mse_loss(model(x_test[:8]), targets).backward()  # made under no_grad, the same targets work ✓ no-grad-in-graph
model.zero_grad()
# --8<-- [end:modes]

# --8<-- [start:volatile]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v = torch.autograd.Variable(torch.ones(2), volatile=True)  # the pre-0.4 way to evaluate
print(caught[0].category.__name__, caught[0].message)  # ✓ volatile-warning
#> UserWarning volatile was removed and now has no effect. Use `with torch.no_grad():` instead.
print(type(v).__name__, v.requires_grad)  # Variable now returns a plain tensor ✓ variable-tensor
#> Tensor False
# --8<-- [end:volatile]
