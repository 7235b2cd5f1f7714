"""Distributed errors on two real processes (gloo, CPU): no process group, DDP's unused parameters, a skipped collective,
DataParallel's wrapped errors, NCCL missing or failing.

Page: docs/errors/distributed_errors.md
Run: torchrun --nproc_per_node=2 snippets/errors/distributed_errors.py
"""
# launch: torchrun --nproc_per_node=2
# timeout: 120

# --8<-- [start:setup]
import argparse
import contextlib
import ctypes
import inspect
import io
import mmap
import os
import socket
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

import torch
import torch.distributed as dist
import torch.distributed.launch
import torch.distributed.run
import torchvision
from torch import nn
from torch._utils import ExceptionWrapper
from torch.nn.parallel import DistributedDataParallel as DDP

rank = int(os.environ["RANK"])  # torchrun gives each process its rank
# --8<-- [end:setup]

# --8<-- [start:no-group]
try:
    dist.all_reduce(torch.ones(1))  # a collective, before init_process_group
except ValueError as err:
    if rank == 0:
        print(f"{type(err).__name__}: {err}")  # ✓ no-group-message
        #> ValueError: Default process group has not been initialized, please make sure to call init_process_group.
# --8<-- [end:no-group]

# --8<-- [start:no-group-why]
print_rank0 = print if rank == 0 else (lambda *args: None)
launched = {name: name in os.environ for name in ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]}
print_rank0(launched, dist.is_initialized())  # torchrun sets the variables; the group is not made ✓ no-group-env
#> {'RANK': True, 'WORLD_SIZE': True, 'MASTER_ADDR': True, 'MASTER_PORT': True} False
assert all(launched.values()) and not dist.is_initialized()  # on every rank, not only rank 0 ✓ no-group-env
refusals = []
for needs_group in [dist.get_rank, dist.barrier, lambda: DDP(nn.Linear(2, 2))]:
    try:
        needs_group()
    except ValueError as err:
        refusals.append(str(err).startswith("Default process group has not been initialized"))
assert refusals == [True, True, True]  # the rank, a barrier, wrapping a model in DDP ✓ no-group-others
# --8<-- [end:no-group-why]

# --8<-- [start:no-group-fix-single]
torchrun_vars = {name: os.environ.pop(name) for name in ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]}
with tempfile.TemporaryDirectory() as folder:  # one process on its own, as `python train.py` runs: none of those variables
    store = dist.FileStore(str(Path(folder) / "store"), 1)  # the rendezvous: a file, for one process
    dist.init_process_group(backend="gloo", store=store, rank=0, world_size=1)
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)  # a sum over one process: the value itself
    assert t.item() == rank + 1 and dist.get_world_size() == 1  # ✓ no-group-fix-single
    dist.destroy_process_group()
assert not dist.is_initialized()  # ✓ no-group-destroyed
os.environ.update(torchrun_vars)  # back as torchrun set them
# --8<-- [end:no-group-fix-single]

# --8<-- [start:no-group-fix]
dist.init_process_group(backend="gloo", timeout=timedelta(seconds=30))  # env://: torchrun's variables
t = torch.tensor([float(rank + 1)])  # rank 0: 1.0, rank 1: 2.0
dist.all_reduce(t)
print_rank0(dist.get_world_size(), t.item())  # ✓ no-group-fix
#> 2 3.0
assert t.item() == 3.0
# --8<-- [end:no-group-fix]


