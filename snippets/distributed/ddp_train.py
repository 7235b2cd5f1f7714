"""A complete DistributedDataParallel training script, checked while it trains.

Page: docs/distributed/ddp_train.md
Run: torchrun --nproc_per_node=2 snippets/distributed/ddp_train.py
(gloo on CPU; NCCL, one GPU per rank, with NOTES_DEVICE=cuda or, NOTES_DEVICE unset, a GPU for every rank.)
"""
# launch: torchrun --nproc_per_node=2
# timeout: 120

# --8<-- [start:setup]
import ast
import contextlib
import inspect
import os
import shutil
import sys
import tempfile
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed.launch as legacy_launch
import torch.distributed.run as torchrun
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

# torchrun tells every process who it is through environment variables.
torchrun_sets = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}
assert torchrun_sets <= set(os.environ), f"start me with: torchrun --nproc_per_node=2 {sys.argv[0]}"  # ✓ torchrun-env
rank = int(os.environ["RANK"])  # unique over all nodes: 0 .. WORLD_SIZE-1
local_rank = int(os.environ["LOCAL_RANK"])  # unique on this machine: picks the GPU
world_size = int(os.environ["WORLD_SIZE"])


def pick_device() -> tuple[torch.device, str]:
    """NCCL with one GPU per rank, or gloo on CPU."""
    requested = os.environ.get("NOTES_DEVICE")  # set by the test suite; unset by hand
    gpus = torch.cuda.device_count()
    enough = gpus >= int(os.environ["LOCAL_WORLD_SIZE"])
    if requested == "cuda" or (requested is None and enough):  # requires: cuda (a GPU per rank)
        assert enough, f"NCCL needs one GPU per rank; this machine has {gpus}"  # ✓ nccl-gpus
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank), "nccl"
    return torch.device("cpu"), "gloo"


device, backend = pick_device()
# The timeout bounds every wait at a collective, so that a rank whose partner hangs
# fails instead of hanging too; it bounds the legitimate waits too: the other ranks wait
# at a barrier() while rank 0 alone evaluates and saves. Make it longer than the
# longest work one rank does alone (checked below); a longer wait fails with an error.
TIMEOUT = timedelta(seconds=30)
dist.init_process_group(
    backend=backend,
    timeout=TIMEOUT,
    device_id=device if device.type == "cuda" else None,  # binds this rank to its GPU
)
init_doc = " ".join(dist.init_process_group.__doc__.split())
assert inspect.signature(dist.init_process_group).parameters["init_method"].default is None  # ✓ init-default
assert 'If neither is specified, ``init_method`` is assumed to be "env://"' in init_doc  # ✓ env-init
assert "Default value is 10 minutes for NCCL and 30 minutes for other backends" in init_doc  # ✓ timeout-default
assert "collectives will be aborted asynchronously and the process will crash" in init_doc  # ✓ nccl-crash
assert "When TORCH_NCCL_BLOCKING_WAIT is set, the process will block and wait for this timeout." in init_doc  # ✓ nccl-crash
if rank == 0:
    print(f"backend={dist.get_backend()} world_size={dist.get_world_size()}")  # ✓ backend
    #> backend=gloo world_size=2
    print(f"rank={rank} local_rank={local_rank} script arguments={sys.argv[1:]}")  # ✓ script-args
    #> rank=0 local_rank=0 script arguments=[]


# The command line torchrun's own code builds for each worker: no --local-rank in it
# (python -m torch.distributed.launch adds one unless given --use-env).
def worker_command(launcher, script: str) -> list[str]:
    args = launcher.parse_args(["--nproc_per_node=2", script])
    args.log_dir = os.devnull  # the launch configuration would otherwise make a log folder
    return torchrun.config_from_args(args)[2]


assert worker_command(torchrun, sys.argv[0]) == ["-u", sys.argv[0]]  # ✓ no-local-rank-arg
assert worker_command(legacy_launch, sys.argv[0])[-1] == "--local-rank=${local_rank}"  # ✓ legacy-arg
# --8<-- [end:setup]


