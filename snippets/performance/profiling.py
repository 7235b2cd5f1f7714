"""torch.profiler: record_function, key_averages().table, a Chrome trace, a schedule; and when to time instead.

Page: docs/performance/profiling.md
"""

# --8<-- [start:setup]
import json
import os
import re
import tempfile
import warnings

import torch
from torch import nn
from torch.profiler import (
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)
from torch.utils import benchmark

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
x = torch.randn(32, 64)
# --8<-- [end:setup]

# --8<-- [start:profile]
with warnings.catch_warnings(record=True) as caught:  # torch 2.11 warns here (printed below)
    warnings.simplefilter("always")
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
        with record_function("forward"):  # a named range of your own
            out = model(x)
        with record_function("backward"):
            out.sum().backward()
print([str(w.message).split(".")[0] for w in caught])  # ✓ profile-warnings
#> []

events = prof.key_averages()  # one row per op name: totals over all its calls
calls = {e.key: e.count for e in events}
print({name: calls[name] for name in ["forward", "backward", "aten::linear", "aten::addmm", "aten::relu", "AddmmBackward0"]})  # ✓ counts
#> {'forward': 1, 'backward': 1, 'aten::linear': 2, 'aten::addmm': 2, 'aten::relu': 1, 'AddmmBackward0': 2}
# --8<-- [end:profile]

# --8<-- [start:table]
table = events.table(sort_by="self_cpu_time_total", row_limit=5)  # the five ops with the most time of their own
lines = table.splitlines()
print(re.split(r"\s{2,}", lines[1].strip()))  # the columns (every value in them is a timing, so not shown) ✓ columns
#> ['Name', 'Self CPU %', 'Self CPU', 'CPU total %', 'CPU total', 'CPU time avg', 'CPU Mem', 'Self CPU Mem', '# of Calls']
rows = [re.split(r"\s{2,}", line.strip())[0] for line in lines[3:8]]
by_self_time = sorted(events, key=lambda e: e.self_cpu_time_total, reverse=True)[:5]
# the rows: most self CPU time first (a long name is cut short, ending in "...")
assert all(e.key.startswith(row.removesuffix("...")) for row, e in zip(rows, by_self_time, strict=True))  # ✓ sorted
assert lines[-1].startswith("Self CPU time total:")  # ✓ total-line
forward = next(e for e in events if e.key == "forward")
assert forward.cpu_time_total > forward.self_cpu_time_total  # total: with the ops it called ✓ self-vs-total
assert all(e.cpu_time_total >= e.self_cpu_time_total for e in events)  # ✓ total-includes-self
self_times = []
for _ in range(2):  # the same step twice more, without profile_memory
    with profile(activities=[ProfilerActivity.CPU]) as again:
        with record_function("forward"):
            out = model(x)
        with record_function("backward"):
            out.sum().backward()
    self_times.append({e.key: e.self_cpu_time_total for e in again.key_averages()})
again_events = again.key_averages()
print(re.split(r"\s{2,}", again_events.table(sort_by="self_cpu_time_total").splitlines()[1].strip()))  # no memory columns ✓ memory-columns-need-flag
#> ['Name', 'Self CPU %', 'Self CPU', 'CPU total %', 'CPU total', 'CPU time avg', '# of Calls']
common = sorted(self_times[0].keys() & self_times[1].keys())
assert [self_times[0][k] for k in common] != [self_times[1][k] for k in common]  # same settings and ops, other times ✓ timings-vary
# --8<-- [end:table]

# --8<-- [start:memory-shapes]
by_memory = sorted(events, key=lambda e: e.self_cpu_memory_usage, reverse=True)
print([(e.key, e.self_cpu_memory_usage) for e in by_memory[:2]])  # bytes allocated by the op itself ✓ memory
#> [('aten::mm', 51712), ('aten::addmm', 17664)]
assert dict((e.key, e.self_cpu_memory_usage) for e in events)["aten::addmm"] == (32 * 128 + 32 * 10) * 4  # ✓ addmm-bytes
assert any(e.self_cpu_memory_usage < 0 for e in events)  # allocated minus freed: some ranges free more ✓ memory-net
shapes = [e.input_shapes for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::addmm"]
print(shapes)  # bias, input, weight.T, beta, alpha: one row per distinct shape ✓ shapes
#> [[[128], [32, 64], [64, 128], [], []], [[10], [32, 128], [128, 10], [], []]]
# --8<-- [end:memory-shapes]

# --8<-- [start:chrome-trace]
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "trace.json")
    prof.export_chrome_trace(path)  # open it in chrome://tracing or https://ui.perfetto.dev
    with open(path) as f:
        trace = json.load(f)
ranges = [(e["name"], e["ph"], e["cat"]) for e in trace["traceEvents"] if e["name"] in ("forward", "backward")]
print(ranges)  # ph "X": a complete event, with a start and a duration ✓ trace
#> [('forward', 'X', 'user_annotation'), ('backward', 'X', 'user_annotation')]
assert all({"ts", "dur"} <= e.keys() for e in trace["traceEvents"] if e["name"] in ("forward", "backward"))  # a start, a duration ✓ trace
# --8<-- [end:chrome-trace]

# --8<-- [start:schedule]
with tempfile.TemporaryDirectory() as folder:
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=2, repeat=1),  # skip 1 step, warm up 1, record 2
        on_trace_ready=tensorboard_trace_handler(folder),  # writes one trace per recorded cycle
    ) as prof:
        for step in range(6):
            with record_function(f"train_step_{step}"):
                model(x).sum().backward()
            prof.step()  # tell the profiler a step has ended
    written = os.listdir(folder)
recorded = sorted(e.key for e in prof.key_averages() if e.key.startswith("train_step"))
print(recorded, len(written), written[0].endswith(".pt.trace.json"))  # steps 0 and 1 not recorded ✓ schedule
#> ['train_step_2', 'train_step_3'] 1 True
# --8<-- [end:schedule]

# --8<-- [start:benchmark]
m = benchmark.Timer("model(x)", globals={"model": model, "x": x}).blocked_autorange(min_run_time=0.05)
print(type(m).__name__, m.median > 0, m.number_per_run * len(m.times) >= 100)  # at least 100 runs ✓ timer
#> Measurement True True
# --8<-- [end:benchmark]
