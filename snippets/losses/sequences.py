"""CTCLoss: (T, N, C) layout, log_softmax input, blank index, lengths, zero_infinity.

Page: docs/losses/sequences.md
"""

# --8<-- [start:setup]
import inspect
import itertools
import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
T, N, C = 5, 2, 4  # 5 time steps, a batch of 2, 4 classes of which class 0 is the blank
scores = torch.randn(T, N, C)  # what a model emits, TIME first
log_probs = scores.log_softmax(dim=2)  # CTC takes log-probabilities over the classes
targets = torch.tensor([[1, 2, 1], [3, 3, 0]])  # "1 2 1" and "3 3", padded to (N, S)
input_lengths = torch.tensor([5, 5])  # valid time steps of each sample
target_lengths = torch.tensor([3, 2])  # valid labels of each sample: the padding is ignored
assert log_probs.shape == (T, N, C) and targets.shape == (N, 3)  # ✓ data
# --8<-- [end:setup]

# --8<-- [start:call]
ctc = nn.CTCLoss()  # blank=0, reduction="mean", zero_infinity=False
print(ctc.blank, ctc.reduction, ctc.zero_infinity)  # ✓ defaults
#> 0 mean False
per_sample = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none")
print(per_sample)  # ✓ per-sample
#> tensor([4.5658, 4.3604])
# targets may also be one 1-D tensor, all sequences concatenated
flat = torch.cat([targets[0, :3], targets[1, :2]])
flat_loss = F.ctc_loss(log_probs, flat, input_lengths, target_lengths, reduction="none")
assert torch.allclose(flat_loss, per_sample)  # ✓ concatenated
for pad in (2, -1, 99):  # the padding is never read: not even a value that is no class
    other_padding = torch.tensor([[1, 2, 1], [3, 3, pad]])
    assert torch.equal(F.ctc_loss(log_probs, other_padding, input_lengths, target_lengths,
                                  reduction="none"), per_sample)  # ✓ padding-unread
# input_lengths: the time steps after a sample's length are never read either
four = torch.tensor([4, 4])
assert torch.equal(F.ctc_loss(log_probs, targets, four, target_lengths, reduction="none"),
                   F.ctc_loss(log_probs[:4], targets, four, target_lengths, reduction="none"))  # ✓ input-lengths
# ... for each sample: lengths 5 and 3, and NaN in sample 1's steps after its 3
unread = log_probs.clone()
unread[3:, 1] = float("nan")
assert torch.equal(F.ctc_loss(unread, targets, torch.tensor([5, 3]), target_lengths, reduction="none"),
                   F.ctc_loss(log_probs, targets, torch.tensor([5, 3]), target_lengths, reduction="none"))  # ✓ input-lengths-each
# (with a length of 4, step 3 is read: its NaN reaches the loss)
assert F.ctc_loss(unread, targets, four, target_lengths, reduction="none")[1].isnan()  # ✓ input-lengths-read
for step in range(3):  # so is each of the 3 steps given: a NaN step there, NaN loss
    nan_step = log_probs.clone()
    nan_step[step, 1] = float("nan")
    assert F.ctc_loss(nan_step, targets, torch.tensor([5, 3]), target_lengths, reduction="none")[1].isnan()  # ✓ input-lengths-read
# "mean" divides each loss by its target length, then averages over the batch
print(ctc(log_probs, targets, input_lengths, target_lengths), per_sample.mean())  # ✓ mean
#> tensor(1.8511) tensor(4.4631)
mean = ctc(log_probs, targets, input_lengths, target_lengths)
assert torch.allclose(mean, (per_sample / target_lengths).mean())  # ✓ mean-divides
assert not torch.allclose(mean, per_sample.sum() / target_lengths.sum())  # ✓ mean-divides-2
# --8<-- [end:call]

# --8<-- [start:by-hand]
# 2 time steps, classes {blank, "a"}, target "a": the alignments are "aa", "-a", "a-"
probs = torch.tensor([[0.6, 0.4], [0.3, 0.7]])  # (T, C): row t = P(blank), P("a") at step t
paths = probs[0, 1] * probs[1, 1] + probs[0, 0] * probs[1, 1] + probs[0, 1] * probs[1, 0]
loss = F.ctc_loss(probs.log().unsqueeze(1), torch.tensor([[1]]), torch.tensor([2]),
                  torch.tensor([1]), reduction="sum")
