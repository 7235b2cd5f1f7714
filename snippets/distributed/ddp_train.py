"""A complete DistributedDataParallel training script, checked while it trains.

Page: docs/distributed/ddp_train.md
Run: torchrun --nproc_per_node=2 snippets/distributed/ddp_train.py
(CPU and gloo by default; with NOTES_DEVICE=cuda: NCCL, one GPU per rank.)
"""
# launch: torchrun --nproc_per_node=2
# timeout: 120

# --8<-- [start:setup]
import os
import shutil
import sys
import tempfile
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

# torchrun tells every process who it is through environment variables.
if "LOCAL_RANK" not in os.environ:
    sys.exit("start me with: torchrun --nproc_per_node=2 snippets/distributed/ddp_train.py")
rank = int(os.environ["RANK"])  # unique over all nodes: 0 .. WORLD_SIZE-1
local_rank = int(os.environ["LOCAL_RANK"])  # unique on this machine: picks the GPU
world_size = int(os.environ["WORLD_SIZE"])


def pick_device() -> tuple[torch.device, str]:
    """NCCL with one GPU per rank, or gloo on CPU."""
    requested = os.environ.get("NOTES_DEVICE")  # set by the test suite; unset by hand
    gpus = torch.cuda.device_count()
    if requested == "cuda" or (requested is None and gpus >= int(os.environ["LOCAL_WORLD_SIZE"])):
        if gpus < int(os.environ["LOCAL_WORLD_SIZE"]):
            raise RuntimeError(f"NCCL needs one GPU per rank; this machine has {gpus}")
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank), "nccl"
    return torch.device("cpu"), "gloo"


device, backend = pick_device()
# A timeout makes a rank that waits for a dead partner fail instead of hanging.
dist.init_process_group(
    backend=backend,
    timeout=timedelta(seconds=30),
    device_id=device if device.type == "cuda" else None,  # binds this rank to its GPU
)
if rank == 0:
    print(f"backend={dist.get_backend()} world_size={dist.get_world_size()}")
    #> backend=gloo world_size=2
    print(f"rank={rank} local_rank={local_rank} script arguments={sys.argv[1:]}")
    #> rank=0 local_rank=0 script arguments=[]
# --8<-- [end:setup]


# --8<-- [start:check-helpers]
def gather_objects(obj: object) -> list:
    """Every rank's `obj`, in rank order, on every rank (for the checks below)."""
    objects = [None] * world_size
    dist.all_gather_object(objects, obj)
    return objects


def gather_tensor(t: torch.Tensor) -> list[torch.Tensor]:
    tensors = [torch.empty_like(t) for _ in range(world_size)]
    dist.all_gather(tensors, t.contiguous())
    return tensors


def flat_parameters(module: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()])


# --8<-- [end:check-helpers]

# --8<-- [start:data]
# The same synthetic data on every rank (same seed); the sampler splits it.
data_gen = torch.Generator().manual_seed(0)
n_train, n_test, batch_size = 64, 32, 8  # batch_size is per process
true_w = torch.randn(4, 3, generator=data_gen)
x_all = torch.randn(n_train + n_test, 4, generator=data_gen)
y_all = (x_all @ true_w).argmax(dim=1)
# The third tensor is each sample's index, so the checks can see who trained on what.
train_set = TensorDataset(x_all[:n_train], y_all[:n_train], torch.arange(n_train))
test_set = TensorDataset(x_all[n_train:], y_all[n_train:])

train_sampler = DistributedSampler(train_set, shuffle=True, seed=0)  # rank/world from the group
# sampler= and shuffle=True are mutually exclusive: the sampler does the shuffling.
train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler)
if rank == 0:
    print(f"{len(train_set)} samples -> {len(train_sampler)} per rank, {len(train_loader)} steps")
    #> 64 samples -> 32 per rank, 4 steps
# --8<-- [end:data]

