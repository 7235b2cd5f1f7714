# Launch command lines shown on docs/distributed/launching.md.
# Not a script to run as a whole. How each line is checked:
# - snippets/distributed/launching.py holds the same lines (COMMANDS; the test
#   tests/test_distributed_launch_commands.py fails when they differ), parses
#   each with its launcher's own parser and prints what every worker would run;
# - single-node: tests/test_snippets.py launches ddp_train.py this way;
# - multi-node-static: launching.py runs both lines on one machine, with
#   127.0.0.1, a free port, 2 processes per node and a small worker script;
# - multi-node-rdzv and legacy: parsed only (launching.md says why).

# --8<-- [start:single-node]
# One machine, 2 processes (gloo on CPU, or NCCL with one GPU each):
torchrun --standalone --nproc_per_node=2 snippets/distributed/ddp_train.py
# --8<-- [end:single-node]

# --8<-- [start:multi-node-static]
# Two machines with 4 GPUs each, a fixed master (10.0.0.1). On the master:
torchrun --nnodes=2 --nproc_per_node=4 --node_rank=0 --master_addr=10.0.0.1 --master_port=29500 train.py --epochs 10
# On the second machine: the same, with --node_rank=1:
torchrun --nnodes=2 --nproc_per_node=4 --node_rank=1 --master_addr=10.0.0.1 --master_port=29500 train.py --epochs 10
# --8<-- [end:multi-node-static]

# --8<-- [start:multi-node-rdzv]
# The same with c10d rendezvous: one identical command on every machine.
torchrun --nnodes=2 --nproc_per_node=4 --rdzv_id=job42 --rdzv_backend=c10d --rdzv_endpoint=10.0.0.1:29400 train.py --epochs 10
# --8<-- [end:multi-node-rdzv]

# --8<-- [start:legacy]
# The notes' command (with -- instead of the typographic dash). Deprecated:
python -m torch.distributed.launch --nproc_per_node=2 main.py
# --8<-- [end:legacy]
