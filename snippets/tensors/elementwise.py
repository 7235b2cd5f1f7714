"""Element-wise rounding, clamping and boolean operators.

Page: docs/tensors/elementwise.md
"""

# --8<-- [start:setup]
import numpy as np
import torch

# --8<-- [end:setup]

# --8<-- [start:rounding]
a = torch.tensor([-2.5, -1.7, -0.5, 0.5, 1.5, 1.7, 2.5])
print(a.floor())  # toward -inf
#> tensor([-3., -2., -1.,  0.,  1.,  1.,  2.])
print(a.ceil())  # toward +inf
#> tensor([-2., -1., -0.,  1.,  2.,  2.,  3.])
print(a.trunc())  # toward 0; still float
#> tensor([-2., -1., -0.,  0.,  1.,  1.,  2.])
print(a.frac())  # a - a.trunc(): keeps the sign
#> tensor([-0.5000, -0.7000, -0.5000,  0.5000,  0.5000,  0.7000,  0.5000])
assert torch.equal(a.trunc() + a.frac(), a)
# --8<-- [end:rounding]

# --8<-- [start:round]
print(a.round())  # halves go to the EVEN neighbour, not up
#> tensor([-2., -2., -0.,  0.,  2.,  2.,  2.])
print(torch.tensor([0.125, 0.135]).round(decimals=2))  # decimals=: same rule, binary floats
#> tensor([0.1200, 0.1400])
print(a.round().dtype, torch.tensor([2.5]).round().long())
#> torch.float32 tensor([2])
assert a.round().tolist() == [round(v) for v in a.tolist()]  # the same rule as Python's round
assert np.array_equal(a.round().numpy(), np.round(a.numpy()))  # and NumPy's
# --8<-- [end:round]

# --8<-- [start:clamp]
a = torch.arange(4.0, 11.0)
print(a)
#> tensor([ 4.,  5.,  6.,  7.,  8.,  9., 10.])
print(a.clamp(6))  # one positional argument is min: below 6 -> 6
#> tensor([ 6.,  6.,  6.,  7.,  8.,  9., 10.])
print(a.clamp(6, 8))  # min and max
#> tensor([6., 6., 6., 7., 8., 8., 8.])
print(a.clamp(max=8))  # only an upper bound: use the keyword
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
print(a | b)  # or
#> tensor([ True,  True,  True, False])
print(a & b)  # and
#> tensor([ True, False, False, False])
print(a ^ b)  # xor
#> tensor([False,  True,  True, False])
print(~a)  # not
#> tensor([False, False,  True,  True])
# --8<-- [end:bool-ops]

# --8<-- [start:bool-pitfalls]
m = torch.tensor([0, 1], dtype=torch.uint8)  # an old-style ByteTensor mask
print(~m)  # bitwise NOT on bytes: 255, 254, both still "true"
#> tensor([255, 254], dtype=torch.uint8)
print(~torch.tensor([0, 1]))  # on int64: -1, -2
#> tensor([-1, -2])
print(torch.logical_not(m), ~m.bool())  # what was meant
#> tensor([ True, False]) tensor([ True, False])
x = torch.tensor([-1.0, 0.5, 2.0])
print((x > 0) & (x < 1))  # parentheses needed: & binds tighter than > and <
#> tensor([False,  True, False])
try:
    _ = x > 0 & x < 1  # read as the chain x > (0 & x) < 1, and & is not defined for floats
except RuntimeError as err:
    print(err)
    #> "bitwise_and_cpu" not implemented for 'Float'
# --8<-- [end:bool-pitfalls]
