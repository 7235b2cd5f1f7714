"""The DDP training script under NCCL: one GPU per rank, two ranks.

The CPU/gloo run is part of tests/test_snippets.py on every machine. NCCL cannot
put two ranks on one GPU, so this launch needs at least two GPUs and is skipped,
naming the reason, on machines with fewer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docverify import snippets as snippet_file
from docverify.run_snippet import run_launched

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
