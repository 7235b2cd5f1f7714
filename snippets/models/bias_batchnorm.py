"""A convolution bias in front of BatchNorm is cancelled: prove it, count what it costs.

Page: docs/models/bias_batchnorm.md
"""

# --8<-- [start:setup]
import torch
from torch import nn

torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:default]
print(nn.Conv2d(3, 16, 3).bias is not None)  # bias=True is the default ✓ default
#> True
# --8<-- [end:default]

# --8<-- [start:activation]
conv = nn.Conv2d(3, 16, 3)
images = torch.randn(8, 3, 12, 12)
active = {}  # bias value -> share of ReLU outputs above 0
with torch.no_grad():
    for bias_value in (-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0):
        conv.bias.fill_(bias_value)  # the same bias on every channel; the filters stay as they are
        active[bias_value] = (torch.relu(conv(images)) > 0).float().mean().item()
print({bias_value: round(share, 2) for bias_value, share in active.items()})  # ✓ activation-grows
#> {-3.0: 0.0, -1.0: 0.04, -0.5: 0.19, 0.0: 0.49, 0.5: 0.81, 1.0: 0.96, 3.0: 1.0}
shares = list(active.values())
assert (torch.tensor(shares).diff() > 0).all()  # a larger bias: more active units, at every step ✓ activation-grows
assert shares[0] < 0.01 and shares[-1] > 0.99  # from almost none to almost all ✓ activation-range
# --8<-- [end:activation]

# --8<-- [start:build]
with_bias = nn.Sequential(nn.Conv2d(3, 16, 3, bias=True), nn.BatchNorm2d(16))
without_bias = nn.Sequential(nn.Conv2d(3, 16, 3, bias=False), nn.BatchNorm2d(16))
with torch.no_grad():
    without_bias[0].weight.copy_(with_bias[0].weight)  # same filters, only the bias differs
    with_bias[0].bias.uniform_(-5.0, 5.0)  # a large bias, to make the point obvious
print(with_bias[0].bias[:4])
#> tensor([ 2.2741, -3.5779, -0.4451,  4.1911], grad_fn=<SliceBackward0>)
# --8<-- [end:build]

# --8<-- [start:train-mode]
batches = [torch.randn(8, 3, 12, 12) for _ in range(5)]
with torch.no_grad():  # before BN: the bias shifts each channel's mean by exactly the bias ...
    conv_a, conv_b = with_bias[0](batches[0]), without_bias[0](batches[0])
    shift = conv_a.mean(dim=(0, 2, 3)) - conv_b.mean(dim=(0, 2, 3))
    assert torch.allclose(shift, with_bias[0].bias, atol=1e-5)  # ✓ mean-shift
    # ... and leaves each channel's variance as it was
    assert torch.allclose(conv_a.var(dim=(0, 2, 3)), conv_b.var(dim=(0, 2, 3)), atol=1e-4)  # ✓ var-same

for batch in batches:  # training mode: BN normalises with the batch's own mean
    out_a, out_b = with_bias(batch), without_bias(batch)
    assert torch.allclose(out_a, out_b, atol=1e-5)  # ✓ train-equal
print((out_a - out_b).abs().max().item() < 1e-5)
#> True
# --8<-- [end:train-mode]

# --8<-- [start:eval-mode]
bn_a, bn_b = with_bias[1], without_bias[1]
print(nn.BatchNorm2d(16).momentum, nn.BatchNorm2d(16).running_mean.abs().max().item())  # defaults ✓ bn-defaults
#> 0.1 0.0
# the running mean absorbed the bias exactly (momentum 0.1, 5 batches: 1 - 0.9**5 of it) ...
absorbed = (1 - 0.9**5) * with_bias[0].bias
assert torch.allclose(bn_a.running_mean - bn_b.running_mean, absorbed, atol=1e-5)  # ✓ running-absorbed
print(f"{1 - 0.9**5:.2f}")
#> 0.41
# ... and the running variance did not see it at all
assert torch.allclose(bn_a.running_var, bn_b.running_var, atol=1e-5)  # ✓ running-var-equal
print(bn_a.num_batches_tracked.item(), bn_b.num_batches_tracked.item())
#> 5 5

