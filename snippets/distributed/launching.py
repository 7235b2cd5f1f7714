"""torchrun versus the old `python -m torch.distributed.launch`: how ranks arrive, on one node and two.

Page: docs/distributed/launching.md
Starts real launchers: two torchrun launchers that simulate two nodes on 127.0.0.1
(forked from this process, their workers forked from them, so that no process imports
torch again), and the old launcher once, as a command line.
"""
# timeout: 120

# --8<-- [start:setup]
import argparse
import contextlib
import inspect
import io
import json
import multiprocessing as mp
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import warnings
from datetime import timedelta
from importlib.metadata import entry_points
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.launch as legacy_launch
import torch.distributed.run as torchrun
from torch.distributed.launcher.api import elastic_launch
from torch.utils.data import TensorDataset
from torch.utils.data.distributed import DistributedSampler

# The command lines shown on the page (docs/distributed/launch_commands.sh):
COMMANDS = [
    "torchrun --standalone --nproc_per_node=2 snippets/distributed/ddp_train.py",
    "torchrun --nnodes=2 --nproc_per_node=4 --node_rank=0 --master_addr=10.0.0.1"
    " --master_port=29500 train.py --epochs 10",
    "torchrun --nnodes=2 --nproc_per_node=4 --node_rank=1 --master_addr=10.0.0.1"
    " --master_port=29500 train.py --epochs 10",
    "torchrun --nnodes=2 --nproc_per_node=4 --rdzv_id=job42 --rdzv_backend=c10d"
    " --rdzv_endpoint=10.0.0.1:29400 train.py --epochs 10",
    "python -m torch.distributed.launch --nproc_per_node=2 main.py",
]
# --8<-- [end:setup]


# --8<-- [start:commands]
def parse(command: str) -> argparse.Namespace:
    """A command line, parsed by the launcher it names."""
    argv = shlex.split(command)
    if argv[0] == "torchrun":
        return torchrun.parse_args(argv[1:])
    assert argv[:3] == ["python", "-m", "torch.distributed.launch"]
    return legacy_launch.parse_args(argv[3:])


def launch_config(args: argparse.Namespace) -> tuple:
    """torchrun's own launch configuration, and what every worker process runs."""
    args.log_dir = os.devnull  # the config would otherwise create a log folder
    config, _, cmd_args = torchrun.config_from_args(args)
    return config, "python " + " ".join(cmd_args)


def worker_command(args: argparse.Namespace) -> str:
    """What the launcher runs in every worker process (torchrun's own code decides)."""
    return launch_config(args)[1]


# The two static lines differ only in the node's rank:
assert COMMANDS[1].replace("--node_rank=0", "--node_rank=1") == COMMANDS[2]  # ✓ node-rank-only
# torchrun.run() turns one node without a master port into a rendezvous on a free local port:
run_source = inspect.getsource(torchrun.run)
assert "and args.master_port is None" in run_source  # ✓ free-port
assert 'args.rdzv_endpoint = "localhost:0"' in run_source
for command in COMMANDS:
    args = parse(command)
    script = [args.training_script, *args.training_script_args]
    cmd = worker_command(args)
    assert cmd.split()[:3] == ["python", "-u", args.training_script]  # ✓ python-u
    if command.startswith("torchrun"):
        assert cmd.split()[2:] == script  # torchrun adds nothing ✓ no-args
    nodes = torchrun.parse_min_max_nnodes(args.nnodes)[1]
    # As torchrun.run() decides: one node and no address given -> a local rendezvous.
    if args.standalone or (nodes == 1 and args.master_port is None):
        where = "rendezvous on localhost, free port"
    elif args.rdzv_backend == "static":
        where = f"node_rank {args.node_rank}, master {args.master_addr}:{args.master_port}"
    else:
        where = f"{args.rdzv_backend} rendezvous at {args.rdzv_endpoint}, id {args.rdzv_id}"
    print(f"{nodes} node(s) x {args.nproc_per_node} processes, {where}\n   each runs:", cmd)  # ✓ commands
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
print("the old launcher's --master_port, not given:", parse(COMMANDS[4]).master_port)  # ✓ master-port-default
#> the old launcher's --master_port, not given: None
# --8<-- [end:commands]

