"""torchrun versus the old `python -m torch.distributed.launch`: how local_rank arrives.

Page: docs/distributed/launching.md
"""

# --8<-- [start:commands]
import argparse
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import torch.distributed.launch as legacy_launch
import torch.distributed.run as torchrun

from docverify.paths import DOCS_DIR

HERE = Path(__file__).resolve().parent
COMMANDS = DOCS_DIR / "distributed" / "launch_commands.sh"  # shown on the page as well


def parse(command: str) -> argparse.Namespace:
    """A command line from docs/distributed/launch_commands.sh, parsed by the launcher it names."""
    argv = shlex.split(command)
    if argv[0] == "torchrun":
        return torchrun.parse_args(argv[1:])
    assert argv[:3] == ["python", "-m", "torch.distributed.launch"]
    return legacy_launch.parse_args(argv[3:])


def worker_command(args: argparse.Namespace) -> str:
    """What the launcher runs in every worker process (torchrun's own code decides)."""
    args.log_dir = os.devnull  # the config would otherwise create a log folder
    _, _, cmd_args = torchrun.config_from_args(args)
    return "python " + " ".join(cmd_args)


for line in COMMANDS.read_text(encoding="utf-8").splitlines():
    if line.strip() and not line.startswith("#"):
        args = parse(line)
        nodes = torchrun.parse_min_max_nnodes(args.nnodes)[1]
        # As torchrun.run() decides: one node and no address given -> a local rendezvous.
        if args.standalone or (nodes == 1 and args.master_port is None):
            where = "rendezvous on localhost, free port"
        elif args.rdzv_backend == "static":
            where = f"node_rank {args.node_rank}, master {args.master_addr}:{args.master_port}"
        else:
            where = f"{args.rdzv_backend} rendezvous at {args.rdzv_endpoint}, id {args.rdzv_id}"
        run = worker_command(args)
        print(f"{nodes} node(s) x {args.nproc_per_node} processes, {where}\n   each runs: {run}")
        #> 1 node(s) x 2 processes, rendezvous on localhost, free port
        #>    each runs: python -u snippets/distributed/ddp_train.py
        #> 2 node(s) x 4 processes, node_rank 0, master 10.0.0.1:29500
        #>    each runs: python -u train.py --epochs 10
        #> 2 node(s) x 4 processes, node_rank 1, master 10.0.0.1:29500
        #>    each runs: python -u train.py --epochs 10
        #> 2 node(s) x 4 processes, c10d rendezvous at 10.0.0.1:29400, id job42
        #>    each runs: python -u train.py --epochs 10
        #> 1 node(s) x 2 processes, rendezvous on localhost, free port
        #>    each runs: python -u main.py --local-rank=${local_rank}
# --8<-- [end:commands]

# --8<-- [start:legacy-run]
parent_env = {**os.environ, "OMP_NUM_THREADS": "1"}
parent_env.pop("PYTHONWARNINGS", None)  # let the launcher print its warning normally
done = subprocess.run(
    [sys.executable, "-m", "torch.distributed.launch", "--nproc_per_node=1", "--standalone"]
    + [str(HERE / "_show_local_rank.py")],
    env=parent_env,
    capture_output=True,
    text=True,
    timeout=60,
    check=True,
)
report = json.loads(done.stdout.splitlines()[-1])
print("argv:", report["argv"], "| LOCAL_RANK:", report["env"]["LOCAL_RANK"])
#> argv: ['--local-rank=0'] | LOCAL_RANK: 0
warning = next(line for line in done.stderr.splitlines() if "FutureWarning" in line)
print(warning[warning.index("FutureWarning") :])
#> FutureWarning: The module torch.distributed.launch is deprecated
added = sorted(set(report["env"]) - set(parent_env))
print("variables set by the launcher:", added)
#> variables set by the launcher: ['GROUP_RANK', 'GROUP_WORLD_SIZE', 'LOCAL_RANK', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT', 'RANK', 'ROLE_NAME', 'ROLE_RANK', 'ROLE_WORLD_SIZE', 'TORCHELASTIC_ERROR_FILE', 'TORCHELASTIC_MAX_RESTARTS', 'TORCHELASTIC_RESTART_COUNT', 'TORCHELASTIC_RUN_ID', 'TORCHELASTIC_SIGNALS_TO_HANDLE', 'TORCHELASTIC_USE_AGENT_STORE', 'TORCH_NCCL_ASYNC_ERROR_HANDLING', 'WORLD_SIZE']
# --8<-- [end:legacy-run]

# --8<-- [start:old-script]
old = argparse.ArgumentParser(prog="main.py")
old.add_argument("--local_rank", type=int, default=0)  # the pre-2.0 spelling
stderr = io.StringIO()
with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
    old.parse_args(["--local-rank=1"])  # what torch.distributed.launch passes today
print(stderr.getvalue().splitlines()[-1])
#> main.py: error: unrecognized arguments: --local-rank=1
print("under torchrun (no argument), every rank gets:", old.parse_args([]).local_rank)
#> under torchrun (no argument), every rank gets: 0
# --8<-- [end:old-script]

# --8<-- [start:fixed-script]
os.environ["LOCAL_RANK"] = "1"  # as torchrun (and the old launcher) set it in rank 1
local_rank = int(os.environ["LOCAL_RANK"])
print("from the environment:", local_rank)
#> from the environment: 1
new = argparse.ArgumentParser(prog="main.py")  # if the argument must stay
new.add_argument("--local-rank", "--local_rank", type=int, default=local_rank)
print([new.parse_args(a).local_rank for a in (["--local-rank=1"], ["--local_rank=1"], [])])
#> [1, 1, 1]
# --8<-- [end:fixed-script]

# --8<-- [start:typos]
args = torchrun.parse_args(["—nproc_per_node=2", "main.py"])  # the notes' dash, pasted
print(f"script: {args.training_script!r}, its arguments: {args.training_script_args}")
#> script: '—nproc_per_node=2', its arguments: ['main.py']
print("processes:", args.nproc_per_node)
#> processes: 1
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
        legacy_launch.main(["--nproc_per_node=2", "-u", "main.py"])  # PyCharm's -u
print(stderr.getvalue().splitlines()[-1].split(": ", 1)[1])  # launch's error message
#> error: unrecognized arguments: -u
print([f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught])
#> ['FutureWarning: The module torch.distributed.launch is deprecated']
# --8<-- [end:typos]
