"""Sampling and selection: multinomial, masked_select, boolean and fancy indexing, randperm.

Page: docs/tensors/sampling.md
"""

# --8<-- [start:setup]
import inspect

import torch

global_rng = torch.random.get_rng_state()  # to check at the end that no draw used the global generator
# --8<-- [end:setup]

# --8<-- [start:multinomial]
w = torch.tensor([1.0, 2.0, 3.0, 4.0])  # weights, need not sum to 1
g = torch.Generator().manual_seed(0)
s = w.multinomial(num_samples=2, replacement=False, generator=g)
print(s, s.dtype)  # indices into w ✓ multinomial-indices
#> tensor([2, 1]) torch.int64
for seed, replacement in [(0, False), (1, False), (0, True), (1, True)]:  # same seed: same draws
    raw = w.multinomial(3, replacement, generator=torch.Generator().manual_seed(seed))
    normed = (w / w.sum()).multinomial(3, replacement, generator=torch.Generator().manual_seed(seed))
    assert torch.equal(raw, normed)  # ✓ multinomial-normalised
assert torch.equal(w, torch.tensor([1.0, 2.0, 3.0, 4.0]))  # w itself is not normalised ✓ multinomial-w-unchanged
differ = 0  # with 1000 weights, the same seeds do not always give the same draws:
for k in range(50):
    big = torch.rand(1000, generator=torch.Generator().manual_seed(k)) ** 3 * 1000
    for seed in range(2):
        raw = big.multinomial(500, True, generator=torch.Generator().manual_seed(seed))
        normed = (big / big.sum()).multinomial(500, True, generator=torch.Generator().manual_seed(seed))
        moved = (raw != normed).nonzero().flatten().tolist()  # the draws that differ
        differ += bool(moved)
        skipped = [big[min(raw[i], normed[i]) + 1 : max(raw[i], normed[i])].sum() / big.sum() for i in moved]
        assert len(moved) <= 1 and all(share < 1e-6 for share in skipped)  # one draw, to a nearby bin ✓ multinomial-nearby
assert differ > 0  # ✓ multinomial-rounding
for bad in ([0.0, 0.0, 0.0], [1.0, float("inf")]):  # the weights must be finite, and not all zero
    try:
        torch.tensor(bad).multinomial(1)
    except RuntimeError as err:
        print(bad, "->", err)  # ✓ multinomial-invalid
        #> [0.0, 0.0, 0.0] -> invalid multinomial distribution (sum of probabilities <= 0)
        #> [1.0, inf] -> probability tensor contains either `inf`, `nan` or element < 0
raised = 0
for bad in ([0.0, 0.0, 0.0], [1.0, float("inf")], [1.0, float("nan")], [1.0, -1.0]):
    for n, replacement in [(1, False), (5, True)]:  # torch checks these on two code paths
        try:
            torch.tensor(bad).multinomial(n, replacement=replacement)
        except RuntimeError:
            raised += 1
assert raised == 8  # all zero, inf, nan or negative: every call raises ✓ multinomial-invalid-all
# --8<-- [end:multinomial]

# --8<-- [start:frequencies]
g = torch.Generator().manual_seed(0)
draws = w.multinomial(10_000, replacement=True, generator=g)
print(torch.bincount(draws) / 10_000)  # close to w / w.sum() ✓ frequencies
#> tensor([0.0962, 0.2007, 0.2982, 0.4049])
print(w / w.sum())  # ✓ normalised-weights
#> tensor([0.1000, 0.2000, 0.3000, 0.4000])
for seed in range(5):  # more draws, closer: the largest gap to w / w.sum() shrinks, for each of 5 seeds
    gaps = []
    for n_draws in (100, 10_000, 1_000_000):
        more = w.multinomial(n_draws, replacement=True, generator=torch.Generator().manual_seed(seed))
        gaps.append((torch.bincount(more, minlength=4) / n_draws - w / w.sum()).abs().max().item())
    assert gaps[0] > gaps[1] > gaps[2], (seed, gaps)  # ✓ frequencies-approach
# --8<-- [end:frequencies]

# --8<-- [start:without-replacement]
g = torch.Generator().manual_seed(0)
perm = w.multinomial(4, replacement=False, generator=g)
print(perm, perm.sort().values)  # each index at most once ✓ at-most-once
#> tensor([2, 1, 3, 0]) tensor([0, 1, 2, 3])
for k in range(50):  # 4 draws from 4 weights, with each of 50 seeds: every index exactly once
    assert w.multinomial(4, generator=torch.Generator().manual_seed(k)).sort().values.tolist() == [0, 1, 2, 3]  # ✓ at-most-once-any
try:
    w.multinomial(num_samples=100, replacement=False)  # the notes' call on 4 weights
except RuntimeError as err:
    print(err)  # ✓ too-many-samples
    #> cannot sample n_sample > prob_dist.size(-1) samples without replacement
try:
    w.multinomial(5, replacement=False)  # one more than the 4 categories: refused as well
except RuntimeError as err:
    assert "cannot sample n_sample > prob_dist.size(-1)" in str(err)  # ✓ one-too-many
