"""Learning-rate schedulers: call order, warm-up then cosine with SequentialLR, OneCycleLR.

Page: docs/training/lr_schedulers.md
"""

# --8<-- [start:setup]
import math
import warnings

import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, OneCycleLR, SequentialLR, StepLR


def new_optimizer(lr: float = 0.1, momentum: float = 0.0) -> torch.optim.SGD:
    """SGD over one parameter with a (zero) gradient: enough to drive a scheduler."""
    param = nn.Parameter(torch.zeros(1))
    param.grad = torch.zeros(1)
    return torch.optim.SGD([param], lr=lr, momentum=momentum)


def current_lr(opt: torch.optim.Optimizer) -> float:
    return opt.param_groups[0]["lr"]
# --8<-- [end:setup]

# --8<-- [start:order]
opt = new_optimizer(lr=0.1)
sched = StepLR(opt, step_size=1, gamma=0.5)  # halve the lr after every step
used = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        sched.step()  # WRONG order: the scheduler first ...
        used.append(current_lr(opt))
        opt.step()  # ... then the optimizer
print(used)  # the first value of the schedule, 0.1, was never used ✓ wrong-order
#> [0.05, 0.025, 0.0125]
assert len(caught) == 1 and caught[0].category is UserWarning  # once, for three calls ✓ warned-once
print(str(caught[0].message).split(".  ")[0])  # ✓ warning-text
#> Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`
assert "skipping the first value of the learning rate schedule" in str(caught[0].message)  # ✓ skips-first

opt = new_optimizer(lr=0.1)
sched = StepLR(opt, step_size=1, gamma=0.5)
used = []
for _ in range(3):
    used.append(current_lr(opt))
    opt.step()  # right: optimizer first ...
    sched.step()  # ... then the scheduler
print(used)  # ✓ right-order
#> [0.1, 0.05, 0.025]
# --8<-- [end:order]

# --8<-- [start:warmup-cosine]
warmup_steps, total_steps = 5, 25
opt = new_optimizer(lr=0.1)
warmup = LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=warmup_steps)
cosine = CosineAnnealingLR(opt, T_max=total_steps - warmup_steps, eta_min=0.0)
sched = SequentialLR(opt, schedulers=[warmup, cosine], milestones=[warmup_steps])
lrs = []
for _ in range(total_steps + 5):  # 5 steps too many, to see what happens after the end
    lrs.append(current_lr(opt))
    opt.step()
    sched.step()
print([round(lr, 4) for lr in lrs[:7]])  # warm-up: 0.1 x (0.1, 0.28, ... ), then cosine from 0.1 ✓ warmup
#> [0.01, 0.028, 0.046, 0.064, 0.082, 0.1, 0.0994]
assert math.isclose(lrs[0], 0.1 * 0.1) and lrs[warmup_steps] == max(lrs) == 0.1  # the peak: at the milestone ✓ peak
for step in range(warmup_steps, total_steps + 1):  # then the cosine formula, step for step
    t = (step - warmup_steps) / (total_steps - warmup_steps)
    assert math.isclose(lrs[step], 0.1 * (1 + math.cos(math.pi * t)) / 2, abs_tol=1e-12)  # ✓ cosine-formula
print(round(lrs[15], 4), lrs[total_steps], [round(lr, 4) for lr in lrs[total_steps:]])  # half-way; 0 at the end ✓ half-end
#> 0.05 0.0 [0.0, 0.0006, 0.0024, 0.0054, 0.0095]

opt = new_optimizer(lr=0.1)
cosine_alone = CosineAnnealingLR(opt, T_max=4, eta_min=0.02)  # with an eta_min: the floor it anneals to
for t in range(5):
    assert math.isclose(current_lr(opt), 0.02 + (0.1 - 0.02) * (1 + math.cos(math.pi * t / 4)) / 2)  # ✓ eta-min
    opt.step()
    cosine_alone.step()
# --8<-- [end:warmup-cosine]

# --8<-- [start:one-cycle]
opt = new_optimizer(lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3)  # sets lr (and momentum) itself
lrs, momenta = [], []
for _ in range(10):  # stepped once per BATCH, total_steps times
    lrs.append(current_lr(opt))
    momenta.append(opt.param_groups[0]["momentum"])
    opt.step()
    sched.step()
