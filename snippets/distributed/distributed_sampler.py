"""DistributedSampler arithmetic: steps per epoch, padding, drop_last, set_epoch.

Page: docs/distributed/distributed_sampler.md
No process group is needed: passing num_replicas= and rank= explicitly shows
what each of the processes would get.
"""

# --8<-- [start:setup]
import inspect
import math

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dataset = TensorDataset(torch.arange(10_000))  # 10000 samples
batch_size, world_size = 100, 4  # batch_size per process, 4 processes
# --8<-- [end:setup]

# --8<-- [start:steps]
plain = DataLoader(dataset, batch_size=batch_size)  # every process would see everything
print("without DistributedSampler:", len(plain), "steps per process per epoch")  # ✓ plain-steps
#> without DistributedSampler: 100 steps per process per epoch
for rank in range(world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    print(f"rank {rank}: {len(sampler)} samples, {len(loader)} steps")  # ✓ steps-per-rank
    #> rank 0: 2500 samples, 25 steps
    #> rank 1: 2500 samples, 25 steps
    #> rank 2: 2500 samples, 25 steps
    #> rank 3: 2500 samples, 25 steps
step_samples = 0  # what one optimizer step sees: the first batch of every process
for rank in range(world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    step_samples += len(next(iter(DataLoader(dataset, batch_size=batch_size, sampler=sampler)))[0])
assert step_samples == 4 * 100  # ✓ step-samples
# --8<-- [end:steps]


# --8<-- [start:uneven]
def shards(n: int, world_size: int, shuffle: bool = False, **kwargs) -> list[list[int]]:
    """The indices each rank gets from a dataset of n samples (no shuffling, to read them)."""
    data = TensorDataset(torch.arange(n))
    return [
        list(DistributedSampler(data, num_replicas=world_size, rank=r, shuffle=shuffle, **kwargs))
        for r in range(world_size)
    ]


print(shards(10, 4))  # drop_last=False (default): pad by repeating samples ✓ shards-padded
#> [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
print(shards(10, 4, drop_last=True))  # drop the tail instead ✓ shards-dropped
#> [[0, 4], [1, 5], [2, 6], [3, 7]]
# Shuffled, the padding repeats the first indices of that epoch's permutation (seed 0 + epoch):
for epoch in range(3):
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(0 + epoch)).tolist()
    samplers = [DistributedSampler(TensorDataset(torch.arange(10)), num_replicas=4, rank=r) for r in range(4)]
    for s in samplers:
        s.set_epoch(epoch)
    assert [list(s) for s in samplers] == [(perm + perm[:2])[r::4] for r in range(4)]  # ✓ perm-padding
# and the samples drop_last leaves out change with the epoch:
left_out = []
for epoch in range(2):
    data = TensorDataset(torch.arange(10))
    kept = set()
    for r in range(4):
        sampler = DistributedSampler(data, num_replicas=4, rank=r, drop_last=True)
        sampler.set_epoch(epoch)
        kept |= set(sampler)
    left_out.append(set(range(10)) - kept)
assert len(left_out[0]) == len(left_out[1]) == 2 and left_out[0] != left_out[1]  # ✓ left-out-change
# --8<-- [end:uneven]

# --8<-- [start:uneven-counts]
for n in [10_000, 10_001, 10_099]:
    padded = shards(n, 4)
    dropped = shards(n, 4, drop_last=True)
    print(
        f"n={n}: padded {len(padded[0])}/rank, {sum(map(len, padded)) - n} repeated;"
        f" drop_last {len(dropped[0])}/rank, {n - sum(map(len, dropped))} never seen"
    )
    #> n=10000: padded 2500/rank, 0 repeated; drop_last 2500/rank, 0 never seen
    #> n=10001: padded 2501/rank, 3 repeated; drop_last 2500/rank, 1 never seen
    #> n=10099: padded 2525/rank, 1 repeated; drop_last 2524/rank, 3 never seen
for world in (2, 3, 4):  # the rule, for every size up to 49, on 2, 3 and 4 ranks
    for n in range(1, 50):
        padded, dropped = shards(n, world), shards(n, world, drop_last=True)
        assert {len(s) for s in padded} == {math.ceil(n / world)}  # ✓ rule-padded
        assert {len(s) for s in dropped} == {n // world}  # ✓ rule-dropped
        assert 0 <= sum(map(len, padded)) - n <= world - 1 and 0 <= n - sum(map(len, dropped)) <= world - 1  # ✓ rule-bounds
        # rank r takes every world-th index from r; padding repeats from the start:
        indices = (list(range(n)) * world)[: world * math.ceil(n / world)]
        assert padded == [indices[r::world] for r in range(world)]  # ✓ stride
        assert dropped == [indices[: world * (n // world)][r::world] for r in range(world)]
# A metric over the padded shards: samples 0-4 of 10 right, but 0 and 1 counted twice
right = [i < 5 for i in range(10)]
seen = [i for shard in shards(10, 4) for i in shard]
print(sum(right), "/", 10, "vs", sum(right[i] for i in seen), "/", len(seen))  # ✓ padded-metric
#> 5 / 10 vs 7 / 12
# --8<-- [end:uneven-counts]

# --8<-- [start:two-drop-lasts]
sampler = DistributedSampler(TensorDataset(torch.arange(10)), num_replicas=4, rank=0)
data = TensorDataset(torch.arange(10))
print(len(DataLoader(data, batch_size=2, sampler=sampler)))  # 3 samples: batches of 2 and 1 ✓ loader-batches
#> 2
print(len(DataLoader(data, batch_size=2, sampler=sampler, drop_last=True)))  # last one dropped ✓ loader-drop-last
#> 1
# --8<-- [end:two-drop-lasts]

# --8<-- [start:set-epoch]
sampler = DistributedSampler(TensorDataset(torch.arange(8)), num_replicas=2, rank=0, seed=0)
print("no set_epoch:", list(sampler), list(sampler))  # the same order every epoch ✓ no-set-epoch
#> no set_epoch: [4, 7, 2, 1] [4, 7, 2, 1]
orders = []
for epoch in range(3):
    sampler.set_epoch(epoch)  # shuffles with seed + epoch
    orders.append(list(sampler))
print("set_epoch:   ", *orders)  # ✓ set-epoch-orders
#> set_epoch:    [4, 7, 2, 1] [5, 2, 7, 1] [0, 7, 6, 1]
for epoch, order in enumerate(orders):  # one permutation, seeded with seed + epoch; rank 0's half
    perm = torch.randperm(8, generator=torch.Generator().manual_seed(0 + epoch)).tolist()
    assert order == perm[0::2]  # ✓ perm-rank0
    other = DistributedSampler(TensorDataset(torch.arange(8)), num_replicas=2, rank=1, seed=0)
    other.set_epoch(epoch)
    assert list(other) == perm[1::2]  # rank 1: the other half of the same permutation ✓ perm-rank1
for seed in (7, 100):  # another seed: the generator gets seed + epoch, not the epoch alone
    for epoch in range(3):
        seeded = DistributedSampler(TensorDataset(torch.arange(8)), num_replicas=2, rank=0, seed=seed)
        seeded.set_epoch(epoch)
        perm = torch.randperm(8, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
        assert list(seeded) == perm[0::2]  # ✓ seed-plus-epoch
fresh = DistributedSampler(TensorDataset(torch.arange(8)), num_replicas=2, rank=0)
assert list(fresh) == list(fresh) and fresh.epoch == 0  # iterated twice, never set: the epoch stays 0 ✓ epoch-zero
# --8<-- [end:set-epoch]

# --8<-- [start:seed-not-global]
torch.manual_seed(123)  # the global RNG does not matter: the sampler has its own seed
a = list(DistributedSampler(dataset, num_replicas=4, rank=0, seed=0))
torch.manual_seed(456)
b = list(DistributedSampler(dataset, num_replicas=4, rank=0, seed=0))
assert a == b  # ✓ seed-not-global
# --8<-- [end:seed-not-global]

# --8<-- [start:errors]
try:
    DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=True)
except ValueError as err:
    print(err)  # ✓ sampler-shuffle
    #> sampler option is mutually exclusive with shuffle
assert len(DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=False)) > 0  # accepted ✓ shuffle-false-ok
try:
    DistributedSampler(dataset)  # no num_replicas/rank and no process group
except (RuntimeError, ValueError) as err:
    print(type(err).__name__, err)  # ✓ no-group-error
    #> ValueError Default process group has not been initialized, please make sure to call init_process_group.
init = inspect.getsource(DistributedSampler.__init__)  # where num_replicas and rank come from, if not given:
assert "num_replicas = dist.get_world_size()" in init and "rank = dist.get_rank()" in init  # ✓ reads-group
# --8<-- [end:errors]
