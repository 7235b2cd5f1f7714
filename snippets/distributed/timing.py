"""Timing PyTorch code: clocks, synchronisation, warm-up, torch.utils.benchmark, timeit.

Page: docs/distributed/timing.md
Runs on CPU and CUDA with the same output: it prints facts, never timings.
"""
# devices: cpu, cuda

# --8<-- [start:clocks]
import inspect
import time
import timeit

import torch
from torch import nn
from torch.utils import benchmark

from ptnotes.device import notes_device

for name in ["time", "perf_counter"]:
    info = time.get_clock_info(name)
    print(f"time.{name}(): monotonic={info.monotonic} adjustable={info.adjustable}")
    #> time.time(): monotonic=False adjustable=True
    #> time.perf_counter(): monotonic=True adjustable=False
print("timeit.default_timer is time.perf_counter:", timeit.default_timer is time.perf_counter)
#> timeit.default_timer is time.perf_counter: True
# --8<-- [end:clocks]

# --8<-- [start:timed]
device = notes_device()
torch.manual_seed(0)
linear = nn.Linear(256, 512).to(device)
x = torch.randn(64, 256, device=device)


def sync() -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # wait until the GPU has finished queued work


def timed(fn, *, warmup: int = 3, repeat: int = 20) -> float:
    """Median seconds per call: warm-up first, a monotonic clock, synchronised."""
    for _ in range(warmup):  # first calls pay one-off costs (allocation, kernel choice)
        fn()
    times = []
    for _ in range(repeat):
        sync()  # don't count work queued before the start
        start = time.perf_counter()
        fn()
        sync()  # don't stop the clock before the GPU has finished
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


with torch.no_grad():
    seconds = timed(lambda: linear(x))
assert seconds > 0
# --8<-- [end:timed]

# --8<-- [start:benchmark-timer]
timer = benchmark.Timer(
    stmt="linear(x)",
    globals={"linear": linear, "x": x},
    label="nn.Linear(256, 512)",
    description=str(device.type),
)
with torch.no_grad():
    m = timer.blocked_autorange(min_run_time=0.1)  # warm-up, then blocks of many runs
assert m.median > 0 and m.number_per_run >= 1 and len(m.times) >= 1
print(type(m).__name__, "| threads used:", m.task_spec.num_threads)
#> Measurement | threads used: 1
# Its default clock synchronises the accelerator (GPU) before reading perf_counter:
clock = inspect.signature(benchmark.Timer).parameters["timer"].default
print(f"{clock.__module__}.{clock.__name__}", "synchronize" in clock.__code__.co_names)
#> torch.utils.benchmark.utils.timer.timer True
# --8<-- [end:benchmark-timer]

# --8<-- [start:timeit-notes]
input = x  # the notes' name (it shadows the built-in input())
total = timeit.timeit("_ = linear(input)", number=3, setup="from __main__ import input, linear")
assert total > 0  # seconds for all 3 runs together, not per run
per_run = timeit.timeit("linear(x)", number=100, globals={"linear": linear, "x": x}) / 100
assert per_run > 0
# --8<-- [end:timeit-notes]
