"""pin_memory=True where CUDA is present: what gets pinned, and non_blocking copies.

Page: docs/data/pinned-memory.md (CUDA half; the CPU half is pinned-memory.py)
Only asserts, no prints: the claims hold on any CUDA machine.
"""
# requires: cuda

import torch
from torch.utils.data import DataLoader, TensorDataset

from ptnotes.data_batches import SimpleCustomBatch


# --8<-- [start:types]
class BatchWithoutPinMethod:
    """The same two fields, but no pin_memory() method."""

    def __init__(self, data):
        batch = SimpleCustomBatch(data)
        self.inp, self.tgt = batch.inp, batch.tgt


dataset = TensorDataset(torch.arange(50.0).view(10, 5), torch.arange(50.0).view(10, 5))
# --8<-- [end:types]

# --8<-- [start:pinned]
default = next(iter(DataLoader(dataset, batch_size=2, pin_memory=True)))
assert all(t.is_pinned() for t in default)  # lists/tuples/dicts of tensors: pinned

custom = next(iter(DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=SimpleCustomBatch)))
assert custom.inp.is_pinned() and custom.tgt.is_pinned()  # its pin_memory() was called

opaque = DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=BatchWithoutPinMethod)
batch = next(iter(opaque))
assert not batch.inp.is_pinned()  # unknown type without pin_memory(): returned as it was
# --8<-- [end:pinned]

# --8<-- [start:non-blocking]
x = custom.inp
y = x.to("cuda", non_blocking=True)  # async copy: returns before the data has arrived
torch.cuda.current_stream().synchronize()  # wait before the host reads or reuses x
assert y.is_cuda and torch.equal(y.cpu(), x)

pageable = torch.arange(50.0).view(10, 5)
assert not pageable.is_pinned()
z = pageable.to("cuda", non_blocking=True)  # allowed, but staged via a pinned buffer
torch.cuda.synchronize()
assert torch.equal(z.cpu(), pageable)
# --8<-- [end:non-blocking]
