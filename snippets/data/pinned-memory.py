"""Custom batches (collate_fn) and pin_memory=True on a machine without an accelerator.

Page: docs/data/pinned-memory.md
The CUDA half of the page is snippets/data/pinned-memory-cuda.py.
"""

import warnings
from unittest import mock

import torch
from torch.utils.data import DataLoader, TensorDataset

from ptnotes.data_batches import SimpleCustomBatch, collate_wrapper  # shown above

# --8<-- [start:dataset]
inps = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
tgts = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
dataset = TensorDataset(inps, tgts)
# --8<-- [end:dataset]

# --8<-- [start:collate]
print(dataset[0])  # one sample: a tuple (input row, target row)
#> (tensor([0., 1., 2., 3., 4.]), tensor([0., 1., 2., 3., 4.]))
plain = next(iter(DataLoader(dataset, batch_size=2)))  # default collate: a list of 2 tensors
custom = next(iter(DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper)))
print(type(plain).__name__, type(custom).__name__)
#> list SimpleCustomBatch
print(custom.inp)
#> tensor([[0., 1., 2., 3., 4.],
#>         [5., 6., 7., 8., 9.]])
assert isinstance(custom, SimpleCustomBatch)
assert torch.equal(custom.inp, plain[0]) and torch.equal(custom.tgt, plain[1])
# --8<-- [end:collate]


# --8<-- [start:no-accelerator]
def load_epoch(loader: DataLoader) -> tuple[list, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = list(loader)
    return batches, [str(w.message) for w in caught]


loader = DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper, pin_memory=True)
# On a machine without an accelerator (the one that checks this page) the patch
# changes nothing; on a GPU machine it shows what the same code does without one.
with mock.patch("torch.accelerator.is_available", return_value=False):
    batches, messages = load_epoch(loader)
print(messages)  # one warning per epoch (per iter(loader)), not an error
#> ["'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used."]
print([(b.inp.is_pinned(), b.tgt.is_pinned()) for b in batches])  # nothing pinned
#> [(False, False), (False, False), (False, False), (False, False), (False, False)]
# --8<-- [end:no-accelerator]

# --8<-- [start:pin-by-hand]
if not torch.accelerator.is_available():
    try:  # pinning by hand needs an accelerator driver: a hard error, not a warning
        torch.zeros(2).pin_memory()
        raise AssertionError("pin_memory() worked without an accelerator")
    except RuntimeError:
        pass
# --8<-- [end:pin-by-hand]
