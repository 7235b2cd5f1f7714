"""Dataset and DataLoader basics: map-style datasets, batching, shuffling, drop_last.

Page: docs/data/dataloader.md
"""

# --8<-- [start:setup]
import math

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

# --8<-- [end:setup]


# --8<-- [start:dataset]
class TinyImages(Dataset):
    """A map-style dataset: __len__ and __getitem__(index) -> (image, label).

    Stands in for the notes' tiny-ImageNet `MyTrainDataset(root_dir=...)`:
    a real one would list files in __init__ and read one in __getitem__.
    Here the "files" are made in code from a seeded generator.
    """

    def __init__(self, n: int, num_classes: int = 10, seed: int = 0) -> None:
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randint(0, 256, (n, 3, 8, 8), dtype=torch.uint8, generator=g)
        self.labels = torch.randint(0, num_classes, (n,), generator=g)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        image = self.images[index].float() / 255  # per-sample preprocessing goes here
        return image, int(self.labels[index])


train_dataset = TinyImages(10)
image, label = train_dataset[3]
print(len(train_dataset), image.shape, image.dtype, type(label).__name__)  # ✓ tiny-images
#> 10 torch.Size([3, 8, 8]) torch.float32 int


class Squares:  # no Dataset base class: __len__ and __getitem__ are all a loader needs
    def __len__(self) -> int:
        return 5

    def __getitem__(self, index: int) -> int:
        return index * index


assert not isinstance(Squares(), Dataset)  # ✓ no-base
print(list(DataLoader(Squares(), batch_size=2)))  # ✓ squares-batched
#> [tensor([0, 1]), tensor([4, 9]), tensor([16])]
# --8<-- [end:dataset]

# --8<-- [start:batching]
loader = DataLoader(train_dataset, batch_size=4)
images, labels = next(iter(loader))  # default collate: stack samples along a new dim 0
print(images.shape, labels)
#> torch.Size([4, 3, 8, 8]) tensor([8, 9, 6, 8])
assert torch.equal(images, torch.stack([train_dataset[i][0] for i in range(4)]))  # ✓ collate-stack
assert labels.tolist() == [train_dataset[i][1] for i in range(4)]  # ✓ collate-numbers
print([len(labels) for _, labels in loader])  # 10 samples, batch_size 4 ✓ last-smaller
#> [4, 4, 2]
for n in range(1, 25):  # every size up to 24, every batch size up to 8: only the last batch is short,
    for batch_size in range(1, 9):  # and only when n is not a multiple of batch_size
        sizes = [len(b) for (b,) in DataLoader(TensorDataset(torch.zeros(n, 1)), batch_size=batch_size)]
        assert sizes == [batch_size] * (n // batch_size) + ([n % batch_size] if n % batch_size else [])  # ✓ last-rule
# --8<-- [end:batching]

# --8<-- [start:tensor-dataset]
xs = torch.arange(10.0).unsqueeze(1)  # 10 samples with 1 feature each
ys = torch.arange(10) % 2
pairs = TensorDataset(xs, ys)  # indexes every tensor along dim 0
print(pairs[7])
#> (tensor([7.]), tensor(1))
assert all(torch.equal(x, xs[i]) and torch.equal(y, ys[i]) for i, (x, y) in enumerate(pairs))  # ✓ tensor-rows
print(next(iter(DataLoader(pairs, batch_size=3))))
#> [tensor([[0.],
#>         [1.],
#>         [2.]]), tensor([0, 1, 0])]
try:
    TensorDataset(torch.zeros(10, 1), torch.zeros(9))  # first dimensions differ
except AssertionError as err:
    print(f"AssertionError: {err}")  # ✓ size-mismatch
    #> AssertionError: Size mismatch between tensors
# --8<-- [end:tensor-dataset]


# --8<-- [start:shuffle]
def epoch_order(loader: DataLoader) -> list[int]:
    return [int(x) for batch, _ in loader for x in batch.flatten()]


print(epoch_order(DataLoader(pairs, batch_size=4)))  # shuffle=False: index order ✓ index-order
#> [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]

g = torch.Generator().manual_seed(0)
shuffled = DataLoader(pairs, batch_size=4, shuffle=True, generator=g)
first, second = epoch_order(shuffled), epoch_order(shuffled)
print(first)
#> [3, 7, 5, 2, 0, 8, 1, 6, 9, 4]
print(second)  # a new permutation every epoch ...
#> [1, 3, 2, 7, 5, 9, 0, 6, 4, 8]
assert second != first and sorted(second) == sorted(first) == list(range(10))  # ✓ new-permutation
g.manual_seed(0)
torch.manual_seed(123)  # the global seed plays no part when generator= is given
assert epoch_order(shuffled) == first  # ... and the same sequence again after re-seeding ✓ replay
assert epoch_order(shuffled) == second
# --8<-- [end:shuffle]

# --8<-- [start:drop-last]
for n, batch_size in [(10, 4), (12, 4), (19130, 4), (19130, 32)]:  # 12: a multiple of 4
    data = TensorDataset(torch.zeros(n, 1))
    kept = len(DataLoader(data, batch_size=batch_size))
    dropped = len(DataLoader(data, batch_size=batch_size, drop_last=True))
    assert kept == math.ceil(n / batch_size) and dropped == n // batch_size  # ✓ len-formula
    full = [len(b) for (b,) in DataLoader(data, batch_size=batch_size, drop_last=True)]
    assert full == [batch_size] * dropped  # the incomplete last batch is the one dropped ✓ dropped-last
    last = [len(b) for (b,) in DataLoader(data, batch_size=batch_size)][-1]  # measured
    print(f"n={n} batch_size={batch_size}: {kept} batches ({dropped} with drop_last), last has {last}")  # ✓ last-batch
    #> n=10 batch_size=4: 3 batches (2 with drop_last), last has 2
    #> n=12 batch_size=4: 3 batches (3 with drop_last), last has 4
    #> n=19130 batch_size=4: 4783 batches (4782 with drop_last), last has 2
    #> n=19130 batch_size=32: 598 batches (597 with drop_last), last has 26
# --8<-- [end:drop-last]
