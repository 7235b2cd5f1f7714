"""Detection losses from torchvision.ops: sigmoid_focal_loss and generalized_box_iou_loss.

Page: docs/losses/detection.md
"""

# --8<-- [start:setup]
import inspect

import torch
import torch.nn.functional as F
from torch import nn
from torchvision.ops import box_iou, generalized_box_iou_loss, sigmoid_focal_loss

assert inspect.isfunction(sigmoid_focal_loss) and inspect.isfunction(generalized_box_iou_loss)  # ✓ functions

print(inspect.signature(sigmoid_focal_loss))  # ✓ signatures
#> (inputs: torch.Tensor, targets: torch.Tensor, alpha: float = 0.25, gamma: float = 2, reduction: str = 'none') -> torch.Tensor
print(inspect.signature(generalized_box_iou_loss))  # ✓ signatures-2
#> (boxes1: torch.Tensor, boxes2: torch.Tensor, reduction: str = 'none', eps: float = 1e-07) -> torch.Tensor
print(nn.BCEWithLogitsLoss().reduction)  # the torch.nn class averages by default ✓ bce-mean
#> mean
# --8<-- [end:setup]

# --8<-- [start:focal]
logits = torch.tensor([-4.0, -1.0, 0.5, 3.0, 1.0, -2.0])  # one score per anchor and class
targets = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
focal = sigmoid_focal_loss(logits, targets, reduction="none")  # alpha=0.25, gamma=2


def focal_by_formula(x, t, alpha=0.25, gamma=2.0):
    """-alpha_t * (1 - p_t)^gamma * log(p_t), p_t the probability of the true label."""
    p = torch.sigmoid(x)
    p_t = p * t + (1 - p) * (1 - t)
    alpha_t = alpha * t + (1 - alpha) * (1 - t) if alpha >= 0 else torch.ones_like(t)
    return alpha_t * (1 - p_t) ** gamma * F.binary_cross_entropy_with_logits(x, t, reduction="none")


assert torch.allclose(focal, focal_by_formula(logits, targets))  # ✓ focal-formula
# the formula with alpha_t swapped, or without (1 - p_t)^gamma, gives other numbers
assert not torch.allclose(focal, focal_by_formula(logits, targets, alpha=0.75))  # ✓ focal-formula-2
assert not torch.allclose(focal, focal_by_formula(logits, targets, gamma=0.0))  # ✓ focal-formula-3
bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
print(bce)
#> tensor([0.0181, 0.3133, 0.9741, 0.0486, 0.3133, 2.1269])
print(focal / bce)  # the factor alpha_t * (1 - p_t)^gamma: tiny for easy examples ✓ focal-factor
#> tensor([2.4263e-04, 5.4247e-02, 2.9059e-01, 5.6230e-04, 1.8082e-02, 1.9395e-01])
easy = bce < 0.05
assert easy.sum() == 2 and ((focal / bce)[easy] < 1e-3).all()  # weighted down > 1000x ✓ easy-down
assert ((focal / bce)[~easy] > 1e-2).all()  # the hard ones: less than 100x ✓ easy-down-2
# gamma=0 and alpha=-1 (no alpha weighting) turn it into plain BCE with logits
assert torch.equal(sigmoid_focal_loss(logits, targets, alpha=-1, gamma=0), bce)  # ✓ focal-is-bce
try:  # -1 is the only value outside [0, 1] it accepts
    sigmoid_focal_loss(logits, targets, alpha=-0.5)
except ValueError as err:
    print(err)  # ✓ alpha-range
    #> Invalid alpha value: -0.5. alpha must be in the range [0,1] or -1 for ignore.
inf = float("inf")
alphas = [-inf, -2.0, -1.0001, -1.0, -0.9999, -0.5, -1e-6, 0.0, 0.25, 1.0, 1 + 1e-6, 1.5, 1e9, inf]
refused = []
for alpha in alphas:  # around 0, 1 and -1, and far out
    try:
        sigmoid_focal_loss(logits, targets, alpha=alpha)
    except ValueError:
        refused.append(alpha)
