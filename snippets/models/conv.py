"""Conv2d: every constructor argument, the output-size formula, parameter counts, groups.

Page: docs/models/conv.md
"""

# --8<-- [start:setup]
import inspect
import itertools

import torch
import torchvision
from torch import nn

torch.manual_seed(0)
# --8<-- [end:setup]

# --8<-- [start:signature]
params = inspect.signature(nn.Conv2d.__init__).parameters
print(inspect.signature(nn.Conv2d.__init__))
#> (self, in_channels: int, out_channels: int, kernel_size: Union[int, tuple[int, int]], stride: Union[int, tuple[int, int]] = 1, padding: Union[str, int, tuple[int, int]] = 0, dilation: Union[int, tuple[int, int]] = 1, groups: int = 1, bias: bool = True, padding_mode: Literal['zeros', 'reflect', 'replicate', 'circular'] = 'zeros', device=None, dtype=None) -> None

# the notes' line: def init(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
#                           dilation=1, groups=1, bias=True, padding_mode='zeros')
notes_defaults = dict(stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode="zeros")
assert all(params[name].default == value for name, value in notes_defaults.items())  # ✓ notes-defaults
notes_names = ["self", "in_channels", "out_channels", "kernel_size", *notes_defaults]
print([name for name in params if name not in notes_names])  # what the notes' line lacks ✓ lacks
#> ['device', 'dtype']
print(hasattr(nn.Conv2d, "init"), hasattr(nn.Conv2d, "__init__"))  # ✓ no-init
#> False True
try:
    nn.Conv2d(8, 8, 3, group=2)  # the notes' prose writes `group`
except TypeError as err:
    print(err)  # ✓ group-typo
    #> Conv2d.__init__() got an unexpected keyword argument 'group'
# --8<-- [end:signature]


# --8<-- [start:helpers]
def n_params(module: nn.Module) -> int:
    """Number of parameter elements (a parameter shared by two layers counted once)."""
    return sum(p.numel() for p in module.parameters())


