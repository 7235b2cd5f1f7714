"""Sharding parameters and optimizer state over two processes (gloo, CPU): FSDP2's fully_shard, ZeroRedundancyOptimizer.

Page: docs/performance/sharded.md
Run: torchrun --nproc_per_node=2 snippets/performance/sharded.py
"""
# launch: torchrun --nproc_per_node=2
# timeout: 120

# --8<-- [start:setup]
import inspect
import warnings
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo", timeout=timedelta(seconds=30))
rank, world_size = dist.get_rank(), dist.get_world_size()
assert world_size == 2 and dist.get_backend() == "gloo"  # two processes, on the CPU ✓ two-processes


def make_model() -> nn.Sequential:
    torch.manual_seed(0)  # the same initial weights on every rank
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def gathered(value: object) -> list:
    """`value` from every rank, in rank order (every rank must call it)."""
    values = [None] * world_size
    dist.all_gather_object(values, value)
    return values


batch = torch.randn(8, 16, generator=torch.Generator().manual_seed(1))  # the global batch
x = batch.chunk(world_size)[rank]  # each rank trains on its own half
# --8<-- [end:setup]

# --8<-- [start:import]
try:
    from torch.distributed.fsdp import fully_shard  # public here from torch 2.6

    where = "torch.distributed.fsdp"
except ImportError:  # requires: torch<2.6
    from torch.distributed._composable.fsdp import fully_shard

    where = "torch.distributed._composable.fsdp"
if rank == 0:
    print(where)  # ✓ import
    #> torch.distributed.fsdp
# --8<-- [end:import]

# --8<-- [start:fully-shard]
model = make_model()
for layer in model:
    if isinstance(layer, nn.Linear):
        fully_shard(layer)  # each layer: its own unit, gathered just before it runs
fully_shard(model)  # the root: whatever is left
weight = model[0].weight  # a DTensor: the (32, 16) weight split by rows over the ranks
shards = gathered(tuple(weight.to_local().shape))
held = gathered(sum(p.to_local().numel() for p in model.parameters()))
total = sum(p.numel() for p in make_model().parameters())
if rank == 0:
    print(type(weight).__name__, weight.placements, tuple(weight.shape), "->", shards)  # ✓ dtensor
    #> DTensor (Shard(dim=0),) (32, 16) -> [(16, 16), (16, 16)]
    print("values held by each rank:", held, "of", total)  # ✓ half
    #> values held by each rank: [338, 338] of 676
assert all(type(p) is type(weight) and p.placements == weight.placements for p in model.parameters())  # every one ✓ all-shard0
reshard = inspect.signature(fully_shard).parameters["reshard_after_forward"].default
if rank == 0:
    print("reshard_after_forward defaults to", reshard)  # ✓ reshard-default
    #> reshard_after_forward defaults to None
if reshard is None:  # torch 2.8 and later (2.4 and 2.6: True); the docstring says what None means
    assert "If ``None``, it is set to ``True`` for non-root modules and ``False`` for root modules" in " ".join(fully_shard.__doc__.split())  # ✓ reshard-doc
# --8<-- [end:fully-shard]

# --8<-- [start:fsdp-step]
reference = make_model()  # one process's plain model ...
(reference(batch).sum() / world_size).backward()  # ... on the whole batch, the same loss as two ranks' mean
torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9).step()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
try:
    model(x).sum().backward()  # gradients: reduce-scattered over the ranks
    grad = model[0].weight.grad.full_tensor()  # all-gathered from the shards (every rank calls it)
    optimizer.step()
    grad_shards = gathered(tuple(model[0].weight.grad.to_local().shape))
    momentum_shards = gathered(tuple(optimizer.state[model[0].weight]["momentum_buffer"].to_local().shape))
    same = gathered(torch.allclose(model[0].weight.full_tensor(), reference[0].weight))
    if rank == 0:
        print("gradient shards:", grad_shards, "| momentum shards:", momentum_shards)  # ✓ grad-shards
        #> gradient shards: [(16, 16), (16, 16)] | momentum shards: [(16, 16), (16, 16)]
        print("gradient: the mean over ranks", torch.allclose(grad, reference[0].weight.grad), "| the sum", torch.allclose(grad, world_size * reference[0].weight.grad))  # ✓ grad-mean
        #> gradient: the mean over ranks True | the sum False
        print("same step as one process on the whole batch:", same)  # ✓ same-step
        #> same step as one process on the whole batch: [True, True]
except (RuntimeError, AttributeError) as err:  # requires: torch<2.8
    if rank == 0:
        print("fails on CPU:", type(err).__name__, str(err).splitlines()[0])
# --8<-- [end:fsdp-step]

# --8<-- [start:zero]
with warnings.catch_warnings(record=True):  # torch 2.4 warns on this import (TorchScript optimizers)
    from torch.distributed.optim import ZeroRedundancyOptimizer

ddp = DDP(make_model())  # every rank keeps all the parameters ...
assert sum(p.numel() for p in ddp.parameters()) == total  # all 676 values, on each rank ✓ ddp-full
zero = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.Adam, lr=0.01)
ddp(x).sum().backward()  # DDP averages the gradients over the ranks
zero.step()  # ... each rank updates its part, then they exchange the new values
states = gathered([tuple(p.shape) for p in ddp.parameters() if p in zero.optim.state])
if rank == 0:
    print("Adam state kept by each rank:", states)  # ✓ zero-shard
    #> Adam state kept by each rank: [[(32, 16)], [(32,), (4, 32), (4,)]]

reference = make_model()
(reference(batch).sum() / world_size).backward()
plain_adam = torch.optim.Adam(reference.parameters(), lr=0.01)
plain_adam.step()
assert len(plain_adam.state) == 4  # a plain optimizer: state for every tensor, on every rank ✓ plain-state
same = gathered(all(torch.allclose(a, b) for a, b in zip(ddp.module.parameters(), reference.parameters(), strict=True)))
if rank == 0:
    print("same step as plain Adam:", same)  # ✓ zero-same
    #> same step as plain Adam: [True, True]
# --8<-- [end:zero]

# --8<-- [start:zero-save]
try:
    zero.state_dict()
except RuntimeError as err:
    if rank == 0:
        print(str(err).split(";")[0])  # ✓ not-consolidated
        #> Optimizer state has not been consolidated on this rank. Please call `consolidate_state_dict(to=0)` on all ranks beforehand if you meant to save the global state.
zero.consolidate_state_dict(to=0)  # every rank must call it: it gathers the shards on rank 0
if rank == 0:
    print(len(zero.state_dict()["state"]))  # all four tensors' Adam state ✓ consolidated
    #> 4
dist.barrier()
dist.destroy_process_group()
# --8<-- [end:zero-save]
