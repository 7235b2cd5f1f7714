"""Regression losses: MSELoss, L1Loss, SmoothL1Loss vs HuberLoss, reduction.

Page: docs/losses/regression.md
"""

# --8<-- [start:setup]
import warnings

import torch
import torch.nn.functional as F
from torch import nn

# 2 samples with 3 outputs each; the errors straddle 1, the default beta / delta
pred = torch.tensor([[0.5, 2.0, -1.0], [3.0, 0.0, 1.25]])
target = torch.tensor([[0.0, 0.0, 2.0], [2.5, 0.0, 1.0]])
error = pred - target
print(error)  # ✓ errors
#> tensor([[ 0.5000,  2.0000, -3.0000],
#>         [ 0.5000,  0.0000,  0.2500]])
# --8<-- [end:setup]

# --8<-- [start:mse-l1]
mse = nn.MSELoss()(pred, target)
l1 = nn.L1Loss()(pred, target)
print(mse, l1)
#> tensor(2.2604) tensor(1.0417)
assert error.shape == (2, 3) and torch.allclose(mse, (error**2).sum() / error.numel())  # all 6 elements ✓ mse-formula
assert torch.allclose(l1, error.abs().sum() / error.numel())  # ✓ l1-formula
print((error**2).sum() / len(pred))  # what dividing by the batch size (2) would give ✓ by-batch
#> tensor(6.7812)
# --8<-- [end:mse-l1]

# --8<-- [start:reduction]
print(F.mse_loss(pred, target, reduction="none"))  # one loss per element, same shape
#> tensor([[0.2500, 4.0000, 9.0000],
#>         [0.2500, 0.0000, 0.0625]])
print(F.mse_loss(pred, target, reduction="sum"), F.mse_loss(pred, target, reduction="mean"))
#> tensor(13.5625) tensor(2.2604)
per_element = F.mse_loss(pred, target, reduction="none")
assert per_element.shape == pred.shape  # ✓ reduction-none
assert torch.allclose(F.mse_loss(pred, target, reduction="sum"), per_element.sum())  # ✓ reduction-sum
assert torch.allclose(F.mse_loss(pred, target, reduction="mean"), per_element.mean())  # ✓ reduction-mean
# "mean" is the default of every torch.nn loss class on the Losses pages
classes = [nn.MSELoss, nn.L1Loss, nn.SmoothL1Loss, nn.HuberLoss, nn.BCELoss, nn.BCEWithLogitsLoss,
           nn.CrossEntropyLoss, nn.NLLLoss, nn.KLDivLoss, nn.MarginRankingLoss,
           nn.TripletMarginLoss, nn.CosineEmbeddingLoss, nn.CTCLoss]
print({cls().reduction for cls in classes})  # ✓ default-mean
#> {'mean'}
# --8<-- [end:reduction]

# --8<-- [start:broadcast]
print(nn.Linear(3, 1)(torch.zeros(4, 3)).shape)  # a model with one output: shape (N, 1) ✓ one-output
#> torch.Size([4, 1])
out = torch.tensor([[1.0], [2.0], [3.0], [4.0]])  # such an output, shape (4, 1)
y = torch.tensor([1.0, 2.0, 3.0, 4.0])  # the targets: shape (4,), all predicted exactly
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    wrong = F.mse_loss(out, y)
print(caught[0].category.__name__, caught[0].message)  # ✓ broadcast-warning
#> UserWarning Using a target size (torch.Size([4])) that is different to the input size (torch.Size([4, 1])). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.
print(wrong, F.mse_loss(out.squeeze(1), y))  # ✓ broadcast-result
#> tensor(2.5000) tensor(0.)
assert torch.equal(wrong, ((out - y) ** 2).mean())  # (4, 1) - (4,) broadcasts to (4, 4) ✓ broadcast-shape
assert (out - y).shape == (4, 4)  # ✓ broadcast-shape-2
assert F.mse_loss(out, y.unsqueeze(1)) == 0  # or the target in the output's shape ✓ broadcast-fix
# --8<-- [end:broadcast]

# --8<-- [start:huber]
print(nn.SmoothL1Loss().beta, nn.HuberLoss().delta)  # the defaults ✓ huber-defaults
#> 1.0 1.0
e = torch.linspace(-4, 4, 161)  # errors on both sides of every threshold below
zero = torch.zeros_like(e)
for d in [0.25, 0.5, 1.0, 2.0, 3.0]:
    smooth = F.smooth_l1_loss(e, zero, beta=d, reduction="none")
    huber = F.huber_loss(e, zero, delta=d, reduction="none")
    # each against its definition: quadratic below the threshold, linear above it
    assert torch.allclose(smooth, torch.where(e.abs() < d, 0.5 * e**2 / d, e.abs() - 0.5 * d))  # ✓ smooth-l1-def
    assert torch.allclose(huber, torch.where(e.abs() < d, 0.5 * e**2, d * (e.abs() - 0.5 * d)))  # ✓ huber-def
    assert torch.allclose(huber, d * smooth)  # HuberLoss(delta=d) == d * SmoothL1Loss(beta=d) ✓ huber-smooth
    assert (e.abs() < d).any() and (e.abs() > d).any()  # ✓ both-sides