# --8<-- [start:unused]
class TwoHeads(nn.Module):
    """A body and an auxiliary head that forward() does not call."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 2)
        self.aux_head = nn.Linear(2, 1)  # built, never used

    def forward(self, x):
        return self.body(x)


torch.manual_seed(0)  # the same initial weights on both ranks (DDP also broadcasts rank 0's)
model = DDP(TwoHeads())
x = torch.randn(8, 4, generator=torch.Generator().manual_seed(rank))  # each rank its own data
model(x).sum().backward()  # iteration 1: no error ✓ unused-first
try:
    output = model(x)  # iteration 2: the forward raises
except RuntimeError as err:
    message = str(err)
    if rank == 0:
        print(f"{type(err).__name__}: {message.split('. ', maxsplit=1)[0]}.")  # ✓ unused-message
        #> RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.
        print(message[message.index("Parameter indices"):].splitlines()[0])  # ✓ unused-indices
        #> Parameter indices which did not receive grad for rank 0: 2 3
    assert f"Parameter indices which did not receive grad for rank {rank}: 2 3" in message  # each rank: its own ✓ unused-indices
# --8<-- [end:unused]

# --8<-- [start:unused-why]
names = [name for name, _ in model.named_parameters()]
print_rank0({i: names[i] for i in (2, 3)})  # the parameters the message counts: the unused head's ✓ unused-names
#> {2: 'module.aux_head.weight', 3: 'module.aux_head.bias'}
assert model.module.aux_head.weight.grad is None and model.module.body.weight.grad is not None  # ✓ unused-no-grad
assert "passing the keyword argument `find_unused_parameters=True`" in message  # ✓ unused-hints
assert "making sure all `forward` function outputs participate in calculating loss" in message
assert "TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters" in message
# --8<-- [end:unused-why]

# --8<-- [start:unused-fix]
torch.manual_seed(0)
model = DDP(TwoHeads(), find_unused_parameters=True)  # DDP looks for the parameters forward left out
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    optimizer.zero_grad()
    model(x).sum().backward()
    optimizer.step()
grads = [None, None]
dist.all_gather_object(grads, model.module.body.weight.grad)  # every rank's gradient, on every rank
print_rank0(torch.equal(grads[0], grads[1]), model.module.aux_head.weight.grad)  # ✓ unused-fix
#> True None
column_sums = [None, None]
dist.all_gather_object(column_sums, x.sum(dim=0))  # each rank's own gradient of sum(body(x)) w.r.t. a weight row
assert torch.allclose(grads[0], (column_sums[0] + column_sums[1]).expand(2, 4) / 2)  # the mean, not the sum ✓ unused-fix
assert torch.equal(model.module.body.bias.grad, torch.full((2,), 8.0))  # the bias: 8 on each rank, not the sum 16
weights = [None, None]
dist.all_gather_object(weights, model.module.body.weight.detach())
assert torch.equal(weights[0], weights[1])  # three steps later the ranks still hold one model ✓ unused-fix-weights
assert isinstance(model.module, TwoHeads) and not hasattr(model, "body")  # DDP, too, keeps the model as .module ✓ ddp-module
# --8<-- [end:unused-fix]

# --8<-- [start:skipped]
group = dist.new_group(timeout=timedelta(seconds=1))  # a 1 s timeout, for this page only
t = torch.ones(1)
if rank == 0:  # rank 1 skips the all_reduce, as after an early `break` or `continue` on one rank
    try:
        dist.all_reduce(t, group=group)
    except RuntimeError as err:
        print(f"{type(err).__name__}: {str(err).split('] ')[-1]}")  # ✓ skipped-message
        #> RuntimeError: Timed out waiting 1000ms for recv operation to complete
        source_file, line = str(err).split("] ")[0].removeprefix("[").rsplit(":", 1)  # gloo's file:line, left out
        assert "gloo" in source_file and source_file.endswith(".cc") and line.isdigit()  # ✓ skipped-prefix
dist.barrier()  # the default group: both ranks meet again here
# --8<-- [end:skipped]

# --8<-- [start:skipped-why]
print_rank0(dist.constants.default_pg_timeout)  # ✓ skipped-default
#> 0:30:00
doc = " ".join(dist.init_process_group.__doc__.split())
assert "Default value is 10 minutes for NCCL and 30 minutes for other backends." in doc  # ✓ skipped-default-doc
assert dist.constants.default_pg_nccl_timeout == timedelta(minutes=10)  # NCCL's own default ✓ skipped-default-doc
monitored_doc = " ".join(dist.monitored_barrier.__doc__.split())
assert "Note that this collective is only supported with the GLOO backend." in monitored_doc  # ✓ monitored-gloo-only
assert dist.Backend.backend_capability["nccl"] == ["cuda"]  # NCCL serves CUDA tensors only ✓ nccl-cuda-only
cuda_only = dist.new_group(backend="cuda:gloo")  # a group with a backend for CUDA tensors only, as an NCCL group has
try:
    dist.monitored_barrier(group=cuda_only, timeout=timedelta(seconds=1))
except ValueError as err:  # refused on every rank, before any rank waits
    print_rank0(f"{type(err).__name__}: {err}")  # ✓ monitored-gloo-only ✓ monitored-refused
#> ValueError: monitored_barrier requires a group with a CPU-capable backend (e.g. GLOO).
checkpoint = dist.new_group(backend="gloo")  # a gloo group for monitored_barrier, in an NCCL job too ✓ monitored-gloo-group
if rank == 0:  # again, rank 1 does not come
    try:
        dist.monitored_barrier(group=checkpoint, timeout=timedelta(seconds=1))
    except RuntimeError as err:
        print(f"{type(err).__name__}: {str(err).splitlines()[0]}")  # names the missing rank ✓ skipped-monitored
        #> RuntimeError: [Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms
dist.barrier()
# --8<-- [end:skipped-why]

# --8<-- [start:skipped-fix]
t = torch.ones(1)
dist.all_reduce(t)  # every rank calls it
results = [None, None]
dist.all_gather_object(results, t.item())
print_rank0(results)  # ✓ skipped-fix
#> [2.0, 2.0]
dist.destroy_process_group()
# --8<-- [end:skipped-fix]

# --8<-- [start:env-rank]
launch_vars = {name: os.environ.pop(name) for name in ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]}
try:  # as `python train.py` runs: none of torchrun's variables
    dist.init_process_group(backend="gloo")  # no init_method: env://, the default
except ValueError as err:
    print_rank0(f"{type(err).__name__}: {err}")  # ✓ env-rank-message
#> ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set
os.environ["RANK"] = "0"
try:
    dist.init_process_group(backend="gloo")
except ValueError as err:
    print_rank0(str(err).split(": ")[-1])  # the next one it looks for ✓ env-rank-next
#> environment variable WORLD_SIZE expected, but not set
os.environ["WORLD_SIZE"] = launch_vars["WORLD_SIZE"]
for name in ["MASTER_ADDR", "MASTER_PORT"]:  # then where to meet: rank 0's address and port
    missing = "nothing"
    try:
        dist.init_process_group(backend="gloo")
    except ValueError as err:
        missing = str(err).split(": ")[-1]
    assert missing == f"environment variable {name} expected, but not set"  # ✓ env-rank-where
    os.environ[name] = launch_vars[name]
os.environ.update(launch_vars)  # back as torchrun set them
# --8<-- [end:env-rank]

# --8<-- [start:env-rank-fix]
print_rank0({name: os.environ[name] for name in ["RANK", "WORLD_SIZE", "LOCAL_RANK"]})  # what torchrun sets ✓ env-rank-torchrun
#> {'RANK': '0', 'WORLD_SIZE': '2', 'LOCAL_RANK': '0'}
store = dist.TCPStore("127.0.0.1", 0, world_size=1, is_master=True, timeout=timedelta(seconds=30))  # port 0: any free one
dist.init_process_group(backend="gloo", store=store, rank=0, world_size=1)  # or say it all, without torchrun
assert dist.get_world_size() == 1 and dist.get_rank() == 0  # one process, on its own ✓ env-rank-fix
dist.destroy_process_group()
# --8<-- [end:env-rank-fix]

# --8<-- [start:address-in-use]
busy = socket.socket()
busy.bind(("127.0.0.1", 0))  # another job's store, holding a port
busy.listen()
port = busy.getsockname()[1]
try:
    dist.TCPStore("127.0.0.1", port, world_size=1, is_master=True, timeout=timedelta(seconds=5))
except RuntimeError as err:  # DistNetworkError is a RuntimeError
    print_rank0(f"{type(err).__name__}: {err}".replace(str(port), "<port>"))  # ✓ address-message
#> DistNetworkError: The server socket has failed to listen on any local network address. port: <port>, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use
assert issubclass(dist.DistNetworkError, RuntimeError)  # ✓ address-message
busy.close()
# --8<-- [end:address-in-use]

# --8<-- [start:address-in-use-fix]
store = dist.TCPStore("127.0.0.1", 0, world_size=1, is_master=True, timeout=timedelta(seconds=5))  # port 0: a free one
assert store.port not in (0, port)  # the port it got, to pass to the other processes ✓ address-fix
store.set("ready", "yes")
assert store.get("ready") == b"yes"  # ✓ address-fix
job_args = torch.distributed.run.get_args_parser().parse_args(["--master_port=29501", "train.py"])
assert job_args.master_port == 29501  # torchrun's option: this job's own port ✓ address-port
del store
# --8<-- [end:address-in-use-fix]

# --8<-- [start:dataparallel]
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


wrapped = nn.DataParallel(Net())  # the model is now wrapped.module
try:
    head = wrapped.fc  # the layer, as code written for the plain model reaches it
except AttributeError as err:
    print_rank0(f"{type(err).__name__}: {err}")  # ✓ dataparallel-message
#> AttributeError: 'DataParallel' object has no attribute 'fc'
resnet = torchvision.models.resnet18()  # a plain model, trained without DataParallel
try:
    state = resnet.module.state_dict()  # code written for the wrapped model, run on a plain one
except AttributeError as err:
    print_rank0(f"{type(err).__name__}: {err}")  # the message names the model's class ✓ dataparallel-module
#> AttributeError: 'ResNet' object has no attribute 'module'
# --8<-- [end:dataparallel]

# --8<-- [start:dataparallel-fix]
assert wrapped.module.fc is wrapped.module.fc and isinstance(wrapped.module.fc, nn.Linear)  # ✓ dataparallel-fix
for model in (wrapped, Net()):
    inner = getattr(model, "module", model)  # the model itself, wrapped or not
    assert isinstance(inner, Net)  # ✓ dataparallel-fix-either
    assert torch.equal(model(torch.ones(3, 4)), inner.fc(torch.ones(3, 4)))  # both run the same layer ✓ dataparallel-fix-either
assert getattr(resnet, "module", resnet) is resnet  # the plain ResNet: itself ✓ dataparallel-fix-either
# --8<-- [end:dataparallel-fix]

# --8<-- [start:replica]
class Broken(nn.Module):
    """A model whose forward has a bug: 4 features viewed as rows of 3."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x.view(-1, 3))


