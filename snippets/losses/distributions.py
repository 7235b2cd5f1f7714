"""Distribution losses: KLDivLoss input and target, batchmean vs mean, relation to cross-entropy.

Page: docs/losses/distributions.md
"""

# --8<-- [start:setup]
import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(2, 4)  # the model's raw scores: a batch of 2, 4 classes
log_q = F.log_softmax(logits, dim=1)  # the model's distribution q, as log-probabilities
p = torch.tensor([[0.7, 0.2, 0.1, 0.0], [0.25, 0.25, 0.25, 0.25]])  # the target p
assert log_q.shape == p.shape == (2, 4) and p[0, 3] == 0  # ✓ data


def kl_by_definition(p, log_q):
    """KL(p || q) of each row: sum over classes of p * (log p - log q), with 0 * log 0 = 0."""
    return (torch.xlogy(p, p) - p * log_q).sum(dim=1)


assert torch.xlogy(torch.tensor(0.0), torch.tensor(0.0)) == 0  # 0 * log 0 = 0 ✓ xlogy
# --8<-- [end:setup]

# --8<-- [start:input-target]
kl = F.kl_div(log_q, p, reduction="batchmean")  # input: log q; target: p
print(kl, kl_by_definition(p, log_q).mean())
#> tensor(0.3937) tensor(0.3937)
assert torch.allclose(kl, kl_by_definition(p, log_q).mean())  # ✓ kl-definition
# the target as log-probabilities too: log_target=True
log_p = F.log_softmax(torch.tensor([[2.0, 1.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]]), dim=1)
as_log = F.kl_div(log_q, log_p, reduction="batchmean", log_target=True)
assert torch.allclose(as_log, F.kl_div(log_q, log_p.exp(), reduction="batchmean"))  # ✓ log-target
assert torch.allclose(as_log, kl_by_definition(log_p.exp(), log_q).mean())  # ✓ log-target-2
pairs_rng = torch.Generator().manual_seed(1)  # 100 random pairs: targets with every probability above 0
log_ps, log_qs = F.log_softmax(torch.randn(2, 100, 4, generator=pairs_rng) * 3, dim=-1)
by_log = F.kl_div(log_qs, log_ps, reduction="none", log_target=True)
assert torch.allclose(by_log, F.kl_div(log_qs, log_ps.exp(), reduction="none"), atol=1e-6)  # ✓ log-target-all
# but a probability of 0 has no finite log: log_target=True then gives nan
print(F.kl_div(log_q, p.log(), reduction="none", log_target=True)[0])  # ✓ log-target-nan
#> tensor([0.0625, 0.1342, 0.1863,    nan])
assert F.kl_div(log_q, p, reduction="none")[0, 3] == 0  # the probability form: 0 * log 0 = 0 ✓ zero-term
# the classic mistake: probabilities as input. No error, a wrong (here negative) "KL"
wrong = F.kl_div(log_q.exp(), p, reduction="batchmean")
print(wrong)  # ✓ probabilities-in
#> tensor(-1.4541)
assert wrong < 0 <= kl  # a real KL divergence is never negative ✓ probabilities-in-2
assert (by_log.sum(dim=1) >= 0).all()  # nor on any of the 100 random pairs ✓ kl-nonnegative
# --8<-- [end:input-target]

# --8<-- [start:batchmean]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mean = nn.KLDivLoss()(log_q, p)  # reduction="mean" is the default
assert nn.KLDivLoss().reduction == "mean"  # ✓ mean-default
print(caught[0].category.__name__, caught[0].message)  # ✓ mean-warning
#> UserWarning reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the same as 'batchmean' in the next major release.
total = F.kl_div(log_q, p, reduction="sum")
print(mean, total / p.numel(), kl, total / len(p))  # ✓ mean-batchmean
#> tensor(0.0984) tensor(0.0984) tensor(0.3937) tensor(0.3937)
assert torch.allclose(mean, total / p.numel())  # divided by batch * classes = 8 ✓ mean-divides
assert torch.allclose(kl, total / len(p))  # batchmean: divided by the batch size = 2 ✓ batchmean-divides
terms = F.kl_div(log_q, p, reduction="none")
print(terms.shape)  # "none": the terms, one per element ✓ none-terms
#> torch.Size([2, 4])
assert torch.allclose(terms, torch.xlogy(p, p) - p * log_q)  # ✓ none-terms-2
# --8<-- [end:batchmean]

# --8<-- [start:cross-entropy]
cross_entropy = F.cross_entropy(logits, p, reduction="none")  # H(p, q), p as soft target
entropy = -torch.xlogy(p, p).sum(dim=1)  # H(p)
kl_rows = F.kl_div(log_q, p, reduction="none").sum(dim=1)
print(kl_rows, cross_entropy - entropy)  # ✓ kl-cross-entropy
#> tensor([0.3830, 0.4043]) tensor([0.3830, 0.4043])
assert torch.allclose(kl_rows, cross_entropy - entropy)  # KL(p||q) = H(p,q) - H(p) ✓ kl-cross-entropy-2
# H(p) does not depend on the model, so both losses give the model the same gradient
x = logits.clone().requires_grad_()
(g_kl,) = torch.autograd.grad(F.kl_div(F.log_softmax(x, dim=1), p, reduction="batchmean"), x)
(g_ce,) = torch.autograd.grad(F.cross_entropy(x, p), x)
assert torch.allclose(g_kl, g_ce)  # ✓ same-gradient
# they differ by the mean entropy of the target, a constant
assert torch.allclose(F.cross_entropy(logits, p) - kl, entropy.mean())  # ✓ constant
# --8<-- [end:cross-entropy]