errors = torch.tensor([0.5, 1.5, 3.0])  # below, and twice above, a threshold of 2
print(F.smooth_l1_loss(errors, torch.zeros(3), beta=2.0, reduction="none"))  # ✓ twice
#> tensor([0.0625, 0.5625, 2.0000])
print(F.huber_loss(errors, torch.zeros(3), delta=2.0, reduction="none"))  # ✓ twice-2
#> tensor([0.1250, 1.1250, 4.0000])
# with the default 1.0 the two are the same function: equal for every error
same = F.smooth_l1_loss(e, zero, reduction="none") == F.huber_loss(e, zero, reduction="none")
assert same.all()  # ✓ same-at-one
# --8<-- [end:huber]

# --8<-- [start:gradients]
e = torch.linspace(-4, 4, 161, requires_grad=True)
zero = torch.zeros_like(e)


def grad_of(loss):
    """d loss / d error for every error in `e` (reduction="sum" keeps one term per error)."""
    return torch.autograd.grad(loss, e)[0]


assert torch.allclose(grad_of(F.mse_loss(e, zero, reduction="sum")), 2 * e)  # grows with the error ✓ mse-grad
assert torch.equal(grad_of(F.l1_loss(e, zero, reduction="sum")), e.sign())  # +-1: no error here is 0 ✓ l1-grad
at_zero = torch.zeros(1, requires_grad=True)  # an error of exactly 0
print(torch.autograd.grad(F.l1_loss(at_zero, torch.zeros(1)), at_zero)[0])  # the sign of 0 ✓ l1-grad-zero
#> tensor([0.])
for d in [0.25, 0.5, 1.0, 2.0, 3.0]:  # the five thresholds checked above
    smooth_grad = grad_of(F.smooth_l1_loss(e, zero, beta=d, reduction="sum"))
    huber_grad = grad_of(F.huber_loss(e, zero, delta=d, reduction="sum"))
    assert torch.allclose(smooth_grad, (e / d).clamp(-1, 1))  # at most 1 in size ✓ capped-grads
    assert torch.allclose(huber_grad, e.clamp(-d, d))  # at most delta in size ✓ capped-grads-2
    print(f"beta = delta = {d}: largest gradient {smooth_grad.abs().max():.2f} (SmoothL1), "
          f"{huber_grad.abs().max():.2f} (Huber)")  # ✓ largest-grads
    #> beta = delta = 0.25: largest gradient 1.00 (SmoothL1), 0.25 (Huber)
    #> beta = delta = 0.5: largest gradient 1.00 (SmoothL1), 0.50 (Huber)
    #> beta = delta = 1.0: largest gradient 1.00 (SmoothL1), 1.00 (Huber)
    #> beta = delta = 2.0: largest gradient 1.00 (SmoothL1), 2.00 (Huber)
    #> beta = delta = 3.0: largest gradient 1.00 (SmoothL1), 3.00 (Huber)
# --8<-- [end:gradients]

# --8<-- [start:limits]
# beta=0: SmoothL1Loss becomes L1Loss; HuberLoss refuses delta=0
beta_zero = F.smooth_l1_loss(e, zero, beta=0.0, reduction="none")  # the 161 errors from -4 to 4
assert torch.equal(beta_zero, F.l1_loss(e, zero, reduction="none"))  # ✓ beta-zero
try:
    F.huber_loss(pred, target, delta=0.0)
except RuntimeError as err:
    print(err)  # ✓ delta-zero
    #> huber_loss does not support non-positive values for delta.
# --8<-- [end:limits]

# Figure only (nothing shown depends on it): each loss and its gradient against the error.
import matplotlib.pyplot as plt  # noqa: E402

from docverify.figures import save_figure  # noqa: E402

err = torch.linspace(-3, 3, 301, requires_grad=True)
flat = torch.zeros_like(err)
curves = {
    "MSELoss": lambda t: F.mse_loss(t, flat, reduction="none"),
    "L1Loss": lambda t: F.l1_loss(t, flat, reduction="none"),
    "SmoothL1Loss(beta=2)": lambda t: F.smooth_l1_loss(t, flat, beta=2.0, reduction="none"),
    "HuberLoss(delta=2)": lambda t: F.huber_loss(t, flat, delta=2.0, reduction="none"),
    "HuberLoss(delta=1) = SmoothL1Loss(beta=1)": lambda t: F.huber_loss(t, flat, reduction="none"),
}
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
for label, loss_fn in curves.items():
    values = loss_fn(err)
    (grad,) = torch.autograd.grad(values.sum(), err)
    left.plot(err.detach().numpy(), values.detach().numpy(), label=label)
    right.plot(err.detach().numpy(), grad.numpy(), label=label)
left.set(xlabel="error (prediction - target)", ylabel="loss", title="Loss", ylim=(0, 5))
right.set(xlabel="error (prediction - target)", ylabel="d loss / d prediction", title="Gradient")
right.legend(fontsize=8, loc="upper left")
save_figure(fig, "losses/regression")
plt.close(fig)