# --8<-- [start:check-helpers]
def gather_objects(obj: object) -> list:
    """Every rank's `obj`, in rank order, on every rank (for the checks below)."""
    objects = [None] * world_size
    dist.all_gather_object(objects, obj)
    return objects


def gather_tensor(t: torch.Tensor) -> list[torch.Tensor]:
    """Every rank's `t`, in rank order, on `t`'s device (sent from this rank's: NCCL takes CUDA tensors only)."""
    sent = t.to(device).contiguous()
    tensors = [torch.empty_like(sent) for _ in range(world_size)]
    dist.all_gather(tensors, sent)
    return [gathered.to(t.device) for gathered in tensors]


def flat_parameters(module: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()])


def flat_state(module: nn.Module) -> torch.Tensor:
    """Parameters and buffers (BatchNorm's running statistics), as one float tensor."""
    return torch.cat([t.detach().reshape(-1).float() for t in module.state_dict().values()])


# every rank receives every rank's value, in rank order:
assert gather_objects(rank) == list(range(world_size))  # ✓ gather-helpers
assert [t.item() for t in gather_tensor(torch.tensor([rank]))] == list(range(world_size))  # ✓ gather-helpers
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
assert all(torch.equal(x, x_all) for x in gather_tensor(x_all))  # the same data on every rank ✓ same-data

train_sampler = DistributedSampler(train_set, shuffle=True, seed=0)  # rank/world from the group
# sampler= and shuffle=True are mutually exclusive: the sampler does the shuffling.
train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler)
assert (train_sampler.rank, train_sampler.num_replicas) == (rank, world_size)  # ✓ sampler-group
if rank == 0:
    print(f"{len(train_set)} samples -> {len(train_sampler)} per rank, {len(train_loader)} steps")  # ✓ shard-steps
    #> 64 samples -> 32 per rank, 4 steps
# --8<-- [end:data]

# --8<-- [start:model]
def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))


torch.manual_seed(100 + rank)  # different on purpose: DDP must make them equal
model = make_model().to(device)
model[1].running_mean.fill_(float(rank))  # for the check: a buffer that differs, too
before = gather_tensor(flat_state(model))
model = DDP(model, device_ids=[local_rank] if device.type == "cuda" else None)
assert model.device_ids == ([local_rank] if device.type == "cuda" else None)  # ✓ device-ids
after = gather_tensor(flat_state(model))
assert not torch.equal(before[0], before[1])  # ✓ wrap-broadcast
assert all(torch.equal(p, before[0]) for p in after)  # rank 0's weights and buffers, everywhere ✓ wrap-broadcast
if rank == 0:
    print("parameters and buffers broadcast from rank 0 when wrapping:", torch.equal(*after))
    #> parameters and buffers broadcast from rank 0 when wrapping: True
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
hook_doc = " ".join(default_hooks.allreduce_hook.__doc__.split())
assert "DDP results is expected to be same as the case where no hook was registered" in hook_doc  # ✓ hook-doc

xb, yb, _ = next(iter(train_loader))
xb, yb = xb.to(device), yb.to(device)
with model.no_sync():  # backward without communication: this rank's own gradient
    loss_fn(model(xb), yb).backward()
local_grads = [p.grad.clone() for p in model.parameters()]
assert not torch.equal(*gather_tensor(local_grads[0]))  # each rank's own: they differ ✓ local-grads
model.zero_grad()

loss = loss_fn(model(xb), yb)
in_forward = len(comm_calls)
loss.backward()
in_backward = len(comm_calls) - in_forward
assert in_forward == 0 and comm_calls == [6]  # one bucket holding all 6 parameter tensors ✓ one-bucket
assert model.bucket_bytes_cap == 25 * 1024 * 1024  # bucket_cap_mb's default: 25 MiB ✓ bucket-cap
means = [torch.stack(gather_tensor(g)).mean(dim=0) for g in local_grads]  # every rank gathers
grads = [p.grad for p in model.parameters()]
averaged = all(torch.allclose(g, m, atol=1e-6) for g, m in zip(grads, means, strict=True))
assert averaged  # right after backward(), before any optimizer.step() ✓ grads-averaged
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


