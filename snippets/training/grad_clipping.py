"""Gradient clipping: clip_grad_norm_ (returns the norm before clipping) and clip_grad_value_.

Page: docs/training/grad_clipping.md
"""

# --8<-- [start:setup]
import math

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_

a = nn.Parameter(torch.zeros(2))
b = nn.Parameter(torch.zeros(1))
params = [a, b]


def set_grads(grad_a: list[float], grad_b: list[float]) -> None:
    """Give the two parameters these gradients, as if backward() had computed them."""
    a.grad, b.grad = torch.tensor(grad_a), torch.tensor(grad_b)
# --8<-- [end:setup]

# --8<-- [start:norm]
set_grads([3.0, 4.0], [12.0])  # per parameter: norm 5 and norm 12
all_grads = torch.cat([p.grad.flatten() for p in params])
before = torch.linalg.vector_norm(all_grads)  # one norm over every gradient together
total = clip_grad_norm_(params, max_norm=1.0)
print(total, before)  # what it returns: the total norm BEFORE clipping ✓ returns-before
#> tensor(13.) tensor(13.)
assert torch.equal(total, before)  # ✓ equals-vector-norm
print(a.grad, b.grad)  # every gradient scaled by the same factor, 1 / 13 ✓ scaled
#> tensor([0.2308, 0.3077]) tensor([0.9231])
assert torch.allclose(torch.cat([a.grad, b.grad]), all_grads / 13)  # ✓ same-factor
print(torch.linalg.vector_norm(torch.cat([a.grad, b.grad])))  # the total norm is now max_norm ✓ now-max-norm
#> tensor(1.0000)

set_grads([3.0, 4.0], [12.0])
print(clip_grad_norm_(params, max_norm=20.0), a.grad, b.grad)  # below max_norm: left alone ✓ below
#> tensor(13.) tensor([3., 4.]) tensor([12.])
for max_norm in (1.0, 5.0, 12.9, 13.5, 20.0, 100.0):  # above the total norm of 13 and below it
    set_grads([3.0, 4.0], [12.0])
    returned = clip_grad_norm_(params, max_norm=max_norm)
    clipped = torch.cat([a.grad, b.grad])
    if max_norm < 13:  # one factor for every gradient; the total norm becomes max_norm
        assert torch.allclose(clipped, all_grads * max_norm / 13) and math.isclose(torch.linalg.vector_norm(clipped).item(), max_norm, rel_tol=1e-5)  # ✓ clip-rule
    else:  # left as they were
        assert torch.equal(clipped, all_grads)  # ✓ clip-rule
    assert returned.item() == 13.0  # the total norm before clipping, either way ✓ clip-rule
# --8<-- [end:norm]

# --8<-- [start:loop]
torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.randn(16, 4) * 10, torch.randn(16, 1)
for step in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(model(inputs), targets).backward()
    norm = clip_grad_norm_(model.parameters(), max_norm=1.0)  # after backward, before step
    opt.step()
    print(f"step {step}: gradient norm {norm.item():.2f}")  # worth logging ✓ loop-norms
    #> step 0: gradient norm 102.89
    #> step 1: gradient norm 83.24
    #> step 2: gradient norm 64.51
# --8<-- [end:loop]

# --8<-- [start:value]
set_grads([3.0, -7.0], [12.0])
print(clip_grad_value_(params, clip_value=5.0))  # returns nothing ✓ value-none
#> None
print(a.grad, b.grad)  # each element clamped to [-5, 5] on its own: the direction changes ✓ value-clamped
#> tensor([ 3., -5.]) tensor([5.])
# --8<-- [end:value]

# --8<-- [start:nonfinite]
set_grads([float("nan"), 4.0], [12.0])
print(clip_grad_norm_(params, max_norm=1.0), a.grad, b.grad)  # one NaN spreads to every gradient ✓ nan-spreads
#> tensor(nan) tensor([nan, nan]) tensor([nan])
set_grads([float("nan"), 4.0], [12.0])
try:
    clip_grad_norm_(params, max_norm=1.0, error_if_nonfinite=True)
except RuntimeError as err:
    print(str(err).split(", so")[0])  # ✓ nonfinite-error
    #> The total norm of order 2.0 for gradients from `parameters` is non-finite
# with mixed precision, a GradScaler finds the NaN and skips the step
opt = torch.optim.SGD(params, lr=0.1)
scaler = torch.amp.GradScaler("cpu")
a.grad = b.grad = None
scaler.scale(a.sum() + b.sum()).backward()
a.grad[0] = float("nan")  # as an overflow in float16 would leave it
before = [p.detach().clone() for p in params]
scaler.step(opt)  # no opt.step(): a gradient is not finite
scaler.update()
print(all(torch.equal(p, q) for p, q in zip(params, before, strict=True)), scaler.get_scale())  # ✓ scaler-skips
#> True 32768.0
# --8<-- [end:nonfinite]

# --8<-- [start:scaler]
def clipped_step(unscale_first: bool) -> tuple[float, float]:
    """One GradScaler step of the loop's model, clipped to max_norm=1.

    Returns what clip_grad_norm_ returned and the norm of the update (lr=1: the gradient applied).
    """
    torch.manual_seed(0)
    model = nn.Linear(4, 1)  # the loop's model, as it starts
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    scaler = torch.amp.GradScaler("cpu")
    start = nn.utils.parameters_to_vector(model.parameters()).detach()
    scaler.scale(nn.functional.mse_loss(model(inputs), targets)).backward()  # gradients times 65536
    if unscale_first:
        scaler.unscale_(opt)  # the gradients as they really are
    norm = clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(opt)  # unscales here when unscale_ was not called
    scaler.update()
    update = nn.utils.parameters_to_vector(model.parameters()).detach() - start
    return norm.item(), torch.linalg.vector_norm(update).item()


norm, update = clipped_step(unscale_first=True)
print(f"norm {norm:.2f}, update {update:.4f}")  # the true norm; an update of norm max_norm ✓ unscale-first
#> norm 102.89, update 1.0000
wrong_norm, wrong_update = clipped_step(unscale_first=False)
print(f"norm {wrong_norm:.4g}, update {wrong_update:.4g}")  # the scaled norm; an update 65536 times too small ✓ clip-scaled
#> norm 6.743e+06, update 1.526e-05
assert math.isclose(wrong_norm, norm * 2**16, rel_tol=1e-5) and math.isclose(wrong_update, 1 / 2**16, rel_tol=1e-4)  # ✓ scaled-by-65536
# --8<-- [end:scaler]
