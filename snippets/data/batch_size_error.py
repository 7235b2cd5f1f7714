"""The "batch size not divisible" error: reproduce, find the cause, fix it.

Page: docs/data/batch_size_error.md
"""

# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Subset, TensorDataset

# --8<-- [end:setup]

# --8<-- [start:data]
N, BATCH_SIZE, NUM_CLASSES = 19130, 4, 10  # the numbers of the notes
g = torch.Generator().manual_seed(0)
dataset = TensorDataset(
    torch.randn(N, 3, 8, 8, generator=g), torch.randint(0, NUM_CLASSES, (N,), generator=g)
)
loader = DataLoader(dataset, batch_size=BATCH_SIZE)
batch_sizes = [len(batch) for batch in loader.batch_sampler]  # the indices of each batch
print(len(loader), batch_sizes[-3:], N % BATCH_SIZE)  # ✓ batch-count
#> 4783 [4, 4, 2] 2
print(next(iter(loader.batch_sampler)))  # a batch of the sampler: indices, no data ✓ sampler-indices
#> [0, 1, 2, 3]
assert set(batch_sizes[:-1]) == {BATCH_SIZE}  # every batch but the last is full ✓ full-batches
assert divmod(N, BATCH_SIZE) == (4782, 2)  # 19130 = 4 x 4782 + 2 ✓ divmod


class CountedReads(TensorDataset):
    """The same data, counting the samples read from it."""

    reads = 0

    def __getitem__(self, index):
        CountedReads.reads += 1
        return super().__getitem__(index)


counted = DataLoader(CountedReads(*dataset.tensors), batch_size=BATCH_SIZE)
assert len(list(counted.batch_sampler)) == 4783 and CountedReads.reads == 0  # none read ✓ no-data-loaded
next(iter(counted))  # while a batch from the loader itself reads its 4 samples
assert CountedReads.reads == BATCH_SIZE  # ✓ batch-reads
# --8<-- [end:data]


