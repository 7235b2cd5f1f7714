"""Fine-tuning: freezing a backbone, what the optimizer does with frozen parameters, parameter groups
with their own learning rates, BatchNorm in a frozen backbone, counting trainable parameters.

Page: docs/models/finetuning.md
"""

# --8<-- [start:setup]
import copy
import inspect
import warnings

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F
from torchvision import models

torch.manual_seed(0)


class Net(nn.Module):
    """A small "pretrained" backbone (conv, BatchNorm) and a head to train."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()
        )
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


x = torch.randn(16, 3, 8, 8) + 2  # a batch of images, not centred (BatchNorm's statistics move)
y = torch.randint(0, 2, (16,))
pretrained = Net()  # stands for a model with pretrained weights
# --8<-- [end:setup]


# --8<-- [start:freeze]
def count_parameters(model: nn.Module) -> tuple[int, int]:
    """(trainable, total) numbers of parameter elements."""
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return trainable, sum(p.numel() for p in model.parameters())


model = copy.deepcopy(pretrained)
model.backbone.requires_grad_(False)  # every parameter of the backbone: requires_grad = False
print(count_parameters(model))  # only the head's 8 * 2 + 2 elements train ✓ count
#> (18, 258)
F.cross_entropy(model(x), y).backward()
print(model.backbone[0].weight.grad, model.head.weight.grad.shape)  # no gradient for the frozen part ✓ frozen-no-grad
#> None torch.Size([2, 8])
assert all(p.grad is None for p in model.backbone.parameters())  # not one of the four ✓ frozen-no-grad
# --8<-- [end:freeze]

# --8<-- [start:resnet]
resnet = models.resnet18(weights=None)  # weights=models.ResNet18_Weights.DEFAULT loads the pretrained ones
resnet.requires_grad_(False)  # freeze everything ...
resnet.fc = nn.Linear(resnet.fc.in_features, 10)  # ... then a new head, which requires grad
print(count_parameters(resnet))  # ✓ resnet-count
#> (5130, 11181642)
print([name for name, p in resnet.named_parameters() if p.requires_grad])  # ✓ resnet-trainable
#> ['fc.weight', 'fc.bias']

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    models.resnet18(pretrained=False)  # the pre-0.13 argument is still accepted, with two warnings
for warning in caught:
    print(warning.category.__name__, str(warning.message)[:70])  # ✓ pretrained-warning
    #> UserWarning The parameter 'pretrained' is deprecated since 0.13 and may be removed
    #> UserWarning Arguments other than a weight enum or `None` for 'weights' are depreca
assert len(caught) == 2 and all("deprecated since 0.13" in str(w.message) for w in caught)  # ✓ pretrained-warning
assert "please use 'weights' instead" in str(caught[0].message)  # the first says what to pass ✓ pretrained-use-weights
# --8<-- [end:resnet]


# --8<-- [start:optimizer]
def train_steps(model: nn.Module, optimizer: torch.optim.Optimizer, steps: int = 3) -> None:
    for _ in range(steps):
        optimizer.zero_grad()  # set_to_none=True, the default: .grad becomes None
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# 1. only the trainable parameters (the usual way)
model = copy.deepcopy(pretrained)
model.backbone.requires_grad_(False)
optimizer = torch.optim.SGD((p for p in model.parameters() if p.requires_grad), lr=0.1, momentum=0.9)
train_steps(model, optimizer)
print(torch.equal(model.backbone[0].weight, pretrained.backbone[0].weight))  # ✓ only-trainable
#> True
filtered = list(filter(lambda p: p.requires_grad, model.parameters()))  # the other spelling: the same tensors
assert [id(p) for p in filtered] == [id(p) for p in optimizer.param_groups[0]["params"]]  # ✓ only-trainable

# 2. every parameter, frozen from the start: momentum and weight decay included, nothing moves
model = copy.deepcopy(pretrained)
model.backbone.requires_grad_(False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
train_steps(model, optimizer)
unchanged = [torch.equal(a, b) for a, b in zip(model.backbone.parameters(), pretrained.backbone.parameters(), strict=True)]
print(len(unchanged), all(unchanged))  # every backbone parameter: .grad is None, skipped ✓ all-frozen-from-start
#> 4 True
# --8<-- [end:optimizer]

# --8<-- [start:optimizer-state]
for optimizer_class, options in [
    (torch.optim.SGD, {"momentum": 0.9}),  # a momentum buffer per parameter
    (torch.optim.AdamW, {"weight_decay": 0.0}),  # moving averages per parameter
    (torch.optim.SGD, {"weight_decay": 0.01}),  # no momentum, no state: weight decay only
]:
    model = copy.deepcopy(pretrained)
    optimizer = optimizer_class(model.parameters(), lr=0.01, **options)
    train_steps(model, optimizer)  # phase 1: the whole model trains, the optimizer keeps a state per parameter
    model.backbone.requires_grad_(False)  # phase 2: freeze the backbone, keep the optimizer
    before = model.backbone[0].weight.clone()
    optimizer.zero_grad(set_to_none=False)  # zeros instead of None: the frozen .grad stays a tensor
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    print(optimizer_class.__name__, options, torch.equal(model.backbone[0].weight, before))  # ✓ state-moves
    #> SGD {'momentum': 0.9} False
    #> AdamW {'weight_decay': 0.0} False
    #> SGD {'weight_decay': 0.01} False

    before = model.backbone[0].weight.clone()
    optimizer.zero_grad()  # set_to_none=True: the frozen parameters have no .grad and are skipped
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    print(optimizer_class.__name__, options, torch.equal(model.backbone[0].weight, before))  # ✓ none-skipped
    #> SGD {'momentum': 0.9} True
    #> AdamW {'weight_decay': 0.0} True
    #> SGD {'weight_decay': 0.01} True
assert inspect.signature(torch.optim.Optimizer.zero_grad).parameters["set_to_none"].default is True  # ✓ none-default
# --8<-- [end:optimizer-state]

# --8<-- [start:lr-zero]
model = copy.deepcopy(pretrained)
optimizer = torch.optim.SGD(
    [{"params": model.backbone.parameters(), "lr": 0.0}, {"params": model.head.parameters()}],
    lr=0.1,
    momentum=0.9,
)
train_steps(model, optimizer)
print(torch.equal(model.backbone[0].weight, pretrained.backbone[0].weight))  # lr = 0: the weights stay ✓ lr-zero-stays
#> True
print(model.backbone[0].weight.grad is not None)  # but their gradients are still computed, every step ✓ lr-zero-grads
#> True
print(torch.equal(model.backbone[1].running_mean, pretrained.backbone[1].running_mean))  # and BatchNorm still moves ✓ lr-zero-bn
#> False
# --8<-- [end:lr-zero]


# --8<-- [start:no-grad-forward]
class NoGradBackbone(Net):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():  # no graph through the backbone
            features = self.backbone(x)
        return self.head(features)


frozen = copy.deepcopy(pretrained)
frozen.backbone.requires_grad_(False)
F.cross_entropy(frozen(x), y).backward()
by_no_grad = NoGradBackbone()
by_no_grad.load_state_dict(pretrained.state_dict())
F.cross_entropy(by_no_grad(x), y).backward()
print(by_no_grad.backbone[0].weight.grad, torch.equal(by_no_grad.head.weight.grad, frozen.head.weight.grad))  # ✓ no-grad-same
#> None True

stem = nn.Conv2d(3, 3, 1)  # a trainable layer BEFORE the no_grad part ...
F.cross_entropy(by_no_grad(stem(x)), y).backward()
print(stem.weight.grad)  # ... gets no gradient at all ✓ no-grad-cuts
#> None
F.cross_entropy(frozen(stem(x)), y).backward()  # the same stem before a backbone frozen by requires_grad_(False)
print(stem.weight.grad is not None, frozen.backbone[0].weight.grad)  # ... gets its gradient ✓ frozen-middle
#> True None

ddp_parameters = inspect.signature(nn.parallel.DistributedDataParallel).parameters
assert ddp_parameters["find_unused_parameters"].default is False  # DDP's default ✓ ddp-default
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)  # DDP needs a group: one process
assert (dist.get_backend(), dist.get_world_size()) == ("gloo", 1)  # ✓ one-process-group
try:
    for frozen_too, find_unused in [(False, False), (True, False), (False, True)]:
        net = NoGradBackbone()
        net.backbone.requires_grad_(not frozen_too)
        ddp = nn.parallel.DistributedDataParallel(net, find_unused_parameters=find_unused)  # default: False
        steps_done = 0
        try:
            for _ in range(2):  # two training steps
                F.cross_entropy(ddp(x), y).backward()
                steps_done += 1
            print(frozen_too, find_unused, "trains")  # ✓ ddp-frozen ✓ ddp-find-unused
            #> True False trains
            #> False True trains
        except RuntimeError as err:  # the backbone requires a gradient that never comes
            print(frozen_too, find_unused, str(err).split(". ")[0])  # ✓ ddp-no-grad
            #> False False Expected to have finished reduction in the prior iteration before starting a new one
            assert steps_done == 1  # the second step raises, not the first ✓ ddp-no-grad
finally:
    dist.destroy_process_group()
# --8<-- [end:no-grad-forward]

# --8<-- [start:param-groups]
model = copy.deepcopy(pretrained)
optimizer = torch.optim.SGD(
    [
        {"params": model.backbone.parameters(), "lr": 0.001, "momentum": 0.9},  # options of its own
        {"params": model.head.parameters()},  # lr: the one below; momentum: SGD's default, 0
    ],
    lr=0.01,
)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.1)
print([(group["lr"], group["momentum"]) for group in optimizer.param_groups])  # ✓ group-lrs
#> [(0.001, 0.9), (0.01, 0)]
conv_before, head_before = model.backbone[0].weight.clone(), model.head.weight.clone()
optimizer.zero_grad()
F.cross_entropy(model(x), y).backward()
optimizer.step()
conv, head = model.backbone[0].weight, model.head.weight
print(torch.allclose(conv, conv_before - 0.001 * conv.grad), torch.allclose(head, head_before - 0.01 * head.grad))  # ✓ group-update
#> True True

scheduler.step()
print([round(group["lr"], 6) for group in optimizer.param_groups])  # StepLR scales every group ✓ group-scheduler
#> [0.0001, 0.001]
for max_lr in (0.01, [0.001, 0.01]):  # OneCycleLR sets each group's learning rate from its max_lr
    groups = [{"params": model.backbone.parameters(), "lr": 0.001}, {"params": model.head.parameters()}]
    one_cycle = torch.optim.SGD(groups, lr=0.01)
    torch.optim.lr_scheduler.OneCycleLR(one_cycle, max_lr=max_lr, total_steps=10)
    print(max_lr, [round(group["lr"], 6) for group in one_cycle.param_groups])  # ✓ one-cycle
    #> 0.01 [0.0004, 0.0004]
    #> [0.001, 0.01] [4e-05, 0.0004]

try:
    torch.optim.SGD([{"params": model.head.parameters()}, {"params": model.parameters()}], lr=0.01)
except ValueError as err:
    print(err)  # the head is in both groups ✓ group-overlap
    #> some parameters appear in more than one parameter group
# --8<-- [end:param-groups]

# --8<-- [start:batchnorm]
model = copy.deepcopy(pretrained)
model.backbone.requires_grad_(False)
model.train()
model(x)
bn = model.backbone[1]
print(bn.weight.requires_grad, bn.bias.requires_grad, torch.equal(bn.running_mean, pretrained.backbone[1].running_mean))  # ✓ bn-frozen-moves
#> False False False
assert {name for name, _ in bn.named_buffers()} >= {"running_mean", "running_var"}  # statistics: buffers ✓ bn-frozen-moves
after_one = bn.running_mean.clone()
model(x)
assert not torch.equal(bn.running_mean, after_one)  # and every forward pass moves them again ✓ bn-frozen-moves


class FineTuner(Net):
    def train(self, mode: bool = True) -> "FineTuner":
        super().train(mode)
        self.backbone.eval()  # the frozen part stays in eval mode, whatever train() is called with
        return self


model = FineTuner()
model.load_state_dict(pretrained.state_dict())
model.backbone.requires_grad_(False)
model.train()  # as a training loop calls it at the start of each epoch
model(x)
print(model.head.training, model.backbone[1].training)  # ✓ finetuner-modes
#> True False
print(torch.equal(model.backbone[1].running_mean, pretrained.backbone[1].running_mean))  # ✓ finetuner-stats
#> True

model = copy.deepcopy(pretrained)
model.backbone.eval()  # eval() alone, on the plain model ...
model.train()  # ... is undone by the next train()
print(model.backbone[1].training)  # ✓ train-undoes
#> True
# --8<-- [end:batchnorm]

# --8<-- [start:freeze-bn-everywhere]
def freeze_batchnorm(model: nn.Module) -> None:
    """Every BatchNorm layer of the model: eval mode, and its weight and bias frozen."""
    for module in model.modules():
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)):
            module.eval()
            module.requires_grad_(False)


freeze_batchnorm(resnet)  # call it again after every resnet.train()
frozen_bn = [m for m in resnet.modules() if isinstance(m, nn.BatchNorm2d)]
print(len(frozen_bn), any(m.training for m in frozen_bn))  # ✓ bn-everywhere
#> 20 False
assert not any(p.requires_grad for m in frozen_bn for p in m.parameters())  # weight and bias frozen ✓ bn-everywhere
trainable = copy.deepcopy(resnet).requires_grad_(True).train()  # a model with nothing frozen yet
freeze_batchnorm(trainable)
in_bn = {id(p) for m in trainable.modules() if isinstance(m, nn.BatchNorm2d) for p in m.parameters()}
assert all(p.requires_grad == (id(p) not in in_bn) for p in trainable.parameters())  # BN's only ✓ bn-everywhere
assert all(m.training != isinstance(m, nn.BatchNorm2d) for m in trainable.modules())  # only BN in eval mode ✓ bn-everywhere

synced = nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(resnet).train())  # as for DDP
frozen_sync = [m for m in synced.modules() if isinstance(m, nn.SyncBatchNorm)]
freeze_batchnorm(synced)
print(len(frozen_sync), isinstance(frozen_sync[0], nn.BatchNorm2d), any(m.training for m in frozen_sync))  # ✓ sync-bn
#> 20 False False

generator = torch.Generator().manual_seed(0)  # its own random numbers: the page's other ones stay as they are
feature = torch.randn(1024, generator=generator)  # one channel, 1024 samples, true mean 0
spread = {}
for batch_size in (2, 64):
    means = feature.view(-1, batch_size).mean(dim=1)  # the mean BatchNorm uses, batch by batch
    spread[batch_size] = means.std().item()
    print(batch_size, round(spread[batch_size], 2))  # how far it strays from batch to batch ✓ bn-small-batch
    #> 2 0.72
    #> 64 0.13
assert spread[2] > 5 * spread[64]  # more than five times as far ✓ bn-small-batch
# --8<-- [end:freeze-bn-everywhere]

# --8<-- [start:partial]
try:
    pretrained.backbone[0].weight[0].requires_grad_(False)  # one output channel's kernel: a slice
except RuntimeError as err:
    print(str(err).split(". ")[0])  # ✓ whole-tensor
    #> you can only change requires_grad flags of leaf variables
for weight_decay in (0.0, 0.01):
    conv = copy.deepcopy(pretrained.backbone[0])
    mask = torch.ones_like(conv.weight)
    mask[0] = 0  # freeze the first output channel's kernel, train the other seven
    conv.weight.register_hook(lambda grad, mask=mask: grad * mask)  # zero its part of every gradient
    optimizer = torch.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9, weight_decay=weight_decay)
    for _ in range(3):
        optimizer.zero_grad()
        conv(x).square().mean().backward()
        optimizer.step()
    kept = torch.equal(conv.weight[0], pretrained.backbone[0].weight[0])
    trained = not torch.equal(conv.weight[1], pretrained.backbone[0].weight[1])
    print(weight_decay, kept, trained)  # ✓ partial
    #> 0.0 True True
    #> 0.01 False True
# --8<-- [end:partial]
