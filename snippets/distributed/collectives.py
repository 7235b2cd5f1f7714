"""Collectives on two real processes (gloo, CPU): all_reduce and its ops, reduce, broadcast, all_gather.

Page: docs/distributed/collectives.md
Run: torchrun --nproc_per_node=2 snippets/distributed/collectives.py
"""
# launch: torchrun --nproc_per_node=2
# timeout: 120

# --8<-- [start:setup]
import inspect
import operator
import os
from datetime import timedelta

import torch
import torch.distributed as dist

dist.init_process_group(backend="gloo", timeout=timedelta(seconds=30))
rank, world_size = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["RANK"]) and world_size == 2  # two processes ✓ two-processes
assert dist.get_backend() == "gloo"  # ✓ gloo
# --8<-- [end:setup]

# --8<-- [start:ops]
ops = list(dist.ReduceOp.RedOpType.__members__)
op_doc = " ".join(dist.ReduceOp.__doc__.split())
assert "``BAND``, ``BOR``, and ``BXOR`` reductions are not available when using the ``NCCL`` backend." in op_doc  # ✓ doc-nccl
assert "``AVG`` is only available with the ``NCCL`` backend" in op_doc  # but see gloo below ✓ doc-avg
assert "``PREMUL_SUM`` multiplies inputs by a given scalar locally before reduction." in op_doc  # ✓ doc-premul
assert "It can be used by calling ``ReduceOp.PREMUL_SUM(factor)``" in op_doc  # ✓ doc-premul-call
if rank == 0:
    print(ops)  # ✓ ops
    #> ['SUM', 'AVG', 'PRODUCT', 'MIN', 'MAX', 'BAND', 'BOR', 'BXOR', 'PREMUL_SUM']
# --8<-- [end:ops]

# --8<-- [start:op-values]
mine = torch.tensor([12, 5]) if rank == 0 else torch.tensor([10, 3])  # 0b1100, 0b1010 ✓ inputs
python_op = {"SUM": operator.add, "PRODUCT": operator.mul, "MIN": min, "MAX": max}
python_op.update(BAND=operator.and_, BOR=operator.or_, BXOR=operator.xor)
for name, combine in python_op.items():
    t = mine.clone()
    dist.all_reduce(t, op=getattr(dist.ReduceOp, name))  # in place, on every rank
    # every rank holds Python's operator applied to both ranks' elements:
    assert t.tolist() == [combine(a, b) for a, b in zip([12, 5], [10, 3], strict=True)]  # ✓ op-rule
    if rank == 0:
        print(f"{name:8}{t.tolist()}")  # ✓ op-values
        #> SUM     [22, 8]
        #> PRODUCT [120, 15]
        #> MIN     [10, 3]
        #> MAX     [12, 5]
        #> BAND    [8, 1]
        #> BOR     [14, 7]
        #> BXOR    [6, 6]
t = mine.float()
dist.all_reduce(t, op=dist.ReduceOp.AVG)
assert t.tolist() == [(12 + 10) / 2, (5 + 3) / 2]  # the mean, on every rank ✓ avg-rule
if rank == 0:
    print(f"AVG     {t.tolist()}")
    #> AVG     [11.0, 4.0]
# --8<-- [end:op-values]


# --8<-- [start:support]
def try_all_reduce(dtype: torch.dtype, name: str) -> str:
    t = torch.ones(2, dtype=dtype)
    try:
        dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
    except (RuntimeError, ValueError) as err:
        reasons.add(f"{type(err).__name__}: {str(err).splitlines()[0]}")
        return "-"
    return "ok"


reasons: set[str] = set()
dtypes = [torch.float64, torch.float32, torch.float16, torch.bfloat16]
dtypes += [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64]
table_ops = ops[:-1]  # PREMUL_SUM below: it needs a factor
if rank == 0:
    print(f"{'gloo':10}" + "".join(f"{name:>8}" for name in table_ops))
    #> gloo           SUM     AVG PRODUCT     MIN     MAX    BAND     BOR    BXOR