# --8<-- [start:model]
class Net(nn.Module):
    """A small fully convolutional classifier with the bug."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(16, NUM_CLASSES, 1)  # 1x1 conv: one score per class
        self.pool = nn.AdaptiveAvgPool2d(1)  # -> (batch, NUM_CLASSES, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.classifier(self.features(x)))
        return x.view(BATCH_SIZE, -1)  # BUG: the batch size is hard-coded


def train(model: nn.Module, loader: DataLoader, log: list[int] | None = None) -> int:
    """One epoch of training; returns the number of batches done (sizes appended to log)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    done = 0
    for inputs, targets in loader:
        loss = F.cross_entropy(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        done += 1
        if log is not None:
            log.append(len(targets))
    return done


# --8<-- [end:model]

# --8<-- [start:reproduce]
# Batches 1..4780 of the epoch are full and identical in shape: run the tail of
# the epoch, the last 10 samples = batches 4781, 4782, 4783 (4, 4, 2 samples).
tail = DataLoader(Subset(dataset, range(N - 10, N)), batch_size=BATCH_SIZE)
assert [len(t) for _, t in tail] == batch_sizes[-3:]  # the epoch's last three batches ✓ tail-batches
torch.manual_seed(0)
model = Net()
trained = []
try:
    train(model, tail, log=trained)
except ValueError as err:
    error_message = str(err)
    print(f"{type(err).__name__}: {err}")  # ✓ error-text
    #> ValueError: Expected input batch_size (4) to match target batch_size (2).
print(trained)  # the sizes of the batches that trained before the error ✓ trained-two
#> [4, 4]
assert error_message == "Expected input batch_size (4) to match target batch_size (2)."  # ✓ error-exact
notes_form = "Expected input batch_size(4) to match target batch_size(2)"  # as the notes copied it
assert error_message.replace(" (", "(").removesuffix(".") == notes_form  # only spaces and the period differ ✓ notes-form
*_, (last_inputs, last_targets) = tail  # the loader's last batch: valid, 2 samples
print(last_inputs.shape, last_targets.shape)  # ✓ valid-batch
#> torch.Size([2, 3, 8, 8]) torch.Size([2])
four_rows, two_targets = torch.randn(4, 5), torch.tensor([0, 1])
raised = []  # what each loss says, given 4 rows and 2 targets
for loss_fn in (F.cross_entropy, nn.CrossEntropyLoss(), F.nll_loss):  # the loss raises it
    try:
        loss_fn(four_rows, two_targets)
    except ValueError as err:
        raised.append(str(err))
assert raised == [error_message] * 3  # all three raise it, with the same text ✓ three-losses
# --8<-- [end:reproduce]

# --8<-- [start:shapes]
two = torch.randn(2, 3, 8, 8, generator=g)  # what the last batch holds
print(model.pool(model.classifier(model.features(two))).shape, "->", model(two).shape)  # ✓ four-rows
#> torch.Size([2, 10, 1, 1]) -> torch.Size([4, 5])
assert model(two).numel() == two.size(0) * NUM_CLASSES == 20  # the same 2 x 10 numbers, as 4 rows of 5 ✓ twenty
try:
    model(torch.randn(3, 3, 8, 8, generator=g))  # 3 x 10 = 30 numbers: not divisible by 4
except RuntimeError as err:
    print(f"RuntimeError: {err}")  # ✓ view-fails
    #> RuntimeError: shape '[4, -1]' is invalid for input of size 30
# --8<-- [end:shapes]

# --8<-- [start:drop-last]
dropped = DataLoader(dataset, batch_size=BATCH_SIZE, drop_last=True)
print(len(dropped), len(dropped) * BATCH_SIZE, "samples used of", N)  # ✓ samples-used
#> 4782 19128 samples used of 19130
assert {len(indices) for indices in dropped.batch_sampler} == {BATCH_SIZE}  # every batch is full ✓ all-full
tail_dropped = DataLoader(Subset(dataset, range(N - 10, N)), batch_size=BATCH_SIZE, drop_last=True)
print(train(model, tail_dropped))  # no error, but 2 samples are never seen ✓ no-error
#> 2
ten = TensorDataset(torch.arange(10))
shuffled = DataLoader(ten, batch_size=4, shuffle=True, drop_last=True, generator=torch.Generator().manual_seed(0))
for _ in range(2):  # with shuffle=True, other samples are left out each epoch
    seen = {int(i) for (batch,) in shuffled for i in batch}
    print(sorted(set(range(10)) - seen))  # ✓ shuffled-dropped
    #> [4, 9]
    #> [4, 8]


def rows_match(n: int) -> bool:
    """Whether the model gives one row of scores per sample for a batch of n."""
    try:
        return model(torch.randn(n, 3, 8, 8, generator=g)).shape == (n, NUM_CLASSES)
    except RuntimeError:  # view(4, -1) of a size not divisible by 4
        return False


print({n: rows_match(n) for n in (1, 2, 3, 4, 8)})  # only batch size 4 works
#> {1: False, 2: False, 3: False, 4: True, 8: False}
assert [n for n in range(1, 33) if rows_match(n)] == [BATCH_SIZE]  # ✓ only-four
# --8<-- [end:drop-last]


# --8<-- [start:fix]
class FixedNet(Net):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.classifier(self.features(x)))
        return x.flatten(1)  # or x.view(x.size(0), -1): the batch size comes from the input


fixed = FixedNet()
print(train(fixed, tail))  # all 3 tail batches, the last one with 2 samples ✓ fixed-trains
#> 3
for n in range(1, 33):  # any batch size works, also at evaluation time
    assert fixed(torch.randn(n, 3, 8, 8, generator=g)).shape == (n, NUM_CLASSES)  # ✓ any-size
for n in range(1, 33):  # batch sizes 1 to 32: both flatten the pooled scores to the same rows
    pooled = torch.randn(n, NUM_CLASSES, 1, 1, generator=g)
    assert torch.equal(pooled.view(pooled.size(0), -1), pooled.flatten(1))  # ✓ same-flatten
# --8<-- [end:fix]

# --8<-- [start:batchnorm-one]
bn = nn.BatchNorm1d(NUM_CLASSES).train()
try:
    bn(torch.randn(1, NUM_CLASSES, generator=g))  # a last batch of 1 sample, in training mode
except ValueError as err:
    print(f"ValueError: {err}")  # ✓ bn-one
    #> ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 10])
one = torch.randn(1, NUM_CLASSES, generator=g)
assert bn.eval()(one).shape == (1, NUM_CLASSES)  # in evaluation mode one sample is fine ✓ bn-eval-ok
feature_map = torch.randn(1, NUM_CLASSES, 8, 8, generator=g)  # one sample, but 8 x 8 = 64 values per channel
assert nn.BatchNorm2d(NUM_CLASSES).train()(feature_map).shape == feature_map.shape  # trains ✓ bn-map-ok
# --8<-- [end:batchnorm-one]
