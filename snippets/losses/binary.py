"""Binary and multi-label losses: BCELoss vs BCEWithLogitsLoss, pos_weight, a sigmoid applied twice.

Page: docs/losses/binary.md
"""

# --8<-- [start:setup]
import math

import torch
import torch.nn.functional as F
from torch import nn

# 3 samples, 4 labels each; multi-label: a row may hold any number of 1s
logits = torch.tensor([[2.0, -1.0, 0.5, -3.0], [-0.5, 1.5, -2.0, 0.0], [1.0, 1.0, -1.0, 2.5]])
target = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 1.0]])
assert logits.shape == target.shape == (3, 4) and target.sum(dim=1).tolist() == [2, 1, 3]  # ✓ data
# --8<-- [end:setup]

# --8<-- [start:two-losses]
with_logits = nn.BCEWithLogitsLoss()(logits, target)  # takes raw scores
on_probs = nn.BCELoss()(torch.sigmoid(logits), target)  # takes probabilities
print(with_logits, on_probs)  # ✓ both-agree
#> tensor(0.2898) tensor(0.2898)
p = torch.sigmoid(logits)
by_hand = -(target * p.log() + (1 - target) * (1 - p).log()).mean()  # over all 12 elements
assert torch.allclose(with_logits, by_hand) and torch.allclose(on_probs, by_hand)  # ✓ bce-formula
# --8<-- [end:two-losses]

# --8<-- [start:large-logits]
x = torch.tensor([-200.0, -100.0, -20.0, 20.0, 100.0, 200.0], requires_grad=True)
wrong = (x < 0).float()  # every prediction confidently WRONG: the loss should be |x|
print(torch.sigmoid(x).detach())  # float32: sigmoid(20) already rounds to exactly 1.0
#> tensor([0.0000e+00, 0.0000e+00, 2.0612e-09, 1.0000e+00, 1.0000e+00, 1.0000e+00])
assert torch.sigmoid(torch.tensor(20.0)).item() == 1.0  # exactly ✓ sigmoid-20
p = torch.sigmoid(x)
print(-(wrong * p.log() + (1 - wrong) * (1 - p).log()))  # the formula by hand: log(0) ✓ by-hand-inf
#> tensor([inf, inf, 20., inf, inf, inf], grad_fn=<NegBackward0>)
print(F.binary_cross_entropy(p, wrong, reduction="none"))  # BCELoss clamps log() at -100 ✓ bce-capped
#> tensor([100., 100.,  20., 100., 100., 100.],
#>        grad_fn=<BinaryCrossEntropyBackward0>)
capped = F.binary_cross_entropy(torch.tensor([math.exp(-50), 0.0]), torch.ones(2), reduction="none")
assert torch.allclose(capped, torch.tensor([50.0, 100.0]))  # -log(p), but at most 100 ✓ bce-clamp
bce_doc = " ".join(nn.BCELoss.__doc__.split())
assert "BCELoss clamps its log function outputs to be greater than or equal to -100" in bce_doc  # ✓ bce-clamp-doc
print(F.binary_cross_entropy_with_logits(x, wrong, reduction="none"))  # exact: |x| ✓ logits-exact
#> tensor([200., 100.,  20.,  20., 100., 200.],
#>        grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
assert torch.allclose(F.binary_cross_entropy_with_logits(x, wrong, reduction="none"), x.abs())  # ✓ logits-exact-2
(grad_bce,) = torch.autograd.grad(F.binary_cross_entropy(p, wrong, reduction="sum"), x)
(grad_logits,) = torch.autograd.grad(
    F.binary_cross_entropy_with_logits(x, wrong, reduction="sum"), x
)
print(grad_bce)  # zero where the model is most wrong: it stops learning there ✓ bce-zero-grad
#> tensor([-0., -0., -1.,  0.,  0.,  0.])
sweep_x = torch.linspace(-300, 300, 6001, requires_grad=True)  # logits in steps of 0.1, each one wrong
sweep_p = torch.sigmoid(sweep_x)
(sweep_grad,) = torch.autograd.grad(F.binary_cross_entropy(sweep_p, (sweep_x < 0).float(), reduction="sum"), sweep_x)
saturated = (sweep_p == 0) | (sweep_p == 1)  # the probability rounded to exactly 0 or 1
assert saturated.any() and (sweep_grad[saturated] == 0).all()  # ✓ bce-zero-grad-all
print(grad_logits)  # sigmoid(x) - target: full size
#> tensor([-1., -1., -1.,  1.,  1.,  1.])
assert torch.allclose(grad_logits, torch.sigmoid(x) - wrong)  # ✓ logits-grad

