"""Cross-entropy: nll_loss + log_softmax, reduction, weight, ignore_index, label_smoothing.

Page: docs/models/losses.md
"""

import inspect
import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)  # a batch of 4, 3 classes
target = torch.tensor([0, 2, 1, 2])

# --8<-- [start:ce-is-nll-log-softmax]
ce = F.cross_entropy(logits, target)
nll = F.nll_loss(F.log_softmax(logits, dim=1), target)
assert torch.allclose(ce, nll)
print(ce)
#> tensor(0.9357)
# and by hand: minus the log-probability of the right class, averaged
by_hand = -(logits.softmax(dim=1)[torch.arange(4), target].log()).mean()
assert torch.allclose(ce, by_hand)
# nll_loss alone does NOT apply log_softmax: fed raw logits it is just -logits[i, target_i]
print(F.nll_loss(logits, target), -logits[torch.arange(4), target].mean())
#> tensor(-0.2906) tensor(-0.2906)
# --8<-- [end:ce-is-nll-log-softmax]

# --8<-- [start:signature]
print(inspect.signature(F.nll_loss))
#> (input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None, reduction: str = 'mean') -> torch.Tensor
# --8<-- [end:signature]

# --8<-- [start:reduction]
per_sample = F.cross_entropy(logits, target, reduction="none")
print(per_sample)  # one loss per sample: shape (batch,)
#> tensor([0.1689, 2.2532, 0.6196, 0.7011])
print(F.cross_entropy(logits, target, reduction="sum"), per_sample.sum())
#> tensor(3.7427) tensor(3.7427)
print(F.cross_entropy(logits, target, reduction="mean"), per_sample.mean())
#> tensor(0.9357) tensor(0.9357)
# --8<-- [end:reduction]

# --8<-- [start:legacy]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = F.cross_entropy(logits, target, reduce=False)
print(caught[0].category.__name__, caught[0].message)
#> UserWarning size_average and reduce args will be deprecated, please use reduction='none' instead.
assert torch.equal(legacy, per_sample)  # reduce=False still means reduction="none"

for size_average, reduce in [(None, None), (True, True), (False, True), (True, False)]:
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        module = nn.CrossEntropyLoss(size_average=size_average, reduce=reduce)
    print(f"size_average={size_average!s:5} reduce={reduce!s:5} -> reduction={module.reduction!r}")
    #> size_average=None  reduce=None  -> reduction='mean'
    #> size_average=True  reduce=True  -> reduction='mean'
    #> size_average=False reduce=True  -> reduction='sum'
    #> size_average=True  reduce=False -> reduction='none'
# --8<-- [end:legacy]

# --8<-- [start:weight]
w = torch.tensor([1.0, 2.0, 0.5])  # a weight per CLASS, not per sample
weighted = F.cross_entropy(logits, target, weight=w)
# "mean" divides by the sum of the weights used, not by the batch size
expected = (w[target] * per_sample).sum() / w[target].sum()
assert torch.allclose(weighted, expected)
print(weighted, (w[target] * per_sample).mean())
#> tensor(0.7213) tensor(0.7213)
# --8<-- [end:weight]

# --8<-- [start:ignore-index]
padded = torch.tensor([0, 2, -100, 2])  # -100 is the default ignore_index (e.g. padding)
loss = F.cross_entropy(logits, padded)
assert torch.allclose(loss, per_sample[[0, 1, 3]].mean())  # averaged over the 3 kept samples
print(loss)
#> tensor(1.0410)
try:
    F.cross_entropy(logits, torch.tensor([0, 2, -1, 2]))  # any other out-of-range class
except IndexError as err:
    print(err)
    #> Target -1 is out of bounds.
# --8<-- [end:ignore-index]

# --8<-- [start:label-smoothing]
eps, n_classes = 0.1, 3
smoothed = F.cross_entropy(logits, target, label_smoothing=eps)
soft = torch.full((4, n_classes), eps / n_classes)
soft[torch.arange(4), target] += 1 - eps  # 1 - eps + eps/K on the right class
assert torch.allclose(smoothed, F.cross_entropy(logits, soft))  # probabilities as target
print(smoothed)
#> tensor(0.9909)
# --8<-- [end:label-smoothing]

# --8<-- [start:batch-mismatch]
try:
    F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1]))  # last batch smaller in one of them
except ValueError as err:
    print(err)
    #> Expected input batch_size (4) to match target batch_size (2).
# --8<-- [end:batch-mismatch]