probe = torch.ones(1, device=device, requires_grad=True) * 2  # like a loss: part of an autograd graph
reduce_loss(probe, world_size)
assert probe.grad_fn.name() == "MulBackward0"  # the division was not recorded ✓ no-grad-division
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
        assert torch.allclose(avg, sum(ranks_losses) / world_size)  # ✓ loss-mean
        assert not torch.equal(ranks_losses[0], ranks_losses[1])  # each rank's own loss differs ✓ loss-differs
        avg_op = loss.detach().clone()
        dist.all_reduce(avg_op, op=dist.ReduceOp.AVG)  # the same in one call
        assert torch.allclose(avg, avg_op)  # ✓ avg-op
        epoch_losses.append(avg.item())
        seen += idx.tolist()
    seen_per_epoch.append(seen)
    if rank == 0:
        print(f"epoch {epoch}: mean loss over ranks {sum(epoch_losses) / len(epoch_losses):.4f}")  # ✓ epoch-loss
        #> epoch 0: mean loss over ranks 0.8797
        #> epoch 1: mean loss over ranks 0.4811
        #> epoch 2: mean loss over ranks 0.4486
assert comm_calls == [6] * (3 * len(train_loader))  # one all_reduce of all 6 per step ✓ one-allreduce-per-step
# --8<-- [end:train]

# --8<-- [start:notes-train]
NOTES_TRAIN = """
def train(epc):
    for data, target in train_loader:
        optimizer.zero_grad()

        output = model(data.cuda(device))            # 这一行之前等待所有进程optimizer.step结束

        _, pred = torch.max(output.data, 1)
        train_correct += pred.eq(target.data.cuda(device).view_as(pred)).sum()

        loss = F.cross_entropy(output, target.cuda(device))
        total_loss += loss.item()
        loss.backward()

        optimizer.step()

        reduce_loss(loss, world_size)                # 这一步是跨进程交互，获取所有进程的平均loss

        global_step += 1
        if global_step % 100 == 0:
            pass
"""


class StaysPut(torch.Tensor):
    def cuda(self, *args, **kwargs) -> torch.Tensor:  # so that the notes' .cuda(device) runs on CPU
        return self.as_subclass(torch.Tensor)


xb, yb, _ = next(iter(train_loader))
plain = nn.Linear(4, 3)
notes = {
    "torch": torch,
    "train_loader": [(xb.as_subclass(StaysPut), yb.as_subclass(StaysPut))],
    "model": plain,
    "optimizer": torch.optim.SGD(plain.parameters(), lr=0.5),
    "device": device,
    "reduce_loss": reduce_loss,
    "world_size": world_size,
}
exec(NOTES_TRAIN, notes)  # defines the notes' train(epc), verbatim
try:
    notes["train"](0)
except UnboundLocalError as err:
    if rank == 0:
        print(type(err).__name__, err)  # ✓ notes-train-error
        #> UnboundLocalError cannot access local variable 'train_correct' where it is not associated with a value
tree = ast.parse(NOTES_TRAIN)
assigned = {
    n.id
    for a in ast.walk(tree)
    if isinstance(a, ast.Assign)
    for n in ast.walk(a.targets[0])
    if isinstance(n, ast.Name)
}
only_added_to = {a.target.id for a in ast.walk(tree) if isinstance(a, ast.AugAssign)} - assigned
if rank == 0:
    print("only ever `+=`, never given a first value:", sorted(only_added_to))  # ✓ only-added-to
    #> only ever `+=`, never given a first value: ['global_step', 'total_loss', 'train_correct']
    print("uses F, which the notes never import:", "F" in notes["train"].__code__.co_names)  # ✓ uses-f
    #> uses F, which the notes never import: True
# --8<-- [end:notes-train]