assert refused == [a for a in alphas if not 0 <= a <= 1 and a != -1]  # refused: outside [0, 1], -1 excepted ✓ alpha-range-2
assert "if not (0 <= alpha <= 1) and alpha != -1:" in inspect.getsource(sigmoid_focal_loss)  # the rule ✓ alpha-rule
# --8<-- [end:focal]

# --8<-- [start:giou]
# boxes as (x1, y1, x2, y2): top-left and bottom-right corners
pred = torch.tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
true = torch.tensor([[1.0, 1.0, 3.0, 3.0], [2.0, 0.0, 3.0, 1.0], [5.0, 0.0, 6.0, 1.0]])
loss = generalized_box_iou_loss(pred, true)  # reduction="none" by default
print(loss)  # ✓ giou-values
#> tensor([1.0794, 1.3333, 1.6667])


def area(box):
    """Width times height of one (x1, y1, x2, y2) box."""
    return (box[2] - box[0]) * (box[3] - box[1])


def overlap_parts(a, b):
    """Intersection, union and enclosing box C of two boxes, each as (width, height)."""
    inter_w = (min(a[2], b[2]) - max(a[0], b[0])).clamp(min=0)
    inter_h = (min(a[3], b[3]) - max(a[1], b[1])).clamp(min=0)
    union = area(a) + area(b) - inter_w * inter_h
    hull_w, hull_h = max(a[2], b[2]) - min(a[0], b[0]), max(a[3], b[3]) - min(a[1], b[1])
    return (inter_w, inter_h), union, (hull_w, hull_h)


def giou_by_hand(a, b):
    """IoU minus the share of the enclosing box C that the union leaves empty."""
    (inter_w, inter_h), union, (hull_w, hull_h) = overlap_parts(a, b)
    hull = hull_w * hull_h
    return inter_w * inter_h / union - (hull - union) / hull


for a, b in zip(pred, true, strict=True):
    (inter_w, inter_h), union, (hull_w, hull_h) = overlap_parts(a, b)
    print((inter_w.item(), inter_h.item()), union.item(), (hull_w.item(), hull_h.item()))  # intersection, union, C ✓ giou-parts
    #> (1.0, 1.0) 7.0 (3.0, 3.0)
    #> (0.0, 1.0) 2.0 (3.0, 1.0)
    #> (0.0, 1.0) 2.0 (6.0, 1.0)
by_hand = torch.stack([1 - giou_by_hand(a, b) for a, b in zip(pred, true, strict=True)])
print(by_hand)  # overlapping: 1 - (1/7 - 2/9); disjoint: 1 + 1/3, 1 + 2/3
#> tensor([1.0794, 1.3333, 1.6667])
assert torch.allclose(loss, by_hand)  # ✓ giou-by-hand
assert torch.allclose(loss, torch.tensor([1 - (1 / 7 - 2 / 9), 1 + 1 / 3, 1 + 2 / 3]))  # ✓ giou-fractions
print(box_iou(pred, true).diag())  # IoU is 0 for both disjoint pairs: no signal there ✓ iou-zero
#> tensor([0.1429, 0.0000, 0.0000])
assert loss[2] > loss[1] > 1  # GIoU still tells a near miss from a far one ✓ giou-farther
# and so it still has a gradient for disjoint boxes, where 1 - IoU has none
moving = pred.clone().requires_grad_()
(g_iou,) = torch.autograd.grad((1 - box_iou(moving, true).diag()).sum(), moving)
(g_giou,) = torch.autograd.grad(generalized_box_iou_loss(moving, true).sum(), moving)
print(g_iou[1:].abs().sum(1), g_giou[1:].abs().sum(1))  # each of the two disjoint pairs ✓ gradients
#> tensor([0., 0.]) tensor([0.4444, 0.2778])
assert (g_iou[1:] == 0).all() and (g_giou[1:].abs().sum(1) > 0).all()  # ✓ gradients-each
# --8<-- [end:giou]