doc = " ".join(inspect.getdoc(torch.multinomial).split())
print("must be lower than number of non-zero elements" in doc)  # documented requirement ... ✓ documented-non-zero
#> True
g = torch.Generator().manual_seed(0)
print(torch.tensor([1.0, 0.0, 1.0]).multinomial(3, generator=g))  # ... not enforced: no error! ✓ not-enforced
#> tensor([2, 0, 1])
last = [torch.tensor([1.0, 0.0, 1.0]).multinomial(3, generator=g.manual_seed(k))[-1].item() for k in range(50)]
assert last == [1] * 50  # with any of 50 seeds: the zero weight's index comes last ✓ zero-weight-last
try:
    torch.tensor([1.0, -1.0]).multinomial(1)
except RuntimeError as err:
    print(err)  # ✓ negative-weight
    #> probability tensor contains either `inf`, `nan` or element < 0
# --8<-- [end:without-replacement]

# --8<-- [start:batched]
probs = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # one distribution per row
g = torch.Generator().manual_seed(0)
print(probs.multinomial(3, replacement=True, generator=g))  # deterministic here: one non-zero weight per row ✓ rows
#> tensor([[2, 2, 2],
#>         [0, 0, 0]])
# --8<-- [end:batched]

# --8<-- [start:masked-select]
g = torch.Generator().manual_seed(0)
x = torch.rand(2, 4, generator=g)  # small stand-in for the notes' 8*256*14*14
print(x)
#> tensor([[0.4963, 0.7682, 0.0885, 0.1320],
#>         [0.3074, 0.6341, 0.4901, 0.8964]])
sel = torch.masked_select(x, x > 0.5)  # always 1-D, in row-major order
print(sel)  # ✓ masked-select
#> tensor([0.7682, 0.6341, 0.8964])
for shape in [(8, 256, 14, 14), (5,), (2, 3, 4), (), (0, 3)]:  # 1-D for any shape: the notes', 0-dim, empty
    t = torch.rand(shape, generator=g)
    assert torch.masked_select(t, t > 0.5).dim() == 1  # ✓ always-1d
assert torch.equal(sel, x[x > 0.5])  # boolean indexing gives the same ✓ boolean-index
print(torch.masked_select(x, torch.tensor([True, False, False, False])))  # mask broadcasts ✓ mask-broadcasts
#> tensor([0.4963, 0.3074])
# --8<-- [end:masked-select]

# --8<-- [start:masked-fill]
y = x.clone()
y[y > 0.5] = 0  # boolean indexing on the left writes in place
print(y)  # ✓ index-assign
#> tensor([[0.4963, 0.0000, 0.0885, 0.1320],
#>         [0.3074, 0.0000, 0.4901, 0.0000]])
print(x.masked_fill(x > 0.5, 0).equal(y), torch.where(x > 0.5, 0.0, x).equal(y))  # ✓ masked-fill
#> True True
assert (x > 0.5).sum() == 3  # masked_fill and where left x as it was ✓ new-tensor
# --8<-- [end:masked-fill]

# --8<-- [start:fancy]
m = torch.arange(12).reshape(3, 4)
print(m[[0, 2]])  # rows 0 and 2
#> tensor([[ 0,  1,  2,  3],
#>         [ 8,  9, 10, 11]])
print(m[:, [1, 3]])  # columns 1 and 3
#> tensor([[ 1,  3],
#>         [ 5,  7],
#>         [ 9, 11]])
print(m[[0, 2], [1, 3]])  # PAIRS: (0,1) and (2,3), not a 2x2 block ✓ pairs
#> tensor([ 1, 11])
print(m[[0, 2]][:, [1, 3]])  # the 2x2 block
#> tensor([[ 1,  3],
#>         [ 9, 11]])
print(m[torch.tensor([0, 2])].data_ptr() == m.data_ptr())  # fancy indexing copies ✓ fancy-copies
#> False
assert m[[0, 1]].data_ptr() != m.data_ptr()  # a list copies even rows a slice could view ✓ list-copies
assert m[0:2].data_ptr() == m.data_ptr()  # a slice is a view ✓ slice-view
assert torch.equal(m[torch.tensor(1)], m[1]) and m[torch.tensor(1)].shape == m[1].shape  # ✓ zero-dim-like-int


def shares_memory(t):
    """Whether `t` lives in m's memory (a view of m), not in memory of its own (a copy)."""
    return t.untyped_storage().data_ptr() == m.untyped_storage().data_ptr()


indexes = ([1], torch.tensor([1]), torch.tensor([[1]]), torch.tensor([[[1]]]), torch.tensor(1), 1)  # list, 1-D, 2-D, 3-D, 0-dim, int
print([shares_memory(m[i]) for i in indexes])  # ✓ index-memory
#> [False, False, False, False, True, True]
# --8<-- [end:fancy]

# --8<-- [start:shuffle]
g = torch.Generator().manual_seed(0)
data = torch.arange(10, 16)
labels = data * 10
idx = torch.randperm(len(data), generator=g)  # one permutation ...
print(idx)
#> tensor([2, 5, 3, 0, 1, 4])
print(data[idx], labels[idx])  # ... applied to both keeps pairs together ✓ shuffle
#> tensor([12, 15, 13, 10, 11, 14]) tensor([120, 150, 130, 100, 110, 140])
assert torch.equal(torch.random.get_rng_state(), global_rng)  # every draw above used its own generator ✓ own-generators
# --8<-- [end:shuffle]
