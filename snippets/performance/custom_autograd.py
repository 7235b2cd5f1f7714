"""A custom torch.autograd.Function: forward/backward, setup_context, save_for_backward, gradcheck.

Page: docs/performance/custom_autograd.md
"""

# --8<-- [start:setup]
import inspect
import warnings

import numpy as np
import torch
from torch.autograd import gradcheck
from torch.autograd.function import once_differentiable

torch.manual_seed(0)
x = torch.randn(5, dtype=torch.float64, requires_grad=True)  # float64: what gradcheck needs
# --8<-- [end:setup]

# --8<-- [start:no-backward]
layer = torch.nn.Linear(5, 3, dtype=torch.float64)  # a model made of PyTorch operations
inputs = torch.randn(4, 5, dtype=torch.float64)
torch.tanh(layer(inputs)).sum().backward()  # no backward written anywhere: autograd derives it
by_hand = ((1 - torch.tanh(layer(inputs)) ** 2).T @ inputs).detach()  # d/dW of sum(tanh(W x + b)), by hand
print(torch.allclose(layer.weight.grad, by_hand))  # ✓ autograd-derives
#> True
assert gradcheck(lambda t: torch.tanh(layer(t)), (inputs.requires_grad_(),))  # against finite differences ✓ autograd-gradcheck
try:
    np.sin(x.numpy())  # a forward that leaves PyTorch
except RuntimeError as err:
    print(err)  # ✓ numpy-refused
    #> Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
outside = torch.from_numpy(np.sin(x.detach().numpy()))
print(outside.requires_grad, outside.grad_fn)  # no history: no gradient flows back through it ✓ numpy-no-grad
#> False None
# --8<-- [end:no-backward]