right = 1 - wrong  # confidently RIGHT: the loss should be about 0
print(-(right * p.log() + (1 - right) * (1 - p).log()))  # 0 * log(0) = nan ✓ by-hand-nan
#> tensor([nan, nan, -0., nan, nan, nan], grad_fn=<NegBackward0>)
for target_of in (wrong, right):  # BCELoss: never inf or nan, at most 100
    bce = F.binary_cross_entropy(p, target_of, reduction="none")
    assert torch.isfinite(bce).all() and (bce <= 100).all()  # ✓ bce-finite
print(F.binary_cross_entropy_with_logits(x, right, reduction="none"))  # ✓ logits-right
#> tensor([0.0000e+00, 0.0000e+00, 0.0000e+00, 2.0612e-09, 3.9236e-44, 0.0000e+00],
#>        grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
# --8<-- [end:large-logits]

# --8<-- [start:pos-weight]
pos_weight = torch.tensor([1.0, 3.0, 0.5, 2.0])  # one per label (class), not per sample
loss = F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight)
p = torch.sigmoid(logits)
per_element = -(pos_weight * target * p.log() + (1 - target) * p.neg().log1p())
assert torch.allclose(loss, per_element.mean())  # only the positive term is weighted ✓ pos-weight-formula
weights_used = pos_weight * target + (1 - target)  # 1 for every negative
print(loss, per_element.mean(), per_element.sum() / weights_used.sum())  # ✓ pos-weight-mean
#> tensor(0.3624) tensor(0.3624) tensor(0.2635)
assert not torch.allclose(loss, per_element.sum() / weights_used.sum())  # ✓ pos-weight-mean-2
assert per_element.numel() == 12 and torch.allclose(loss, per_element.sum() / 12)  # all 12 elements ✓ pos-weight-12
# negatives' losses are untouched
unweighted = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
weighted = F.binary_cross_entropy_with_logits(
    logits, target, pos_weight=pos_weight, reduction="none"
)
assert torch.equal(weighted[target == 0], unweighted[target == 0])  # ✓ negatives-unchanged
assert not torch.equal(weighted[target == 1], unweighted[target == 1])
# one weight per label: a pos_weight of another size is refused
try:
    F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.ones(3))
except RuntimeError as err:
    print(err)  # ✓ pos-weight-size
    #> The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
# it broadcasts against the target like any tensor: a single number applies to every label
one_for_all = F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.tensor([2.0]))
every_label = F.binary_cross_entropy_with_logits(logits, target, pos_weight=torch.full((4,), 2.0))
assert torch.equal(one_for_all, every_label)  # ✓ pos-weight-broadcast
# per-pixel labels (N, C, H, W): the class dimension is not the last one, the weight is (C, 1, 1)
maps = torch.linspace(-3, 3, 72).reshape(2, 3, 4, 3)  # logits of C = 3 masks of 4 x 3 pixels
masks = (torch.arange(72).reshape(2, 3, 4, 3) % 5 == 0).float()
per_class = torch.tensor([1.0, 3.0, 0.5])
by_channel = torch.stack([  # each class's masks with that class's weight
    F.binary_cross_entropy_with_logits(maps[:, c], masks[:, c], pos_weight=per_class[c], reduction="none")
    for c in range(3)
], dim=1)
shaped = F.binary_cross_entropy_with_logits(maps, masks, pos_weight=per_class.view(3, 1, 1), reduction="none")
assert torch.allclose(shaped, by_channel)  # ✓ pos-weight-image
flat = F.binary_cross_entropy_with_logits(maps, masks, pos_weight=per_class, reduction="none")  # no error:
assert not torch.allclose(flat, by_channel)  # a (C,) weight lines up with W (here W == C) ✓ pos-weight-image-2
# the usual choice: negatives / positives per label, so both sides weigh the same
n_pos = target.sum(dim=0)
n_neg = len(target) - n_pos
print(n_neg / n_pos)
#> tensor([0.5000, 0.5000, 2.0000, 2.0000])
# with that weight, at logit 0 a label's positives and negatives add up to the same loss
balanced = F.binary_cross_entropy_with_logits(
    torch.zeros_like(target), target, pos_weight=n_neg / n_pos, reduction="none"
)
assert torch.allclose((balanced * target).sum(dim=0), (balanced * (1 - target)).sum(dim=0))  # ✓ balanced
pos_weight_doc = " ".join(nn.BCEWithLogitsLoss.__doc__.split())  # the docstring's example: 300 negatives / 100 positives
assert "100 positive and 300 negative examples of a single class, then ``pos_weight`` for the class" \
    " should be equal to :math:`\\frac{300}{100}=3`" in pos_weight_doc  # ✓ pos-weight-doc
