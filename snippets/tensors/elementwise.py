"""Element-wise rounding, clamping and boolean operators.

Page: docs/tensors/elementwise.md
"""

# --8<-- [start:setup]
import numpy as np
import torch

# --8<-- [end:setup]

# --8<-- [start:rounding]
a = torch.tensor([-2.5, -1.7, -0.5, 0.5, 1.5, 1.7, 2.5])
print(a.floor())  # toward -inf ✓ floor
#> tensor([-3., -2., -1.,  0.,  1.,  1.,  2.])
print(a.ceil())  # toward +inf ✓ ceil
#> tensor([-2., -1., -0.,  1.,  2.,  2.,  3.])
print(a.trunc())  # toward 0; still float ✓ trunc
#> tensor([-2., -1., -0.,  0.,  1.,  1.,  2.])
print(a.frac())  # a - a.trunc(): keeps the sign ✓ frac
#> tensor([-0.5000, -0.7000, -0.5000,  0.5000,  0.5000,  0.7000,  0.5000])
assert torch.equal(a.trunc() + a.frac(), a)  # ✓ frac-is-rest
# --8<-- [end:rounding]

# --8<-- [start:round]
print(a.round())  # halves go to the EVEN neighbour, not up ✓ round
#> tensor([-2., -2., -0.,  0.,  2.,  2.,  2.])
print(torch.tensor([0.5, 1.5, 2.5, -0.5]).round())  # the exact halves alone ✓ halves
#> tensor([0., 2., 2., -0.])
print(torch.tensor([0.125, 0.135]).round(decimals=2))  # decimals=: same rule, binary floats
#> tensor([0.1200, 0.1400])
print(a.round().dtype, torch.tensor([2.5]).round().long())  # ✓ round-float
#> torch.float32 tensor([2])
assert a.round().tolist() == [round(v) for v in a.tolist()]  # the same rule as Python's round ✓ round-python
assert np.array_equal(a.round().numpy(), np.round(a.numpy()))  # and NumPy's ✓ round-numpy
grid = torch.linspace(-4, 4, 801)  # steps of 0.01: mostly values that are not halves
assert ((grid - grid.round()).abs() <= 0.5).all() and torch.equal(grid.round(), grid.round().trunc())  # to its nearest integer ✓ round-nearest
# --8<-- [end:round]

# --8<-- [start:clamp]
a = torch.arange(4.0, 11.0)
print(a)
#> tensor([ 4.,  5.,  6.,  7.,  8.,  9., 10.])
print(a.clamp(6))  # one positional argument is min: below 6 -> 6 ✓ clamp-min
#> tensor([ 6.,  6.,  6.,  7.,  8.,  9., 10.])
print(a.clamp(6, 8))  # min and max ✓ clamp-both
#> tensor([6., 6., 6., 7., 8., 8., 8.])
print(a.clamp(max=8))  # only an upper bound: use the keyword ✓ clamp-max
#> tensor([4., 5., 6., 7., 8., 8., 8.])
print(torch.tensor([-3, 0, 3]).clamp(min=0).dtype)  # integer tensors stay integer
#> torch.int64
try:
    a.clamp()
except RuntimeError as err:
    print(err)
    #> torch.clamp: At least one of 'min' or 'max' must not be None
# --8<-- [end:clamp]

# --8<-- [start:bool-ops]
a = torch.tensor([True, True, False, False])
b = torch.tensor([True, False, True, False])
print(a | b)  # or ✓ or
#> tensor([ True,  True,  True, False])
print(a & b)  # and ✓ and
#> tensor([ True, False, False, False])
print(a ^ b)  # xor ✓ xor
#> tensor([False,  True,  True, False])
print(~a)  # not ✓ not
#> tensor([False, False,  True,  True])
# --8<-- [end:bool-ops]

# --8<-- [start:bool-pitfalls]
m = torch.tensor([0, 1], dtype=torch.uint8)  # an old-style ByteTensor mask
print(~m)  # bitwise NOT on bytes: 255, 254, both still "true" ✓ byte-not
#> tensor([255, 254], dtype=torch.uint8)
print(~torch.tensor([0, 1]))  # on int64: -1, -2 ✓ int-not
#> tensor([-1, -2])
print(torch.logical_not(m), ~m.bool())  # what was meant ✓ logical-not
#> tensor([ True, False]) tensor([ True, False])
x = torch.tensor([-1.0, 0.5, 2.0])
print((x > 0) & (x < 1))  # parentheses needed: & binds tighter than > and < ✓ parentheses
#> tensor([False,  True, False])
assert (1 | 2 == 3) is True and (6 & 3 == 2) is True  # (1 | 2) == 3: | and & bind first ✓ precedence
try:
    _ = x > 0 & x < 1  # read as the chain x > (0 & x) < 1, and & is not defined for floats
except RuntimeError as err:
    print(err)  # ✓ float-and
    #> "bitwise_and_cpu" not implemented for 'Float'
# --8<-- [end:bool-pitfalls]
