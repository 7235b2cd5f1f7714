"""Mixed precision: autocast with bfloat16 on the CPU, op by op; why fp16 needs a GradScaler.

Page: docs/training/mixed_precision.md (the fp16 + GradScaler half is mixed_precision_cuda.py)
"""

# --8<-- [start:setup]
import inspect

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 8)  # float32 inputs
target = torch.randn(4, 3)
labels = torch.tensor([0, 2, 1, 0])
linear = nn.Linear(8, 3)
conv = nn.Conv1d(2, 3, kernel_size=3)
# --8<-- [end:setup]

# --8<-- [start:dtypes]
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = linear(x)  # float32 in, bfloat16 out
    ops = {
        "linear": h,
        "x @ x.T": x @ x.T,
        "conv1d": conv(x.view(4, 2, 4)),
        "mse_loss": F.mse_loss(h, target.bfloat16()),  # bfloat16 inputs, both
        "cross_entropy": F.cross_entropy(h, labels),
        "bce_with_logits": F.binary_cross_entropy_with_logits(h, target.sigmoid().bfloat16()),
        "prod": h.prod(),
        "h.sum()": h.sum(),
        "h.softmax()": h.softmax(-1),
        "layer_norm(h)": F.layer_norm(h, (3,)),
        "h.exp()": h.exp(),
        "x.sum()": x.sum(),
        "x.softmax()": x.softmax(-1),
        "layer_norm(x)": F.layer_norm(x, (8,)),
        "x.exp()": x.exp(),
        # a bfloat16 and a float32 operand: + promotes, @ and linear still cast down
        "h + x[:, :3]": h + x[:, :3],
        "h @ x[:3]": h @ x[:3],
        "F.linear(h, x[:, :3])": F.linear(h, x[:, :3]),
    }
    more = [  # the other convolutions (float32 weights of ones) and a batched matrix product
        F.conv2d(x.view(1, 2, 4, 4), torch.ones(3, 2, 2, 2)),
        F.conv3d(x.view(1, 2, 2, 2, 4), torch.ones(3, 2, 2, 2, 2)),
        F.conv_transpose1d(x.view(4, 2, 4), torch.ones(2, 3, 3)),
        F.conv_transpose2d(x.view(1, 2, 4, 4), torch.ones(2, 3, 2, 2)),
        F.conv_transpose3d(x.view(1, 2, 2, 2, 4), torch.ones(2, 3, 2, 2, 2)),
        x.view(2, 4, 4) @ x.view(2, 4, 4),
    ]
assert all(out.dtype == torch.bfloat16 for out in more)  # ✓ cpu-convs
# outside autocast the same losses and prod of bfloat16 inputs stay bfloat16: autocast casts them up
without_autocast = [
    F.mse_loss(h, target.bfloat16()),
    F.cross_entropy(h, labels),
    F.binary_cross_entropy_with_logits(h, target.sigmoid().bfloat16()),
    h.prod(),
]
assert all(out.dtype == torch.bfloat16 for out in without_autocast)  # ✓ losses-cast-up
for name, out in ops.items():
    print(f"{name:>21}: {out.dtype}")  # ✓ cpu-dtypes
    #>                linear: torch.bfloat16
    #>               x @ x.T: torch.bfloat16
    #>                conv1d: torch.bfloat16
    #>              mse_loss: torch.float32
    #>         cross_entropy: torch.float32
    #>       bce_with_logits: torch.float32
    #>                  prod: torch.float32
    #>               h.sum(): torch.bfloat16
    #>           h.softmax(): torch.bfloat16
    #>         layer_norm(h): torch.bfloat16
    #>               h.exp(): torch.bfloat16
    #>               x.sum(): torch.float32
    #>           x.softmax(): torch.float32
    #>         layer_norm(x): torch.float32
    #>               x.exp(): torch.float32
    #>          h + x[:, :3]: torch.float32
    #>             h @ x[:3]: torch.bfloat16
    #> F.linear(h, x[:, :3]): torch.bfloat16
# each device has its own list: does the op have an autocast rule for CPU, for CUDA? (the dispatcher's table)
for op in ["aten::linear", "aten::softmax.int", "aten::sum", "aten::layer_norm", "aten::exp", "aten::add.Tensor"]:
    print(op, [torch._C._dispatch_has_kernel_for_dispatch_key(op, key) for key in ["AutocastCPU", "AutocastCUDA"]])  # ✓ lists-differ
    #> aten::linear [True, True]
    #> aten::softmax.int [False, True]
    #> aten::sum [False, True]
    #> aten::layer_norm [False, True]
    #> aten::exp [False, True]
    #> aten::add.Tensor [False, False]
# --8<-- [end:dtypes]

# --8<-- [start:reductions]
assert torch.finfo(torch.bfloat16).eps == 2.0**-7  # 8 significant bits ✓ bf16-bits
ones = torch.ones(257, dtype=torch.bfloat16)
print(ones.sum(), ones.float().sum())  # 257 = 0b100000001 needs 9 ✓ sum-257
#> tensor(256., dtype=torch.bfloat16) tensor(257.)
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = linear(x)
    probs = h.float().softmax(-1)  # cast up yourself where precision matters
print(probs.dtype)  # ✓ cast-up
#> torch.float32
# --8<-- [end:reductions]

# --8<-- [start:training-step]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.autocast("cpu", dtype=torch.bfloat16):  # only the forward pass and the loss
    out = model(x)
    loss = F.mse_loss(out, target)
