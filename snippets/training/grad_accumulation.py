"""Gradient accumulation: when k micro-batches give the large-batch gradient, and when they don't.

Page: docs/training/grad_accumulation.md
"""

# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
x, y = torch.randn(8, 3), torch.randn(8, 1)  # one large batch of 8


def model_with(norm: nn.Module | None = None) -> nn.Sequential:
    """Linear -> [norm] -> Linear, with the same initial weights every time."""
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(3, 4), norm or nn.Identity(), nn.Linear(4, 1))


def gradients(model: nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every parameter's .grad, by name."""
    return {name: p.grad.clone() for name, p in model.named_parameters()}


def large_batch_gradients(model: nn.Module) -> dict[str, torch.Tensor]:
    model.zero_grad()
    F.mse_loss(model(x), y).backward()
    return gradients(model)


def accumulated_gradients(model: nn.Module, sizes: list[int], weights: list[float]) -> dict[str, torch.Tensor]:
    """backward() once per micro-batch of the given sizes, each loss times its weight."""
    model.zero_grad()
    for xb, yb, weight in zip(x.split(sizes), y.split(sizes), weights, strict=True):
        (F.mse_loss(model(xb), yb) * weight).backward()  # .grad adds up across the calls
    return gradients(model)


def same(g1: dict, g2: dict) -> bool:
    return all(torch.allclose(g1[name], g2[name], atol=1e-6) for name in g1)


with torch.random.fork_rng():  # leaves the global generator as it was
    first, again = model_with(), model_with(nn.LayerNorm(4))
pairs = [(first[i].get_parameter(name), again[i].get_parameter(name)) for i in (0, 2) for name in ("weight", "bias")]
assert all(torch.equal(p1, p2) for p1, p2 in pairs)  # both Linear layers: the same weight and bias ✓ same-start
# --8<-- [end:setup]

# --8<-- [start:equal]
model = model_with()
full = large_batch_gradients(model)
k = 4
acc = accumulated_gradients(model, sizes=[2, 2, 2, 2], weights=[1 / k] * k)  # loss / k each
print(same(full, acc))  # ✓ divided
#> True
unscaled = accumulated_gradients(model, sizes=[2, 2, 2, 2], weights=[1.0] * k)  # forgot the / k
print(same(full, unscaled), same({n: k * g for n, g in full.items()}, unscaled))  # ✓ k-times
#> False True
for parts in (2, 8):  # the same for 2 micro-batches of 4 and 8 of 1
    sizes = [8 // parts] * parts
    assert same(full, accumulated_gradients(model, sizes, [1 / parts] * parts))  # ✓ divided-other-k
    assert same({n: parts * g for n, g in full.items()}, accumulated_gradients(model, sizes, [1.0] * parts))  # ✓ k-times-other-k
# --8<-- [end:equal]

# --8<-- [start:loop]
model_a, model_b = model_with(), model_with()
opt_a = torch.optim.SGD(model_a.parameters(), lr=0.1)
opt_b = torch.optim.SGD(model_b.parameters(), lr=0.1)

F.mse_loss(model_a(x), y).backward()  # one step on the batch of 8
opt_a.step()
opt_a.zero_grad()

for i, (xb, yb) in enumerate(zip(x.split(2), y.split(2), strict=True)):  # four micro-batches of 2
    (F.mse_loss(model_b(xb), yb) / k).backward()
    if (i + 1) % k == 0:  # step once every k micro-batches
        opt_b.step()
        opt_b.zero_grad()

print(all(torch.allclose(pa, pb, atol=1e-6) for pa, pb in zip(model_a.parameters(), model_b.parameters(), strict=True)))  # ✓ loop-same
#> True
# --8<-- [end:loop]

# --8<-- [start:unequal]
model = model_with()
full = large_batch_gradients(model)
halves = accumulated_gradients(model, sizes=[5, 3], weights=[1 / 2, 1 / 2])  # mean of the two means
by_size = accumulated_gradients(model, sizes=[5, 3], weights=[5 / 8, 3 / 8])  # each mean times n_i / N
print(same(full, halves), same(full, by_size))  # ✓ weighted
#> False True
per_sample = F.mse_loss(model(x), y, reduction="none").squeeze(1)  # one loss per sample
model.zero_grad()
(per_sample * torch.tensor([1 / 2 / 5] * 5 + [1 / 2 / 3] * 3)).sum().backward()  # 1/10 each of the 5, 1/6 each of the 3
assert same(halves, gradients(model))  # what halving did: the 3 samples weigh more ✓ halves-weights
# --8<-- [end:unequal]

# --8<-- [start:batchnorm]
big, small = model_with(nn.BatchNorm1d(4)), model_with(nn.BatchNorm1d(4))
full = large_batch_gradients(big)  # BN normalises with the statistics of 8 samples ...
acc = accumulated_gradients(small, sizes=[4, 4], weights=[1 / 2, 1 / 2])  # ... or of 4, twice
h, h8 = small[0](x[:4]).detach(), small[0](x).detach()  # what BN is given: the first micro-batch, all 8


def normalised(t: torch.Tensor, stats_of: torch.Tensor) -> torch.Tensor:
    return (t - stats_of.mean(dim=0)) / (stats_of.var(dim=0, unbiased=False) + 1e-5).sqrt()


on_4 = nn.BatchNorm1d(4)(h)  # a fresh BN in training mode: the statistics of the 4 samples it is given
assert torch.allclose(on_4, normalised(h, h), atol=1e-5) and not torch.allclose(on_4, normalised(h, h8), atol=1e-5)  # ✓ bn-batch-stats
print([name for name in full if not torch.allclose(full[name], acc[name], atol=1e-6)])  # differ ✓ bn-differs
#> ['0.weight', '1.weight', '2.weight']
bn_big, bn_small = big[1], small[1]
print(bn_big.num_batches_tracked.item(), bn_small.num_batches_tracked.item())  # one update per forward ✓ bn-updates
#> 1 2
print(torch.allclose(bn_big.running_mean, bn_small.running_mean))  # ✓ bn-running
#> False
frozen = model_with(nn.BatchNorm1d(4))
frozen[1].eval()  # a frozen BN normalises with its running statistics, not the batch's
print(same(large_batch_gradients(frozen), accumulated_gradients(frozen, [4, 4], [1 / 2, 1 / 2])))  # ✓ bn-eval-same
#> True

for norm in (nn.LayerNorm(4), nn.GroupNorm(2, 4)):  # per-sample normalisation: no batch statistics
    model = model_with(norm)
    print(type(norm).__name__, same(large_batch_gradients(model), accumulated_gradients(model, [4, 4], [1 / 2, 1 / 2])))  # ✓ per-sample
    #> LayerNorm True
    #> GroupNorm True
# --8<-- [end:batchnorm]