# --8<-- [end:pos-weight]

# --8<-- [start:multi-label]
probs = torch.sigmoid(logits)  # one independent probability per label
print(probs.sum(dim=1))  # rows do not sum to 1 (softmax's would) ✓ row-sums
#> tensor([1.8196, 1.8143, 2.6552])
assert torch.allclose(logits.softmax(dim=1).sum(dim=1), torch.ones(3))  # ✓ softmax-rows
predicted = logits > 0  # the same as probs > 0.5
assert torch.equal(predicted, probs > 0.5)  # ✓ logit-zero
tiny = torch.tensor(1e-8)  # except within about 1e-7 of 0: float32 rounds the sigmoid to exactly 0.5
assert tiny > 0 and torch.sigmoid(tiny) == 0.5  # ✓ logit-tiny
near = torch.tensor([-2e-7, -1e-7, -5e-8, 5e-8, 1e-7, 2e-7])  # the edges: 0.5 exactly within about 1e-7
print((torch.sigmoid(near) == 0.5).tolist())  # ✓ logit-tiny-edges
#> [False, True, True, True, False, False]
print(predicted.int())  # ✓ predicted
#> tensor([[1, 0, 1, 0],
#>         [0, 1, 0, 0],
#>         [1, 1, 0, 1]], dtype=torch.int32)
print(F.binary_cross_entropy_with_logits(logits, target, reduction="none").shape)
#> torch.Size([3, 4])
try:
    F.binary_cross_entropy_with_logits(logits, target[:, 0])  # one target per sample
except ValueError as err:
    print(err)  # ✓ target-shape
    #> Target size (torch.Size([3])) must be the same as input size (torch.Size([3, 4]))
for integer in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.long):  # targets must be float
    try:
        F.binary_cross_entropy_with_logits(logits, target.to(integer))
    except RuntimeError as err:
        print(err)  # one line per integer dtype: each is refused ✓ target-float
        #> result type Float can't be cast to the desired output type Byte
        #> result type Float can't be cast to the desired output type Char
        #> result type Float can't be cast to the desired output type Short
        #> result type Float can't be cast to the desired output type Int
        #> result type Float can't be cast to the desired output type Long
# --8<-- [end:multi-label]

# --8<-- [start:double-sigmoid]
scores = torch.sigmoid(logits)  # the model already ends in nn.Sigmoid() ...
twice = nn.BCEWithLogitsLoss()(scores, target)  # ... and the loss applies sigmoid again
print(twice, with_logits)  # ✓ twice
#> tensor(0.6067) tensor(0.2898)
assert torch.allclose(twice, nn.BCELoss()(torch.sigmoid(scores), target))  # sigmoid again ✓ sigmoid-again

# even perfect logits cannot get the loss down: sigmoid(sigmoid(x)) lies in [0.5, 0.731]
perfect = (2 * target - 1) * 20.0  # +20 where the label is 1, -20 where it is 0
wide = torch.linspace(-1e4, 1e4, 20001)  # and every logit from -10000 to 10000, in steps of 1
for scores_of in (logits, perfect, wide):
    seen = torch.sigmoid(torch.sigmoid(scores_of))  # what the loss turns into probabilities
    assert ((seen >= 0.5) & (seen <= torch.sigmoid(torch.tensor(1.0)))).all()  # ✓ squeezed
print(torch.sigmoid(torch.tensor([0.0, 1.0])))  # the ends: sigmoid(0), sigmoid(1) ✓ squeezed-2
#> tensor([0.5000, 0.7311])
print(F.binary_cross_entropy_with_logits(perfect, target))  # ✓ perfect
#> tensor(1.0306e-09)
stuck = F.binary_cross_entropy_with_logits(torch.sigmoid(perfect), target, reduction="none")
floor = target * -F.logsigmoid(torch.tensor(1.0)) + (1 - target) * math.log(2)
print(stuck.mean(), floor.mean())  # -log(sigmoid(1)) for a positive, log(2) for a negative ✓ floor
#> tensor(0.5032) tensor(0.5032)
assert torch.allclose(stuck, floor, atol=1e-6)  # element by element ✓ floor-2