batch = torch.ones(2, 4)
try:
    Broken()(batch)  # what DataParallel runs in a thread per GPU, on its replica of the model
except RuntimeError:
    caught = ExceptionWrapper(where="in replica 0 on device 0")  # what the thread keeps of the error
try:
    caught.reraise()  # DataParallel raises it again in the main thread
except RuntimeError as err:
    lines = str(err).splitlines()
    print_rank0(f"{type(err).__name__}: {lines[0]}")  # ✓ replica-message
#> RuntimeError: Caught RuntimeError in replica 0 on device 0.
    print_rank0(lines[1])
#> Original Traceback (most recent call last):
    print_rank0(lines[-1])  # the last line of the replica's own traceback: the real error ✓ replica-real
#> RuntimeError: shape '[-1, 3]' is invalid for input of size 8
apply_source = inspect.getsource(torch.nn.parallel.parallel_apply)
assert 'where=f"in replica {i} on device {device}"' in apply_source  # DataParallel's own words ✓ replica-source
assert "threading.Thread(" in apply_source  # a thread per replica ✓ replica-source
assert "Caught {self.exc_type.__name__} {self.where}.\\nOriginal {self.exc_msg}" in inspect.getsource(ExceptionWrapper)  # ✓ replica-source
# --8<-- [end:replica]

