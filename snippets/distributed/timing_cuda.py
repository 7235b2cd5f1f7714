"""Timing GPU code: asynchronous launches, all streams, warm-up, CUDA events, benchmark.Timer, unsynchronised timeit.

Page: docs/distributed/timing.md
GPU only. It asserts ratios of times measured in the same run and prints
nothing: timings vary from run to run and from GPU to GPU.
"""
# requires: cuda

# --8<-- [start:gpu-setup]
import subprocess
import sys
import time
import timeit

import torch
from torch.utils import benchmark

torch.manual_seed(0)
a = torch.randn(4096, 4096, device="cuda")
_ = a @ a  # warm-up: the first matmul also initialises cuBLAS
torch.cuda.synchronize()
# --8<-- [end:gpu-setup]

# --8<-- [start:async]
stream = torch.cuda.current_stream()
start = time.perf_counter()
for _ in range(20):
    b = a @ a  # queued on the GPU; Python moves on at once
launched = time.perf_counter() - start
busy_after_loop = not stream.query()  # query(): has the stream finished its queue?
wait_start = time.perf_counter()  # a clock started without synchronize() first...
torch.cuda.synchronize()  # block until the queue is done
waited = time.perf_counter() - wait_start  # ...counts the loop's queued work
assert busy_after_loop  # the loop "ended" while the GPU was still computing ✓ queued
assert stream.query() and waited > 2 * launched  # waiting takes over twice the loop ✓ waited
# --8<-- [end:async]

# --8<-- [start:first-call]
FIRST_CALL = """
import time, torch
a = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
def timed_matmul():
    start = time.perf_counter()
    a @ a
    torch.cuda.synchronize()
    return time.perf_counter() - start
first = timed_matmul()  # this process's first matrix product
later = sorted(timed_matmul() for _ in range(21))[10]  # the median of the next 21
print(first / later)
"""
# A fresh process: in this one, cuBLAS has long been initialised.
done = subprocess.run(
    [sys.executable, "-c", FIRST_CALL], capture_output=True, text=True, timeout=120, check=True
)
assert float(done.stdout) > 2  # the first call is more than twice as slow as the later ones ✓ first-call
# --8<-- [end:first-call]

# --8<-- [start:all-streams]
side = torch.cuda.Stream()  # a second stream on the same device
side.wait_stream(torch.cuda.current_stream())  # start after the work queued so far
with torch.cuda.stream(side):
    for _ in range(20):
        c = a @ a  # queued on the side stream, not on the current one
torch.cuda.current_stream().synchronize()  # waits for the current stream only...
side_busy = not side.query()  # ...so the side stream is still computing
torch.cuda.synchronize()  # waits for every stream on the current device
assert side_busy and side.query()  # ✓ all-streams
# --8<-- [end:all-streams]

# --8<-- [start:events]
start_event = torch.cuda.Event(enable_timing=True)
end_event = torch.cuda.Event(enable_timing=True)
wall_start = time.perf_counter()
start_event.record()  # a marker in the stream, timestamped when the GPU reaches it
for _ in range(20):
    b = a @ a
end_event.record()
read_too_early = "returned"
try:
    start_event.elapsed_time(end_event)  # the GPU has not reached the end marker yet
except RuntimeError:
    read_too_early = "RuntimeError"
end_event.synchronize()  # wait for the end marker only
wall_ms = 1000 * (time.perf_counter() - wall_start)
gpu_ms = start_event.elapsed_time(end_event)  # milliseconds between the two markers
assert read_too_early == "RuntimeError"  # ✓ too-early
assert 0.5 < gpu_ms / wall_ms <= 1.05  # milliseconds, like wall_ms ✓ events-ms

# An idle GPU reaches a marker as soon as it is recorded: Python's time in between counts.
wall_start = time.perf_counter()
start_event.record()
time.sleep(0.05)  # Python works; nothing queued on the GPU
end_event.record()
end_event.synchronize()
wall_ms = 1000 * (time.perf_counter() - wall_start)
assert 0.8 < start_event.elapsed_time(end_event) / wall_ms <= 1.05  # ✓ events-idle
# --8<-- [end:events]

# --8<-- [start:timer]
m = benchmark.Timer("a @ a", globals={"a": a}).blocked_autorange(min_run_time=0.2)
assert m.median > 0  # seconds per run, with the GPU synchronised around each block
assert stream.query()  # nothing left running after the Timer returns ✓ timer-gpu
# --8<-- [end:timer]

# --8<-- [start:timeit-unsynced]
notes_linear = torch.nn.Linear(256, 512).to("cuda")
small = torch.randn(128, 512, 256, device="cuda")
large = torch.randn(128, 4096, 256, device="cuda")  # the notes' size: 8 times the work


def seconds(inp: torch.Tensor, synchronize: bool) -> float:
    torch.cuda.synchronize()  # start with an empty queue
    total = timeit.timeit(lambda: notes_linear(inp), number=3)  # as in the notes
    if synchronize:
        start = time.perf_counter()
        torch.cuda.synchronize()  # add the time the queued work still needs
        total += time.perf_counter() - start
    return total


with torch.no_grad():
    for inp in (small, large):
        notes_linear(inp)  # warm-up
    launch_small, launch_large = (min(seconds(i, False) for _ in range(5)) for i in (small, large))
    done_small, done_large = (min(seconds(i, True) for _ in range(5)) for i in (small, large))
assert launch_large < done_large / 10  # unsynchronised: mostly the launches ✓ launch-only
assert done_large / done_small > 3  # 8 times the work takes several times longer... ✓ work-scales
assert launch_large / launch_small < (done_large / done_small) / 2  # ...launching it does not ✓ launch-ratio
# --8<-- [end:timeit-unsynced]
