"""Multiplication: scalar, element-wise with broadcasting, mm, matmul/@, bmm, einsum, dot, outer.

Page: docs/tensors/multiplication.md
"""

# --8<-- [start:setup]
import torch

# --8<-- [end:setup]

# --8<-- [start:scalar-elementwise]
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # 2x3
print(a * 2, torch.mul(a, 2).equal(a * 2))  # ✓ scalar
#> tensor([[ 2.,  4.,  6.],
#>         [ 8., 10., 12.]]) True
print(a * a)  # element-wise (Hadamard), same as torch.mul(a, a) ✓ hadamard
#> tensor([[ 1.,  4.,  9.],
#>         [16., 25., 36.]])
sq = torch.tensor([[1.0, 2.0], [3.0, 4.0]])  # square: a matrix product would be possible
assert torch.equal(sq * sq, torch.mul(sq, sq)) and not torch.equal(sq * sq, sq @ sq)  # ✓ not-matrix
# --8<-- [end:scalar-elementwise]

# --8<-- [start:broadcast]
row = torch.tensor([[10.0, 20.0, 30.0]])  # 1x3: scales each column
col = torch.tensor([[1.0], [-1.0]])  # 2x1: scales each row
print(a.mul(row))  # ✓ row
#> tensor([[ 10.,  40.,  90.],
#>         [ 40., 100., 180.]])
print(a.mul(col))  # ✓ col
#> tensor([[ 1.,  2.,  3.],
#>         [-4., -5., -6.]])
print((col * row).shape)  # 2x1 times 1x3 broadcasts to 2x3 ✓ broadcast
#> torch.Size([2, 3])
try:
    a * torch.ones(2)  # trailing dims 3 and 2 do not match
except RuntimeError as err:
    print(err)  # ✓ broadcast-error
    #> The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
assert torch.equal(a * torch.tensor([1.0, -1.0]).reshape(2, 1), a.mul(col))  # reshaped to 2x1: scales rows ✓ reshape-col


def rule(s, t):  # from the last dimension: each pair equal or holding a 1 (a missing dimension counts as 1)
    s, t = (1,) * (len(t) - len(s)) + s, (1,) * (len(s) - len(t)) + t
    ok = all(i == j or 1 in (i, j) for i, j in zip(s, t, strict=True))
    return tuple(j if i == 1 else i for i, j in zip(s, t, strict=True)) if ok else "error"


def product_shape(s, t):
    try:
        return tuple((torch.ones(s) * torch.ones(t)).shape)
    except RuntimeError:
        return "error"


pairs = [((2, 3), (3,)), ((2, 3), (2,)), ((2, 1), (1, 3)), ((5, 1, 4), (3, 1)), ((4,), (2, 3, 4)),
         ((2, 3), (3, 2)), ((0, 3), (1, 3)), ((0,), (2,)), ((6, 1, 1), (1, 5, 1))]
assert all(product_shape(s, t) == rule(s, t) for s, t in pairs)  # ✓ broadcast-rule
# --8<-- [end:broadcast]

# --8<-- [start:mm]
b = torch.ones(3, 4)
print(torch.mm(a, b).shape)  # (2x3) @ (3x4): 2-D only, no broadcasting ✓ mm
#> torch.Size([2, 4])
for x, y in [(a, torch.ones(2, 4)), (torch.ones(5, 2, 3), b), (torch.ones(3), torch.ones(3))]:
    try:
        torch.mm(x, y)
    except RuntimeError as err:
        print(tuple(x.shape), tuple(y.shape), "->", err)  # ✓ mm-errors
        #> (2, 3) (2, 4) -> mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)
        #> (5, 2, 3) (3, 4) -> mm: self must be a matrix, got 3-D tensor
        #> (3,) (3,) -> mm: self must be a matrix, got 1-D tensor
# --8<-- [end:mm]