print(loss, -paths.log())  # ✓ by-hand
#> tensor(0.1985) tensor(0.1985)
assert torch.allclose(loss, -paths.log())  # ✓ by-hand-2
# a sum over alignments, not the best one alone
assert not torch.allclose(loss, -(probs[0, 0] * probs[1, 1]).log())  # ✓ by-hand-3


def collapse(path):  # merge repeats, then drop the blanks (class 0)
    return [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]


# The page's data: all C**T = 1024 paths of each sample, summed where they collapse to its target
for n in range(N):
    target_n, probs_n = targets[n, : target_lengths[n]].tolist(), log_probs[:, n].exp().tolist()
    total = sum(
        math.prod(probs_n[t][c] for t, c in enumerate(path))
        for path in itertools.product(range(C), repeat=T)
        if collapse(path) == target_n
    )
    assert math.isclose(-math.log(total), per_sample[n].item(), rel_tol=1e-5)  # ✓ by-hand-all
# --8<-- [end:by-hand]

# --8<-- [start:log-softmax]
# CTC's kernel does not normalise its input: shifting every score by 1 changes the loss by T
args = (targets, input_lengths, target_lengths)
shifted = F.ctc_loss(log_probs + 1, *args, reduction="none")
print(shifted, per_sample - T)  # ✓ shifted
#> tensor([-0.4342, -0.6396]) tensor([-0.4342, -0.6396])
assert torch.allclose(shifted, per_sample - T)  # ✓ shifted-2
assert torch.allclose((log_probs + 1).log_softmax(dim=2), log_probs)  # log_softmax ignores it ✓ shift-invariant
# so raw scores give a different (and meaningless) loss: apply log_softmax first
assert not torch.allclose(F.ctc_loss(scores, *args), F.ctc_loss(log_probs, *args))  # ✓ raw-scores
# on CUDA, input that passes one of PyTorch's two tests goes to cuDNN instead (box below):
# one test for length tensors, one for lengths as lists
assert {"default", "Tensor"} <= set(torch.ops.aten._use_cudnn_ctc_loss.overloads())  # ✓ cudnn-two-tests
# CTCLoss's docstring lists conditions for cuDNN, but not the targets' device
docstring = " ".join(inspect.getdoc(nn.CTCLoss).split())
cudnn_note = docstring[docstring.index("In order to use CuDNN") :].split(" Note:")[0]
conditions = ["concatenated format", "must be `T`", "blank=0", r"\leq 256", "torch.int32"]
assert all(term in cudnn_note for term in conditions)  # ✓ cudnn-conditions
assert not any(word in cudnn_note.lower() for word in ("cpu", "device"))  # ✓ cudnn-list-no-device
if torch.cuda.is_available():  # requires: cuda
    lp, tol = log_probs.cuda(), {"atol": 1e-5}
    padded = (targets.cuda(), input_lengths, target_lengths)  # int64, padded: PyTorch's own CUDA kernel
    own = F.ctc_loss(lp, *padded, reduction="none").cpu()
    assert torch.allclose(F.ctc_loss(lp + 1, *padded, reduction="none").cpu(), own - T, **tol)  # ✓ cuda-native
    on_gpu = (flat.int().cuda(), input_lengths, target_lengths)  # int32 targets on the GPU, int64 lengths
    assert torch.allclose(F.ctc_loss(lp + 1, *on_gpu, reduction="none").cpu(), own - T, **tol)  # ✓ cuda-targets-native
    int32_lengths = (input_lengths.int(), target_lengths.int())  # int32 length tensors: cuDNN
    cudnn = F.ctc_loss(lp, flat.int().cuda(), *int32_lengths, reduction="none").cpu()
    for place in ("cuda", "cpu"):  # wherever the targets are
        on_cudnn = (flat.int().to(place), *int32_lengths)
        assert torch.allclose(F.ctc_loss(lp + 1, *on_cudnn, reduction="none").cpu(), cudnn, **tol)  # ✓ cudnn-softmax
        assert torch.allclose(F.ctc_loss(scores.cuda(), *on_cudnn, reduction="none").cpu(), per_sample, **tol)  # ✓ cudnn-raw
    shorter = (flat.int().cuda(), torch.tensor([5, 4], dtype=torch.int32), target_lengths.int())  # 4 < T steps
    assert torch.allclose(F.ctc_loss(lp + 1, *shorter, reduction="none"), F.ctc_loss(lp, *shorter, reduction="none"), **tol)  # ✓ cudnn-any-length
    as_list = (flat.int(), input_lengths, target_lengths)  # int64 lengths, int32 targets on the CPU, every length T
    assert torch.allclose(F.ctc_loss(lp + 1, *as_list, reduction="none").cpu(), cudnn, **tol)  # ✓ cudnn-int-list
