"""Multi-class losses: cross_entropy = nll_loss + log_softmax, reduction, weight, soft targets,
ignore_index, label_smoothing.

Page: docs/losses/multiclass.md
"""

# --8<-- [start:setup]
import inspect
import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(4, 3)  # a batch of 4, 3 classes: raw scores
target = torch.tensor([0, 2, 1, 2])  # one class index per sample
rows = torch.arange(4)
assert logits.shape == (4, 3) and target.shape == (4,)  # ✓ data
# --8<-- [end:setup]

# --8<-- [start:ce-is-nll-log-softmax]
ce = F.cross_entropy(logits, target)
nll = F.nll_loss(F.log_softmax(logits, dim=1), target)
assert torch.allclose(ce, nll)  # ✓ ce-is-nll
g = torch.Generator().manual_seed(1)  # more batches and class counts, without touching the global seed
for n, c in [(1, 2), (8, 5), (16, 10)]:
    z, t = torch.randn(n, c, generator=g) * 5, torch.randint(0, c, (n,), generator=g)
    assert torch.allclose(F.cross_entropy(z, t), F.nll_loss(F.log_softmax(z, dim=1), t))  # ✓ ce-is-nll
print(ce)
#> tensor(0.9357)
# and by hand: minus the log-probability of the right class, averaged
by_hand = -(logits.softmax(dim=1)[rows, target].log()).mean()
assert torch.allclose(ce, by_hand)  # ✓ ce-by-hand
# nll_loss alone does NOT apply log_softmax: fed raw logits it is just -logits[i, target_i]
print(F.nll_loss(logits, target), -logits[rows, target].mean())  # ✓ nll-raw
#> tensor(-0.2906) tensor(-0.2906)
assert torch.allclose(F.nll_loss(logits, target), -logits[rows, target].mean())  # ✓ nll-raw-2
# softmax before cross_entropy is no error either: the log_softmax of probabilities, another loss
assert not torch.allclose(F.cross_entropy(logits.softmax(dim=1), target), ce)  # ✓ softmax-first
# --8<-- [end:ce-is-nll-log-softmax]

# --8<-- [start:signature]
print(inspect.signature(F.nll_loss))
#> (input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None, reduction: str = 'mean') -> torch.Tensor
# the notes' prototype (its ’mean’ typed as 'mean'): the same names, order and defaults
notes = "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'"
params = inspect.signature(F.nll_loss).parameters.values()
pinned = ", ".join(par.name if par.default is par.empty else f"{par.name}={par.default!r}"
                   for par in params)
assert pinned == notes  # ✓ notes-prototype
# --8<-- [end:signature]

# --8<-- [start:reduction]
per_sample = F.cross_entropy(logits, target, reduction="none")
print(per_sample)  # one loss per sample: shape (batch,) ✓ reduction-none
#> tensor([0.1689, 2.2532, 0.6196, 0.7011])
print(F.cross_entropy(logits, target, reduction="sum"), per_sample.sum())  # ✓ reduction-sum
#> tensor(3.7427) tensor(3.7427)
print(F.cross_entropy(logits, target, reduction="mean"), per_sample.mean())  # ✓ reduction-mean
#> tensor(0.9357) tensor(0.9357)
assert inspect.signature(F.cross_entropy).parameters["reduction"].default == "mean"  # ✓ reduction-mean-2
# --8<-- [end:reduction]

# --8<-- [start:legacy]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = F.cross_entropy(logits, target, reduce=False)
print(caught[0].category.__name__, caught[0].message)  # ✓ legacy-warning
#> UserWarning size_average and reduce args will be deprecated, please use reduction='none' instead.
assert torch.equal(legacy, per_sample)  # reduce=False still means reduction="none" ✓ legacy-none
assert type(legacy) is torch.Tensor and legacy.shape == (4,)  # a Tensor, not a list ✓ legacy-tensor

for size_average, reduce in [(None, None), (True, True), (False, True), (True, False)]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = nn.CrossEntropyLoss(size_average=size_average, reduce=reduce)
    warned = any(issubclass(w.category, UserWarning) for w in caught)
    print(f"size_average={size_average!s:5} reduce={reduce!s:5} -> "
          f"reduction={module.reduction!r:6} warned={warned}")  # ✓ legacy-table
    #> size_average=None  reduce=None  -> reduction='mean' warned=False
    #> size_average=True  reduce=True  -> reduction='mean' warned=True
    #> size_average=False reduce=True  -> reduction='sum'  warned=True
    #> size_average=True  reduce=False -> reduction='none' warned=True