def conv_param_count(in_channels, out_channels, kernel_size, groups=1, bias=True) -> int:
    """The weight (out x in/groups x kh x kw) plus one bias per output channel."""
    kh, kw = kernel_size
    return out_channels * (in_channels // groups) * kh * kw + (out_channels if bias else 0)
# --8<-- [end:helpers]


# --8<-- [start:each-argument]
x = torch.randn(1, 8, 32, 32)  # N, C, H, W
settings = {
    "kernel_size=3": dict(kernel_size=3),
    "kernel_size=(3, 5)": dict(kernel_size=(3, 5)),
    "kernel_size=5": dict(kernel_size=5),
    "stride=2": dict(kernel_size=3, stride=2),
    "stride=(1, 2)": dict(kernel_size=3, stride=(1, 2)),
    "padding=1": dict(kernel_size=3, padding=1),
    "padding=(0, 1)": dict(kernel_size=3, padding=(0, 1)),
    "padding='same'": dict(kernel_size=3, padding="same"),
    "padding='valid'": dict(kernel_size=3, padding="valid"),
    "dilation=2": dict(kernel_size=3, dilation=2),
    "dilation=(1, 2)": dict(kernel_size=3, dilation=(1, 2)),
    "groups=4": dict(kernel_size=3, groups=4),
    "bias=False": dict(kernel_size=3, bias=False),
    "padding_mode='reflect'": dict(kernel_size=3, padding=1, padding_mode="reflect"),
}
counts, sizes = {}, {}  # per setting: parameter count, output size
for name, kwargs in settings.items():
    conv = nn.Conv2d(8, 16, **kwargs)
    counts[name], sizes[name] = n_params(conv), tuple(conv(x).shape)
    print(f"{name:24} weight {tuple(conv.weight.shape)!s:15} params {counts[name]:5}  out {sizes[name]}")  # ✓ each-row
    #> kernel_size=3            weight (16, 8, 3, 3)   params  1168  out (1, 16, 30, 30)
    #> kernel_size=(3, 5)       weight (16, 8, 3, 5)   params  1936  out (1, 16, 30, 28)
    #> kernel_size=5            weight (16, 8, 5, 5)   params  3216  out (1, 16, 28, 28)
    #> stride=2                 weight (16, 8, 3, 3)   params  1168  out (1, 16, 15, 15)
    #> stride=(1, 2)            weight (16, 8, 3, 3)   params  1168  out (1, 16, 30, 15)
    #> padding=1                weight (16, 8, 3, 3)   params  1168  out (1, 16, 32, 32)
    #> padding=(0, 1)           weight (16, 8, 3, 3)   params  1168  out (1, 16, 30, 32)
    #> padding='same'           weight (16, 8, 3, 3)   params  1168  out (1, 16, 32, 32)
    #> padding='valid'          weight (16, 8, 3, 3)   params  1168  out (1, 16, 30, 30)
    #> dilation=2               weight (16, 8, 3, 3)   params  1168  out (1, 16, 28, 28)
    #> dilation=(1, 2)          weight (16, 8, 3, 3)   params  1168  out (1, 16, 30, 28)
    #> groups=4                 weight (16, 2, 3, 3)   params   304  out (1, 16, 30, 30)
    #> bias=False               weight (16, 8, 3, 3)   params  1152  out (1, 16, 30, 30)
    #> padding_mode='reflect'   weight (16, 8, 3, 3)   params  1168  out (1, 16, 32, 32)
    assert conv.weight.shape == (16, 8 // conv.groups, *conv.kernel_size)  # ✓ weight-shape
    assert n_params(conv) == conv_param_count(8, 16, conv.kernel_size, conv.groups, conv.bias is not None)  # ✓ param-formula

assert (counts["bias=False"] // 4, counts["groups=4"]) == (288, 288 + 16)  # a quarter of the weights ✓ groups-weights

# stride, padding, dilation: other output sizes, the parameter count of kernel_size=3 ...
size_only = [name for name in settings if name.startswith(("stride", "padding=", "dilation"))]
changed = [name for name in size_only if name != "padding='valid'"]  # 'valid' is no padding, the default
assert all(sizes[name] != sizes["kernel_size=3"] for name in changed)  # each changes the output size ... ✓ size-not-params
assert {counts[name] for name in size_only} == {counts["kernel_size=3"]}  # ... one parameter count ✓ size-not-params
# ... while kernel_size changes both: 1168, 1936 and 3216 parameters for 3, (3, 5) and 5
kernel_counts = [counts[f"kernel_size={k}"] for k in ("3", "(3, 5)", "5")]
assert kernel_counts == [16 * 8 * kh * kw + 16 for kh, kw in [(3, 3), (3, 5), (5, 5)]]  # ✓ kernel-params
assert sizes["padding_mode='reflect'"] == sizes["padding=1"]  # padding_mode: not the shape ✓ mode-shape
valid, unpadded = nn.Conv2d(8, 16, 3, padding="valid"), nn.Conv2d(8, 16, 3, padding=0)
unpadded.load_state_dict(valid.state_dict())
assert torch.equal(valid(x), unpadded(x))  # "valid" is padding=0 ✓ valid-none

# several arguments at once: the count still follows the formula
assert n_params(nn.Conv2d(12, 6, (3, 5), groups=3, bias=False)) == conv_param_count(12, 6, (3, 5), 3, False)  # ✓ several-at-once
assert nn.Conv2d(12, 6, (3, 5), groups=3, bias=False).weight.shape == (6, 12 // 3, 3, 5)  # ✓ weight-shape

# dilation=2: the 3x3 taps 2 pixels apart, i.e. a 5x5 kernel with zeros between the taps
dilated = nn.Conv2d(8, 16, 3, dilation=2, bias=False)
spread = nn.Conv2d(8, 16, 5, bias=False)
with torch.no_grad():
    spread.weight.zero_()
    spread.weight[:, :, ::2, ::2] = dilated.weight
assert torch.allclose(dilated(x), spread(x), atol=1e-5)  # ✓ dilation-spread
try:
    nn.Conv2d(8, 16, 3, padding="same", stride=2)  # "same" is for stride 1 only
except ValueError as err:
    print(err)  # ✓ same-strided
    #> padding='same' is not supported for strided convolutions
# --8<-- [end:each-argument]


# --8<-- [start:formula]
def conv_out_size(size: int, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1) -> int:
    """Output length of one spatial dimension: floor((size + 2p - d(k-1) - 1) / s) + 1."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
# --8<-- [end:formula]


# --8<-- [start:grid]
fits = too_small = 0
for size, k, s, p, d in itertools.product([6, 11], [1, 2, 3, 5], [1, 2, 3], [0, 1, 2], [1, 2]):
    expected = conv_out_size(size, k, s, p, d)
    conv = nn.Conv2d(1, 1, (k, 1), stride=(s, 1), padding=(p, 0), dilation=(d, 1), bias=False)
    try:
        out = conv(torch.zeros(1, 1, size, 1))
    except RuntimeError:  # the dilated kernel does not fit in the padded input
        assert expected < 1, (size, k, s, p, d)  # ✓ grid-raises
        too_small += 1
        continue
    assert out.shape[2] == expected >= 1, (size, k, s, p, d)  # ✓ grid-fits
    fits += 1
print(f"formula == real layer for {fits} settings; the layer raised for {too_small}, all with formula < 1")  # ✓ grid-count
#> formula == real layer for 138 settings; the layer raised for 6, all with formula < 1
assert fits + too_small == 2 * 4 * 3 * 3 * 2 == 144  # every setting of the grid ✓ grid-all
# --8<-- [end:grid]

# --8<-- [start:too-small]
print(conv_out_size(8, 5, dilation=2))  # ✓ too-small-formula
#> 0
try:
    nn.Conv2d(1, 1, 5, dilation=2)(torch.zeros(1, 1, 8, 8))
except RuntimeError as err:
    print(err)  # ✓ too-small-error
    #> Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size can't be greater than actual input size
# --8<-- [end:too-small]

# --8<-- [start:padding-mode]
ramp = torch.arange(1.0, 5.0).reshape(1, 1, 1, 4)  # one row: 1 2 3 4
pad_modes = {"zeros": "constant", "reflect": "reflect", "replicate": "replicate", "circular": "circular"}
for mode, pad_mode in pad_modes.items():
    probe = nn.Conv2d(1, 1, (1, 3), padding=(0, 2), padding_mode=mode, bias=False)
    with torch.no_grad():
        probe.weight.copy_(torch.tensor([0.0, 1.0, 0.0]).reshape(1, 1, 1, 3))  # picks the centre
    shown = probe(ramp).flatten()
    print(f"{mode:9}", shown.tolist())  # ✓ padding-mode-values
    #> zeros     [0.0, 1.0, 2.0, 3.0, 4.0, 0.0]
    #> reflect   [2.0, 1.0, 2.0, 3.0, 4.0, 3.0]
    #> replicate [1.0, 1.0, 2.0, 3.0, 4.0, 4.0]
    #> circular  [4.0, 1.0, 2.0, 3.0, 4.0, 1.0]
    padded = nn.functional.pad(ramp, (2, 2, 0, 0), mode=pad_mode).flatten()  # the padded row: 8 values
    assert len(shown) == 6 and torch.equal(shown, padded[1:-1])  # all but its outermost value on each side ✓ padded-inner
# --8<-- [end:padding-mode]

# --8<-- [start:groups]
x = torch.randn(2, 8, 10, 10)
grouped = nn.Conv2d(8, 6, 3, groups=2)
print(grouped.weight.shape)  # each filter sees in_channels / groups = 4 channels ✓ grouped-weight
#> torch.Size([6, 4, 3, 3])

# groups=2 is two independent convolutions whose outputs are concatenated, not summed
half_a = nn.Conv2d(4, 3, 3)
half_b = nn.Conv2d(4, 3, 3)
with torch.no_grad():
    half_a.weight.copy_(grouped.weight[:3])
    half_a.bias.copy_(grouped.bias[:3])
    half_b.weight.copy_(grouped.weight[3:])
    half_b.bias.copy_(grouped.bias[3:])
by_hand = torch.cat([half_a(x[:, :4]), half_b(x[:, 4:])], dim=1)
assert torch.allclose(grouped(x), by_hand, atol=1e-6)  # ✓ groups-concat

for in_channels, out_channels, groups in [(8, 6, 3), (8, 6, 4)]:
    try:
        nn.Conv2d(in_channels, out_channels, 3, groups=groups)
    except ValueError as err:
        print(f"Conv2d({in_channels}, {out_channels}, groups={groups}):", err)  # ✓ groups-divisible
        #> Conv2d(8, 6, groups=3): in_channels must be divisible by groups
        #> Conv2d(8, 6, groups=4): out_channels must be divisible by groups
# --8<-- [end:groups]

# --8<-- [start:depthwise]
depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)  # one 3x3 filter per channel
pointwise = nn.Conv2d(8, 16, 1, bias=False)  # mixes channels
standard = nn.Conv2d(8, 16, 3, padding=1, bias=False)
print(depthwise.weight.shape)  # 8 filters, each seeing 1 channel ✓ depthwise-weight
#> torch.Size([8, 1, 3, 3])
print(n_params(depthwise), n_params(pointwise), n_params(standard))  # ✓ separable-params
#> 72 128 1152
assert n_params(depthwise) + n_params(pointwise) == 200  # ✓ separable-total
print(nn.Sequential(depthwise, pointwise)(x).shape == standard(x).shape)  # ✓ separable-shape
#> True



def changed_outputs(layer: nn.Module, channel: int) -> list[int]:
    """The output channels that change when one input channel changes."""
    x2 = x.clone()
    x2[:, channel] += 1.0
    return ((layer(x2) - layer(x)).abs().sum(dim=(0, 2, 3)) > 0).nonzero().flatten().tolist()


print(changed_outputs(depthwise, 3))  # ✓ no-mixing
#> [3]
assert all(changed_outputs(depthwise, c) == [c] for c in range(8))  # every channel: its own output only ✓ no-mixing
print(len(changed_outputs(standard, 3)))  # a standard convolution mixes: all 16 outputs change ✓ standard-mixes
#> 16
# --8<-- [end:depthwise]

# --8<-- [start:in-the-wild]
with torch.device("meta"):  # build the architectures only: no memory, no weights downloaded
    mobilenet = torchvision.models.mobilenet_v2()
    resnext = torchvision.models.resnext50_32x4d()
convs = [m for m in mobilenet.modules() if isinstance(m, nn.Conv2d)]
print(sum(m.groups == m.in_channels > 1 for m in convs), "depthwise convolutions in MobileNetV2")  # ✓ mobilenet-depthwise
#> 17 depthwise convolutions in MobileNetV2
print(sorted({(m.groups, m.in_channels) for m in resnext.modules() if isinstance(m, nn.Conv2d) and m.groups > 1}))  # ✓ resnext-groups
#> [(32, 128), (32, 256), (32, 512), (32, 1024)]
# --8<-- [end:in-the-wild]