# --8<-- [start:replica-fix]
messages = []
for model in (nn.DataParallel(Broken()), nn.DataParallel(Broken()).module, Broken()):
    try:
        model(batch)  # with no GPU, DataParallel calls the model itself: no replica, no wrapper
    except RuntimeError as err:
        messages.append(str(err))
print_rank0(messages[0])  # ✓ replica-fix
#> shape '[-1, 3]' is invalid for input of size 8
assert messages == [messages[0]] * 3  # wrapped or not, the same error, with its own traceback ✓ replica-fix
forward_source = inspect.getsource(nn.DataParallel.forward)
assert "if len(self.device_ids) == 1:" in forward_source  # one GPU: the module itself, no replica ✓ replica-one-gpu
assert "return self.module(*inputs[0], **module_kwargs[0])" in forward_source  # ✓ replica-one-gpu
# --8<-- [end:replica-fix]

# --8<-- [start:local-rank]
launcher = inspect.getsource(torch.distributed.run.config_from_args)  # the command each process gets
assert 'cmd_args.append(f"--local-rank={macros.local_rank}")' in launcher  # unless use_env ✓ local-rank-launch
assert torch.distributed.launch.parse_args(["train.py"]).use_env is False  # torch.distributed.launch: the argument ✓ local-rank-launch
torchrun_args = torch.distributed.run.get_args_parser().parse_args(["train.py"])  # as torchrun parses its command line
assert torch.distributed.run.get_use_env(torchrun_args) is True  # torchrun: use_env, no argument ✓ local-rank-launch
launch_doc = " ".join(torch.distributed.run.__doc__.split())  # its documentation, on one line
assert "From PyTorch 2.0.0 onwards, the dashed ``--local-rank`` is preferred over the previously used underscored ``--local_rank``." in launch_doc  # ✓ local-rank-launch
old_style = argparse.ArgumentParser(prog="train.py")
old_style.add_argument("--local_rank", type=int, default=0)  # what torch.distributed.launch used to pass
errors = io.StringIO()
with contextlib.redirect_stderr(errors):
    try:
        old_style.parse_args(["--local-rank=0"])  # what it passes from torch 2.0 on
    except SystemExit as exit_code:
        print_rank0(errors.getvalue().splitlines()[-1], exit_code.code)  # argparse exits with 2 ✓ local-rank-message
