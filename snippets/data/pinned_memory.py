"""Custom batches (collate_fn) and pin_memory=True on a machine without an accelerator.

Page: docs/data/pinned_memory.md
The CUDA half of the page is snippets/data/pinned_memory_cuda.py.
"""

# --8<-- [start:setup]
import warnings
from unittest import mock

import torch
from torch.utils.data import DataLoader, TensorDataset

# --8<-- [end:setup]


# --8<-- [start:custom-batch]
class SimpleCustomBatch:
    """The notes' example: a batch type of our own, made by collate_fn."""

    def __init__(self, data):
        transposed_data = list(zip(*data, strict=True))  # [(inp, tgt), ...] -> (inps, tgts)
        self.inp = torch.stack(transposed_data[0], 0)
        self.tgt = torch.stack(transposed_data[1], 0)

    # custom memory pinning method on custom type
    def pin_memory(self):  # requires: cuda (the loader calls it only where it pins: below)
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


# --8<-- [end:custom-batch]

# --8<-- [start:dataset]
inps = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
tgts = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
dataset = TensorDataset(inps, tgts)
# --8<-- [end:dataset]

# --8<-- [start:collate]
print(dataset[0])  # one sample: a tuple (input row, target row) ✓ one-sample
#> (tensor([0., 1., 2., 3., 4.]), tensor([0., 1., 2., 3., 4.]))
as_given = next(iter(DataLoader(dataset, batch_size=2, collate_fn=lambda samples: samples)))
print(type(as_given).__name__, len(as_given), type(as_given[0]).__name__)  # what collate_fn gets ✓ collate-gets
#> list 2 tuple
plain = next(iter(DataLoader(dataset, batch_size=2)))  # default collate: a list of 2 tensors
custom = next(iter(DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper)))
print(type(plain).__name__, type(custom).__name__)  # ✓ collate-types
#> list SimpleCustomBatch
print(custom.inp)
#> tensor([[0., 1., 2., 3., 4.],
#>         [5., 6., 7., 8., 9.]])
assert torch.equal(custom.inp, plain[0]) and torch.equal(custom.tgt, plain[1])  # ✓ same-stack
made = []
anything = DataLoader(dataset, batch_size=2, collate_fn=lambda samples: made.append(object()) or made[-1])
assert next(iter(anything)) is made[-1]  # no workers, no pinning: that same object ✓ collate-any
# --8<-- [end:collate]


# --8<-- [start:no-accelerator]
def load_epochs(loader: DataLoader, epochs: int) -> tuple[list, list[str]]:
    """All batches of `epochs` epochs, and the warnings raised meanwhile (category: message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = [batch for _ in range(epochs) for batch in loader]
    return batches, [f"{w.category.__name__}: {w.message}" for w in caught]


loader = DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper, pin_memory=True)
# On a machine without an accelerator (the one that checks this page) the patch
# changes nothing; on a GPU machine it shows what the same code does without one.
with mock.patch("torch.accelerator.is_available", return_value=False):
    batches, messages = load_epochs(loader, epochs=2)
print(len(messages), messages[0])  # one warning per epoch (per iter(loader)), not an error ✓ warning-count
#> 2 UserWarning: 'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't be used.
for batch in batches[:5]:  # the notes' loop, first epoch: nothing is pinned
    print(batch.inp.is_pinned(), batch.tgt.is_pinned())  # ✓ notes-loop
    #> False False
    #> False False
    #> False False
    #> False False
    #> False False
assert not any(b.inp.is_pinned() or b.tgt.is_pinned() for b in batches)  # ✓ none-pinned
with warnings.catch_warnings(record=True) as shown:
    warnings.resetwarnings()  # Python's default filters name no UserWarning: its default action applies
    with mock.patch("torch.accelerator.is_available", return_value=False):
        for _ in range(3):
            list(loader)
print(warnings.defaultaction, len(shown))  # shown once per place in the code: the first epoch only ✓ shown-once
#> default 1
# --8<-- [end:no-accelerator]


# --8<-- [start:pin-by-hand]
raised = []
try:  # pinning by hand needs an accelerator driver: a hard error, not a warning
    torch.zeros(2).pin_memory()
except RuntimeError as err:
    raised.append(type(err).__name__)
assert raised == ([] if torch.accelerator.is_available() else ["RuntimeError"])  # ✓ pin-raises
# --8<-- [end:pin-by-hand]

# --8<-- [start:what-gets-pinned]
def pinned_by(loader: DataLoader, accelerator: bool, cuda: bool) -> list[tuple]:
    """Shapes of the tensors the loader pins in its first batch, with the two checks patched.

    A recorder replaces Tensor.pin_memory, so nothing is pinned for real and no GPU is
    needed; the loader's warnings are ignored.
    """
    shapes = []

    def record(tensor, *args, **kwargs):
        shapes.append(tuple(tensor.shape))
        return tensor

    with (
        mock.patch("torch.accelerator.is_available", return_value=accelerator),
        mock.patch("torch.cuda.is_available", return_value=cuda),
        mock.patch.object(torch.Tensor, "pin_memory", record),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        next(iter(loader))
    return shapes


plain_loader = DataLoader(dataset, batch_size=2, pin_memory=True)  # default collate: [inps, tgts]
print(pinned_by(plain_loader, accelerator=True, cuda=False))  # pins: it asks the accelerator ✓ asks-accelerator
#> [(2, 5), (2, 5)]
print(pinned_by(plain_loader, accelerator=False, cuda=True))  # not CUDA ✓ not-cuda
#> []
samples = [{"x": torch.ones(2), "y": (torch.zeros(1), [torch.ones(3)])} for _ in range(4)]
nested_loader = DataLoader(samples, batch_size=2, pin_memory=True)  # dicts, tuples, lists
print(pinned_by(nested_loader, accelerator=True, cuda=True))  # every tensor in them ✓ nested-pins
#> [(2, 2), (2, 1), (2, 3)]
custom_loader = DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=collate_wrapper)
print(pinned_by(custom_loader, accelerator=True, cuda=True))  # through its pin_memory() ✓ custom-pins
#> [(2, 5), (2, 5)]


class BatchWithoutPin:
    """The same two fields as SimpleCustomBatch, but no pin_memory() method."""

    def __init__(self, data):
        self.inp, self.tgt = (torch.stack(rows) for rows in zip(*data, strict=True))


opaque_loader = DataLoader(dataset, batch_size=2, pin_memory=True, collate_fn=BatchWithoutPin)
print(pinned_by(opaque_loader, accelerator=True, cuda=True))  # a type it does not know ✓ opaque-skipped
#> []
with mock.patch("torch.accelerator.current_accelerator", return_value=torch.device("mps")):
    print(pinned_by(plain_loader, accelerator=True, cuda=False))  # an Apple GPU: no pinning ✓ not-mps
    #> []
    with mock.patch("torch.accelerator.is_available", return_value=True), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        iter(plain_loader)  # the loader's iterator decides, and says so
    print([str(w.message) for w in caught])  # ✓ mps-warning
    #> ["'pin_memory' argument is set as true but not supported on MPS now, device pinned memory won't be used."]
# --8<-- [end:what-gets-pinned]
