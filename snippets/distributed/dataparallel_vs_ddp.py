"""What nn.DataParallel and DistributedDataParallel do, read from the pinned torch and run here.

Page: docs/distributed/dataparallel_vs_ddp.md
DataParallel runs in this process; DDP runs in two CPU processes forked from it (gloo).
The suite runs it in a process of its own: a forked rank cannot run a backward pass
once the process it was forked from has started autograd's worker threads, which
another snippet run before it in the same process may have done.
"""
# process: own

# --8<-- [start:setup]
import ast
import copy
import inspect
import tempfile
import textwrap
import warnings
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401  DDP imports it: importing it once here spares each rank
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn import functional as F
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present
from torch.nn.parallel import DistributedDataParallel as DDP

# --8<-- [end:setup]

# --8<-- [start:typo]
try:
    model = torch.nn.DaraParallel(nn.Linear(3, 2))  # as spelled in the notes
except AttributeError as err:
    print(err)  # ✓ typo
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
print([name for _, name in calls])  # what DataParallel.forward calls on itself, in order ✓ dp-calls
#> ['self.module', 'self.scatter', 'self.module', 'self.replicate', 'self.parallel_apply', 'self.gather']
code = " ".join(source.split())
assert "if not self.device_ids: return self.module(*inputs, **kwargs)" in code  # ✓ dp-no-gpu
assert "if len(self.device_ids) == 1: return self.module(" in code  # ✓ dp-one-gpu
assert "return self.gather(outputs, self.output_device)" in code  # ✓ dp-gather
assert "dim=self.dim" in inspect.getsource(nn.DataParallel.scatter)  # scatter splits along `dim` ... ✓ dp-dim
assert inspect.signature(nn.DataParallel).parameters["dim"].default == 0  # ... 0 unless told otherwise ✓ dp-dim
# replicas only for the devices that received a chunk of the input:
assert "self.replicate(self.module, self.device_ids[:len(inputs)])" in code.replace("[: ", "[:")  # ✓ dp-replicas
init = " ".join(inspect.getsource(nn.DataParallel.__init__).split())
assert "if len(self.device_ids) == 1: self.module.to(self.src_device_obj)" in init  # ✓ dp-one-gpu-move
# device_ids left out: every visible GPU, 0 to device_count() - 1
assert "if device_ids is None: device_ids = _get_all_device_indices()" in init  # ✓ dp-default-ids
assert "list(range(m.device_count()))" in inspect.getsource(torch._utils._get_all_device_indices)  # ✓ dp-all-gpus
# parallel_apply runs each replica in a thread of this one process (a lone replica in the caller's):
apply_source = " ".join(inspect.getsource(torch.nn.parallel.parallel_apply).split())
assert "if len(modules) > 1: threads = [" in apply_source and "threading.Thread(" in apply_source  # ✓ dp-threads
assert "else: _worker(0, modules[0]" in apply_source  # ✓ dp-threads
# --8<-- [end:forward-steps]

# --8<-- [start:docstring]
dp_doc = " ".join(nn.DataParallel.__doc__.split())
for phrase in [
    "splitting the input across the specified devices by chunking in the batch dimension",
    "In each forward, :attr:`module` is **replicated** on each device",
    "the update is done on the replicas which are destroyed after ``forward``",
    "any updates to the running module in ``forward`` will be lost",
    "if :attr:`module` has a counter attribute that is incremented in each ``forward``, it will always stay at"
    " the initial value",
    "the replica on ``device[0]`` will have its parameters and buffers sharing storage",
    "So **in-place** updates to the parameters or buffers on ``device[0]`` will be recorded",
    "gradients from each replica are summed into the original module",
    "It is recommended to use :class:`~torch.nn.parallel.DistributedDataParallel`, instead of"
    " this class, to do multi-GPU training, even if there is only a single node.",
]:
    assert phrase in dp_doc, phrase  # ✓ dp-doc
ddp_doc = " ".join(DDP.__doc__.split())
for phrase in [
    "does not chunk or otherwise shard the input across participating GPUs; the user is responsible for defining"
    " how to do so, for example through the use of a :class:`DistributedSampler`",
    "on a host with N GPUs, you should spawn up ``N`` processes, ensuring that each process"
    " exclusively works on a single GPU",
    "``DistributedDataParallel`` is proven to be significantly faster than"
    " :class:`torch.nn.DataParallel` for single-node multi-GPU data parallel training.",
]:
    assert phrase in ddp_doc, phrase  # ✓ ddp-doc
