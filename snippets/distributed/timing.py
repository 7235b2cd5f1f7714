"""Timing PyTorch code: clocks, synchronisation, warm-up, torch.utils.benchmark, timeit.

Page: docs/distributed/timing.md
Runs on CPU and CUDA with the same output: it prints facts, never timings.
"""
# devices: cpu, cuda

# --8<-- [start:setup]
import ast
import inspect
import os
import statistics
import textwrap
import time
import timeit

import torch
from torch import nn
from torch.utils import benchmark

# the test suite sets NOTES_DEVICE to run this page on each device
device = os.environ.get("NOTES_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")  # ✓ device
torch.manual_seed(0)
linear = nn.Linear(256, 512).to(device)
x = torch.randn(64, 256, device=device)
# --8<-- [end:setup]

# --8<-- [start:clocks]
for name in ["time", "perf_counter"]:
    info = time.get_clock_info(name)
    print(f"time.{name}(): monotonic={info.monotonic} adjustable={info.adjustable}")  # ✓ clock-info
    #> time.time(): monotonic=False adjustable=True
    #> time.perf_counter(): monotonic=True adjustable=False
print("timeit.default_timer is time.perf_counter:", timeit.default_timer is time.perf_counter)  # ✓ default-timer
#> timeit.default_timer is time.perf_counter: True
# --8<-- [end:clocks]


# --8<-- [start:timed]
def sync() -> None:
    if device == "cuda":  # requires: cuda
        torch.cuda.synchronize()  # wait until the GPU has finished all queued work


def timed(fn, *, warmup: int = 3, repeat: int = 20) -> float:
    """Median seconds per call: warm-up first, a monotonic clock, synchronised."""
    for _ in range(warmup):  # first calls pay one-off costs
        fn()
    times = []
    for _ in range(repeat):
        sync()  # don't count work queued before the start
        start = time.perf_counter()
        fn()
        sync()  # don't stop the clock before the GPU has finished
        times.append(time.perf_counter() - start)
    return statistics.median(times)


with torch.no_grad():
    seconds = timed(lambda: linear(x))
assert seconds > 0
made = []
timed(lambda: made.append(1), warmup=3, repeat=20)
assert len(made) == 3 + 20  # 3 untimed warm-up calls, then 20 timed ones ✓ timed-calls
# One slow outlier among ten measurements moves the mean, not the median:
assert statistics.median([1.0] * 9 + [50.0]) == 1.0 < statistics.mean([1.0] * 9 + [50.0])  # ✓ median-outlier
# --8<-- [end:timed]

# --8<-- [start:cpu-sync]
body = ast.parse(textwrap.dedent(inspect.getsource(torch.cpu.synchronize))).body[0].body
print("torch.cpu.synchronize() is only a docstring:", len(body) == 1 and isinstance(body[0], ast.Expr))  # ✓ cpu-sync
#> torch.cpu.synchronize() is only a docstring: True
doc = " ".join(torch.cpu.synchronize.__doc__.split())
print(doc[doc.index("N.B.") :])
#> N.B. This function only exists to facilitate device-agnostic code.
# --8<-- [end:cpu-sync]

# --8<-- [start:cuda-sync]
sync_doc = " ".join(torch.cuda.synchronize.__doc__.split())
assert "Wait for all kernels in all streams on a CUDA device to complete." in sync_doc  # ✓ sync-doc
outcome = "returns"  # a usable GPU: it waits for it
try:
    torch.cuda.synchronize()  # unconditionally
except (RuntimeError, AssertionError) as err:  # no usable GPU or driver; a +cpu build
    outcome = f"{type(err).__name__}: {err}"
if torch.cuda.is_available():  # requires: cuda
    assert outcome == "returns"  # ✓ cuda-sync-gpu
elif torch.backends.cuda.is_built():  # this page's CPU runs: a CUDA build without a GPU
    assert outcome.startswith("RuntimeError: "), outcome
    driver = os.path.exists("/proc/driver/nvidia/version")  # Linux: there once the NVIDIA driver is loaded
    expected = "No CUDA GPUs are available" if driver else "Found no NVIDIA driver on your system"
    assert expected in outcome, outcome  # ✓ cuda-sync-no-gpu
# Where the +cpu build's AssertionError comes from:
lazy_init = inspect.getsource(torch.cuda._lazy_init)
assert 'if not hasattr(torch._C, "_cuda_getDeviceCount"):' in lazy_init
assert 'raise AssertionError("Torch not compiled with CUDA enabled")' in lazy_init  # ✓ cpu-build
# --8<-- [end:cuda-sync]

# --8<-- [start:events-doc]
event_doc = " ".join(torch.cuda.Event.__doc__.split())
assert "CUDA events are synchronization markers that can be used to monitor the device's progress," \
    " to accurately measure timing" in event_doc  # ✓ event-doc
assert "Time reported in milliseconds" in torch.cuda.Event.elapsed_time.__doc__  # ✓ elapsed-ms-doc
event_sync_doc = " ".join(torch.cuda.Event.synchronize.__doc__.split())
assert "Waits until the completion of all work currently captured in this event." in event_sync_doc  # ✓ event-sync-doc
# --8<-- [end:events-doc]

# --8<-- [start:benchmark-timer]
calls = 0


def forward() -> None:
    global calls
    calls += 1
    linear(x)


timer = benchmark.Timer(stmt="forward()", globals={"forward": forward}, label="nn.Linear(256, 512)")
with torch.no_grad():
    m = timer.blocked_autorange(min_run_time=0.1)  # warm-up, then blocks of many runs
