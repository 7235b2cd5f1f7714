"""Timing GPU code: asynchronous launches, synchronize, CUDA events, benchmark.Timer.

Page: docs/distributed/timing.md
GPU only. It asserts facts and prints nothing: timings vary from run to run.
"""
# requires: cuda

import time

import torch
from torch.utils import benchmark

device = torch.device("cuda")
torch.manual_seed(0)
a = torch.randn(4096, 4096, device=device)
_ = a @ a  # warm-up: the first matmul also initialises cuBLAS
torch.cuda.synchronize()

# --8<-- [start:async]
stream = torch.cuda.current_stream()
start = time.perf_counter()
for _ in range(20):
    b = a @ a  # queued on the GPU; Python moves on at once
launched = time.perf_counter() - start
busy_after_loop = not stream.query()  # query(): has the stream finished its queue?
torch.cuda.synchronize()  # block until it has
finished = time.perf_counter() - start
assert busy_after_loop  # the loop "ended" while the GPU was still computing
assert stream.query() and finished > launched
# --8<-- [end:async]

# --8<-- [start:events]
start_event = torch.cuda.Event(enable_timing=True)
end_event = torch.cuda.Event(enable_timing=True)
start_event.record()  # a marker in the stream, timestamped by the GPU
for _ in range(20):
    b = a @ a
end_event.record()
end_event.synchronize()  # wait for the end marker only
gpu_ms = start_event.elapsed_time(end_event)  # milliseconds between the two markers
assert gpu_ms > 0
# --8<-- [end:events]

# --8<-- [start:timer]
m = benchmark.Timer("a @ a", globals={"a": a}).blocked_autorange(min_run_time=0.2)
assert m.median > 0  # seconds per run, with the GPU synchronised around each block
assert stream.query()  # nothing left running after the Timer returns
# --8<-- [end:timer]