# --8<-- [end:docstring]


# --8<-- [start:this-machine]
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
dp = nn.DataParallel(net)  # device_ids: every visible GPU ([] without one)
gpus = torch.cuda.device_count()
print("device_ids are the visible GPUs:", dp.device_ids == list(range(gpus)))  # ✓ dp-device-ids
#> device_ids are the visible GPUs: True
print("dp.module is the wrapped module:", dp.module is net)  # ✓ dp-module
#> dp.module is the wrapped module: True
x = torch.randn(8, 3)
for _ in range(3):
    out = dp(x)
print("output = the module's own output:", torch.allclose(out, net.fc(x.to(out.device))))  # ✓ dp-output
#> output = the module's own output: True
# No GPU or one GPU: forward calls the module itself, so it counts every call.
# Two or more GPUs: each call runs on throw-away replicas, and the count stays 0.
assert net.calls == (3 if gpus < 2 else 0)  # ✓ dp-counter
# --8<-- [end:this-machine]

# --8<-- [start:state-dict]
print(list(dp.state_dict()))  # what torch.save(dp.state_dict()) would store ✓ prefix-keys
#> ['module.fc.weight', 'module.fc.bias']
plain = Counting()
try:
    plain.load_state_dict(dp.state_dict())
except RuntimeError as err:
    print(type(err).__name__, str(err).splitlines()[1].strip())  # ✓ prefix-error
    #> RuntimeError Missing key(s) in state_dict: "fc.weight", "fc.bias".
plain.load_state_dict(dp.module.state_dict())  # save this instead: plain keys ✓ module-state
state = dp.state_dict()
consume_prefix_in_state_dict_if_present(state, "module.")  # or strip the prefix afterwards
plain.load_state_dict(state)
print(list(state))  # ✓ consume-prefix
#> ['fc.weight', 'fc.bias']
# --8<-- [end:state-dict]


# --8<-- [start:run-ranks]
def run_ranks(fn, world_size: int = 2) -> list:
    """Run fn(rank) in `world_size` CPU processes joined by a gloo process group.

    Returns [fn(0), fn(1), ...]. The processes are forked from this one, so `fn`
    can be any function defined here. A real job starts them with torchrun.
    """
    # fork, asked for by name: Linux's default; macOS has it but defaults to spawn;
    # Windows has no fork.
    assert "fork" in mp.get_all_start_methods(), "run_ranks forks: run this page on Linux"  # ✓ fork
    ctx = mp.get_context("fork")
    results = ctx.SimpleQueue()
    with tempfile.TemporaryDirectory() as tmp:

        def rank_main(rank: int) -> None:
            torch.set_num_threads(1)  # one thread per process, as DataLoader workers do
            dist.init_process_group(
                "gloo",
                init_method=f"file://{tmp}/rendezvous",  # the ranks meet through a file
                rank=rank,
                world_size=world_size,
                timeout=timedelta(seconds=30),
            )
            results.put((rank, fn(rank)))
            dist.destroy_process_group()

        mp.start_processes(rank_main, nprocs=world_size, start_method="fork")  # waits for all ✓ run-ranks
        by_rank = dict(results.get() for _ in range(world_size))
    return [by_rank[rank] for rank in range(world_size)]


def small_model() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


assert "torch._dynamo.utils" in inspect.getsource(DDP.__init__)  # why the set-up imports it ✓ dynamo
assert "_dynamo" in torch._lazy_modules  # torch imports it at its first use as torch._dynamo ✓ dynamo-lazy
hook_doc = " ".join(default_hooks.allreduce_hook.__doc__.split())
assert "DDP results is expected to be same as the case where no hook was registered" in hook_doc  # ✓ hook-doc
# --8<-- [end:run-ranks]


# --8<-- [start:ddp-wrap]
def wrap(rank: int) -> list:
    torch.manual_seed(rank)  # different weights on each rank, on purpose
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
    model[1].running_mean.fill_(rank)  # and a buffer that differs: 0.0 on rank 0, 1.0 on rank 1
    before = [round(model[0].weight[0, 0].item(), 4), model[1].running_mean[0].item()]
    state_before = {k: v.tolist() for k, v in model.state_dict().items()}  # every parameter and buffer
    DDP(model)
    after = [round(model[0].weight[0, 0].item(), 4), model[1].running_mean[0].item()]
    return [before, after, state_before, {k: v.tolist() for k, v in model.state_dict().items()}]


