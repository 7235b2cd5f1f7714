"""argparse: positional vs optional arguments, `default` and `nargs`, parse_known_args.

Page: docs/environment/argparse_pitfalls.md
Every behaviour is shown by parsing an explicit argument list (what PyCharm's
"Parameters" field or the shell would pass), never the real command line.
"""

# --8<-- [start:setup]
import argparse
import contextlib
import io
import sys
import unicodedata

# --8<-- [end:setup]


# --8<-- [start:helper]
def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | str:
    """Parse argv; on a usage error return what argparse printed instead of exiting."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            return parser.parse_args(argv)
    except SystemExit as exit_:
        return f"exit status {exit_.code}\n{stderr.getvalue().rstrip()}"


# --8<-- [end:helper]

# --8<-- [start:notes-parser]
parser = argparse.ArgumentParser(prog="train.py")
parser.add_argument("--devices")
parser.add_argument("--evaluate", action="store_true")
parser.add_argument("configs", nargs="+", default="configs/c1.py")  # as in the notes

error = parse(parser, [])  # "Run" with an empty Parameters field
print(error)  # ✓ exit-2
#> exit status 2
#> usage: train.py [-h] [--devices DEVICES] [--evaluate] configs [configs ...]
#> train.py: error: the following arguments are required: configs
NOTES_ERROR = """usage: train.py [-h] [--devices DEVICES] [--evaluate] configs [configs ...]
train.py: error: the following arguments are required: configs"""  # copied from the notes
assert error.endswith(NOTES_ERROR)  # ✓ notes-error
print(parse(parser, ["configs/c2.py"]))  # ✓ with-argument
#> Namespace(devices=None, evaluate=False, configs=['configs/c2.py'])
# --8<-- [end:notes-parser]

# --8<-- [start:nargs-table]
for nargs in [None, "?", "*", "+", 1, 2, argparse.REMAINDER]:
    p = argparse.ArgumentParser(prog="train.py")
    kwargs = {} if nargs is None else {"nargs": nargs}
    p.add_argument("configs", default="configs/c1.py", **kwargs)
    result = parse(p, [])
    shown = result.splitlines()[-1] if isinstance(result, str) else result
    print(f"nargs={nargs!r:6} -> {shown}")  # ✓ nargs-table
    #> nargs=None   -> train.py: error: the following arguments are required: configs
    #> nargs='?'    -> Namespace(configs='configs/c1.py')
    #> nargs='*'    -> Namespace(configs='configs/c1.py')
    #> nargs='+'    -> train.py: error: the following arguments are required: configs
    #> nargs=1      -> train.py: error: the following arguments are required: configs
    #> nargs=2      -> train.py: error: the following arguments are required: configs
    #> nargs='...'  -> Namespace(configs=[])
star = argparse.ArgumentParser(prog="train.py")  # the notes' positional interface, optional
star.add_argument("configs", nargs="*", default=["configs/c1.py"])
print(parse(star, []), parse(star, ["a.py", "b.py"]))  # ✓ star-default
#> Namespace(configs=['configs/c1.py']) Namespace(configs=['a.py', 'b.py'])
# --8<-- [end:nargs-table]

# --8<-- [start:required-kwarg]
try:
    argparse.ArgumentParser().add_argument("configs", required=False)
except TypeError as err:
    print(err)  # ✓ required-refused
    #> 'required' is an invalid argument for positionals
# --8<-- [end:required-kwarg]

# --8<-- [start:notes-fix]
fixed = argparse.ArgumentParser(prog="train.py")
fixed.add_argument("--configs", nargs="+", default="configs/c1.py")  # the notes' fix
print(parse(fixed, []).configs)  # the default, used as it is: a str ✓ default-str
#> configs/c1.py
print(parse(fixed, ["--configs", "configs/c2.py"]).configs)  # given: a list ✓ given-list
#> ['configs/c2.py']
print([c for c in parse(fixed, []).configs][:4])  # looping over "the configs" ... ✓ chars
#> ['c', 'o', 'n', 'f']

better = argparse.ArgumentParser(prog="train.py")
better.add_argument("--configs", nargs="+", default=["configs/c1.py"])  # a list default
print(parse(better, []).configs, parse(better, ["--configs", "a.py", "b.py"]).configs)  # ✓ list-default
#> ['configs/c1.py'] ['a.py', 'b.py']
# --8<-- [end:notes-fix]

# --8<-- [start:known-args]
known = argparse.ArgumentParser(prog="train.py")
known.add_argument("configs", nargs="+")
print(known.parse_known_args(["c1.py", "--lr", "0.1"]))  # ✓ known-after
#> (Namespace(configs=['c1.py']), ['--lr', '0.1'])
print(known.parse_known_args(["--lr", "0.1", "c1.py"]))  # same words, other order ✓ known-before
#> (Namespace(configs=['0.1', 'c1.py']), ['--lr'])
print(parse(known, ["c1.py", "--lr", "0.1"]))  # parse_args refuses what it does not know ✓ parse-args-refuses
#> exit status 2
#> usage: train.py [-h] configs [configs ...]
#> train.py: error: unrecognized arguments: --lr 0.1
known.add_argument("--lr", type=float)  # declared, it takes its value in any order
print(known.parse_known_args(["--lr", "0.1", "c1.py"]))  # ✓ declared
#> (Namespace(configs=['c1.py'], lr=0.1), [])
# --8<-- [end:known-args]

# --8<-- [start:dashes]
opt = argparse.ArgumentParser(prog="train.py")
opt.add_argument("--configs", nargs="+", default=["configs/c1.py"])
for dash in ["--", "\u2014", "\u2013"]:  # two hyphens, an em dash, an en dash
    names = " + ".join(unicodedata.name(c) for c in dash)
    print(f"{dash!r} ({names})", opt.parse_known_args([f"{dash}configs", "c2.py"]))  # ✓ dashes
    #> '--' (HYPHEN-MINUS + HYPHEN-MINUS) (Namespace(configs=['c2.py']), [])
    #> '—' (EM DASH) (Namespace(configs=['configs/c1.py']), ['—configs', 'c2.py'])
    #> '–' (EN DASH) (Namespace(configs=['configs/c1.py']), ['–configs', 'c2.py'])
# --8<-- [end:dashes]

# --8<-- [start:exit-on-error]
usual = argparse.ArgumentParser(prog="train.py")  # exit_on_error=True, the default
usual.add_argument("--epochs", type=int)
print(parse(usual, ["--epochs", "ten"]).splitlines()[::2])  # ✓ invalid-exits
#> ['exit status 2', "train.py: error: argument --epochs: invalid int value: 'ten'"]
strict = argparse.ArgumentParser(prog="train.py", exit_on_error=False)
strict.add_argument("--epochs", type=int)
strict.add_argument("configs", nargs="+")
try:
    strict.parse_args(["--epochs", "ten", "c1.py"])
except argparse.ArgumentError as err:
    print(f"ArgumentError: {err}")  # ✓ invalid-value
    #> ArgumentError: argument --epochs: invalid int value: 'ten'
choosy = argparse.ArgumentParser(prog="train.py", exit_on_error=False)
choosy.add_argument("--lr", type=float)
choosy.add_argument("--mode", choices=["fast", "slow"])
for argv in (["--lr", "x"], ["--mode", "quick"]):  # not a float; not one of the choices
    try:
        choosy.parse_args(argv)
    except argparse.ArgumentError as err:
        print(f"ArgumentError: {str(err).split(': ' + repr(argv[1]))[0]}")  # up to the value; each raises ✓ invalid-value-more
        #> ArgumentError: argument --lr: invalid float value
        #> ArgumentError: argument --mode: invalid choice
try:
    print(sys.version_info[:2], parse(strict, []).splitlines()[0])  # exits on 3.10.13, 3.11.7, 3.12.1 ✓ missing-exits
    #> (3, 11) exit status 2
except argparse.ArgumentError as err:  # requires: python>=3.13 (it raises for a missing argument too)
    print(sys.version_info[:2], f"ArgumentError: {err}")
# --8<-- [end:exit-on-error]
