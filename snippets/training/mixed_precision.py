"""Mixed precision: autocast with bfloat16 on the CPU, op by op; why fp16 needs a GradScaler.

Page: docs/training/mixed_precision.md (the fp16 + GradScaler half is mixed_precision_cuda.py)
"""

# --8<-- [start:setup]
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
        "mse_loss": F.mse_loss(h, target),
        "cross_entropy": F.cross_entropy(h, labels),
        "bce_with_logits": F.binary_cross_entropy_with_logits(h, target.sigmoid()),
        "prod": h.prod(),
        "h.sum()": h.sum(),
        "h.softmax()": h.softmax(-1),
        "layer_norm(h)": F.layer_norm(h, (3,)),
        "h.exp()": h.exp(),
        "x.sum()": x.sum(),
        "x.softmax()": x.softmax(-1),
        "layer_norm(x)": F.layer_norm(x, (8,)),
        "x.exp()": x.exp(),
        "h + x[:, :3]": h + x[:, :3],
    }
for name, out in ops.items():
    print(f"{name:>15}: {out.dtype}")
    #>          linear: torch.bfloat16
    #>         x @ x.T: torch.bfloat16
    #>          conv1d: torch.bfloat16
    #>        mse_loss: torch.float32
    #>   cross_entropy: torch.float32
    #> bce_with_logits: torch.float32
    #>            prod: torch.float32
    #>         h.sum(): torch.bfloat16
    #>     h.softmax(): torch.bfloat16
    #>   layer_norm(h): torch.bfloat16
    #>         h.exp(): torch.bfloat16
    #>         x.sum(): torch.float32
    #>     x.softmax(): torch.float32
    #>   layer_norm(x): torch.float32
    #>         x.exp(): torch.float32
    #>    h + x[:, :3]: torch.float32
# --8<-- [end:dtypes]

# --8<-- [start:reductions]
assert torch.finfo(torch.bfloat16).eps == 2.0**-7  # 8 significant bits
ones = torch.ones(257, dtype=torch.bfloat16)
print(ones.sum(), ones.float().sum())  # 257 = 0b100000001 needs 9
#> tensor(256., dtype=torch.bfloat16) tensor(257.)
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = linear(x)
    probs = h.float().softmax(-1)  # cast up yourself where precision matters
print(probs.dtype)
#> torch.float32
# --8<-- [end:reductions]

# --8<-- [start:training-step]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.autocast("cpu", dtype=torch.bfloat16):  # only the forward pass and the loss
    out = model(x)
    loss = F.mse_loss(out, target)
loss.backward()  # outside autocast
opt.step()
print(out.dtype, loss.dtype, model[0].weight.dtype, model[0].weight.grad.dtype)
#> torch.bfloat16 torch.float32 torch.float32 torch.float32
# --8<-- [end:training-step]

# --8<-- [start:range]
print(torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).max, torch.finfo(torch.float32).max)
#> 65504.0 3.3895313892515355e+38 3.4028234663852886e+38
print(torch.finfo(torch.float16).eps, torch.finfo(torch.bfloat16).eps)  # float16 has the finer steps
#> 0.0009765625 0.0078125
small_and_large = torch.tensor([1e-8, 7e4])  # a tiny gradient, a large activation
print(small_and_large.half())  # float16: the tiny one underflows to 0, the large one overflows
#> tensor([0., inf], dtype=torch.float16)
print(small_and_large.bfloat16())  # bfloat16: float32's range, fewer digits
#> tensor([1.0012e-08, 7.0144e+04], dtype=torch.bfloat16)
# --8<-- [end:range]
