"""What nn.DataParallel does, read from the pinned torch and run on this machine.

Page: docs/distributed/dataparallel_vs_ddp.md
"""

# --8<-- [start:typo]
import ast
import inspect
import textwrap

import torch
from torch import nn

try:
    model = torch.nn.DaraParallel(nn.Linear(3, 2))  # as spelled in the notes
except AttributeError as err:
    print(err)
    #> module 'torch.nn' has no attribute 'DaraParallel'
# --8<-- [end:typo]

# --8<-- [start:forward-steps]
source = textwrap.dedent(inspect.getsource(nn.DataParallel.forward))
calls = sorted(
    (node.lineno, f"self.{node.func.attr}")
    for node in ast.walk(ast.parse(source))
    if isinstance(node, ast.Call)
    and isinstance(node.func, ast.Attribute)
    and isinstance(node.func.value, ast.Name)
    and node.func.value.id == "self"
)
print([name for _, name in calls])  # what DataParallel.forward calls on itself, in order
#> ['self.module', 'self.scatter', 'self.module', 'self.replicate', 'self.parallel_apply', 'self.gather']
# --8<-- [end:forward-steps]

# --8<-- [start:docstring]
doc = " ".join(nn.DataParallel.__doc__.split())
for phrase in [
    "In each forward, :attr:`module` is **replicated** on each device",
    "the update is done on the replicas which are destroyed after ``forward``",
    "the replica on ``device[0]`` will have its parameters and buffers sharing storage",
    "gradients from each replica are summed into the original module",
    "It is recommended to use :class:`~torch.nn.parallel.DistributedDataParallel`",
]:
    assert phrase in doc, phrase
# --8<-- [end:docstring]


# --8<-- [start:cpu]
class Counting(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1  # a change to the module made inside forward
        return self.fc(x)


torch.manual_seed(0)
net = Counting()
dp = nn.DataParallel(net)  # no GPU here: nothing to split across
print("device_ids:", dp.device_ids, "| the module itself:", dp.module is net)
#> device_ids: [] | the module itself: True
x = torch.randn(8, 3)
for _ in range(3):
    out = dp(x)
print("forward on the original module:", torch.equal(out, net.fc(x)), "| calls:", net.calls)
#> forward on the original module: True | calls: 3
print(list(dp.state_dict()))  # what torch.save(dp.state_dict()) would store
#> ['module.fc.weight', 'module.fc.bias']
# --8<-- [end:cpu]