#> train.py: error: unrecognized arguments: --local-rank=0 2
new_style = argparse.ArgumentParser(prog="train.py")
new_style.add_argument("--local-rank", type=int, default=0)  # the other way round
errors = io.StringIO()
with contextlib.redirect_stderr(errors):
    try:
        new_style.parse_args(["--local_rank=0"])  # what torch.distributed.launch passed before torch 2.0
    except SystemExit:
        print_rank0(errors.getvalue().splitlines()[-1])  # ✓ local-rank-reverse
#> train.py: error: unrecognized arguments: --local_rank=0
# --8<-- [end:local-rank]

# --8<-- [start:local-rank-fix]
parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--local-rank", "--local_rank", type=int, default=0, dest="local_rank")  # both spellings
assert parser.parse_args(["--local-rank=1"]).local_rank == parser.parse_args(["--local_rank=1"]).local_rank == 1  # ✓ local-rank-fix
assert int(os.environ["LOCAL_RANK"]) == rank  # or read it from the environment: torchrun sets it ✓ local-rank-env
# --8<-- [end:local-rank-fix]

# --8<-- [start:no-nccl]
c10d_source = inspect.getsource(dist.distributed_c10d)
raising = [line.strip() for line in c10d_source.splitlines() if "NCCL built in" in line]
print_rank0(raising[0])  # where torch raises it ✓ no-nccl-message
#> raise RuntimeError("Distributed package doesn't have NCCL built in")
assert set(raising) == {'raise RuntimeError("Distributed package doesn\'t have NCCL built in")'}  # ✓ no-nccl-source
c10d_lines = c10d_source.splitlines()
guards = {c10d_lines[i - 1].strip() for i, line in enumerate(c10d_lines) if "NCCL built in" in line}
assert guards == {"if not is_nccl_available():"}  # each raise sits right under that test ✓ no-nccl-source
no_nccl = "no error"
without_nccl = mock.patch.object(dist.distributed_c10d, "is_nccl_available", return_value=False)  # as such a build
with tempfile.TemporaryDirectory() as folder, without_nccl:
    try:
        nccl_store = dist.FileStore(str(Path(folder) / "store"), 1)
        dist.init_process_group(backend="nccl", store=nccl_store, rank=0, world_size=1)
    except RuntimeError as err:
        no_nccl = f"{type(err).__name__}: {err}"
