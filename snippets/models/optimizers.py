"""SGD (momentum, dampening, nesterov, weight_decay) and Adam vs AdamW, checked step by step.

Page: docs/models/optimizers.md
"""

# --8<-- [start:setup]
import inspect

import torch

torch.manual_seed(0)
A = torch.rand(5, dtype=torch.float64) + 0.5  # a fixed quadratic loss: 0.5 * sum(A p^2) + B . p
B = torch.randn(5, dtype=torch.float64)


def grad_at(p: torch.Tensor) -> torch.Tensor:
    return A * p + B  # its gradient


probe = torch.randn(5, dtype=torch.float64, requires_grad=True)
(0.5 * (A * probe * probe).sum() + (B * probe).sum()).backward()
assert torch.allclose(probe.grad, grad_at(probe.detach()), rtol=0, atol=1e-12)  # grad_at is the loss's gradient ✓ grad-at


def run_torch(opt_class, steps: int = 6, lrs=None, **hyper) -> torch.Tensor:
    """Positions after each step of a real torch.optim optimizer on the quadratic.

    `lrs`, if given, sets the learning rate before each step (as a scheduler would).
    """
    p = torch.ones(5, dtype=torch.float64, requires_grad=True)
    opt = opt_class([p], **hyper)
    trajectory = []
    for step in range(steps):
        if lrs is not None:
            opt.param_groups[0]["lr"] = lrs[step]
        opt.zero_grad()
        (0.5 * (A * p * p).sum() + (B * p).sum()).backward()
        opt.step()
        trajectory.append(p.detach().clone())
    return torch.stack(trajectory)
# --8<-- [end:setup]


# --8<-- [start:signature]
defaults = {name: p.default for name, p in inspect.signature(torch.optim.SGD.__init__).parameters.items()}
print({name: value for name, value in defaults.items() if name not in ("self", "params")})  # ✓ sgd-defaults
#> {'lr': 0.001, 'momentum': 0, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None}
# --8<-- [end:signature]


# --8<-- [start:sgd-by-hand]
def sgd_by_hand(steps=6, *, lr=0.1, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0):
    p = torch.ones(5, dtype=torch.float64)
    buf = None
    trajectory = []
    for _ in range(steps):
        g = grad_at(p) + weight_decay * p  # weight decay = L2 term added to the gradient
        if momentum:
            # first step: the buffer is the raw gradient (NOT damped)
            buf = g.clone() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g  # lr multiplies the whole step, outside the buffer
        trajectory.append(p)
    return torch.stack(trajectory)


configs = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.5),
    dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
]
for hyper in configs:
    assert torch.allclose(run_torch(torch.optim.SGD, **hyper), sgd_by_hand(**hyper), rtol=0, atol=1e-12)  # ✓ sgd-matches
print(f"torch.optim.SGD == sgd_by_hand for all {len(configs)} settings, 6 steps each")
#> torch.optim.SGD == sgd_by_hand for all 6 settings, 6 steps each
# --8<-- [end:sgd-by-hand]


# --8<-- [start:notes-formula]
def sgd_notes(steps=6, *, lr=0.1, momentum=0.9, dampening=0.0, lrs=None):
    """The notes: P = P + momentum * v_{t-1} - (1 - dampening) * lr * grad, v = the last step."""
    p = torch.ones(5, dtype=torch.float64)
    v = torch.zeros(5, dtype=torch.float64)
    trajectory = []
    for step in range(steps):
        lr_now = lr if lrs is None else lrs[step]
        v = momentum * v - (1 - dampening) * lr_now * grad_at(p)
        p = p + v
        trajectory.append(p)
    return torch.stack(trajectory)


def differs(a, b):  # per step: do the two trajectories differ?
    return (a - b).abs().amax(dim=1).gt(1e-12).tolist()


same = torch.allclose(sgd_notes(), run_torch(torch.optim.SGD, lr=0.1, momentum=0.9), rtol=0, atol=1e-12)
print("dampening=0, constant lr:", same)  # ✓ notes-same
#> dampening=0, constant lr: True
lrs = [0.1, 0.1, 0.1, 0.01, 0.01, 0.01]  # a scheduler divides lr by 10 before step 4
print("lr changed at step 4:    ", differs(sgd_notes(lrs=lrs), run_torch(torch.optim.SGD, lrs=lrs, momentum=0.9)))  # ✓ notes-lr-change
#> lr changed at step 4:     [False, False, False, True, True, True]
print("dampening=0.5:           ", differs(sgd_notes(dampening=0.5), run_torch(torch.optim.SGD, lr=0.1, momentum=0.9, dampening=0.5)))  # ✓ notes-dampening
#> dampening=0.5:            [True, True, True, True, True, True]
print("weight_decay=0.01:       ", differs(sgd_notes(), run_torch(torch.optim.SGD, lr=0.1, momentum=0.9, weight_decay=0.01)))  # ✓ notes-wd
#> weight_decay=0.01:        [True, True, True, True, True, True]
# --8<-- [end:notes-formula]