# --8<-- [start:node-rank-c10d]
with contextlib.redirect_stderr(io.StringIO()) as log:  # torchrun logs its warnings there
    given = launch_config(parse(COMMANDS[3].replace("--rdzv_id", "--node_rank=1 --rdzv_id")))
logged = log.getvalue().strip().splitlines()
print(logged[-1].split("] ", 1)[1] if logged else "(no warning)")  # ✓ node-rank-warning
#> node_rank is only used for static rdzv_backend. It will be ignored for rdzv_backend=c10d.
assert given == launch_config(parse(COMMANDS[3]))  # ignored: the same launch ✓ node-rank-ignored
# while with the static rendezvous the node rank is part of the launch:
assert launch_config(parse(COMMANDS[1]))[0].rdzv_configs["rank"] == 0
assert launch_config(parse(COMMANDS[2]))[0].rdzv_configs["rank"] == 1
# --8<-- [end:node-rank-c10d]

# --8<-- [start:two-nodes]
# This section forks (launchers and workers): it runs where the fork start method exists.
assert "fork" in mp.get_all_start_methods(), "no fork here (Windows): see the box on the page"  # ✓ needs-fork


def node_worker() -> None:
    """What every worker runs: join the group, report who it is; rank 0 saves all reports."""
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    sampler = DistributedSampler(TensorDataset(torch.arange(8)), shuffle=False)  # rank: from the group
    names = ["NODE", "RANK", "LOCAL_RANK", "GROUP_RANK", "LOCAL_WORLD_SIZE", "WORLD_SIZE"]
    me = {name: os.environ[name] for name in names}
    me.update(get_rank=dist.get_rank(), shard=list(sampler), env=sorted(os.environ))
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, me)  # across both "nodes"
    if dist.get_rank() == 0:
        Path(os.environ["RESULT"]).write_text(json.dumps(everyone), encoding="utf-8")
    dist.barrier()  # nobody leaves while another rank still needs the group
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


torchrun_command = [e for e in entry_points(group="console_scripts") if e.name == "torchrun"]
assert torchrun_command[0].value == "torch.distributed.run:main"  # what `torchrun` runs ✓ entry-point
# main(argv) runs run(parse_args(argv)), which turns the arguments into a launch
# configuration and hands it, with the script, to torch's launcher API:
main_source = " ".join(inspect.getsource(torchrun.main).split())
assert "args = parse_args(args) run(args)" in main_source  # ✓ main-source
assert "config, cmd, cmd_args = config_from_args(args)" in run_source  # ✓ run-source
assert "elastic_launch(" in run_source and "entrypoint=cmd" in run_source


def node(argv: list[str], name: str) -> None:
    """One "machine": torchrun's steps on argv, with node_worker in place of the script."""
    os.environ["NODE"] = name  # read by the workers, as a host name would be
    config, _script, _script_args = torchrun.config_from_args(torchrun.parse_args(argv))
    assert config.start_method == "fork"  # how the workers of a function entry point start ✓ fork-workers
    elastic_launch(config, entrypoint=node_worker)()  # ✓ node-steps


port = free_port()
with tempfile.TemporaryDirectory() as tmp:
    result = Path(tmp, "ranks.json")
    os.environ.update(OMP_NUM_THREADS="1", RESULT=str(result))  # inherited by the workers
    launch_env = dict(os.environ)
    nodes = []
    for i, command in enumerate(COMMANDS[1:3]):  # the page's two static lines, one per node ✓ static-run
        assert f"--node_rank={i}" in command  # node{i} is the node of rank i
        line = command.replace("10.0.0.1", "127.0.0.1").replace("29500", str(port))
        # 2 workers per node, forked from their launcher: none imports torch again.
        line = line.replace("--nproc_per_node=4", "--nproc_per_node=2 --start-method=fork")
        argv = shlex.split(line)[1:]  # what `torchrun` would get
        # Forked from this process, each launcher does not import torch again either.
        nodes.append(mp.get_context("fork").Process(target=node, args=(argv, f"node{i}")))  # ✓ fork-launchers
        nodes[-1].start()
    for launcher in nodes:
        launcher.join(timeout=45)
    assert [launcher.exitcode for launcher in nodes] == [0, 0]
    ranks = json.loads(result.read_text(encoding="utf-8"))
