"""Dropout's p, and the variance shift when Dropout feeds BatchNorm.

Page: docs/models/dropout-batchnorm.md
"""

import matplotlib.pyplot as plt
import torch
from torch import nn

from docverify.figures import save_figure

torch.manual_seed(0)

# --8<-- [start:p-meaning]
drop = nn.Dropout(p=0.3)
y = drop(torch.ones(100_000))  # a fresh module is in training mode
print(f"zeroed: {(y == 0).float().mean():.3f}")  # p is the probability of DROPPING
#> zeroed: 0.301
print(y[y != 0].unique())  # survivors are scaled by 1 / (1 - p) to keep the mean
#> tensor([1.4286])
drop.eval()
print(torch.equal(drop(torch.ones(5)), torch.ones(5)))  # eval: identity, no scaling
#> True
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
    print(f"{p:.1f}  {learned:14.3f}  {seen:16.3f}  {out_var:21.3f}")
    #> 0.0           1.015             1.015                  1.000
    #> 0.1           1.240             1.015                  0.819
    #> 0.3           1.855             1.015                  0.547
    #> 0.5           3.014             1.015                  0.337
    #> 0.7           5.682             1.015                  0.179
# --8<-- [end:variance-shift]

# --8<-- [start:formula]
mean, var = features.mean().item(), features.var().item()
for p, (learned, _, _) in shifts.items():
    # Var(x * mask / (1 - p)) = (var + mean**2) / (1 - p) - mean**2
    predicted = (var + mean**2) / (1 - p) - mean**2
    assert abs(learned - predicted) / predicted < 0.03, (p, learned, predicted)
print("running var matches (var + mean^2) / (1 - p) - mean^2 within 3%")
#> running var matches (var + mean^2) / (1 - p) - mean^2 within 3%
# --8<-- [end:formula]

# --8<-- [start:figure]
ps = list(shifts)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
left.plot(ps, [s[0] for s in shifts.values()], marker="o", label="BN running var (learned in train)")
left.plot(ps, [s[1] for s in shifts.values()], marker="o", label="variance BN sees in eval")
left.set(xlabel="Dropout p", ylabel="variance", title="Variance shift")
left.legend()
torch.manual_seed(1)
net = nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(1, momentum=None, affine=False))
for batch in features.split(2048):
    net(batch)
train_out = net(features).detach().flatten()
net.eval()
eval_out = net(features).detach().flatten()
right.hist(train_out.numpy(), bins=80, alpha=0.6, density=True, label="train mode")
right.hist(eval_out.numpy(), bins=80, alpha=0.6, density=True, label="eval mode")
right.set(xlabel="BN output", title="BN output, p = 0.5")
right.legend()
save_figure(fig, "models/dropout_batchnorm_variance_shift")
print(f"train-mode output var {train_out.var():.2f}, eval-mode {eval_out.var():.2f}")
#> train-mode output var 1.00, eval-mode 0.34
# --8<-- [end:figure]