# --8<-- [start:dampening-vs-lr]
steps, lr, d = 300, 0.1, 0.5
damped = run_torch(torch.optim.SGD, steps, lr=lr, momentum=0.9, dampening=d)
folded = run_torch(torch.optim.SGD, steps, lr=lr * (1 - d), momentum=0.9)  # "fold 1-d into lr"
g1 = grad_at(torch.ones(5, dtype=torch.float64))
assert torch.allclose(damped[0] - folded[0], -lr * d * g1, rtol=0, atol=1e-12)  # step 1: the undamped gradient ✓ step1-gap


def sgd_damped_from_step_1(steps, *, lr, momentum, dampening):  # what dampening would be if step 1 were damped
    p, buf, trajectory = torch.ones(5, dtype=torch.float64), torch.zeros(5, dtype=torch.float64), []
    for _ in range(steps):
        buf = momentum * buf + (1 - dampening) * grad_at(p)
        p = p - lr * buf
        trajectory.append(p)
    return torch.stack(trajectory)


assert torch.allclose(sgd_damped_from_step_1(steps, lr=lr, momentum=0.9, dampening=d), folded, rtol=0, atol=1e-12)  # ✓ damped-from-1

gap = (damped - folded).abs().amax(dim=1)
print(f"steps where the runs differ: {int((gap > 0).sum())} of {steps}")  # ✓ differ-all
#> steps where the runs differ: 300 of 300
print(f"largest gap {gap.max():.2f} (step {int(gap.argmax()) + 1}), after step {steps}: {gap[-1]:.0e}")  # ✓ largest-gap
#> largest gap 0.37 (step 5), after step 300: 5e-08
minimum = -B / A
print(f"both at the minimum after {steps} steps: {torch.allclose(damped[-1], minimum, atol=1e-6)} {torch.allclose(folded[-1], minimum, atol=1e-6)}")  # ✓ both-minimum
#> both at the minimum after 300 steps: True True

try:
    run_torch(torch.optim.SGD, lr=0.1, momentum=0.9, dampening=0.5, nesterov=True)
except ValueError as err:
    print(err)  # ✓ nesterov-error
    #> Nesterov momentum requires a momentum and zero dampening
try:
    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, nesterov=True)  # momentum left at 0
except ValueError as err:
    print(err)  # the same error ✓ nesterov-no-momentum
    #> Nesterov momentum requires a momentum and zero dampening
# --8<-- [end:dampening-vs-lr]


# --8<-- [start:adam-by-hand]
def adam_by_hand(steps=6, *, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
    b1, b2 = betas
    p = torch.ones(5, dtype=torch.float64)
    m = torch.zeros_like(p)
    v = torch.zeros_like(p)
    trajectory = []
    for t in range(1, steps + 1):
        g = grad_at(p)
        if decoupled:
            p = p * (1 - lr * weight_decay)  # AdamW: shrink the weights directly
        else:
            g = g + weight_decay * p  # Adam: L2 term goes through the adaptive scaling
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)  # bias correction
        p = p - lr * m_hat / (v_hat.sqrt() + eps)
        trajectory.append(p)
    return torch.stack(trajectory)


assert "Decoupled Weight Decay Regularization" in torch.optim.AdamW.__doc__  # the paper it cites ✓ adamw-cites
adam = run_torch(torch.optim.Adam, lr=0.1, weight_decay=0.1)
adamw = run_torch(torch.optim.AdamW, lr=0.1, weight_decay=0.1)
assert torch.allclose(adam, adam_by_hand(weight_decay=0.1), rtol=0, atol=1e-12)  # ✓ adam-matches
assert torch.allclose(adamw, adam_by_hand(weight_decay=0.1, decoupled=True), rtol=0, atol=1e-12)  # ✓ adamw-matches
print(torch.allclose(adam, adamw))  # same weight_decay number, different algorithms ✓ adam-vs-adamw
#> False
print(torch.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults["weight_decay"])  # ✓ adamw-default
#> 0.01
print(torch.optim.Adam([torch.zeros(1, requires_grad=True)]).defaults["weight_decay"])  # ✓ adam-default
#> 0
adam_decoupled = run_torch(torch.optim.Adam, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)
print(torch.allclose(adam_decoupled, adamw, rtol=0, atol=1e-12))  # Adam's switch for AdamW's rule ✓ decoupled
#> True
# --8<-- [end:adam-by-hand]