print("node   RANK LOCAL_RANK GROUP_RANK get_rank() DistributedSampler")
#> node   RANK LOCAL_RANK GROUP_RANK get_rank() DistributedSampler
for r in ranks:
    print(f"{r['NODE']:6} {r['RANK']:>4} {r['LOCAL_RANK']:>10} {r['GROUP_RANK']:>10}"
          f" {r['get_rank']:>10} {r['shard']}")  # ✓ ranks
    #> node0     0          0          0          0 [0, 4]
    #> node0     1          1          0          1 [1, 5]
    #> node1     2          0          1          2 [2, 6]
    #> node1     3          1          1          3 [3, 7]
for r in ranks:
    assert int(r["RANK"]) == int(r["GROUP_RANK"]) * int(r["LOCAL_WORLD_SIZE"]) + int(r["LOCAL_RANK"])  # ✓ rank-formula
    assert r["get_rank"] == int(r["RANK"]) and int(r["WORLD_SIZE"]) == 4  # ✓ world-four
    assert r["GROUP_RANK"] == r["NODE"].removeprefix("node")  # the node's --node_rank ✓ group-rank
    assert r["shard"] == list(range(8))[r["get_rank"] :: 4]  # the sampler's global rank ✓ sampler-rank
assert sorted(r["get_rank"] for r in ranks) == [0, 1, 2, 3]  # global: unique, 0 .. WORLD_SIZE-1 ✓ global-rank
for name in ["node0", "node1"]:  # LOCAL_RANK: 0, 1 on each node ✓ local-rank
    assert sorted(int(r["LOCAL_RANK"]) for r in ranks if r["NODE"] == name) == [0, 1]
shards = [set(r["shard"]) for r in ranks]
assert set.union(*shards) == set(range(8)) and sum(map(len, shards)) == 8  # disjoint, covering ✓ shards
# On the second node, get_rank() is not a GPU index of that machine (0 .. LOCAL_WORLD_SIZE-1):
assert all(r["get_rank"] >= int(r["LOCAL_WORLD_SIZE"]) for r in ranks if r["NODE"] == "node1")  # ✓ not-gpu-index
torchrun_vars = sorted(set(ranks[0]["env"]) - set(launch_env) - {"NODE"})
# --8<-- [end:two-nodes]

# --8<-- [start:legacy-run]
SHOW_ENV = "import json, os, sys\nprint(json.dumps({'argv': sys.argv[1:], 'env': dict(os.environ)}))\n"
legacy_env = {**launch_env}
legacy_env.pop("PYTHONWARNINGS", None)  # let the launcher print its warning normally
with tempfile.TemporaryDirectory() as tmp:
    script = Path(tmp, "show_env.py")
    script.write_text(SHOW_ENV, encoding="utf-8")
    done = subprocess.run(
        # "-u" before "-m": an option of python, not of the launcher
        [sys.executable, "-u", "-m", "torch.distributed.launch", "--nproc_per_node=1"]  # ✓ u-first
        + ["--standalone", str(script)],
        env=legacy_env,
        capture_output=True,
        text=True,
        timeout=45,
        check=True,
    )
report = json.loads(done.stdout.splitlines()[-1])
print("argv:", report["argv"], "| LOCAL_RANK:", report["env"]["LOCAL_RANK"])  # ✓ legacy-argv
#> argv: ['--local-rank=0'] | LOCAL_RANK: 0
warning = next(line for line in done.stderr.splitlines() if "FutureWarning" in line)
print(warning[warning.index("FutureWarning") :])  # ✓ legacy-warning
#> FutureWarning: The module torch.distributed.launch is deprecated
deprecation = ["and will be removed in future", "Use torchrun."]
for phrase in [*deprecation, "--use-env is set by default in torchrun", "os.environ['LOCAL_RANK']"]:
    assert phrase in done.stderr, phrase  # ✓ warning-text