for dtype in dtypes:
    row = [try_all_reduce(dtype, name) for name in table_ops]
    if rank == 0:
        print(f"{str(dtype).removeprefix('torch.'):10}" + "".join(f"{c:>8}" for c in row))  # ✓ support
        #> float64         ok      ok      ok      ok      ok       -       -       -
        #> float32         ok      ok      ok      ok      ok       -       -       -
        #> float16         ok      ok      ok      ok      ok       -       -       -
        #> bfloat16        ok      ok      ok      ok      ok       -       -       -
        #> int64           ok       -      ok      ok      ok      ok      ok      ok
        #> int32           ok       -      ok      ok      ok      ok      ok      ok
        #> int16            -       -       -       -       -       -       -       -
        #> int8            ok       -      ok      ok      ok      ok      ok      ok
        #> uint8           ok       -      ok      ok      ok      ok      ok      ok
        #> bool            ok       -      ok      ok      ok      ok      ok      ok
        #> complex64       ok      ok       -       -       -       -       -       -
if rank == 0:
    for reason in sorted(reasons):
        print(reason)  # ✓ support-reasons
        #> RuntimeError: Cannot use ReduceOp.BAND with non-integral dtype
        #> RuntimeError: Cannot use ReduceOp.BOR with non-integral dtype
        #> RuntimeError: Cannot use ReduceOp.BXOR with non-integral dtype
        #> RuntimeError: Invalid scalar type
        #> RuntimeError: result type Float can't be cast to the desired output type Bool
        #> RuntimeError: result type Float can't be cast to the desired output type Byte
        #> RuntimeError: result type Float can't be cast to the desired output type Char
        #> RuntimeError: result type Float can't be cast to the desired output type Int
        #> RuntimeError: result type Float can't be cast to the desired output type Long
        #> ValueError: all_reduce does not support RedOpType.BAND on complex tensors
        #> ValueError: all_reduce does not support RedOpType.BOR on complex tensors
        #> ValueError: all_reduce does not support RedOpType.BXOR on complex tensors
        #> ValueError: all_reduce does not support RedOpType.MAX on complex tensors
        #> ValueError: all_reduce does not support RedOpType.MIN on complex tensors
        #> ValueError: all_reduce does not support RedOpType.PRODUCT on complex tensors
reasons.clear()
assert try_all_reduce(torch.int16, "SUM") == "-" and reasons == {"RuntimeError: Invalid scalar type"}  # ✓ int16-reason
# --8<-- [end:support]

# --8<-- [start:premul-sum]
for op in [
    dist.ReduceOp.PREMUL_SUM,  # no factor
    dist.ReduceOp.PREMUL_SUM(0.5),  # with a factor, as the ReduceOp docstring shows
    dist._make_nccl_premul_sum(0.5),  # the private factory
]:
    try:
        dist.all_reduce(torch.ones(2), op=op)
    except (TypeError, RuntimeError) as err:
        if rank == 0:
            print(f"{type(err).__name__}: {str(err).splitlines()[0]}")  # ✓ premul
            #> TypeError: (): incompatible function arguments. The following argument types are supported:
            #> RuntimeError: Cannot use ReduceOp.PREMUL_SUM with Gloo
            #> RuntimeError: Cannot use ReduceOp.PREMUL_SUM with Gloo
# --8<-- [end:premul-sum]

# --8<-- [start:reduce-broadcast-gather]
t = torch.tensor([float(rank + 1)])  # rank 0: 1.0, rank 1: 2.0
dist.reduce(t, dst=0)  # SUM, result only on rank 0
reduce_doc = " ".join(dist.reduce.__doc__.split())
assert "Only the process with rank ``dst`` is going to receive the final result." in reduce_doc  # ✓ reduce-doc
if rank == 0:
    print("reduce to rank 0:", t.item())  # 1.0 + 2.0 ✓ reduce
    #> reduce to rank 0: 3.0

t = torch.tensor([float(rank + 1)])
dist.broadcast(t, src=1)  # rank 1's value everywhere
result = [None] * world_size
dist.all_gather_object(result, t.item())
if rank == 0:
    print("broadcast from rank 1, every rank holds:", result)  # ✓ broadcast
    #> broadcast from rank 1, every rank holds: [2.0, 2.0]

t = torch.tensor([rank, 10 * rank])
gathered = [torch.empty_like(t) for _ in range(world_size)]
dist.all_gather(gathered, t)  # every rank receives every rank's tensor
assert [g.tolist() for g in gathered] == [[r, 10 * r] for r in range(world_size)]  # ✓ all-gather
if rank == 0:
    print("all_gather:", [g.tolist() for g in gathered])
    #> all_gather: [[0, 0], [1, 10]]