# every pair of None / True / False: a warning unless both are None, and the documented
# mapping (None counts as True): reduce=False -> "none", else size_average=False -> "sum"
for size_average in (None, True, False):
    for reduce in (None, True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = nn.CrossEntropyLoss(size_average=size_average, reduce=reduce)
        expected = "none" if reduce is False else "sum" if size_average is False else "mean"
        assert module.reduction == expected  # ✓ legacy-any
        warned = any(issubclass(w.category, UserWarning) for w in caught)
        assert warned == (size_average is not None or reduce is not None)  # ✓ legacy-any-2
# --8<-- [end:legacy]

# --8<-- [start:weight]
w = torch.tensor([1.0, 3.0, 0.5])  # a weight per CLASS, not per sample
print(w[target], w[target].sum())  # the targets' weights sum to 5, the batch size is 4 ✓ weights-sum
#> tensor([1.0000, 0.5000, 3.0000, 0.5000]) tensor(5.)
try:
    F.cross_entropy(logits, target, weight=torch.ones(4))  # one per sample: refused
except RuntimeError as err:
    print(err)  # ✓ weight-per-class
    #> weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [4]
# with as many samples as classes the same mistake raises nothing: the weights count per class
first3 = slice(0, 3)  # 3 samples, 3 classes
meant = torch.tensor([1.0, 3.0, 0.5])  # meant as one weight per sample
taken = F.cross_entropy(logits[first3], target[first3], weight=meant)
as_classes = (meant[target[first3]] * per_sample[first3]).sum() / meant[target[first3]].sum()
as_samples = (meant * per_sample[first3]).sum() / meant.sum()
assert torch.allclose(taken, as_classes) and not torch.allclose(taken, as_samples)  # ✓ weight-silent
# each sample's loss times the weight of its target class
per_sample_w = F.cross_entropy(logits, target, weight=w, reduction="none")
assert torch.allclose(per_sample_w, w[target] * per_sample)  # ✓ weight-times
weighted = F.cross_entropy(logits, target, weight=w)
by_weights = (w[target] * per_sample).sum() / w[target].sum()
by_batch = (w[target] * per_sample).sum() / len(target)
print(weighted, by_weights, by_batch)  # the first two agree: it divides by the weights ✓ weighted-mean
#> tensor(0.7010) tensor(0.7010) tensor(0.8762)
assert torch.allclose(weighted, by_weights)  # ✓ weighted-mean-2
assert not torch.allclose(weighted, by_batch)  # ✓ weighted-mean-3
# --8<-- [end:weight]

# --8<-- [start:weight-from-counts]
train_labels = torch.tensor([0] * 70 + [1] * 20 + [2] * 10)  # an imbalanced training set
counts = torch.bincount(train_labels, minlength=3)  # samples per class
inverse = counts.sum() / (len(counts) * counts)  # total / (C * count): rare classes weigh more
print(counts, inverse)  # ✓ counts-inverse
#> tensor([70, 20, 10]) tensor([0.4762, 1.6667, 3.3333])
assert torch.allclose(inverse * counts, torch.full((3,), 100 / 3))  # each class weighs the same in total ✓ counts-inverse
always_0 = torch.tensor([2.0, 0.0, 0.0]).expand(100, 3)  # a model that always favours the common class
per_class = torch.stack([F.cross_entropy(always_0[train_labels == c], train_labels[train_labels == c]) for c in range(3)])
plain = F.cross_entropy(always_0, train_labels)
balanced = F.cross_entropy(always_0, train_labels, weight=inverse)
print(plain, balanced, per_class.mean())  # ✓ counts-loss
#> tensor(0.8395) tensor(1.5729) tensor(1.5729)
assert torch.allclose(plain, (per_class * counts).sum() / counts.sum())  # unweighted: each class by its size ✓ counts-plain
assert torch.allclose(balanced, per_class.mean())  # weighted: every class counts the same ✓ counts-loss
freq = counts / counts.sum()
for scaled in (inverse * 1e-3, inverse * 0.5, inverse * 7, inverse * 1e3, freq.median() / freq):  # e.g. median frequency
    assert torch.allclose(F.cross_entropy(always_0, train_labels, weight=scaled), balanced)  # ✓ counts-scale
try:
    nn.CrossEntropyLoss(weight=[0.4762, 1.6667, 3.3333])  # the weights as a Python list
except TypeError as err:
    print(err)  # ✓ counts-tensor
    #> cannot assign 'list' object to buffer 'weight' (torch Tensor or None required)
criterion = nn.CrossEntropyLoss(weight=torch.FloatTensor(inverse.tolist()))  # the legacy constructor: float32 too
assert criterion.weight.dtype == torch.float32 and torch.allclose(criterion(always_0, train_labels), balanced)  # ✓ counts-tensor
# --8<-- [end:weight-from-counts]

# --8<-- [start:soft-targets]
probs = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5], [0.1, 0.8, 0.1], [0.0, 0.0, 1.0]])
soft = F.cross_entropy(logits, probs)  # class probabilities (float, shape (N, C)) as target
per_row = -(probs * logits.log_softmax(dim=1)).sum(dim=1)
assert torch.allclose(soft, per_row.mean())  # ✓ soft-formula
assert torch.allclose(F.cross_entropy(logits, probs, reduction="none"), per_row)  # each sample's own loss ✓ soft-formula
# a one-hot probability target gives the same loss as the class index
assert torch.allclose(F.cross_entropy(logits, F.one_hot(target, 3).float()), ce)  # ✓ one-hot
# with weight, the mean over probability targets divides by the batch size
soft_weighted = F.cross_entropy(logits, probs, weight=w)
per_row_w = -(w * probs * logits.log_softmax(dim=1)).sum(dim=1)
print(soft_weighted, per_row_w.sum() / len(probs))  # ✓ soft-weighted
#> tensor(1.7596) tensor(1.7596)
assert torch.allclose(soft_weighted, per_row_w.mean())  # ✓ soft-weighted-2
assert not torch.allclose(soft_weighted, per_row_w.sum() / (w * probs).sum())  # not by weights ✓ soft-weighted-3
# --8<-- [end:soft-targets]