timed_runs = m.number_per_run * len(m.raw_times)
print(type(m).__name__, "| threads used:", m.task_spec.num_threads)
#> Measurement | threads used: 1
print("calls beyond the timed ones (warm-up):", calls > timed_runs)  # ✓ warmup-calls
#> calls beyond the timed ones (warm-up): True
print("timed blocks add up to min_run_time or more:", sum(m.raw_times) >= 0.1)  # ✓ min-run-time
#> timed blocks add up to min_run_time or more: True
assert m.median > 0 and len(m.times) == len(m.raw_times)  # seconds per run, one per block
shown = repr(m)  # what print(m) shows
assert f"{len(m.times)} measurement" in shown and f"{m.number_per_run} runs" in shown and "1 thread" in shown  # ✓ measurement-counts
# The same Measurement with 1 to 4 blocks: "Median:" from 2 blocks on, the IQR from 4.
shown_for = [repr(benchmark.Measurement(m.number_per_run, [1e-3] * n, m.task_spec)) for n in (1, 2, 3, 4)]
median_iqr = [(False, False), (True, False), (True, False), (True, True)]  # for 1, 2, 3, 4 blocks
assert [("Median: " in r, "IQR: " in r) for r in shown_for] == median_iqr  # ✓ measurement-repr
assert m.iqr >= 0 and m.mean > 0  # the numbers behind it ✓ measurement-numbers
frames_per_second = len(x) / m.median  # inference FPS: the batch's 64 samples over the median seconds per forward
median_per_forward = statistics.median(block / m.number_per_run for block in m.raw_times)  # per block: seconds / runs
assert len(x) == 64 and abs(m.median - median_per_forward) <= 1e-12  # m.median: seconds per forward() call, not per block ✓ fps
calls = 0
with torch.no_grad():
    timer.timeit(number=200)
print("timeit(number=200) ran the statement", calls, "times")  # 200 + a warm-up of 2 ✓ timeit-200
#> timeit(number=200) ran the statement 202 times
# The warm-up is number // 100 runs, at least 2 (a cheap statement, to count them):
for number in (1000, 50):
    counted = []
    benchmark.Timer("counted.append(1)", globals={"counted": counted}).timeit(number=number)
    assert len(counted) == number + max(number // 100, 2)  # 1010, 52 ✓ timeit-warmup-rule
# Any number: the source runs max(number // 100, 2) and drops their time,
# then returns the time of `number` runs only.
timeit_source_lines = [line.strip() for line in inspect.getsource(benchmark.Timer.timeit).splitlines()]
assert "self._timeit(number=max(int(number // 100), 2))" in timeit_source_lines  # ✓ timeit-warmup-source
assert "raw_times=[self._timeit(number=number)]," in timeit_source_lines  # ✓ timeit-warmup-source
# The default clock synchronises the accelerator (a GPU), then reads perf_counter:
clock = inspect.signature(benchmark.Timer).parameters["timer"].default
print(inspect.getsource(clock).strip())  # ✓ timer-clock
#> def timer() -> float:
#>     if torch.accelerator.is_available():
#>         torch.accelerator.synchronize()
#>     return timeit.default_timer()
timer_doc = " ".join(benchmark.Timer.__doc__.split())
assert "The PyTorch Timer is based on `timeit.Timer`" in timer_doc  # ✓ timer-doc
assert "set threadpool size so that comparisons are apples-to-apples" in timer_doc  # ✓ timer-doc-threads
# The threads the statement itself sees: one by default, or what num_threads= asks for.
seen_default, seen_all, seen_3 = [], [], []
count = "seen.append(torch.get_num_threads())"
benchmark.Timer(count, globals={"seen": seen_default, "torch": torch}).timeit(1)
benchmark.Timer(count, globals={"seen": seen_all, "torch": torch}, num_threads=torch.get_num_threads()).timeit(1)
benchmark.Timer(count, globals={"seen": seen_3, "torch": torch}, num_threads=3).timeit(1)  # any number asked for
assert set(seen_default) == {1} and set(seen_all) == {torch.get_num_threads()} and set(seen_3) == {3}  # ✓ threads
autorange_doc = " ".join(benchmark.Timer.blocked_autorange.__doc__.split())
assert "increasing block size until timer overhead is less than 0.1% of the overall" in autorange_doc  # ✓ autorange-doc
# --8<-- [end:benchmark-timer]

# --8<-- [start:timeit-notes]
input = x  # the notes' name (it shadows the built-in input())
total = timeit.timeit("_ = linear(input)", number=3, setup="from __main__ import input, linear")  # ✓ notes-timeit
assert total > 0
per_run = timeit.timeit("linear(x)", number=100, globals={"linear": linear, "x": x}) / 100  # ✓ globals-timeit
assert per_run > 0
# --8<-- [end:timeit-notes]

# --8<-- [start:timeit-total]
clock_now = 0.0  # a fake clock: every run of the statement takes exactly 1 "second"


def one_second() -> None:
    global clock_now
    clock_now += 1.0


def read_clock() -> float:  # the timer timeit reads
    return clock_now


runs = timeit.Timer("one_second()", timer=read_clock, globals=globals()).timeit(number=3)
print("timeit.timeit(number=3) returns", runs, "| the statement ran", int(clock_now), "times")  # ✓ timeit-total
#> timeit.timeit(number=3) returns 3.0 | the statement ran 3 times
for number in (1, 10, 100):  # any number: the total of exactly `number` runs
    clock_now = 0.0
    total_seconds = timeit.timeit("one_second()", timer=read_clock, number=number, globals=globals())
    assert total_seconds == clock_now == number  # ✓ timeit-total-any
timeit_source = inspect.getsource(timeit)  # the whole module: nothing in it waits for a GPU
assert "synchroni" not in timeit_source and "cuda" not in timeit_source.lower()  # ✓ timeit-no-sync
# --8<-- [end:timeit-total]