print([round(lr, 4) for lr in lrs])  # ✓ one-cycle-lrs
#> [0.04, 0.52, 1.0, 0.9505, 0.8117, 0.6113, 0.3887, 0.1883, 0.0495, 0.0]
print(lrs.index(max(lrs)), round(0.3 * 10) - 1)  # the peak: step pct_start * total_steps - 1 ✓ one-cycle-peak
#> 2 2
print(math.isclose(lrs[0], 1.0 / 25), math.isclose(lrs[-1], 1.0 / 25 / 1e4))  # max_lr / div_factor; / final_div_factor ✓ one-cycle-ends
#> True True
print([round(m, 3) for m in momenta])  # momentum moves the other way: lowest at the peak ✓ momentum
#> [0.95, 0.9, 0.85, 0.855, 0.869, 0.889, 0.911, 0.931, 0.945, 0.95]
try:
    opt.step()
    sched.step()  # one step more than total_steps
except ValueError as err:
    print(err)  # ✓ step-limit
    #> Tried to step 11 times. The specified number of total steps is 10
assert "`step` should be called after a batch has been used for training" in OneCycleLR.__doc__  # ✓ per-batch
opt = new_optimizer(lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.25)  # 0.25 * 10 - 1 = 1.5: between two steps
lrs = []
for _ in range(10):
    lrs.append(current_lr(opt))
    opt.step()
    sched.step()
print(round(max(lrs), 4), lrs.index(max(lrs)))  # no step gets max_lr itself ✓ one-cycle-fractional
#> 0.9891 2


def one_cycle_lrs(total_steps: int, pct_start: float) -> list[float]:
    """The learning rate of each step of OneCycleLR(max_lr=1.0), stepped total_steps times."""
    opt = new_optimizer(lr=0.1, momentum=0.9)
    sched = OneCycleLR(opt, max_lr=1.0, total_steps=total_steps, pct_start=pct_start)
    lrs = []
    for _ in range(total_steps):
        lrs.append(current_lr(opt))
        opt.step()
        sched.step()
    return lrs


for steps, pct in [(10, 0.5), (20, 0.25), (100, 0.3), (10, 0.35), (20, 0.33), (7, 0.5)]:
    lrs = one_cycle_lrs(steps, pct)
    peak, top = pct * steps - 1, lrs.index(max(lrs))  # peak: 4, 4, 29 (whole); 2.5, 5.6, 2.5
    if math.isclose(peak, round(peak)):
        assert top == round(peak) and max(lrs) == 1.0, (steps, pct)  # ✓ one-cycle-rule
    else:
        assert math.floor(peak) <= top <= math.ceil(peak) and max(lrs) < 1.0, (steps, pct)  # ✓ one-cycle-rule-fractional
    assert math.isclose(lrs[0], 1.0 / 25) and math.isclose(lrs[-1], 1.0 / 25 / 1e4)  # ✓ one-cycle-ends-all
# --8<-- [end:one-cycle]

# Figure only (nothing shown depends on it): the warm-up + cosine schedule above, rebuilt.
import matplotlib.pyplot as plt  # noqa: E402

from docverify.figures import save_figure  # noqa: E402

assert (warmup_steps, total_steps) == (5, 25)  # the schedule the page's alt text describes
opt = new_optimizer(lr=0.1)
sched = SequentialLR(
    opt,
    schedulers=[
        LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=warmup_steps),
        CosineAnnealingLR(opt, T_max=total_steps - warmup_steps, eta_min=0.0),
    ],
    milestones=[warmup_steps],
)
schedule = []
for _ in range(total_steps + 5):
    schedule.append(current_lr(opt))
    opt.step()
    sched.step()
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(range(total_steps + 1), schedule[: total_steps + 1], marker="o", markersize=3, label="lr used at each step")
ax.plot(range(total_steps, total_steps + 5), schedule[total_steps:], marker="o", markersize=3, linestyle="--",
        color="grey", label="past T_max: the cosine rises again")
ax.axvline(warmup_steps, color="tab:orange", linestyle=":", label=f"milestone ({warmup_steps}): LinearLR -> CosineAnnealingLR")
ax.set(xlabel="step (optimizer.step() calls so far)", ylabel="learning rate",
       title="SequentialLR: LinearLR warm-up, then CosineAnnealingLR")
ax.legend(fontsize=8)
save_figure(fig, "training/warmup_cosine")
plt.close(fig)