assert no_nccl == "RuntimeError: Distributed package doesn't have NCCL built in"  # ✓ no-nccl-init
assert not dist.is_initialized()  # no group was made
print_rank0(dist.is_nccl_available(), dist.is_gloo_available())  # this torch (Linux, CUDA): both ✓ no-nccl-available
#> True True
assert sys.platform == "linux" and torch.version.cuda is not None  # a Linux build with CUDA ✓ no-nccl-available
# --8<-- [end:no-nccl]

# --8<-- [start:no-nccl-fix]
with tempfile.TemporaryDirectory() as folder:
    store = dist.FileStore(str(Path(folder) / "store"), 1)
    dist.init_process_group(backend="gloo", store=store, rank=0, world_size=1)  # gloo, not nccl
    t = torch.tensor([float(rank + 1)])  # a CPU tensor: gloo reduces CPU tensors
    dist.all_reduce(t)
    assert dist.get_backend() == "gloo" and t.item() == rank + 1  # ✓ no-nccl-fix
    dist.destroy_process_group()
# --8<-- [end:no-nccl-fix]

# --8<-- [start:nccl-error]
def loaded_library(name: str) -> str:
    """The file of a shared library this process has loaded (Linux: /proc/self/maps)."""
    maps = Path("/proc/self/maps").read_text().splitlines()
    return next(line.split()[-1] for line in maps if f"/{name}" in line)


def library_text(path: str, fragment: bytes) -> str:
    """The first text (NUL-terminated) of a library file that holds `fragment`: "" if none."""
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = data.find(fragment)
        return "" if at == -1 else data[data.rfind(b"\0", 0, at) + 1 : data.find(b"\0", at)].decode()


nccl = ctypes.CDLL(loaded_library("libnccl.so"))  # the NCCL library torch loaded
nccl.ncclGetErrorString.restype = ctypes.c_char_p
print_rank0(nccl.ncclGetErrorString(2).decode())  # NCCL's own words for its error code 2 ✓ nccl-error-2
#> unhandled system error (run with NCCL_DEBUG=INFO for details)
torch_cuda = loaded_library("libtorch_cuda.so")
print_rank0([library_text(torch_cuda, prefix) for prefix in (b"NCCL Error ", b"NCCL error in: ")])  # ✓ nccl-prefixes
#> ['NCCL Error ', 'NCCL error in: ']
print_rank0(library_text(torch_cuda, b"ncclSystemError: ").strip())  # what torch adds about code 2 ✓ nccl-system-call
#> ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
# --8<-- [end:nccl-error]

# --8<-- [start:nccl-error-fix]
nccl_file = loaded_library("libnccl.so")
variables = ["NCCL_DEBUG", "NCCL_SOCKET_IFNAME", "NCCL_SHM_DISABLE", "NCCL_P2P_DISABLE"]
assert all(library_text(nccl_file, name.encode()).startswith(name) for name in variables)  # NCCL reads them ✓ nccl-variables
print_rank0(library_text(nccl_file, b"/dev/shm/nccl-"))  # where NCCL puts its shared memory ✓ nccl-shm
#> /dev/shm/nccl-%.6s
# --8<-- [end:nccl-error-fix]