# --8<-- [start:check-shards]
all_seen = gather_objects(seen_per_epoch)  # [rank][epoch] -> sample indices
for epoch in range(3):
    shards = [set(all_seen[r][epoch]) for r in range(world_size)]
    sizes = [len(s) for s in shards]
    disjoint = not set.intersection(*shards)
    covering = set.union(*shards) == set(range(len(train_set)))
    assert disjoint and covering and sum(sizes) == len(train_set)  # ✓ shards
    if rank == 0:
        print(f"epoch {epoch}: shard sizes {sizes}, disjoint {disjoint}, covering {covering}")
        #> epoch 0: shard sizes [32, 32], disjoint True, covering True
        #> epoch 1: shard sizes [32, 32], disjoint True, covering True
        #> epoch 2: shard sizes [32, 32], disjoint True, covering True
orders = all_seen[0]  # rank 0's samples, in training order, per epoch
assert len({tuple(o) for o in orders}) == 3  # set_epoch reshuffles: 3 different orders ✓ reshuffle
unset = DistributedSampler(train_set, shuffle=True, seed=0)  # set_epoch never called
assert list(unset) == list(unset) == all_seen[rank][0]  # epoch 0's order, every time ✓ no-set-epoch
if rank == 0:
    for epoch in range(3):
        print(f"epoch {epoch}, rank 0 starts with {orders[epoch][:8]}")
        #> epoch 0, rank 0 starts with [44, 17, 47, 35, 33, 63, 28, 42]
        #> epoch 1, rank 0 starts with [37, 10, 47, 31, 15, 30, 1, 27]
        #> epoch 2, rank 0 starts with [40, 55, 42, 24, 0, 52, 39, 29]
# --8<-- [end:check-shards]

# --8<-- [start:check-params]
params = gather_tensor(flat_parameters(model))
assert all(torch.equal(p, params[0]) for p in params)  # bit-identical, not just close ✓ params-identical
if rank == 0:
    print("parameters identical on all ranks after training:", torch.equal(params[0], params[1]))
    #> parameters identical on all ranks after training: True
# --8<-- [end:check-params]


# --8<-- [start:check-buffers]
bn = model.module[1]
trained = gather_tensor(bn.running_mean)  # each rank's own after its last training batch
collectives = dist.group.WORLD._get_sequence_number_for_group  # private: collectives run so far
model.eval()
counts = []
with torch.no_grad():
    for _ in range(2):  # two forwards of the wrapped model, on every rank
        start = collectives()
        model(x_all[:4].to(device))
        counts.append(collectives() - start)
synced = gather_tensor(bn.running_mean)
assert not torch.equal(trained[0], trained[1]) and torch.equal(synced[1], trained[0])  # ✓ buffers-synced
assert counts[0] > 0 and counts[1] == 0  # ✓ forward-communicates
if rank == 0:
    print("BatchNorm buffers equal on all ranks: after training", torch.equal(*trained),
          "| after the next forward", torch.equal(*synced))
    #> BatchNorm buffers equal on all ranks: after training False | after the next forward True
    print("that forward communicates:", counts[0] > 0, "| the one after it:", counts[1] > 0)
    #> that forward communicates: True | the one after it: False
# --8<-- [end:check-buffers]

# --8<-- [start:evaluate]
@torch.no_grad()
def count_correct(net: nn.Module, dataset: TensorDataset) -> torch.Tensor:
    net.eval()
    x, y = dataset.tensors[0].to(device), dataset.tensors[1].to(device)
    return (net(x).argmax(dim=1) == y).sum()


