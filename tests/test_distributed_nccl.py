"""DDP under NCCL: the training script on two GPUs, and one rank on one GPU.

The CPU/gloo run of the training script is part of tests/test_snippets.py on every
machine. NCCL cannot put two ranks on one GPU, so launching the script needs at
least two GPUs and is skipped, naming the reason, on machines with fewer. What one
GPU can check runs there: a one-rank NCCL process group, a DDP forward and backward
on that GPU, and an all_reduce, launched as torchrun launches one rank. The same
one-rank program runs with gloo on the CPU on every machine, so a mistake in the
program itself fails here first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docverify.contract import snippets as snippet_file
from docverify.run.run_snippet import run_launched

DDP_TRAIN = snippet_file.SNIPPETS_DIR / "distributed" / "ddp_train.py"


@pytest.mark.cuda
@pytest.mark.torchrun
def test_ddp_train_runs_with_nccl_on_two_gpus(tmp_path: Path) -> None:
    import torch

    snippet = snippet_file.load(DDP_TRAIN)
    ranks = int(snippet.launch[1].split("=")[1])  # --nproc_per_node=N
    gpus = torch.cuda.device_count()
    if gpus < ranks:
        pytest.skip(f"NCCL needs one GPU per rank: {ranks} ranks, {gpus} GPU(s) on this machine")

    result = run_launched(snippet, "cuda", tmp_path)

    # The script asserts its own facts on every rank; a clean exit means they held.
    assert result.returncode == 0, (
        f"{snippet.rel} failed under torchrun with NCCL:\n{result.output}"
    )
    printed = result.rank_output(0)
    assert f"backend=nccl world_size={ranks}" in printed
    for fact in [
        "parameters and buffers broadcast from rank 0 when wrapping: True",
        "parameters identical on all ranks after training: True",
        "disjoint True, covering True",
    ]:
        assert fact in printed, printed


# One rank (RANK=0, WORLD_SIZE=1): everything NCCL and DDP need that a single GPU allows.
ONE_RANK = """
# launch: torchrun --nproc_per_node=1
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

backend, device = BACKEND_AND_DEVICE
on_gpu = {"device_id": torch.device("cuda", 0)} if device == "cuda" else {}
if device == "cuda":
    torch.cuda.set_device(0)
dist.init_process_group(backend, timeout=timedelta(seconds=60), **on_gpu)
torch.manual_seed(0)
model = nn.Linear(4, 2).to(device)
ddp = DDP(model, device_ids=[0] if device == "cuda" else None)
x = torch.randn(8, 4, device=device)
ddp(x).sum().backward()
plain = nn.Linear(4, 2).to(device)
plain.load_state_dict(model.state_dict())
plain(x).sum().backward()
# one rank: DDP's averaged gradient is the rank's own gradient
assert torch.allclose(model.weight.grad, plain.weight.grad)
t = torch.tensor([1.0, 3.0], device=device)
dist.all_reduce(t, op=dist.ReduceOp.AVG)
assert t.tolist() == [1.0, 3.0]
print(f"backend={dist.get_backend()} device={t.device.type} world_size={dist.get_world_size()}")
dist.destroy_process_group()
"""


def run_one_rank(tmp_path: Path, backend: str, device: str, program: str = ONE_RANK):
    path = tmp_path / "one_rank.py"
    path.write_text(program.replace("BACKEND_AND_DEVICE", repr((backend, device))), "utf-8")
    return run_launched(snippet_file.load(path), device, tmp_path / "run")


@pytest.mark.torchrun
@pytest.mark.parametrize(
    ("backend", "device"),
    [("gloo", "cpu"), pytest.param("nccl", "cuda", marks=[pytest.mark.cuda])],
)
def test_one_rank_of_ddp_runs_on_one_device(tmp_path: Path, backend: str, device: str) -> None:
    done = run_one_rank(tmp_path, backend, device)
    assert done.returncode == 0, done.output
    assert done.rank_output(0) == f"backend={backend} device={device} world_size=1", done.output


@pytest.mark.torchrun
def test_the_one_rank_program_fails_when_a_check_fails(tmp_path: Path) -> None:
    broken = ONE_RANK.replace("assert t.tolist() == [1.0, 3.0]", "assert t.tolist() == [2.0, 2.0]")
    assert broken != ONE_RANK
    done = run_one_rank(tmp_path, "gloo", "cpu", broken)
    assert done.returncode != 0 and "AssertionError" in done.output