# --8<-- [start:model]
torch.manual_seed(100 + rank)  # different on purpose: DDP must make them equal
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
before = gather_tensor(flat_parameters(model))
model = DDP(model, device_ids=[local_rank] if device.type == "cuda" else None)
after = gather_tensor(flat_parameters(model))
assert not torch.equal(before[0], before[1])
assert all(torch.equal(p, before[0]) for p in after)  # rank 0's weights, everywhere
if rank == 0:
    print("parameters broadcast from rank 0 when wrapping:", torch.equal(after[0], after[1]))
    #> parameters broadcast from rank 0 when wrapping: True
# --8<-- [end:model]

# --8<-- [start:grad-sync]
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)


def counting_allreduce(calls: list, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP's own gradient averaging (allreduce, then divide), counted."""
    calls.append(len(bucket.gradients()))
    return default_hooks.allreduce_hook(None, bucket)


comm_calls: list[int] = []
model.register_comm_hook(comm_calls, counting_allreduce)

xb, yb, _ = next(iter(train_loader))
xb, yb = xb.to(device), yb.to(device)
with model.no_sync():  # backward without communication: this rank's own gradient
    loss_fn(model(xb), yb).backward()
local_grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()

loss = loss_fn(model(xb), yb)
in_forward = len(comm_calls)
loss.backward()
in_backward = len(comm_calls) - in_forward
assert in_forward == 0 and comm_calls == [4]  # one bucket holding all 4 tensors
means = [torch.stack(gather_tensor(g)).mean(dim=0) for g in local_grads]  # every rank gathers
grads = [p.grad for p in model.parameters()]
averaged = all(torch.allclose(g, m, atol=1e-6) for g, m in zip(grads, means, strict=True))
assert averaged  # right after backward(), before any optimizer.step()
if rank == 0:
    print(f"gradient all-reduces: {in_forward} in forward, {in_backward} in backward")
    #> gradient all-reduces: 0 in forward, 1 in backward
    print("after backward(), grad = mean of the ranks' local grads:", averaged)
    #> after backward(), grad = mean of the ranks' local grads: True
model.zero_grad()
comm_calls.clear()
# --8<-- [end:grad-sync]


# --8<-- [start:reduce-loss]
def reduce_loss(tensor, world_size):  # the helper from the original notes
    with torch.no_grad():
        dist.all_reduce(tensor)  # default op: SUM, in place, on every rank
        tensor /= world_size


# --8<-- [end:reduce-loss]

# --8<-- [start:train]
seen_per_epoch = []  # which samples this rank trained on, per epoch
for epoch in range(3):
    train_sampler.set_epoch(epoch)  # without it, every epoch repeats epoch 0's order
    model.train()
    seen, epoch_losses = [], []
    for x_cpu, y_cpu, idx in train_loader:
        x, y = x_cpu.to(device), y_cpu.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()  # gradients are averaged across ranks here
        optimizer.step()  # local: every rank applies the same averaged gradient

        avg = loss.detach().clone()  # a copy: the local value stays in `loss`
        reduce_loss(avg, world_size)
        # Check: the averaged loss is the mean of the ranks' own losses.
        ranks_losses = gather_tensor(loss.detach())
        assert torch.allclose(avg, sum(ranks_losses) / world_size)
        epoch_losses.append(avg.item())
        seen += idx.tolist()
    seen_per_epoch.append(seen)
    if rank == 0:
        print(f"epoch {epoch}: mean loss over ranks {sum(epoch_losses) / len(epoch_losses):.4f}")
        #> epoch 0: mean loss over ranks 0.9077
        #> epoch 1: mean loss over ranks 0.5463
        #> epoch 2: mean loss over ranks 0.4070
assert len(comm_calls) == 3 * len(train_loader)  # one gradient all_reduce per step
# --8<-- [end:train]

# --8<-- [start:check-shards]
all_seen = gather_objects(seen_per_epoch)  # [rank][epoch] -> sample indices
for epoch in range(3):
    shards = [set(all_seen[r][epoch]) for r in range(world_size)]
    sizes = [len(s) for s in shards]
    disjoint = not set.intersection(*shards)
    covering = set.union(*shards) == set(range(len(train_set)))
    assert disjoint and covering and sum(sizes) == len(train_set)
    if rank == 0:
        print(f"epoch {epoch}: shard sizes {sizes}, disjoint {disjoint}, covering {covering}")
        #> epoch 0: shard sizes [32, 32], disjoint True, covering True
        #> epoch 1: shard sizes [32, 32], disjoint True, covering True
        #> epoch 2: shard sizes [32, 32], disjoint True, covering True
orders = all_seen[0]  # rank 0's samples, in training order, per epoch
assert orders[0] != orders[1] and orders[1] != orders[2]  # set_epoch reshuffles
if rank == 0:
    for epoch in range(3):
        print(f"epoch {epoch}, rank 0 starts with {orders[epoch][:8]}")
        #> epoch 0, rank 0 starts with [44, 17, 47, 35, 33, 63, 28, 42]
        #> epoch 1, rank 0 starts with [37, 10, 47, 31, 15, 30, 1, 27]
        #> epoch 2, rank 0 starts with [40, 55, 42, 24, 0, 52, 39, 29]
# --8<-- [end:check-shards]

# --8<-- [start:check-params]
params = gather_tensor(flat_parameters(model))
assert all(torch.equal(p, params[0]) for p in params)  # bit-identical, not just close
if rank == 0:
    print("parameters identical on all ranks after training:", torch.equal(params[0], params[1]))
    #> parameters identical on all ranks after training: True
# --8<-- [end:check-params]


# --8<-- [start:evaluate]
@torch.no_grad()
def count_correct(net: nn.Module, dataset: TensorDataset) -> torch.Tensor:
    net.eval()
    x, y = dataset.tensors[0].to(device), dataset.tensors[1].to(device)
    return (net(x).argmax(dim=1) == y).sum()


# One rank evaluates the plain module: `model.module` does no communication,
# so the other ranks cannot be left waiting inside a collective.
if rank == 0:
    acc_rank0 = count_correct(model.module, test_set).item() / len(test_set)
    print(f"test accuracy (rank 0 alone): {acc_rank0:.4f}")
    #> test accuracy (rank 0 alone): 0.8438
dist.barrier()  # the others wait here

# Or every rank evaluates its shard and the counts are summed.
test_shard = DistributedSampler(test_set, shuffle=False)
shard = TensorDataset(*test_set[list(test_shard)])
correct = count_correct(model.module, shard)
dist.all_reduce(correct)  # SUM over ranks
if rank == 0:
    print(f"test accuracy (shards + all_reduce): {correct.item() / len(test_set):.4f}")
    #> test accuracy (shards + all_reduce): 0.8438
    assert correct.item() / len(test_set) == acc_rank0  # 32 samples: no padding
# --8<-- [end:evaluate]

# --8<-- [start:checkpoint]
# Rank 0 writes; everyone else waits, then can read it.
ckpt_dir = gather_objects(tempfile.mkdtemp() if rank == 0 else None)[0]
ckpt = os.path.join(ckpt_dir, "model.pt")
if rank == 0:
    torch.save(model.module.state_dict(), ckpt)  # .module: keys without "module."
dist.barrier()
state = torch.load(ckpt, map_location=device)
assert all(torch.equal(state[k], v) for k, v in model.module.state_dict().items())
if rank == 0:
    print(list(state))
    #> ['0.weight', '0.bias', '2.weight', '2.bias']
dist.barrier()  # nobody deletes the file while another rank still reads it
if rank == 0:
    shutil.rmtree(ckpt_dir)
# --8<-- [end:checkpoint]

# --8<-- [start:shutdown]
dist.destroy_process_group()
# --8<-- [end:shutdown]
