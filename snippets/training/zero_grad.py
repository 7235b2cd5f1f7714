"""zero_grad: set_to_none, and what it changes for a parameter that gets no gradient.

Page: docs/training/zero_grad.md
"""

# --8<-- [start:setup]
import inspect

import torch
from torch import nn


def two_heads() -> nn.ModuleDict:
    """A shared input feeding two linear heads, with fixed weights."""
    torch.manual_seed(0)
    return nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Linear(2, 1)})


x = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
with torch.random.fork_rng():  # leaves the global generator as it was
    first, again = two_heads(), two_heads()
assert all(torch.equal(p, q) for p, q in zip(first.parameters(), again.parameters(), strict=True))  # ✓ same-heads
# --8<-- [end:setup]

# --8<-- [start:default]
print(inspect.signature(torch.optim.Optimizer.zero_grad))  # ✓ default-optimizer
#> (self, set_to_none: bool = True) -> None
print(inspect.signature(nn.Module.zero_grad))  # ✓ default-module
#> (self, set_to_none: bool = True) -> None

model = two_heads()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
(model["a"](x) + model["b"](x)).sum().backward()
once = model["a"].weight.grad.clone()
(model["a"](x) + model["b"](x)).sum().backward()  # a second backward() adds to .grad
assert torch.equal(model["a"].weight.grad, 2 * once)  # ✓ adds-up
opt.zero_grad()  # the default: the gradients are dropped ...
print(model["a"].weight.grad)  # ✓ default-none
#> None
assert all(p.grad is None for p in model.parameters())  # every parameter's ✓ all-none
(model["a"](x) + model["b"](x)).sum().backward()
opt.zero_grad(set_to_none=False)  # ... or filled with zeros
print(model["a"].weight.grad)  # ✓ false-zeros
#> tensor([[0., 0.]])
assert all(torch.equal(p.grad, torch.zeros_like(p)) for p in model.parameters())  # ✓ all-zeros
model.zero_grad()  # Module.zero_grad, with its default, drops them too
assert all(p.grad is None for p in model.parameters())  # ✓ module-none
# --8<-- [end:default]


# --8<-- [start:no-grad-step]
def two_steps(make_optimizer, set_to_none: bool):
    """Step 1 trains both heads; step 2 uses only head a.

    Returns the model, the optimizer and whether any of head b's parameters moved in step 2.
    """
    model = two_heads()
    opt = make_optimizer(model.parameters())
    (model["a"](x) + model["b"](x)).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=set_to_none)
    after_step_1 = [p.detach().clone() for p in model["b"].parameters()]  # its weight and bias
    model["a"](x).sum().backward()  # head b takes no part: it gets no gradient
    opt.step()
    same = all(torch.equal(p, q) for p, q in zip(model["b"].parameters(), after_step_1, strict=True))
    return model, opt, not same


optimizers = {
    "SGD": lambda params: torch.optim.SGD(params, lr=0.1),
    "SGD momentum=0.9": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
    "SGD weight_decay=0.01": lambda params: torch.optim.SGD(params, lr=0.1, weight_decay=0.01),
    "Adam": lambda params: torch.optim.Adam(params, lr=0.1),
}
print("head b moved in step 2?   .grad None   .grad zero")
#> head b moved in step 2?   .grad None   .grad zero
for name, make in optimizers.items():
    moved = [two_steps(make, set_to_none)[2] for set_to_none in (True, False)]
    print(f"{name:>23}: {moved[0]!s:>11} {moved[1]!s:>12}")  # ✓ moved-table
    #>                     SGD:       False        False
    #>        SGD momentum=0.9:       False         True
    #>   SGD weight_decay=0.01:       False         True
    #>                    Adam:       False         True
    if name == "SGD":
        assert moved == [False, False]  # plain SGD: a zero gradient is a zero update ✓ plain-sgd-stays
    else:
        assert moved == [False, True]  # momentum, weight decay, Adam: it moves ✓ zero-moves
assert all(p.grad is None for make in optimizers.values() for p in two_steps(make, True)[0]["b"].parameters())  # weight's and bias's .grad stay None ✓ none-kept
plain_runs = [two_steps(optimizers["SGD"], set_to_none)[0] for set_to_none in (True, False)]
assert all(torch.equal(p, q) for p, q in zip(*(run.parameters() for run in plain_runs), strict=True))  # plain SGD: one run ✓ plain-sgd-same


def sgd(params):
    """With a zero gradient, SGD still applies momentum and weight decay: how far does it move?"""
    return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01)


m_none, opt_none, _ = two_steps(sgd, set_to_none=True)
m_zero, opt_zero, _ = two_steps(sgd, set_to_none=False)
print(m_none["b"].weight.grad, m_zero["b"].weight.grad)  # ✓ grads-after
#> None tensor([[0., 0.]])
w1 = m_none["b"].weight.detach()  # head b after step 1 (step 2 left it alone)
buf1 = opt_none.state[m_none["b"].weight]["momentum_buffer"]  # its momentum after step 1
buf2 = 0.9 * buf1 + 0.01 * (0 + w1)  # momentum * buffer + (gradient + weight_decay * w)
assert torch.equal(m_zero["b"].weight, w1 - 0.1 * buf2)  # ✓ sgd-formula
b1 = m_none["b"].bias.detach()
bias_buf2 = 0.9 * opt_none.state[m_none["b"].bias]["momentum_buffer"] + 0.01 * (0 + b1)
assert torch.equal(m_zero["b"].bias, b1 - 0.1 * bias_buf2)  # the bias too ✓ sgd-formula
print(m_zero["b"].weight.detach() - w1)
#> tensor([[-0.1339, -0.0894]])

for set_to_none in (True, False):
    m, o, _ = two_steps(optimizers["Adam"], set_to_none)
    print(f"set_to_none={set_to_none}: Adam's step count for head b: {o.state[m['b'].weight]['step'].item():.0f}")  # ✓ adam-steps
    #> set_to_none=True: Adam's step count for head b: 1
    #> set_to_none=False: Adam's step count for head b: 2
# --8<-- [end:no-grad-step]
