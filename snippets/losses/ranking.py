"""Metric and ranking losses: MarginRankingLoss, TripletMarginLoss, CosineEmbeddingLoss.

Page: docs/losses/ranking.md
"""

# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn

print(nn.MarginRankingLoss().margin, nn.TripletMarginLoss().margin, nn.CosineEmbeddingLoss().margin)  # ✓ default-margins
#> 0.0 1.0 0.0
# --8<-- [end:setup]

# --8<-- [start:margin-ranking]
x1 = torch.tensor([0.8, 0.2, 0.5, 0.3])  # scores of the first item of each pair
x2 = torch.tensor([0.3, 0.6, 0.5, 0.9])  # scores of the second item
y = torch.tensor([1.0, 1.0, -1.0, -1.0])  # 1: x1 should rank higher; -1: x2 should
loss = F.margin_ranking_loss(x1, x2, y, margin=0.1, reduction="none")
print(loss)  # ✓ margin-ranking-values
#> tensor([0.0000, 0.5000, 0.1000, 0.0000])
assert torch.allclose(loss, (-y * (x1 - x2) + 0.1).clamp(min=0))  # max(0, -y(x1 - x2) + margin) ✓ margin-ranking-formula
# plausible wrong formulas give other numbers: no margin, or the sign of y flipped
assert not torch.allclose(loss, (-y * (x1 - x2)).clamp(min=0))  # ✓ margin-ranking-alternatives
assert not torch.allclose(loss, (y * (x1 - x2) + 0.1).clamp(min=0))  # ✓ margin-ranking-alternatives-2
# --8<-- [end:margin-ranking]

# --8<-- [start:triplet]
anchor = torch.tensor([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
positive = torch.tensor([[3.0, 4.0], [1.0, 2.0], [1.0, 0.0]])  # distances 5, 1, 1
negative = torch.tensor([[1.0, 0.0], [4.0, 5.0], [0.0, 1.5]])  # distances 1, 5, 1.5
loss = F.triplet_margin_loss(anchor, positive, negative, margin=1.0, reduction="none")
print(loss)  # ✓ triplet-values
#> tensor([5.0000, 0.0000, 0.5000])
d_pos = (anchor - positive).norm(dim=1)  # plain Euclidean distance (p=2), not squared
d_neg = (anchor - negative).norm(dim=1)
print(d_pos, d_neg)  # ✓ triplet-distances
#> tensor([5., 1., 1.]) tensor([1.0000, 5.0000, 1.5000])
assert torch.allclose(loss, (d_pos - d_neg + 1.0).clamp(min=0), atol=1e-5)  # ✓ triplet-euclidean
squared = (d_pos**2 - d_neg**2 + 1.0).clamp(min=0)  # what squared distances would give
print(squared)  # ✓ triplet-squared
#> tensor([25.,  0.,  0.])
assert squared.tolist() == [25.0, 0.0, 0.0] and not torch.allclose(squared, loss)  # ✓ triplet-squared-2
# --8<-- [end:triplet]

# --8<-- [start:cosine-embedding]
u = torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
v = torch.tensor([[0.0, 1.0], [2.0, 2.0], [1.0, 1.0], [-1.0, 0.0]])
y = torch.tensor([1.0, 1.0, -1.0, -1.0])  # 1: should be similar; -1: should be dissimilar
loss = F.cosine_embedding_loss(u, v, y, margin=0.5, reduction="none")
print(loss)  # ✓ cosine-values
#> tensor([1.0000, 0.0000, 0.2071, 0.0000])
cos = F.cosine_similarity(u, v, dim=1)
print(cos)  # ✓ cosine-similarity
#> tensor([ 0.0000,  1.0000,  0.7071, -1.0000])
assert torch.allclose(cos, (u * v).sum(dim=1) / (u.norm(dim=1) * v.norm(dim=1)))
by_formula = torch.where(y == 1, 1 - cos, (cos - 0.5).clamp(min=0))
assert torch.allclose(loss, by_formula, atol=1e-6)  # 1 - cos, or max(0, cos - margin) ✓ cosine-formula
assert not torch.allclose(loss, torch.where(y == 1, 1 - cos, cos.clamp(min=0)))  # ✓ cosine-alternatives
# a dissimilar pair (y = -1) costs 0 exactly when its cosine is at most the margin: 1000 random pairs
gen = torch.Generator().manual_seed(0)
left, right = torch.randn(1000, 3, generator=gen), torch.randn(1000, 3, generator=gen)
cos_lr = F.cosine_similarity(left, right, dim=1)
for m in (-0.5, 0.0, 0.5):
    costs = F.cosine_embedding_loss(left, right, -torch.ones(1000), margin=m, reduction="none")
    assert ((costs == 0) == (cos_lr <= m)).all() and 0 < (cos_lr <= m).sum() < 1000  # ✓ cosine-margin-zero
for factor in torch.logspace(-3, 9, 25).tolist():  # 0.001 to 1e9; u, v, or both rescaled
    for a, b in ((factor * u, v), (u, factor * v), (factor * u, factor * v)):
        rescaled = F.cosine_embedding_loss(a, b, y, margin=0.5, reduction="none")
        assert torch.allclose(rescaled, loss, rtol=0, atol=1e-6), factor  # factors 0.001 to 1e9 ✓ cosine-direction
per_row = torch.tensor([[2.0], [0.3], [5.0], [1.7]])  # each embedding its own positive factor
rescaled_rows = F.cosine_embedding_loss(per_row * u, v / per_row, y, margin=0.5, reduction="none")
assert torch.allclose(rescaled_rows, loss, atol=1e-6)  # ✓ cosine-per-row
# a negative factor reverses the direction: three losses change, the pair at cosine 0 keeps 1
flipped = F.cosine_embedding_loss(-u, v, y, margin=0.5, reduction="none")
assert (~torch.isclose(flipped, loss)).tolist() == [False, True, True, True]  # ✓ cosine-negative
# but not near zero: the loss adds 1e-12 to each squared length
tiny = 1e-6 * u
shrunk = F.cosine_embedding_loss(tiny, v, y, margin=0.5, reduction="none")
print(shrunk)  # u shrunk by a factor of 1e-6 ✓ cosine-near-zero
#> tensor([1.0000, 0.1835, 0.0000, 0.0000])
eps_cos = (tiny * v).sum(dim=1) / (((tiny**2).sum(dim=1) + 1e-12) * ((v**2).sum(dim=1) + 1e-12)).sqrt()
assert torch.allclose(shrunk, torch.where(y == 1, 1 - eps_cos, (eps_cos - 0.5).clamp(min=0)), atol=1e-6)  # ✓ cosine-epsilon
assert not torch.allclose(shrunk, loss, atol=0.1)  # other losses than unshrunk ✓ cosine-near-zero-2
# --8<-- [end:cosine-embedding]
