"""Activation checkpointing: torch.utils.checkpoint with use_reentrant=False, memory saved, time paid.

Page: docs/performance/checkpointing.md
"""

# --8<-- [start:setup]
import sys
import warnings

import torch
from torch import nn
from torch.utils import benchmark
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
calls = {"forward": 0}  # how often a block's forward has run


class Block(nn.Module):
    """Linear -> GELU -> Linear: two 32 x 512 activations inside, a 32 x 128 output."""

    def __init__(self) -> None:
        super().__init__()
        self.up, self.act, self.down = nn.Linear(128, 512), nn.GELU(), nn.Linear(512, 128)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        calls["forward"] += 1
        return self.down(self.act(self.up(h)))


blocks = nn.ModuleList(Block() for _ in range(8))
x = torch.randn(32, 128, requires_grad=True)


def run(x: torch.Tensor, use_checkpoint: bool) -> torch.Tensor:
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False) if use_checkpoint else block(h)
    return h.sum()
# --8<-- [end:setup]

# --8<-- [start:same-grads]
grads = {}
for use_checkpoint in (False, True):
    blocks.zero_grad(set_to_none=True)
    calls["forward"] = 0
    loss = run(x, use_checkpoint)
    after_forward = calls["forward"]
    with warnings.catch_warnings(record=True) as caught:  # torch 2.4 warns here: a FutureWarning
        warnings.simplefilter("always")
        loss.backward()
    grads[use_checkpoint] = [p.grad.clone() for p in blocks.parameters()]
    print(f"checkpoint={use_checkpoint}: forward calls {after_forward} + {calls['forward'] - after_forward} in backward")  # ✓ recompute
    #> checkpoint=False: forward calls 8 + 0 in backward
    #> checkpoint=True: forward calls 8 + 8 in backward
    # each warning: its category, whether torch.utils.checkpoint issued it, whether it is about autocast
    print("  warnings in backward:", sorted({(w.category.__name__, w.filename.endswith("checkpoint.py"), "autocast" in str(w.message)) for w in caught}))  # ✓ backward-warnings
    #>   warnings in backward: []
    #>   warnings in backward: []
print(all(torch.allclose(a, b) for a, b in zip(grads[False], grads[True], strict=True)))  # ✓ same-grads
#> True
# --8<-- [end:same-grads]

# --8<-- [start:memory]
parameters = {p.untyped_storage().data_ptr() for p in blocks.parameters()}


def saved_activation_bytes(use_checkpoint: bool) -> int:
    """Bytes of the tensors autograd keeps for backward, parameters left out, each storage once."""
    kept = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in parameters:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = run(x, use_checkpoint)
    with warnings.catch_warnings():  # torch 2.4's warning in backward, shown above
        warnings.simplefilter("ignore", FutureWarning)
        loss.backward()
    return sum(kept.values())


plain, checkpointed = saved_activation_bytes(False), saved_activation_bytes(True)
print(plain // 1024, "KiB vs", checkpointed // 1024, "KiB:", plain / checkpointed, "times less")  # ✓ memory-ratio
#> 1152 KiB vs 128 KiB: 9.0 times less
# --8<-- [end:memory]

# --8<-- [start:time]
def step(use_checkpoint: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        run(x, use_checkpoint).backward()


timers = {flag: benchmark.Timer("step(flag)", globals={"step": step, "flag": flag}) for flag in (False, True)}
best = dict.fromkeys(timers, float("inf"))
for _ in range(3):  # take turns: a burst of other work on the machine slows one round, not one timer
    for flag, timer in timers.items():
        best[flag] = min(best[flag], *timer.blocked_autorange(min_run_time=0.05).times)  # fastest block
assert all(0 < seconds < float("inf") for seconds in best.values())  # ✓ timed
# a timing varies from run to run and machine to machine: shown on stderr, never checked;
# the fastest block is the one least slowed down by other work on the machine
print(f"checkpointed / plain time per step: {best[True] / best[False]:.2f}", file=sys.stderr)
# --8<-- [end:time]

# --8<-- [start:flag-warning]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(blocks[0], x)  # use_reentrant not given
print(caught[0].category.__name__, "|", str(caught[0].message).split(". ")[0])  # ✓ flag-warning
#> UserWarning | torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly
print(str(caught[0].message).split(". ")[1])  # ✓ flag-future
#> In a future release, calling checkpoint without use_reentrant will raise an exception
assert "use_reentrant=False is recommended" in str(caught[0].message)  # ✓ flag-recommends
# --8<-- [end:flag-warning]

# --8<-- [start:reentrant-no-grad-input]
frozen_input = torch.randn(32, 128)  # e.g. the output of a frozen embedding: no requires_grad
after = torch.ones(128, requires_grad=True)  # a trainable part after the block, so that backward runs
for use_reentrant in (True, False):
    blocks.zero_grad(set_to_none=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(blocks[0], frozen_input, use_reentrant=use_reentrant)
    print(f"use_reentrant={use_reentrant}: out.requires_grad={out.requires_grad},", [str(w.message) for w in caught])  # ✓ no-grad-input
    #> use_reentrant=True: out.requires_grad=False, ['None of the inputs have requires_grad=True. Gradients will be None']
    #> use_reentrant=False: out.requires_grad=True, []
    with warnings.catch_warnings():  # torch 2.4's warning in backward, shown above
        warnings.simplefilter("ignore", FutureWarning)
        (out * after).sum().backward()
    print("  the block's weight got a gradient:", blocks[0].up.weight.grad is not None)  # ✓ params-grad
    #>   the block's weight got a gradient: False
    #>   the block's weight got a gradient: True
# --8<-- [end:reentrant-no-grad-input]

# --8<-- [start:reentrant-grad]
for use_reentrant in (True, False):
    for call in ("torch.autograd.grad", "backward(inputs=[x])"):
        out = checkpoint(blocks[0], x, use_reentrant=use_reentrant).sum()
        x.grad = None
        try:
            with warnings.catch_warnings():  # torch 2.4's warning in backward, shown above
                warnings.simplefilter("ignore", FutureWarning)
                if call == "torch.autograd.grad":
                    (gx,) = torch.autograd.grad(out, x)
                else:
                    out.backward(inputs=[x])
                    gx = x.grad
            print(f"use_reentrant={use_reentrant}: {call} works, shape {tuple(gx.shape)}")  # ✓ grad-works
            #> use_reentrant=False: torch.autograd.grad works, shape (32, 128)
            #> use_reentrant=False: backward(inputs=[x]) works, shape (32, 128)
        except RuntimeError as err:
            print(f"use_reentrant={use_reentrant}: {call}:", str(err).split(". ")[0])  # ✓ grad-error
            #> use_reentrant=True: torch.autograd.grad: When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to .backward()
            #> use_reentrant=True: backward(inputs=[x]): When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to .backward()
# --8<-- [end:reentrant-grad]

# --8<-- [start:sequential]
seq = nn.Sequential(*blocks)
calls["forward"] = 0
out = checkpoint_sequential(seq, 2, x, use_reentrant=False)  # 2 segments of 4 blocks
after_forward = calls["forward"]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    out.sum().backward()
print(after_forward, calls["forward"] - after_forward)  # only the first segment runs again ✓ sequential
#> 8 4
assert torch.allclose(out, seq(x))  # ✓ sequential-same
# --8<-- [end:sequential]