# --8<-- [end:log-softmax]

# --8<-- [start:layout]
batch_first = log_probs.transpose(0, 1)  # (N, T, C): read as T=2 steps of a batch of 5
try:
    F.ctc_loss(batch_first, *args)
except RuntimeError as err:
    print(err)  # ✓ batch-first
    #> input_lengths must be of size batch_size
# with as many samples as time steps the same mistake raises nothing: a wrong loss
square = torch.randn(3, 3, C).log_softmax(dim=2)  # (T, N, C) with T = N = 3
square_args = (torch.tensor([[1], [2], [3]]), torch.tensor([3, 3, 3]), torch.tensor([1, 1, 1]))
swapped = F.ctc_loss(square.transpose(0, 1), *square_args)
assert torch.isfinite(swapped) and not torch.allclose(swapped, F.ctc_loss(square, *square_args))  # ✓ square
# a blank index inside a target is not rejected: no error, no warning, a finite loss
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with_blank = F.ctc_loss(log_probs, torch.tensor([[0, 2, 1], [3, 1, 0]]), *args[1:])
assert torch.isfinite(with_blank) and caught == []  # ✓ blank-target
# --8<-- [end:layout]

# --8<-- [start:zero-infinity]
# sample 1's target "3 3" needs a blank between the repeats: 3 steps at least, it gets 2
short = torch.tensor([5, 2])
bias = torch.zeros(C, requires_grad=True)  # a parameter both samples share
shared = (scores + bias).log_softmax(dim=2)
print(F.ctc_loss(shared, targets, short, target_lengths, reduction="none"))  # ✓ impossible
#> tensor([4.5658,    inf], grad_fn=<CtcLossBackward0>)
three = F.ctc_loss(shared, targets, torch.tensor([5, 3]), target_lengths, reduction="none")
assert torch.isfinite(three).all()  # with 3 steps "3 3" is possible ✓ three-enough
loss = F.ctc_loss(shared, targets, short, target_lengths)
loss.backward()
print(loss, bias.grad)  # one impossible sample: inf loss, nan in the shared gradient ✓ nan-grad
#> tensor(inf, grad_fn=<MeanBackward0>) tensor([nan, nan, nan, nan])

bias.grad = None
shared = (scores + bias).log_softmax(dim=2)
loss = F.ctc_loss(shared, targets, short, target_lengths, zero_infinity=True)
print(F.ctc_loss(shared, targets, short, target_lengths, reduction="none", zero_infinity=True))  # ✓ zeroed
#> tensor([4.5658, 0.0000], grad_fn=<WhereBackward0>)
loss.backward()
assert torch.isfinite(loss) and torch.isfinite(bias.grad).all()  # ✓ finite
# the impossible sample now adds nothing: the gradient is sample 0's alone
b0 = torch.zeros(C, requires_grad=True)
alone = F.ctc_loss((scores[:, :1] + b0).log_softmax(dim=2), targets[:1], short[:1],
                   target_lengths[:1], reduction="sum") / target_lengths[0] / N
alone.backward()
assert torch.allclose(bias.grad, b0.grad)  # ✓ alone
assert not torch.allclose(bias.grad, N * b0.grad)  # the zeroed sample still counts in the mean ✓ alone-divisor
# --8<-- [end:zero-infinity]