# --8<-- [start:ignore-index]
padded = torch.tensor([0, 2, -100, 2])  # -100 is the default ignore_index (e.g. padding)
kept = torch.tensor([0, 1, 3])
loss = F.cross_entropy(logits, padded)
assert torch.allclose(loss, per_sample[kept].mean())  # averaged over the 3 kept samples ✓ ignored
print(loss, per_sample[kept].sum() / 4)  # not over the batch of 4 ✓ ignored-2
#> tensor(1.0410) tensor(0.7808)
assert F.cross_entropy(logits, padded, reduction="none")[2] == 0  # it contributes nothing ✓ ignored-3
# with weight: divided by the weights of the kept targets only
weighted_kept = (w[target] * per_sample)[kept].sum() / w[target][kept].sum()
assert torch.allclose(F.cross_entropy(logits, padded, weight=w), weighted_kept)  # ✓ ignored-weight
for bad in [-1, 3]:  # any other class outside 0..C-1, below or above
    try:
        F.cross_entropy(logits, torch.tensor([0, 2, bad, 2]))
    except IndexError as err:
        print(err)  # ✓ out-of-range
        #> Target -1 is out of bounds.
        #> Target 3 is out of bounds.
refused = []
options = [{}, {"weight": w}, {"label_smoothing": 0.1}, {"reduction": "none"}, {"reduction": "sum"}]
for bad in [-101, -99, -5, 4, 100, 1000]:  # further out as well, with each option
    for kwargs in options:
        try:
            F.cross_entropy(logits, torch.tensor([0, 2, bad, 2]), **kwargs)
        except IndexError:
            refused.append(bad)
assert refused == [bad for bad in [-101, -99, -5, 4, 100, 1000] for _ in options]  # ✓ out-of-range-2
try:
    F.cross_entropy(logits, probs, ignore_index=1)  # probability targets have no index
except RuntimeError as err:
    print(err)  # ✓ ignore-soft
    #> ignore_index is not supported for floating point target
soft_refused = []
for index in (0, 2, 100, -1, -5):  # with probability targets, an index >= 0 is refused ...
    try:
        soft_loss = F.cross_entropy(logits, probs, ignore_index=index)
    except RuntimeError:
        soft_refused.append(index)
    else:  # ... and a negative one is accepted but leaves nothing out
        assert torch.equal(soft_loss, soft)  # ✓ ignore-soft-negative
assert soft_refused == [0, 2, 100]  # ✓ ignore-soft-any
# --8<-- [end:ignore-index]

# --8<-- [start:label-smoothing]
eps, n_classes = 0.1, 3
smoothed = F.cross_entropy(logits, target, label_smoothing=eps)
smooth_target = torch.full((4, n_classes), eps / n_classes)
smooth_target[rows, target] += 1 - eps  # 1 - eps + eps/K on the right class
print(smooth_target[0])  # ✓ smooth-target
#> tensor([0.9333, 0.0333, 0.0333])
assert torch.allclose(smoothed, F.cross_entropy(logits, smooth_target))  # probabilities as target ✓ smoothing
print(smoothed, ce)
#> tensor(0.9909) tensor(0.9357)
# with weight the two differ: label_smoothing keeps the targets' weights as the divisor
smoothed_w = F.cross_entropy(logits, target, weight=w, label_smoothing=eps)
log_q = logits.log_softmax(dim=1)
nll_w = -(w[target] * log_q[rows, target]).sum() / w[target].sum()
uniform_w = -(w * log_q).sum() / n_classes / w[target].sum()
assert torch.allclose(smoothed_w, (1 - eps) * nll_w + eps * uniform_w)  # ✓ smoothing-weight
soft_w = F.cross_entropy(logits, smooth_target, weight=w)
assert torch.allclose(soft_w, -(w * smooth_target * log_q).sum() / len(target))  # ✓ smoothing-weight-2
print(smoothed_w, soft_w)  # ✓ smoothing-weight-3
#> tensor(0.8004) tensor(1.0005)
# --8<-- [end:label-smoothing]

# --8<-- [start:batch-mismatch]
try:
    F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1]))  # 4 predictions, 2 targets
except ValueError as err:
    print(err)  # ✓ batch-mismatch
    #> Expected input batch_size (4) to match target batch_size (2).

# a typical cause: outputs of shape (batch=2, steps=2, classes=3) flattened, targets not
outputs = torch.randn(2, 2, 3)
try:
    F.cross_entropy(outputs.view(-1, 3), torch.tensor([0, 1]))
except ValueError as err:
    print(err)  # ✓ flattened
    #> Expected input batch_size (4) to match target batch_size (2).
# --8<-- [end:batch-mismatch]