loss.backward()  # outside autocast
grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    F.mse_loss(model(x), target).backward()  # inside: each backward op runs in its forward op's dtype anyway
assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters(), strict=True))  # ✓ backward-same
opt.step()
print(out.dtype, loss.dtype, model[0].weight.dtype, model[0].weight.grad.dtype)  # ✓ step-dtypes
#> torch.bfloat16 torch.float32 torch.float32 torch.float32
model.zero_grad()
with torch.autocast("cpu", dtype=torch.float16):  # the same with float16
    F.mse_loss(model(x), target).backward()
grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
with torch.autocast("cpu", dtype=torch.float16):
    loss = F.mse_loss(model(x), target)
loss.backward()
assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters(), strict=True))  # ✓ backward-same-fp16
autocast_doc = " ".join(inspect.getdoc(torch.autocast).split())
assert "Backward ops run in the same type that autocast used for corresponding forward ops." in autocast_doc  # ✓ backward-rule
assert "should wrap only the forward pass(es) of your network, including the loss computation(s)." in autocast_doc  # ✓ forward-only
# --8<-- [end:training-step]

# --8<-- [start:range]
print(torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).max, torch.finfo(torch.float32).max)  # ✓ max
#> 65504.0 3.3895313892515355e+38 3.4028234663852886e+38
print(torch.finfo(torch.float16).eps, torch.finfo(torch.bfloat16).eps)  # float16 has the finer steps ✓ eps
#> 0.0009765625 0.0078125
assert (torch.finfo(torch.float16).eps, torch.finfo(torch.bfloat16).eps) == (2**-10, 2**-7)  # ✓ eps-powers
small_and_large = torch.tensor([1e-8, 7e4])  # a tiny gradient, a large activation
print(small_and_large.half())  # float16: the tiny one underflows to 0, the large one overflows ✓ fp16-range
#> tensor([0., inf], dtype=torch.float16)
print(small_and_large.bfloat16())  # bfloat16: float32's range, fewer digits ✓ bf16-range
#> tensor([1.0012e-08, 7.0144e+04], dtype=torch.bfloat16)
print((small_and_large[0] * 2**16).half())  # multiplied by 65536 first, the tiny one survives in float16 ✓ scaled-survives
#> tensor(0.0007, dtype=torch.float16)
for dtype in (torch.float16, torch.bfloat16):  # a backward whose gradient is 1e-8, computed in each dtype
    w = torch.ones(1, dtype=dtype, requires_grad=True)
    (w * torch.full((1,), 1e-4, dtype=dtype) * 1e-4).sum().backward()
    print(dtype, w.grad)  # without a GradScaler: lost in float16, kept in bfloat16 ✓ grad-underflow
    #> torch.float16 tensor([0.], dtype=torch.float16)
    #> torch.bfloat16 tensor([1.0012e-08], dtype=torch.bfloat16)
assert torch.autocast("cpu").fast_dtype == torch.bfloat16  # autocast's default dtype on the CPU ✓ cpu-default-bf16
# --8<-- [end:range]

# --8<-- [start:grad-scaler]
torch.manual_seed(0)
model = nn.Linear(8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print(torch.amp.GradScaler("cpu").get_growth_interval())  # the default: 2000 good steps in a row ✓ default-interval
#> 2000
print(inspect.signature(torch.amp.GradScaler).parameters["init_scale"].default)  # the same for every device ✓ init-scale-default
#> 65536.0
scaler = torch.amp.GradScaler("cpu", growth_interval=3)  # 3 here, to see it happen
print(scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor())  # ✓ scaler-factors
#> 65536.0 2.0 0.5
for step in range(8):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)
        loss = F.mse_loss(out, target)
    assert out.dtype == torch.float16 and loss.dtype == torch.float32  # float16 autocast on the CPU ✓ cpu-fp16
    expected = torch.autograd.grad(loss, model.weight, retain_graph=True)[0] * scaler.get_scale()
    scaler.scale(loss).backward()  # the gradients of loss * scale
    assert torch.allclose(model.weight.grad, expected)  # ✓ scaled-grads
    if step == 4:
        model.weight.grad[0, 0] = float("inf")  # an overflow, as too large a scale would cause
    scaled, scale = model.weight.grad.clone(), scaler.get_scale()
    scaler.unscale_(opt)  # divides the gradients by the scale, in place: clip after this
    assert torch.equal(model.weight.grad * scale, scaled)  # ✓ unscale-divides
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    before = model.weight.detach().clone()
    scaler.step(opt)  # runs opt.step() only if every gradient is finite
    scaler.update()  # the scale for the next step
    print(f"step {step}: stepped {not torch.equal(model.weight, before)}, scale now {scaler.get_scale():.0f}")  # ✓ scale-history
    #> step 0: stepped True, scale now 65536
    #> step 1: stepped True, scale now 65536
    #> step 2: stepped True, scale now 131072
    #> step 3: stepped True, scale now 131072
    #> step 4: stepped False, scale now 65536
    #> step 5: stepped True, scale now 65536
    #> step 6: stepped True, scale now 65536
    #> step 7: stepped True, scale now 131072
opt.zero_grad()
scaler.scale(F.mse_loss(model(x), target)).backward()
model.weight.grad[0, 0] = float("nan")  # a NaN, as inf - inf or 0 * inf gives
before = model.weight.detach().clone()
scaler.step(opt)
scaler.update()
assert torch.equal(model.weight, before) and scaler.get_scale() == 65536  # skipped and halved too ✓ nan-skipped
# --8<-- [end:grad-scaler]