# --8<-- [start:matmul]
v3 = torch.tensor([1.0, 2.0, 3.0])
print((a @ b).equal(torch.mm(a, b)), torch.matmul(a, b).shape)  # ✓ matmul-mm
#> True torch.Size([2, 4])
print((a @ v3), (v3 @ v3))  # 2-D @ 1-D: matrix-vector; 1-D @ 1-D: a 0-dim dot product ✓ matvec
#> tensor([14., 32.]) tensor(14.)
batch = torch.ones(5, 2, 3)
print((batch @ b).shape)  # batch of matrices @ one matrix: b is broadcast ✓ batch-matrix
#> torch.Size([5, 2, 4])
print((torch.ones(5, 1, 2, 3) @ torch.ones(7, 3, 4)).shape)  # batch dims broadcast too ✓ batch-dims
#> torch.Size([5, 7, 2, 4])
assert all(torch.equal(p @ q, torch.matmul(p, q)) for p, q in [(a, b), (a, v3), (v3, v3), (batch, b)])  # ✓ at-is-matmul
gen = torch.Generator().manual_seed(0)
lhs, rhs = torch.randn(5, 1, 2, 3, generator=gen), torch.randn(7, 3, 4, generator=gen)
out = lhs @ rhs  # entry [i, j]: lhs's matrix i times rhs's matrix j
assert all(torch.allclose(out[i, j], lhs[i, 0] @ rhs[j]) for i in range(5) for j in range(7))  # ✓ batch-each
# --8<-- [end:matmul]

# --8<-- [start:bmm]
x = torch.ones(5, 2, 3)
y = torch.ones(5, 3, 4)
print(torch.bmm(x, y).shape)  # exactly 3-D, same batch size, no broadcasting ✓ bmm
#> torch.Size([5, 2, 4])
for other in (b, torch.ones(4, 3, 4)):  # a 2-D matrix; a batch of 4 against 5
    try:
        torch.bmm(x, other)
    except RuntimeError as err:
        print(err)  # ✓ bmm-errors
        #> batch2 must be a 3D tensor
        #> Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [4, 3].
# --8<-- [end:bmm]

# --8<-- [start:einsum]
g = torch.Generator().manual_seed(0)
x = torch.randn(5, 2, 3, generator=g)
y = torch.randn(5, 3, 4, generator=g)
assert torch.allclose(torch.einsum("bij,bjk->bik", x, y), torch.bmm(x, y))  # ✓ einsum-bmm
m = torch.randn(2, 3, generator=g)
assert torch.allclose(torch.einsum("ij,jk->ik", m, y[0]), m @ y[0])  # ✓ einsum-mm
assert torch.allclose(torch.einsum("ij,ij->ij", m, m), m * m)  # ✓ einsum-mul
assert torch.allclose(torch.einsum("i,i->", v3, v3), torch.dot(v3, v3))  # ✓ einsum-dot
assert torch.allclose(torch.einsum("i,j->ij", v3, v3), torch.outer(v3, v3))  # ✓ einsum-outer
assert torch.allclose(torch.einsum("...ij,jk->...ik", x, y[0]), x @ y[0])  # `...`: batch dims broadcast ✓ einsum-dots
assert torch.equal(torch.einsum("ij,ij->ij", m, m[:1]), m * m[:1])  # a size-1 dim broadcasts too ✓ einsum-size-1
print(torch.einsum("bij,bjk->bik", x, y).shape)
#> torch.Size([5, 2, 4])
# --8<-- [end:einsum]

# --8<-- [start:dot-outer]
print(torch.dot(v3, v3), torch.outer(v3, torch.tensor([1.0, 10.0])))  # ✓ dot-outer
#> tensor(14.) tensor([[ 1., 10.],
#>         [ 2., 20.],
#>         [ 3., 30.]])
try:
    torch.dot(a, a)  # dot is 1-D only (no matrices, no batches)
except RuntimeError as err:
    print(err)  # ✓ dot-2d
    #> 1D tensors expected, but got 2D and 2D tensors
try:
    torch.dot(v3, torch.ones(2))  # same length only
except RuntimeError as err:
    print(err)  # ✓ dot-length
    #> inconsistent tensor size, expected tensor [3] and src [2] to have the same number of elements, but got 3 and 2 elements respectively
try:
    torch.dot(v3, v3.long())  # and never mixes dtypes
except RuntimeError as err:
    print(err)  # ✓ dot-dtype
    #> dot : expected both vectors to have same dtype, but found Float and Long
try:
    torch.outer(a, a)  # outer is 1-D only too
except RuntimeError as err:
    print(err)  # ✓ outer-1d
    #> outer: Expected 1-D argument self, but got 2-D
# --8<-- [end:dot-outer]