# A collective that one rank calls alone waits for the others until the group's
# timeout: shown on a group with a 1 s timeout (gloo; NCCL would abort the process).
# A partner that comes too late is no better: rank 1 waits at a barrier() of a group
# with a 0.5 s timeout, which rank 0 reaches only after its own 1 s wait.
if backend == "gloo":
    lonely = dist.new_group(timeout=timedelta(seconds=1))
    late = dist.new_group(timeout=timedelta(milliseconds=500))
    errors = {}
    dist.barrier()  # both ranks start here
    if rank == 0:
        try:
            dist.all_reduce(torch.ones(1), group=lonely)  # rank 1 never joins
        except RuntimeError as err:
            errors["alone"] = str(err).split("] ")[-1]
        with contextlib.suppress(RuntimeError):  # rank 1 has given up by now
            dist.barrier(group=late)  # rank 0 comes, 1 s late
    else:
        try:
            dist.barrier(group=late)  # rank 0 is still in its lonely all_reduce
        except RuntimeError as err:
            errors["late"] = str(err).split("] ")[-1]
    errors = {k: v for e in gather_objects(errors) for k, v in e.items()}
    if rank == 0:
        print("a collective on rank 0 alone:", errors["alone"])  # ✓ lonely-timeout
        #> a collective on rank 0 alone: Timed out waiting 1000ms for recv operation to complete
        print("rank 1 at a barrier() rank 0 reaches too late:", errors["late"])  # ✓ late-timeout
        #> rank 1 at a barrier() rank 0 reaches too late: Timed out waiting 500ms for recv operation to complete
        assert errors["late"].replace("500ms", "1000ms") == errors["alone"]  # the same error ✓ same-error
    dist.barrier()
    dist.destroy_process_group(lonely)
    dist.destroy_process_group(late)

# One rank evaluates the plain module: `model.module` does no communication,
# so the other ranks cannot be left waiting inside a collective.
if rank == 0:
    alone_start, collectives_before = time.perf_counter(), collectives()
    acc_rank0 = count_correct(model.module, test_set).item() / len(test_set)
    alone_seconds = time.perf_counter() - alone_start  # what the others wait for
    assert collectives() == collectives_before  # model.module: no communication ✓ module-silent
    print(f"test accuracy (rank 0 alone): {acc_rank0:.4f}")
    #> test accuracy (rank 0 alone): 0.8125
dist.barrier()  # the others wait here

# Or every rank evaluates its shard and the counts are summed.
test_shard = DistributedSampler(test_set, shuffle=False)
shard = TensorDataset(*test_set[list(test_shard)])
correct = count_correct(model.module, shard)
dist.all_reduce(correct)  # SUM over ranks
if rank == 0:
    print(f"test accuracy (shards + all_reduce): {correct.item() / len(test_set):.4f}")
    #> test accuracy (shards + all_reduce): 0.8125
    assert correct.item() / len(test_set) == acc_rank0  # 32 samples: no padding ✓ sharded-eval
# With 31 test samples, the sampler would pad: one sample evaluated twice.
assert len(DistributedSampler(TensorDataset(torch.arange(31)))) * world_size == 32  # ✓ padding
# --8<-- [end:evaluate]

# --8<-- [start:checkpoint]
# Rank 0 writes; everyone else waits, then can read it.
ckpt_dir = gather_objects(tempfile.mkdtemp() if rank == 0 else None)[0]
ckpt = os.path.join(ckpt_dir, "model.pt")
if rank == 0:
    alone_start = time.perf_counter()
    torch.save(model.module.state_dict(), ckpt)  # .module: keys without "module."
    alone_seconds += time.perf_counter() - alone_start
    # The others' waits at barrier() (evaluation and saving) stay far below the timeout:
    assert alone_seconds < TIMEOUT.total_seconds() / 10  # ✓ timeout-margin
dist.barrier()
assert os.path.exists(ckpt)  # on every rank, once past the barrier ✓ ckpt-exists
state = torch.load(ckpt, map_location=device)
assert all(torch.equal(state[k], v) for k, v in model.module.state_dict().items())  # ✓ ckpt-equal
make_model().load_state_dict(state)  # loads into the plain model ✓ ckpt-loads
if rank == 0:
    print(list(state))  # ✓ ckpt-keys
    #> ['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked', '3.weight', '3.bias']
open(f"{ckpt}.read-by-{rank}", "w").close()  # for the check below: this rank is done reading
dist.barrier()  # nobody deletes the file while another rank still reads it
if rank == 0:
    readers = sorted(name for name in os.listdir(ckpt_dir) if name != "model.pt")
    assert readers == [f"model.pt.read-by-{r}" for r in range(world_size)]  # every rank has read it ✓ ckpt-read-first
    shutil.rmtree(ckpt_dir)
# --8<-- [end:checkpoint]

# --8<-- [start:shutdown]
dist.destroy_process_group()
assert not dist.is_initialized()  # ✓ destroyed
# --8<-- [end:shutdown]
