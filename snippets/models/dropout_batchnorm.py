"""Dropout's p, and the variance shift when Dropout feeds BatchNorm.

Page: docs/models/dropout_batchnorm.md
"""

# --8<-- [start:setup]
import torch
from torch import nn

torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:p-meaning]
drop = nn.Dropout(p=0.3)
y = drop(torch.ones(100_000))  # a fresh module is in training mode
print(f"zeroed: {(y == 0).float().mean():.3f}")  # p is the probability of DROPPING ✓ p-zeroed
#> zeroed: 0.301
print(y[y != 0].unique())  # survivors are scaled by 1 / (1 - p) to keep the mean ✓ survivors
#> tensor([1.4286])
print(f"mean: {y.mean():.3f}")  # ✓ mean-kept
#> mean: 0.999
drop.eval()
print(torch.equal(drop(torch.ones(5)), torch.ones(5)))  # eval: identity, no scaling ✓ eval-identity
#> True
with torch.random.fork_rng():  # more draws, leaving the page's seeded sequence as it was
    for p in (0.1, 0.5, 0.9):  # the same rule for every p
        y_p = nn.Dropout(p)(torch.ones(100_000))
        assert abs((y_p == 0).float().mean() - p) < 0.01  # ✓ p-rule
        assert torch.allclose(y_p[y_p != 0].unique(), torch.tensor(1 / (1 - p)))  # ✓ p-rule
# --8<-- [end:p-meaning]


# --8<-- [start:variance-shift]
def dropout_then_bn(p: float, features: torch.Tensor) -> tuple[float, float, float]:
    """Train Dropout->BN on `features`; return BN's running var, the eval var, BN's eval output var."""
    net = nn.Sequential(nn.Dropout(p), nn.BatchNorm1d(1, momentum=None, affine=False))
    net.train()
    for batch in features.split(2048):
        net(batch)  # training mode: only the running statistics change
    net.eval()
    out = net(features)  # eval: dropout is off, BN uses what it learned
    return net[1].running_var.item(), features.var().item(), out.var().item()


features = torch.randn(16_384, 1) + 1.0  # mean 1, variance 1 (think: post-ReLU activations)
print(" p    BN running var  var seen in eval  BN output var in eval")
#>  p    BN running var  var seen in eval  BN output var in eval
shifts = {}
for p in [0.0, 0.1, 0.3, 0.5, 0.7]:
    learned, seen, out_var = dropout_then_bn(p, features)
    shifts[p] = (learned, seen, out_var)
    print(f"{p:.1f}  {learned:14.3f}  {seen:16.3f}  {out_var:21.3f}")  # ✓ shift-table
    #> 0.0           1.015             1.015                  1.000
    #> 0.1           1.240             1.015                  0.819
    #> 0.3           1.855             1.015                  0.547
    #> 0.5           3.014             1.015                  0.337
    #> 0.7           5.682             1.015                  0.179
learned_vars = [learned for learned, _, _ in shifts.values()]
assert (torch.tensor(learned_vars).diff() > 0).all()  # grows with p, at every step ✓ grows
for learned, seen, out_var in shifts.values():  # eval BN divides by sqrt(running_var + eps): out var = seen / learned
    assert abs(out_var - seen / (learned + 1e-5)) < 1e-3 * out_var  # ✓ divides-by-std
# --8<-- [end:variance-shift]

# --8<-- [start:formula]
mean, var = features.mean().item(), features.var().item()
for p, (learned, _, _) in shifts.items():
    # Var(x * mask / (1 - p)) = (var + mean**2) / (1 - p) - mean**2
    predicted = (var + mean**2) / (1 - p) - mean**2
    assert abs(learned - predicted) / predicted < 0.03, (p, learned, predicted)  # ✓ formula-match
print("running var matches (var + mean^2) / (1 - p) - mean^2 within 3%")
#> running var matches (var + mean^2) / (1 - p) - mean^2 within 3%
# --8<-- [end:formula]

# --8<-- [start:histograms]
torch.manual_seed(1)
net = nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(1, momentum=None, affine=False))
for batch in features.split(2048):
    net(batch)
with torch.random.fork_rng():  # the same random draw as the next call: which elements dropout zeroes
    dropped = (net[0](features) == 0).flatten()