# --8<-- [start:function]
class Cube(torch.autograd.Function):
    """y = x ** 3, with its derivative 3 x ** 2 written by hand."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)  # what backward needs, saved through ctx
        return x**3

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2  # one gradient per input of forward


y = Cube.apply(x)  # always .apply, never .forward
print(y.grad_fn.name())  # ✓ grad-fn
#> CubeBackward
y.sum().backward()
print(torch.allclose(x.grad, 3 * x.detach() ** 2))  # ✓ cube-grad
#> True
x.grad = None
upstream = torch.arange(5.0, dtype=torch.float64)  # d loss / d y: 0, 1, 2, 3, 4 instead of ones
(Cube.apply(x) * upstream).sum().backward()
assert torch.allclose(x.grad, upstream * 3 * x.detach() ** 2)  # backward got them as grad_output ✓ grad-output
# --8<-- [end:function]

# --8<-- [start:not-called]
calls = []


class RoundSTE(torch.autograd.Function):
    """Round in forward; pass the gradient straight through in backward (round's own is 0)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        return x.round()

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        calls.append("backward")
        return grad_output


plain = torch.ones(3)  # requires no gradient
print(RoundSTE.apply(plain).requires_grad, RoundSTE.apply(plain).grad_fn)  # nothing to differentiate ✓ no-graph
#> False None
x.grad = None
RoundSTE.forward(None, x).sum().backward()  # forward called directly: autograd sees only x.round()
print(calls, x.grad)  # your backward never ran: round's own gradient, zeros ✓ direct-forward
#> [] tensor([0., 0., 0., 0., 0.], dtype=torch.float64)
x.grad = None
RoundSTE.apply(x).sum().backward()
print(calls, x.grad)  # ✓ called
#> ['backward'] tensor([1., 1., 1., 1., 1.], dtype=torch.float64)
# --8<-- [end:not-called]

# --8<-- [start:setup-context]
class Scale(torch.autograd.Function):
    """y = x * factor: forward without ctx, and setup_context to save what backward needs."""

    @staticmethod
    def forward(x: torch.Tensor, factor: float) -> torch.Tensor:
        return x * factor

    @staticmethod
    def setup_context(ctx, inputs: tuple, output: torch.Tensor) -> None:
        _, factor = inputs
        ctx.factor = factor  # a Python number: a plain attribute; tensors go through save_for_backward

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple:
        return grad_output * ctx.factor, None  # no gradient for the float factor


x.grad = None
Scale.apply(x, 3.0).sum().backward()
print(x.grad)  # ✓ scale-grad
#> tensor([3., 3., 3., 3., 3.], dtype=torch.float64)


class OneGradient(Scale):
    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        return grad_output * ctx.factor  # one gradient for two inputs: refused


try:
    OneGradient.apply(x, 3.0).sum().backward()
except RuntimeError as err:
    print(err)  # ✓ one-per-input
    #> function OneGradientBackward returned an incorrect number of gradients (expected 2, got 1)


class FactorGrad(Scale):
    given = torch.tensor(1.0)  # what backward returns for the float factor

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> tuple:
        return grad_output * ctx.factor, FactorGrad.given  # a gradient for the float: refused


refused = []
for given in (torch.tensor(1.0), torch.tensor(0.0), 0.0):  # a one, a zero tensor, a Python zero
    FactorGrad.given = given
    try:
        FactorGrad.apply(x, 3.0).sum().backward()
    except RuntimeError as err:
        refused.append(str(err).split(" at position")[0])
print(len(refused), refused[0])  # the float factor's gradient must be None ✓ none-for-float
#> 3 function FactorGradBackward returned a gradient different than None
assert len(set(refused)) == 1  # the three refused with the same message ✓ none-for-float
print(torch.func.grad(lambda t: Scale.apply(t, 3.0).sum())(x.detach()))  # torch.func works with this style ✓ func-grad
#> tensor([3., 3., 3., 3., 3.], dtype=torch.float64)
try:
    torch.func.grad(lambda t: Cube.apply(t).sum())(x.detach())  # the ctx-in-forward style
except RuntimeError as err:
    print(str(err).split(", it must")[0])  # ✓ func-error
    #> In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...)
    assert "it must override the setup_context staticmethod" in str(err)  # ✓ func-setup-context
try:
    torch.func.vmap(lambda t: Scale.apply(t, 3.0))(torch.ones(2, 3))  # vmap needs one thing more
except RuntimeError as err:
    print(str(err).split(". ")[0])  # ✓ vmap-error
    #> You tried to vmap over Scale, but it does not have vmap support
    assert "implement the vmap staticmethod or set generate_vmap_rule=True" in str(err)  # ✓ vmap-advice


class BatchedScale(Scale):
    generate_vmap_rule = True  # vmap derives the batched rule from forward and setup_context


print(torch.func.vmap(lambda t: BatchedScale.apply(t, 3.0))(torch.arange(6.0).reshape(2, 3)))  # ✓ vmap-rule
#> tensor([[ 0.,  3.,  6.],
#>         [ 9., 12., 15.]])
# --8<-- [end:setup-context]

# --8<-- [start:gradcheck]
print(gradcheck(Cube.apply, (x,)), gradcheck(Scale.apply, (x, 3.0)))  # ✓ gradcheck
#> True True
assert "Check gradients computed via small finite differences against analytical" in " ".join(gradcheck.__doc__.split())  # ✓ gradcheck-doc


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x  # forgot the square


try:
    gradcheck(WrongCube.apply, (x,))
except RuntimeError as err:  # torch.autograd.gradcheck.GradcheckError
    print(type(err).__name__, "|", str(err).splitlines()[0])  # ✓ gradcheck-error
    #> GradcheckError | Jacobian mismatch for output 0 with respect to input 0,
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    passed = gradcheck(Cube.apply, (x.detach().float().requires_grad_(),), raise_exception=False)
print(passed, "|", str(caught[0].message).split(". ")[0])  # ✓ float32
#> False | Input #0 requires gradient and is not a double precision floating point or complex
# --8<-- [end:gradcheck]

# --8<-- [start:in-place]
t = torch.randn(3, dtype=torch.float64, requires_grad=True)
u = t * 1  # a non-leaf that Cube saves
y = Cube.apply(u)
u.add_(1)  # changed after it was saved
try:
    y.sum().backward()
except RuntimeError as err:
    print(str(err).split(": [")[0])  # save_for_backward noticed ✓ saved-modified
    #> one of the variables needed for gradient computation has been modified by an inplace operation
changed = t * 1
sine = changed.sin()  # PyTorch's own sin saves its input too
changed.add_(1)
try:
    sine.sum().backward()
except RuntimeError as err:
    print(str(err).split(": [")[0])  # the same error ✓ own-op-modified
    #> one of the variables needed for gradient computation has been modified by an inplace operation
# --8<-- [end:in-place]

# --8<-- [start:once-differentiable]
class CubeOnce(Cube):
    @staticmethod
    @once_differentiable  # backward runs without building a graph: no second derivative
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


assert "with torch.no_grad():" in inspect.getsource(once_differentiable)  # ✓ once-no-grad
for fn in (Cube, CubeOnce):
    (g,) = torch.autograd.grad(fn.apply(x).sum(), x, create_graph=True)
    assert torch.allclose(g, 3 * x.detach() ** 2)  # the first derivative: right in both ✓ first-grad
    try:
        (gg,) = torch.autograd.grad(g.sum(), x)
        print(fn.__name__, torch.allclose(gg, 6 * x.detach()))  # d2/dx2 x**3 = 6 x ✓ second-order
        #> Cube True
    except RuntimeError as err:
        print(fn.__name__, "|", err)  # ✓ once-error
        #> CubeOnce | element 0 of tensors does not require grad and does not have a grad_fn
print(torch.autograd.gradgradcheck(Cube.apply, (x,)))  # the second derivative, checked ✓ gradgradcheck
#> True
# --8<-- [end:once-differentiable]