with_bias.eval()
without_bias.eval()
test = torch.randn(4, 3, 12, 12)
diff = (with_bias(test) - without_bias(test)).abs().max().item()
print(f"eval-mode difference {diff:.2f}")  # not zero: the running mean is still catching up ✓ eval-differs
#> eval-mode difference 3.03
with torch.no_grad():
    conv_out = with_bias[0](test)  # eval BN: the running statistics, not the batch's
    running = (conv_out - bn_a.running_mean[:, None, None]) / torch.sqrt(bn_a.running_var[:, None, None] + bn_a.eps)
    assert torch.allclose(bn_a(conv_out), running * bn_a.weight[:, None, None] + bn_a.bias[:, None, None], atol=1e-5)  # ✓ eval-uses-running
    # each channel is off by the bias the running mean misses (0.9**5 of it), over the channel's std
    gap = (0.9**5) * with_bias[0].bias / torch.sqrt(bn_a.running_var + bn_a.eps)
    assert torch.allclose(with_bias(test) - without_bias(test), gap[:, None, None].expand(4, 16, 10, 10), atol=1e-4)  # ✓ gap-over-std
# --8<-- [end:eval-mode]

# --8<-- [start:eval-converged]
with_bias.train()
without_bias.train()
for m in (bn_a, bn_b):
    m.reset_running_stats()
    m.momentum = None  # cumulative average: the running mean ends up the exact mean over batches
for batch in batches:
    with_bias(batch)
    without_bias(batch)
with_bias.eval()
without_bias.eval()
assert torch.allclose(bn_a.running_mean - bn_b.running_mean, with_bias[0].bias, atol=1e-5)  # ✓ cumulative-full
assert torch.allclose(with_bias(test), without_bias(test), atol=1e-4)  # ✓ eval-converged
print("eval outputs equal once the running mean holds the full bias")
#> eval outputs equal once the running mean holds the full bias
# --8<-- [end:eval-converged]

# --8<-- [start:eval-default-momentum]
with_bias.train()
without_bias.train()
for m in (bn_a, bn_b):
    m.reset_running_stats()
    m.momentum = 0.1  # back to the default
for _ in range(100):  # 100 training batches: the running mean misses 0.9**100 of the bias
    batch = torch.randn(8, 3, 12, 12)
    with_bias(batch)
    without_bias(batch)
with_bias.eval()
without_bias.eval()
missed = bn_a.running_mean - bn_b.running_mean - with_bias[0].bias  # what the running mean still misses
assert torch.allclose(missed, -(0.9**100) * with_bias[0].bias, atol=1e-5)  # ✓ running-100
print(f"{0.9**100:.0e}", torch.allclose(with_bias(test), without_bias(test), atol=1e-3))  # ✓ eval-100
#> 3e-05 True
# --8<-- [end:eval-default-momentum]

# --8<-- [start:beta]
with torch.no_grad():
    bn_a.bias.uniform_(-1.0, 1.0)  # BN's own shift, beta
    bn_b.bias.copy_(bn_a.bias)
with_bias.train()
without_bias.train()
out = with_bias(batches[0])
print(torch.allclose(out.mean(dim=(0, 2, 3)), bn_a.bias, atol=1e-5))  # output mean = beta, not the conv bias ✓ beta-offset
#> True
assert torch.allclose(without_bias(batches[0]).mean(dim=(0, 2, 3)), bn_b.bias, atol=1e-5)  # no conv bias: the same ✓ beta-offset
# --8<-- [end:beta]


# --8<-- [start:saved]
def n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


print(n_params(with_bias), n_params(without_bias))  # 16 conv biases saved ✓ saved-count
#> 480 464
assert n_params(with_bias) - n_params(without_bias) == with_bias[0].out_channels  # one per output channel ✓ per-channel
for c_in, c_out in [(64, 64), (256, 256), (512, 512)]:
    conv = nn.Conv2d(c_in, c_out, 3)
    assert conv.bias.shape == (c_out,)  # one bias per output channel ✓ per-channel
    print(f"{c_in}->{c_out}: bias is {conv.bias.numel() / n_params(conv):.4%} of the conv's parameters")  # ✓ saved-share
    #> 64->64: bias is 0.1733% of the conv's parameters
    #> 256->256: bias is 0.0434% of the conv's parameters
    #> 512->512: bias is 0.0217% of the conv's parameters
# --8<-- [end:saved]
