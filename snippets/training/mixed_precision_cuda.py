"""fp16 autocast and GradScaler on a GPU: the CUDA half of the mixed-precision page.

Page: docs/training/mixed_precision.md (the CPU half is mixed_precision.py)
Only asserts, no prints: the claims hold on any CUDA machine.
"""
# requires: cuda

# --8<-- [start:fp16-dtypes]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 4).cuda()
xc, yc = torch.randn(16, 8, device="cuda"), torch.randn(16, 4, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    hc = model(xc)
    assert hc.dtype == torch.float16  # linear: float16, as on the CPU list with bfloat16 ✓ fp16-linear
    assert hc.softmax(-1).dtype == torch.float32  # on CUDA softmax and sum are cast to float32 ... ✓ fp16-up
    assert hc.sum().dtype == torch.float32  # ... unlike on the CPU ✓ fp16-sum
    assert F.mse_loss(hc, yc).dtype == torch.float32  # ✓ fp16-loss
# --8<-- [end:fp16-dtypes]

# --8<-- [start:grad-scaler]
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
assert scaler.get_scale() == 2.0**16  # the initial scale: 65536 ✓ gpu-initial-scale

with torch.autocast("cuda", dtype=torch.float16):
    loss = F.mse_loss(model(xc), yc)
scaler.scale(loss).backward()  # backward of loss * 65536: small gradients stay above fp16's underflow
scaled = model.weight.grad.clone()
scaler.unscale_(opt)  # divide the gradients by the scale, in place: do it before clipping
assert torch.allclose(model.weight.grad * 2.0**16, scaled)  # ✓ gpu-unscale
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
before = model.weight.detach().clone()
scaler.step(opt)  # gradients finite: runs opt.step()
scaler.update()
assert not torch.equal(model.weight, before) and scaler.get_scale() == 2.0**16  # 1 good step < 2000 ✓ gpu-good-step

opt.zero_grad()
with torch.autocast("cuda", dtype=torch.float16):
    loss = F.mse_loss(model(xc), yc)
scaler.scale(loss).backward()
model.weight.grad[0, 0] = float("inf")  # an overflow, as a too-large scale would cause
before = model.weight.detach().clone()
scaler.step(opt)  # an inf or NaN among the gradients: the step is skipped ...
scaler.update()  # ... and the scale halved (backoff_factor=0.5)
assert torch.equal(model.weight, before) and scaler.get_scale() == 2.0**15  # ✓ gpu-skipped-step
# --8<-- [end:grad-scaler]
