"""The notes' custom batch type, shared by the two pinned-memory snippets.

snippets/data/pinned-memory.py (CPU) and pinned-memory-cuda.py (CUDA) both
load batches of this type; docs/data/pinned-memory.md embeds the section below.
"""

import torch


# --8<-- [start:custom-batch]
class SimpleCustomBatch:
    """The notes' example: a batch type of our own, made by collate_fn."""

    def __init__(self, data):
        transposed_data = list(zip(*data, strict=True))  # [(inp, tgt), ...] -> (inps, tgts)
        self.inp = torch.stack(transposed_data[0], 0)
        self.tgt = torch.stack(transposed_data[1], 0)

    # custom memory pinning method on custom type
    def pin_memory(self):
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


# --8<-- [end:custom-batch]