wrapped = run_ranks(wrap)
for rank, (before, after, _, _) in enumerate(wrapped):
    print(f"rank {rank}: [weight, buffer] before DDP(model) {before}, after {after}")  # ✓ wrap-broadcast
    #> rank 0: [weight, buffer] before DDP(model) [-0.0037, 0.0], after [-0.0037, 0.0]
    #> rank 1: [weight, buffer] before DDP(model) [0.2576, 1.0], after [-0.0037, 0.0]
(_, _, before0, after0), (_, _, before1, after1) = wrapped
# every tensor of rank 1 is rank 0's after wrapping; those that differed before:
print("differed before:", [k for k in before0 if before0[k] != before1[k]], "| after:", after1 == after0 == before0)  # ✓ wrap-all
#> differed before: ['0.weight', '0.bias', '1.running_mean'] | after: True
# --8<-- [end:ddp-wrap]


# --8<-- [start:ddp-grads]
def grads(rank: int) -> dict:
    torch.manual_seed(0)
    model = DDP(small_model())
    assert model.bucket_bytes_cap == 25 * 1024 * 1024  # bucket_cap_mb's default: 25 MiB ✓ bucket-cap
    calls = []

    def counting_allreduce(state, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
        calls.append(len(bucket.gradients()))
        return default_hooks.allreduce_hook(None, bucket)  # sum over ranks, / world size

    model.register_comm_hook(None, counting_allreduce)
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(16, 4, generator=gen), torch.randint(0, 3, (16,), generator=gen)
    mine = slice(8 * rank, 8 * rank + 8)  # batch_size 8 per process: this rank's half

    with model.no_sync():  # backward without communication: this rank's own gradients
        F.cross_entropy(model(x[mine]), y[mine]).backward()
    own = [p.grad.tolist() for p in model.parameters()]  # all 4 tensors: 2 weights, 2 biases
    model.zero_grad()

    loss = F.cross_entropy(model(x[mine]), y[mine])
    in_forward = len(calls)
    loss.backward()
    in_backward = len(calls) - in_forward

    whole = copy.deepcopy(model.module)  # one model, one process, all 16 samples
    whole.zero_grad()
    F.cross_entropy(whole(x), y).backward()
    return {
        "comm": (in_forward, in_backward, calls),
        "own": own,
        "after_backward": [p.grad.tolist() for p in model.parameters()],
        "whole_batch": [p.grad.tolist() for p in whole.parameters()],
    }


r0, r1 = run_ranks(grads)
in_forward, in_backward, buckets = r0["comm"]
print(f"gradient all-reduces: {in_forward} in forward, {in_backward} in backward {buckets}")  # ✓ grad-allreduces
#> gradient all-reduces: 0 in forward, 1 in backward [4]
own0, own1, synced, whole = ([torch.tensor(g) for g in r[k]] for r, k in
                              [(r0, "own"), (r1, "own"), (r0, "after_backward"), (r0, "whole_batch")])
print("ranks' own gradients differ:", not any(torch.allclose(a, b) for a, b in zip(own0, own1, strict=True)))  # ✓ own-differ
#> ranks' own gradients differ: True
print("after backward(), every rank holds their mean:", r0["after_backward"] == r1["after_backward"],
      all(torch.allclose(g, (a + b) / 2) for g, a, b in zip(synced, own0, own1, strict=True)))  # all 4 tensors ✓ grad-mean
#> after backward(), every rank holds their mean: True True
print("= the gradient of the whole 16-sample batch:", all(torch.allclose(g, w) for g, w in zip(synced, whole, strict=True)))  # ✓ whole-batch
#> = the gradient of the whole 16-sample batch: True
# --8<-- [end:ddp-grads]


# --8<-- [start:ddp-overlap]
def overlap(rank: int) -> list:
    torch.manual_seed(0)
    model = DDP(small_model(), bucket_cap_mb=0.0001)  # tiny buckets: one layer per bucket
    buckets = []

    def hook(state, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
        shapes = [tuple(g.shape) for g in bucket.gradients()]
        not_yet_computed = sum(p.grad is None for p in model.parameters())
        buckets.append(f"bucket {shapes}: {not_yet_computed} gradients not computed yet")
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(None, hook)
    for _ in range(2):  # DDP re-forms its buckets after the first step
        model.zero_grad(set_to_none=True)
        buckets.clear()
        model(torch.randn(8, 4)).sum().backward()
    return buckets


print(*run_ranks(overlap)[0], sep="\n")  # in the order backward all-reduced them ✓ overlap
#> bucket [(3,), (3, 8)]: 2 gradients not computed yet
#> bucket [(8,), (8, 4)]: 0 gradients not computed yet


def default_buckets(rank: int, layers: type = nn.Sequential, **ddp_options) -> list:
    """[tensors, MiB] of each gradient all-reduce, per step (DDP's default bucket sizes unless given)."""
    model = DDP(layers(*[nn.Linear(512, 512) for _ in range(3)]), **ddp_options)  # 1 MiB per weight
    steps = []

    def hook(state, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
        mib = bucket.buffer().numel() * bucket.buffer().element_size() / 2**20
        steps[-1].append([len(bucket.gradients()), round(mib, 3)])  # a bias adds 0.002 MiB
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(None, hook)
    for _ in range(2):
        steps.append([])
        model(torch.randn(8, 512)).sum().backward()
    return steps


# One run of the two processes: bucket_cap_mb left unset, then given as 25 (its default) and 1.5.
unset, given_25, given_1_5 = run_ranks(
    lambda rank: [default_buckets(rank, **options) for options in [{}, {"bucket_cap_mb": 25}, {"bucket_cap_mb": 1.5}]]
)[0]
print("bucket_cap_mb unset [tensors, MiB], step 1:", unset[0], "| step 2:", unset[1])  # ✓ default-buckets
#> bucket_cap_mb unset [tensors, MiB], step 1: [[6, 3.006]] | step 2: [[2, 1.002], [4, 2.004]]
ddp_source = " ".join(inspect.getsource(torch.nn.parallel.distributed).split())
first_step_rule = (  # DDP's first-step cap without find_unused_parameters, as torch 2.14+ and older word it
    "if static_graph or not find_unused_parameters: bucket_size_limits = [sys.maxsize]",
    "if static_graph is True or self.find_unused_parameters is False: bucket_size_limits = [sys.maxsize]",
)
assert any(rule in ddp_source for rule in first_step_rule)  # no cap: one bucket per dtype ✓ first-step-one-bucket
assert inspect.signature(DDP).parameters["find_unused_parameters"].default is False  # ✓ find-unused-default
# After the first step the buckets are re-formed in backward's order (a comment of the source):
assert '"bucket rebuild" bucketizes parameters based on its real execution order in backward graph' in ddp_source  # ✓ rebuild-order
print("bucket_cap_mb_list" in inspect.signature(DDP).parameters)  # a parameter of newer releases ✓ bucket-cap-list
#> True
assert dist._DEFAULT_FIRST_BUCKET_BYTES == 1024 * 1024  # private: the first bucket's cap, bucket_cap_mb unset ✓ first-bucket-cap
assert unset[1][0][1] > 1  # a bucket is closed once it reaches its cap, not before: the first passes 1 MiB ✓ cap-passed
print("bucket_cap_mb=25 given, step 1:", given_25[0], "| step 2:", given_25[1])  # ✓ given-cap
#> bucket_cap_mb=25 given, step 1: [[6, 3.006]] | step 2: [[6, 3.006]]
print("bucket_cap_mb=1.5 given, step 1:", given_1_5[0], "| step 2:", given_1_5[1])  # ✓ given-cap-small
#> bucket_cap_mb=1.5 given, step 1: [[6, 3.006]] | step 2: [[4, 2.004], [2, 1.002]]


class SkipsLast(nn.Sequential):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self[1](self[0](x))  # the third layer is never used


# find_unused_parameters=True (for models that leave parameters unused): capped buckets from step 1.
first, second = run_ranks(lambda rank: default_buckets(rank, SkipsLast, find_unused_parameters=True))[0]
print("find_unused_parameters=True, step 1:", first, "| step 2:", second)  # ✓ unused-buckets
#> find_unused_parameters=True, step 1: [[5, 2.006], [1, 1.0]] | step 2: [[5, 2.006], [1, 1.0]]
# --8<-- [end:ddp-overlap]


# --8<-- [start:ddp-step]
def step(rank: int) -> dict:
    torch.manual_seed(0)
    model = DDP(small_model())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    # Private counter of the collectives this process has run in the group:
    collectives = dist.group.WORLD._get_sequence_number_for_group
    counts, rebuilt = [], []
    for i in range(3):
        x = torch.randn(8, 4, generator=torch.Generator().manual_seed(10 * rank + i))  # own data
        n0 = collectives()
        loss = model(x).pow(2).mean()
        n1 = collectives()
        rebuilt.append(model._has_rebuilt_buckets)  # private: re-formed its buckets yet?
        loss.backward()
        n2 = collectives()
        optimizer.step()
        n3 = collectives()
        counts.append([n1 - n0, n2 - n1, n3 - n2])
    # The same 3 steps with rank 1's parameters moved by +1 after wrapping: never sent again,
    # the ranks stay 1 apart (both apply the same averaged gradient).
    torch.manual_seed(0)
    moved = DDP(small_model())
    moved_optimizer = torch.optim.SGD(moved.parameters(), lr=0.1)
    with torch.no_grad():
        for p in moved.parameters():
            p.add_(rank)
    for i in range(3):
        x = torch.randn(8, 4, generator=torch.Generator().manual_seed(10 * rank + i))
        moved(x).pow(2).mean().backward()
        moved_optimizer.step()
        moved_optimizer.zero_grad()
    return {
        "counts": counts,
        "rebuilt": rebuilt,
        "params": [p.tolist() for p in model.parameters()],
        "moved": [p.tolist() for p in moved.parameters()],
    }


r0, r1 = run_ranks(step)
print("collectives per step [forward, backward, optimizer.step]:", r0["counts"])  # ✓ step-collectives
#> collectives per step [forward, backward, optimizer.step]: [[0, 1, 0], [2, 1, 0], [0, 1, 0]]
print("buckets re-formed yet, after the forward of step 1, 2, 3:", r0["rebuilt"])  # ✓ rebuilt
#> buckets re-formed yet, after the forward of step 1, 2, 3: [False, True, True]
print("parameters identical on both ranks after 3 steps:", r0["params"] == r1["params"])  # ✓ step-params
#> parameters identical on both ranks after 3 steps: True
print("rank 1's parameters moved by +1 after wrapping, 3 steps later still 1 apart:",
      all(torch.allclose(torch.tensor(p1) - torch.tensor(p0), torch.ones(torch.tensor(p0).shape))
          for p0, p1 in zip(r0["moved"], r1["moved"], strict=True)))  # ✓ never-sent
#> rank 1's parameters moved by +1 after wrapping, 3 steps later still 1 apart: True
# --8<-- [end:ddp-step]

# --8<-- [start:ddp-buffers]
defaults = inspect.signature(DDP).parameters
for name in ["broadcast_buffers", "forward_sync_buffers", "init_sync"]:
    print(f"{name}={defaults[name].default!r}" if name in defaults else f"{name}: not a parameter")  # ✓ buffer-defaults
    #> broadcast_buffers=None
    #> forward_sync_buffers=None
    #> init_sync=True


def buffers(rank: int) -> list:
    rows = []
    for kwargs in [{}, {"forward_sync_buffers": False}, {"broadcast_buffers": False}]:
        model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
        model[1].running_mean.fill_(rank)  # rank 0: 0.0, rank 1: 1.0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ddp = DDP(model, **kwargs)
        at_init = model[1].running_mean[0].item()
        model[1].running_mean.fill_(rank)  # different again
        ddp.eval()  # BatchNorm now uses its running statistics without updating them
        ddp(torch.randn(4, 4))
        in_forward = model[1].running_mean[0].item()
        warned = [w.category.__name__ for w in caught]
        messages = [str(w.message) for w in caught]
        rows.append([str(kwargs or "defaults"), at_init, in_forward, warned, messages])
    return rows


print(f"{'rank 1, DDP(model, ...)':32} {'buffer after DDP()':>18} {'after a forward':>16}")
#> rank 1, DDP(model, ...)          buffer after DDP()  after a forward
rank1_rows = run_ranks(buffers)[1]
for name, at_init, in_forward, warned, _ in rank1_rows:
    print(f"{name:32} {at_init:18} {in_forward:16}" + (f"  {warned}" if warned else ""))  # ✓ buffer-table
    #> defaults                                        0.0              0.0
    #> {'forward_sync_buffers': False}                 0.0              1.0
    #> {'broadcast_buffers': False}                    1.0              1.0  ['FutureWarning']
print(rank1_rows[-1][4][0].split(" IMPORTANT")[0])  # the warning of broadcast_buffers=False ✓ deprecated-for
#> `broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead.
# --8<-- [end:ddp-buffers]

# --8<-- [start:windows]
doc = " ".join(dist.is_available.__doc__.split())
assert "``torch.distributed`` is available on Linux, MacOS and Windows" in doc  # ✓ windows-doc
print("torch.distributed here:", dist.is_available(), "| gloo:", dist.is_gloo_available())  # ✓ dist-available
#> torch.distributed here: True | gloo: True
# --8<-- [end:windows]
