"""pin_memory=True where CUDA is present: what gets pinned, and non_blocking copies.

Page: docs/data/pinned_memory.md (CUDA half; the CPU half is pinned_memory.py)
Only asserts, no prints: the claims hold on any CUDA machine.
"""
# requires: cuda

from pathlib import Path

import torch
from torch.utils.data import DataLoader, TensorDataset

# Hidden: the page shows SimpleCustomBatch once, in pinned_memory.py's `custom-batch`
# section (the page program gets it from there). Run that same section here, so that
# this file also runs on its own without a second copy of the class.
_cpu_half = Path(__file__).with_name("pinned_memory.py")
_lines = _cpu_half.read_text(encoding="utf-8").splitlines()
_mark = "# --8<-- [{}:custom-batch]"  # the section's marker lines, start and end
exec("\n".join(_lines[_lines.index(_mark.format("start")) + 1 : _lines.index(_mark.format("end"))]))


# --8<-- [start:types]
class BatchWithoutPinMethod:
    """The same two fields, but no pin_memory() method."""

    def __init__(self, data):
        batch = SimpleCustomBatch(data)  # noqa: F821 (defined by the section run above)
        self.inp, self.tgt = batch.inp, batch.tgt


dataset = TensorDataset(torch.arange(50.0).view(10, 5), torch.arange(50.0).view(10, 5))
# --8<-- [end:types]

# --8<-- [start:pinned]
default = next(iter(DataLoader(dataset, batch_size=2, pin_memory=True)))
assert all(t.is_pinned() for t in default)  # a list of tensors: pinned ✓ default-pinned
samples = [{"x": torch.ones(2), "y": (torch.zeros(1), [torch.ones(1)])} for _ in range(4)]
nested = next(iter(DataLoader(samples, batch_size=2, pin_memory=True)))  # dicts, tuples, lists
assert all(t.is_pinned() for t in [nested["x"], nested["y"][0], *nested["y"][1]])  # ✓ nested-pinned

custom = next(iter(DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=SimpleCustomBatch)))  # noqa: F821
assert custom.inp.is_pinned() and custom.tgt.is_pinned()  # its pin_memory() was called ✓ custom-pinned

opaque = DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=BatchWithoutPinMethod)
batch = next(iter(opaque))
assert type(batch) is BatchWithoutPinMethod  # unknown type without pin_memory(): returned as it was
assert not batch.inp.is_pinned() and not batch.tgt.is_pinned()  # ✓ opaque-unpinned
rows = torch.arange(50.0).view(10, 5)
assert rows.pin_memory().data_ptr() != rows.data_ptr()  # pinning copies: more host memory ✓ pin-copies
# --8<-- [end:pinned]

# --8<-- [start:non-blocking]
busy = torch.randn(4096, 4096, device="cuda")


def queue_gpu_work() -> None:
    """Queue a burst of matrix products on the current stream; returns before they run."""
    for _ in range(50):
        busy @ busy


x = custom.inp  # pinned
queue_gpu_work()
y = x.to("cuda", non_blocking=True)  # queued behind the work: returns before the data has arrived
assert not torch.cuda.current_stream().query()  # the stream still has work to do ✓ returns-early
torch.cuda.current_stream().synchronize()  # wait before the host changes or reuses x
assert y.is_cuda and torch.equal(y.cpu(), x)  # ✓ synced-equal

queue_gpu_work()
y = x.to("cuda")  # non_blocking=False: returns only when the copy is done
assert torch.cuda.current_stream().query()  # nothing left on the stream ✓ blocking-done

pageable = torch.arange(50.0).view(10, 5)
assert not pageable.is_pinned()
z = pageable.to("cuda", non_blocking=True)  # allowed from ordinary memory too, same result
torch.cuda.synchronize()
assert torch.equal(z.cpu(), pageable)  # ✓ pageable-same
# --8<-- [end:non-blocking]

# --8<-- [start:faster]
def copy_ms(source: torch.Tensor) -> float:
    """Fastest of 5 host-to-device copies of `source`, in milliseconds (CUDA events)."""
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        source.to("cuda")
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return min(times)


big = torch.ones(64, 1024, 1024)  # 256 MiB of float32
assert copy_ms(big.pin_memory()) < copy_ms(big)  # from pinned memory: faster ✓ faster-copy
# --8<-- [end:faster]