legacy_vars = sorted(set(report["env"]) - set(legacy_env))
print("variables set by the launcher:", legacy_vars)
#> variables set by the launcher: ['GROUP_RANK', 'GROUP_WORLD_SIZE', 'LOCAL_RANK', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT', 'RANK', 'ROLE_NAME', 'ROLE_RANK', 'ROLE_WORLD_SIZE', 'TORCHELASTIC_ERROR_FILE', 'TORCHELASTIC_MAX_RESTARTS', 'TORCHELASTIC_RESTART_COUNT', 'TORCHELASTIC_RUN_ID', 'TORCHELASTIC_SIGNALS_TO_HANDLE', 'TORCHELASTIC_USE_AGENT_STORE', 'TORCH_NCCL_ASYNC_ERROR_HANDLING', 'WORLD_SIZE']
print("the same as torchrun's on the two nodes:", legacy_vars == torchrun_vars)  # ✓ same-vars
#> the same as torchrun's on the two nodes: True
# The old launcher is torchrun's own run() with one more option, --use-env (default off):
assert "from torch.distributed.run import get_args_parser, run" in inspect.getsource(legacy_launch)  # ✓ wrapper
assert legacy_launch.parse_args(["main.py"]).use_env is False  # ✓ use-env-default
options = set(vars(legacy_launch.parse_args(["main.py"])))
assert options - set(vars(torchrun.parse_args(["main.py"]))) == {"use_env"}  # the only one added ✓ only-use-env
# init_process_group's default "env://" reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT:
env_rendezvous = inspect.getsource(dist.rendezvous.__globals__["_env_rendezvous_handler"])
assert all(f'"{name}"' in env_rendezvous for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))  # ✓ env-rendezvous
assert '"LOCAL_RANK"' not in env_rendezvous  # the script reads LOCAL_RANK itself ✓ env-rendezvous
# --8<-- [end:legacy-run]

# --8<-- [start:old-script]
old = argparse.ArgumentParser(prog="main.py")
old.add_argument("--local_rank", type=int, default=0)  # the spelling of old scripts
stderr = io.StringIO()
with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
    old.parse_args(["--local-rank=1"])  # what torch.distributed.launch passes today
print(stderr.getvalue().splitlines()[-1])  # ✓ old-script-error
#> main.py: error: unrecognized arguments: --local-rank=1
print("under torchrun (no argument), every rank gets:", old.parse_args([]).local_rank)  # ✓ old-default
#> under torchrun (no argument), every rank gets: 0
# --8<-- [end:old-script]

# --8<-- [start:fixed-script]
os.environ["LOCAL_RANK"] = "1"  # as torchrun (and the old launcher) set it in rank 1
local_rank = int(os.environ["LOCAL_RANK"])
print("from the environment:", local_rank)  # ✓ from-env
#> from the environment: 1
new = argparse.ArgumentParser(prog="main.py")  # if the argument must stay
new.add_argument("--local-rank", "--local_rank", type=int, default=local_rank)
print([new.parse_args(a).local_rank for a in (["--local-rank=3"], ["--local_rank=2"], [])])  # ✓ both-spellings
#> [3, 2, 1]
# --8<-- [end:fixed-script]

# --8<-- [start:typos]
args = torchrun.parse_args(["—nproc_per_node=2", "main.py"])  # the notes' dash, pasted
print(f"script: {args.training_script!r}, its arguments: {args.training_script_args}")  # ✓ dash-script
#> script: '—nproc_per_node=2', its arguments: ['main.py']
print("processes:", args.nproc_per_node)  # ✓ dash-processes
#> processes: 1
assert torchrun.parse_args(["--nproc-per-node=2", "main.py"]).nproc_per_node == "2"  # also accepted ✓ dash-form
legacy_args = legacy_launch.parse_args(["—nproc_per_node=2", "main.py"])  # the old launcher: the same
assert (legacy_args.training_script, legacy_args.nproc_per_node) == ("—nproc_per_node=2", args.nproc_per_node)  # ✓ dash-legacy
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
        legacy_launch.main(["--nproc_per_node=2", "-u", "main.py"])  # PyCharm's -u
print(stderr.getvalue().splitlines()[-1].split(": ", 1)[1])  # launch's error message ✓ pycharm-error
#> error: unrecognized arguments: -u
print([f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught])  # ✓ pycharm-warning
#> ['FutureWarning: The module torch.distributed.launch is deprecated']
stderr = io.StringIO()
with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
    torchrun.parse_args(["--nproc_per_node=2", "-u", "main.py"])  # the same with torchrun
print(stderr.getvalue().splitlines()[-1].split(": ", 1)[1])  # ✓ torchrun-u
#> error: unrecognized arguments: -u
# --8<-- [end:typos]