train_out = net(features).detach().flatten()  # training mode: dropout on
net.eval()
eval_out = net(features).detach().flatten()  # eval mode: dropout off, learned statistics
print(f"train-mode output var {train_out.var():.2f}, eval-mode {eval_out.var():.2f}")  # ✓ histograms-var
#> train-mode output var 1.00, eval-mode 0.34
values, counts = train_out.unique(return_counts=True)
print(f"train mode: {counts.max() / train_out.numel():.2f} of the outputs share the value {values[counts.argmax()]:.2f}")  # ✓ spike
#> train mode: 0.50 of the outputs share the value -0.57
assert torch.equal(train_out == values[counts.argmax()], dropped)  # the spike is exactly the zeroed elements ✓ spike-is-zeros
print((eval_out == values[counts.argmax()]).sum().item())  # eval mode: no zeroed elements, no spike ✓ no-spike
#> 0
bn = net[1]  # in eval mode BN uses its running statistics and divides by their standard deviation
assert torch.allclose(eval_out, ((features - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)).flatten())  # ✓ divides-by-std
# --8<-- [end:histograms]

# --8<-- [start:remedies]
# 1. Dropout after BN: BN learns the statistics of what it sees in eval too
after = nn.Sequential(nn.BatchNorm1d(1, momentum=None, affine=False), nn.Dropout(0.5))
for batch in features.split(2048):
    after(batch)
after.eval()
print(f"BN then Dropout: eval output var {after(features).var():.2f}")  # ✓ remedy-after
#> BN then Dropout: eval output var 1.00

# 2. Keep Dropout -> BN, but re-estimate BN's statistics with dropout off before testing
net[1].reset_running_stats()
net.train()
net[0].eval()  # dropout off, BN still updating its running statistics
with torch.no_grad():
    for batch in features.split(2048):
        net(batch)
net.eval()
print(f"re-estimated: eval output var {net(features).var():.2f}")  # ✓ remedy-reestimate
#> re-estimated: eval output var 1.00

# "After BN" means after the LAST BN: a Dropout between two BNs still shifts the second one
torch.manual_seed(0)
wide = torch.randn(16_384, 16) + 1.0  # 16 features, mean 1, variance 1
between = nn.Sequential(nn.BatchNorm1d(16, momentum=None), nn.ReLU(), nn.Dropout(0.5),
                        nn.Linear(16, 16), nn.BatchNorm1d(16, momentum=None, affine=False))
last = nn.Sequential(nn.BatchNorm1d(16, momentum=None), nn.ReLU(),
                     nn.Linear(16, 16), nn.BatchNorm1d(16, momentum=None, affine=False), nn.Dropout(0.5))
with torch.no_grad():
    for stacked in (between, last):
        for batch in wide.split(2048):
            stacked(batch)  # training mode: both BNs learn their running statistics
        stacked.eval()
    between_var = between(wide).var(dim=0).mean().item()
    print(f"BN, ReLU, Dropout, Linear, BN: eval output var {between_var:.2f}")  # ✓ not-between-bns
    #> BN, ReLU, Dropout, Linear, BN: eval output var 0.40
    print(f"Dropout after the last BN: eval output var {last(wide).var(dim=0).mean():.2f}")  # ✓ after-last-bn
    #> Dropout after the last BN: eval output var 1.00
assert between_var < 0.5  # Dropout after the first BN is not enough: the last BN still sees the shift ✓ not-between-bns
# --8<-- [end:remedies]

# Figure only (nothing shown depends on it): the variance shift and the histograms.
import matplotlib.pyplot as plt  # noqa: E402

from docverify.figures import save_figure  # noqa: E402

ps = list(shifts)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
left.plot(ps, [s[0] for s in shifts.values()], marker="o", label="BN running var (learned in train)")
left.plot(ps, [s[1] for s in shifts.values()], marker="o", label="variance BN sees in eval")
left.set(xlabel="Dropout p", ylabel="variance", title="Variance shift")
left.legend()
right.hist(train_out.numpy(), bins=80, alpha=0.6, density=True, label="train mode")
right.hist(eval_out.numpy(), bins=80, alpha=0.6, density=True, label="eval mode")
right.set(xlabel="BN output", title="BN output, p = 0.5")
right.legend()
save_figure(fig, "models/dropout_batchnorm_variance_shift")
