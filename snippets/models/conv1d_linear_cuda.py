"""The notes' GPU timing of Linear, checked: a bare timeit returns before the GPU has finished.

Page: docs/models/conv1d_linear.md
GPU only. It asserts facts and prints nothing: timings vary from run to run.
"""
# requires: cuda

# --8<-- [start:notes-timing]
import timeit

import torch

linear = torch.nn.Linear(256, 512).cuda()  # the notes' layer and input, on the GPU
input = torch.randn((128, 4096, 256)).cuda()  # noqa: A001 - the notes' name
timeit.timeit("_ = linear(input)", number=3, globals=globals())  # warm-up: cuBLAS, allocations
torch.cuda.synchronize()

stream = torch.cuda.current_stream()
bare = timeit.timeit("_ = linear(input)", number=3, globals=globals())  # the notes' measurement
busy_when_timeit_returned = not stream.query()  # query(): has the GPU finished its queue?
torch.cuda.synchronize()


def call_and_wait():
    linear(input)
    torch.cuda.synchronize()  # wait until the GPU has computed the result


waited = timeit.timeit(call_and_wait, number=3)
assert busy_when_timeit_returned  # the bare timeit measured the launches, not the work ✓ gpu-busy
assert waited > bare  # ✓ gpu-waited-longer
# --8<-- [end:notes-timing]