ag_doc = " ".join(dist.all_gather.__doc__.split())
assert "Uneven sized tensors are supported." in ag_doc  # the docstring says so; gloo disagrees: ✓ gather-doc
try:
    dist.all_gather([torch.empty(r + 1) for r in range(world_size)], torch.ones(rank + 1))
except RuntimeError as err:
    if rank == 0:
        print(str(err).split("] ")[-1].split(" at index")[0])  # ✓ gather-uneven
        #> ProcessGroupGloo::allgather: invalid tensor size
for mine_dims, other_dims in [((2,), (1, 2)), ((6,), (2, 3)), ((2, 3), (3, 2))]:  # same count, other shape
    t = torch.ones(mine_dims if rank == 0 else other_dims)
    gathered = [torch.empty_like(t) for _ in range(world_size)]
    dist.all_gather(gathered, t)  # gloo accepts these: no error
    assert all(g.shape == t.shape and g.sum() == t.numel() for g in gathered)  # ✓ gather-same-count
# --8<-- [end:reduce-broadcast-gather]

# --8<-- [start:async]
for collective in (dist.all_reduce, dist.reduce, dist.broadcast, dist.all_gather):
    assert inspect.signature(collective).parameters["async_op"].default is False  # ✓ async-default
    code = " ".join(inspect.getsource(collective).split())
    # async_op=True returns the handle; the default waits for the work itself:
    assert "if async_op: return work elif ( work is not None ):" in code  # ✓ async-source
    assert "# Backward compatible with backends that don't sync at CPP level work.wait()" in code
t = torch.ones(3)
work = dist.all_reduce(t, async_op=True)  # returns at once with a handle
work.wait()  # now t holds the sum
assert dist.all_reduce(torch.ones(1)) is None  # the default waits, and returns None ✓ sync-none
if rank == 0:
    print(type(work).__name__, t.tolist())  # ✓ async
    #> Work [2.0, 2.0, 2.0]
# --8<-- [end:async]

# --8<-- [start:reduce-loss]
def reduce_loss(tensor, world_size):  # the helper from the original notes
    with torch.no_grad():
        dist.all_reduce(tensor)
        tensor /= world_size


loss = torch.tensor([0.5]) if rank == 0 else torch.tensor([1.5])
reduce_loss(loss, world_size)
assert loss.item() == (0.5 + 1.5) / 2  # the mean, on every rank ✓ reduce-loss
avg = torch.tensor([0.5]) if rank == 0 else torch.tensor([1.5])
dist.all_reduce(avg, op=dist.ReduceOp.AVG)
if rank == 0:
    print("reduce_loss:", loss.item(), "| ReduceOp.AVG:", avg.item())  # ✓ avg
    #> reduce_loss: 1.0 | ReduceOp.AVG: 1.0
# --8<-- [end:reduce-loss]

# --8<-- [start:signature]
sig = inspect.signature(dist.all_reduce)
if rank == 0:
    for name, param in sig.parameters.items():
        default = "(required)" if param.default is param.empty else repr(param.default)
        print(f"{name:9}{default}")  # ✓ signature
        #> tensor   (required)
        #> op       <RedOpType.SUM: 0>
        #> group    None
        #> async_op False
    print("group.WORLD is the default group:", dist.get_world_size(dist.group.WORLD) == world_size)
    #> group.WORLD is the default group: True
    print("returns:", sig.return_annotation)  # ✓ returns
    #> returns: torch.distributed.distributed_c10d.Work | None
assert dist.group.WORLD is dist.distributed_c10d._get_default_group()  # ✓ group-world
t = torch.tensor([float(rank)])
dist.all_reduce(t, op=dist.ReduceOp(dist.ReduceOp.MAX))  # a ReduceOp built from a RedOpType
assert t.item() == 1.0 and type(dist.ReduceOp.MAX).__name__ == "RedOpType"  # ✓ redoptype
source = inspect.getsource(dist.all_reduce)
assert "_default_pg" not in source and "group = _get_default_group()" in source  # ✓ source
assert "work = group.allreduce([tensor], opts)" in source
assert "tensor = torch.view_as_real(tensor)" in source  # ✓ view-as-real
doc = " ".join(dist.all_reduce.__doc__.split())
assert "After the call ``tensor`` is going to be bitwise identical in all processes." in doc  # ✓ bitwise
# --8<-- [end:signature]

# --8<-- [start:shutdown]
dist.destroy_process_group()
# --8<-- [end:shutdown]
