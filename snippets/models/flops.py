"""Counting FLOPs with torch.utils.flop_counter.FlopCounterMode, checked against arithmetic.

Page: docs/models/flops.md
"""

# --8<-- [start:setup]
import importlib.metadata
import importlib.util
import inspect

import numpy as np
import torch
import torchvision
from torch import nn
from torch.utils import flop_counter
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
# --8<-- [end:setup]


# --8<-- [start:model]
class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.conv2(x)).mean(dim=(2, 3))  # global average pool
        return self.fc(x)


model = SmallCNN().eval()
x = torch.randn(1, 3, 32, 32)  # the notes' stat(model, (3, 32, 32))
# --8<-- [end:model]

# --8<-- [start:count]
counter = FlopCounterMode(display=False)
with counter, torch.no_grad():
    model(x)
print(counter.get_total_flops())  # ✓ total-flops
#> 3244672
for op, flops in counter.get_flop_counts()["Global"].items():
    print(op, flops)  # ✓ per-op
    #> aten.convolution 3244032
    #> aten.addmm 640
print(sorted(counter.get_flop_counts()))  # per module too ✓ per-module
#> ['Global', 'SmallCNN', 'SmallCNN.conv1', 'SmallCNN.conv2', 'SmallCNN.fc']
# --8<-- [end:count]

# --8<-- [start:display]
print(inspect.signature(FlopCounterMode).parameters["display"].default)  # ✓ display-default
#> True
# display=True prints get_table() when the block ends, and get_table imports `tabulate` ...
source = inspect.getsource(FlopCounterMode)
assert "print(self.get_table(self.depth))" in source and "import tabulate" in source  # ✓ display-source
# ... a package torch does not require
assert not any(req.startswith("tabulate") for req in importlib.metadata.requires("torch") or [])  # ✓ tabulate-not-required
if importlib.util.find_spec("tabulate") is None:  # as in this project's pinned environment
    missing, counted = [], False  # the modules the `with` block found missing; did the forward run?
    try:
        with FlopCounterMode():  # the default, display=True
            model(x)
            counted = True
    except ModuleNotFoundError as err:
        missing.append(err.name)  # raised when the block ends, after counting
    assert missing == ["tabulate"] and counted  # ✓ tabulate-missing
# --8<-- [end:display]

# --8<-- [start:registry]
counted = {str(op) for op in flop_counter.flop_registry}  # the operators it has a formula for
print(sorted(op for op in counted if "attention" not in op and "backward" not in op))  # ✓ registry
#> ['aten._convolution', 'aten._scaled_mm', 'aten._slow_conv2d_forward', 'aten.addmm', 'aten.baddbmm', 'aten.bmm', 'aten.convolution', 'aten.convolution_overrideable', 'aten.cudnn_convolution', 'aten.mm']
print(any("attention" in op for op in counted))  # ✓ attention
#> True
# --8<-- [end:registry]


# --8<-- [start:analytic]
def conv_out_size(size: int, kernel: int, stride: int = 1, padding: int = 0, dilation: int = 1) -> int:
    """Output length of one spatial dimension (see the Convolution layers page)."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def conv_macs(conv: nn.Conv2d, h: int, w: int) -> tuple[int, int, int]:
    """Multiply-adds of a conv on an h x w input, and its output size."""
    kh, kw = conv.kernel_size
    h_out = conv_out_size(h, kh, conv.stride[0], conv.padding[0], conv.dilation[0])
    w_out = conv_out_size(w, kw, conv.stride[1], conv.padding[1], conv.dilation[1])
    per_output = (conv.in_channels // conv.groups) * kh * kw  # one MAC per weight tap
    return conv.out_channels * h_out * w_out * per_output, h_out, w_out


macs1, h, w = conv_macs(model.conv1, 32, 32)  # 16 x 32 x 32 outputs, 27 taps each
macs2, _, _ = conv_macs(model.conv2, h // 2, w // 2)  # after the 2x2 max-pool
macs_fc = model.fc.in_features * model.fc.out_features
macs = macs1 + macs2 + macs_fc
print(macs1, macs2, macs_fc, macs)  # ✓ macs
#> 442368 1179648 320 1622336
for groups in (1, 4, 8):  # C_in / groups taps per output: a grouped conv does 1/groups of the work
    grouped = nn.Conv2d(8, 16, 3, padding=1, groups=groups)
    with FlopCounterMode(display=False) as grouped_count, torch.no_grad():
        grouped(torch.zeros(1, 8, 10, 10))
    assert grouped_count.get_total_flops() == 2 * conv_macs(grouped, 10, 10)[0] == 2 * 16 * 10 * 10 * (8 // groups) * 9  # ✓ macs-groups
# --8<-- [end:analytic]

# --8<-- [start:flops-vs-macs]
assert counter.get_total_flops() == 2 * macs1 + 2 * macs2 + 2 * macs_fc  # ✓ flops-equal
print(f"FlopCounterMode = 2 x MACs: {counter.get_total_flops() == 2 * macs}")
#> FlopCounterMode = 2 x MACs: True
# --8<-- [end:flops-vs-macs]

# --8<-- [start:resnet50]
with torch.device("meta"):  # shapes only: nothing is allocated or computed, no weights downloaded
    resnet = torchvision.models.resnet50().eval()
    with FlopCounterMode(display=False) as resnet_count:
        resnet(torch.empty(1, 3, 224, 224))
print(f"{resnet_count.get_total_flops() / 1e9:.3f} GFLOPs counted, {resnet_count.get_total_flops() / 2e9:.3f} G multiply-adds")  # ✓ resnet-count
#> 8.178 GFLOPs counted, 4.089 G multiply-adds
print(torchvision.models.ResNet50_Weights.IMAGENET1K_V1.meta["_ops"])  # torchvision's own figure ✓ torchvision-ops
#> 4.089
# --8<-- [end:resnet50]

# --8<-- [start:batch-and-backward]
scales = []
for batch in (2, 4, 8):
    with FlopCounterMode(display=False) as batched, torch.no_grad():
        model(torch.zeros(batch, 3, 32, 32))  # the count depends on the shapes only
    scales.append(batched.get_total_flops() == batch * counter.get_total_flops())
print(scales)  # FLOPs scale with the batch ✓ batch-linear
#> [True, True, True]

model.train()
with FlopCounterMode(display=False) as training:
    model(x).sum().backward()
print(round(training.get_total_flops() / counter.get_total_flops(), 2))  # forward + backward ✓ train-ratio
#> 2.73
# backward = 2 x forward (gradients of weights and of inputs), except that conv1 needs no input gradient
assert training.get_total_flops() == 3 * counter.get_total_flops() - 2 * macs1  # ✓ train-formula
# --8<-- [end:batch-and-backward]

# --8<-- [start:numpy-long]
print(np.__version__, hasattr(np, "long"))  # torchstat 0.0.7 uses np.long ✓ numpy-long
#> 2.4.6 True
# --8<-- [end:numpy-long]