# and the gradient shrinks: at most 1/4 of the right one's largest possible size
x = logits.clone().requires_grad_()
(g_right,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(x, target), x)
(g_twice,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(torch.sigmoid(x), target), x)
print(g_right.abs().max(), g_twice.abs().max())
#> tensor(0.0417) tensor(0.0130)
assert (g_twice.abs() <= 0.25 / target.numel()).all()
sweep = torch.linspace(-10, 10, 401, requires_grad=True)  # any logit, either label
for label in (0.0, 1.0):
    twice_sum = F.binary_cross_entropy_with_logits(
        torch.sigmoid(sweep), torch.full_like(sweep, label), reduction="sum"
    )
    (g_sweep,) = torch.autograd.grad(twice_sum, sweep)
    assert (g_sweep.abs() <= 0.25).all()  # ✓ quarter-gradient
    right_sum = F.binary_cross_entropy_with_logits(sweep, torch.full_like(sweep, label), reduction="sum")
    (g_right_sweep,) = torch.autograd.grad(right_sum, sweep)
    assert g_right_sweep.abs().max() > 0.99  # the right loss's gradient reaches nearly 1 ✓ right-reaches-one
# --8<-- [end:double-sigmoid]

# --8<-- [start:detect]
def check_logits(t):
    """Raise if what goes into BCEWithLogitsLoss looks like probabilities already."""
    if t.min() >= 0 and t.max() <= 1:
        raise ValueError("BCEWithLogitsLoss input all in [0, 1]: was sigmoid applied already?")


check_logits(logits)  # raw scores pass ✓ raw-pass
try:
    check_logits(scores)
except ValueError as err:
    print(err)  # ✓ check-logits
    #> BCEWithLogitsLoss input all in [0, 1]: was sigmoid applied already?
try:  # a guess, not a proof: raw logits that happen to lie in [0, 1] are flagged too
    check_logits(torch.tensor([0.3]))  # one raw logit of 0.3
except ValueError:
    print("flagged")  # ✓ check-small
    #> flagged

# the opposite mistake is caught by PyTorch itself: logits into BCELoss
try:
    nn.BCELoss()(logits, target)
except RuntimeError as err:
    print(err)  # ✓ bce-refuses
    #> all elements of input should be between 0 and 1
refused = []
for outside in (torch.full((3, 4), 1.5), torch.full((3, 4), -0.5)):  # only above 1, only below 0
    try:
        nn.BCELoss()(outside, target)
    except RuntimeError as err:
        refused.append(str(err))
assert refused == ["all elements of input should be between 0 and 1"] * 2, refused  # ✓ bce-refuses-2
# --8<-- [end:detect]

# --8<-- [start:two-classes]
torch.manual_seed(0)
pair = torch.randn(6, 2)  # two logits per sample: class 0 and class 1
label = torch.tensor([0, 1, 1, 0, 1, 0])  # one class index per sample
margin = pair[:, 1] - pair[:, 0]  # one logit: how far class 1 beats class 0
ce_two = F.cross_entropy(pair, label)  # two outputs, class indices
bce_one = F.binary_cross_entropy_with_logits(margin, label.float())  # one output, float 0/1 targets
print(ce_two, bce_one)  # ✓ two-classes-same
#> tensor(0.6185) tensor(0.6185)
assert torch.allclose(ce_two, bce_one)  # ✓ two-classes-same
assert torch.allclose(pair.softmax(dim=1)[:, 1], torch.sigmoid(margin))  # the same probability of class 1 ✓ two-classes-prob
assert torch.allclose(F.cross_entropy(pair + 5.0, label), ce_two)  # only the difference counts ✓ two-classes-shift

features = torch.randn(6, 8)
two = nn.Linear(8, 2)  # two outputs, for CrossEntropyLoss
one = nn.Linear(8, 1)  # one output, for BCEWithLogitsLoss
with torch.no_grad():  # its weights: the difference of the two rows
    one.weight.copy_(two.weight[1:] - two.weight[:1])
    one.bias.copy_(two.bias[1:] - two.bias[:1])
loss_two = F.cross_entropy(two(features), label)
loss_one = F.binary_cross_entropy_with_logits(one(features).squeeze(1), label.float())
assert torch.allclose(loss_two, loss_one)  # the same model, written twice ✓ two-classes-layers
print(sum(p.numel() for p in two.parameters()), sum(p.numel() for p in one.parameters()))  # ✓ two-classes-params
#> 18 9
loss_two.backward()
loss_one.backward()
assert torch.allclose(two.weight.grad[0], -two.weight.grad[1])  # opposite gradients on the two rows ✓ two-classes-grad
assert torch.allclose(two.weight.grad[1], one.weight.grad[0])  # each the one-output gradient ✓ two-classes-grad
# --8<-- [end:two-classes]
