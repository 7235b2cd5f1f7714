"""Installing with conda: the environment file, what pip brings, channels, em dashes.

Page: docs/environment/conda.md
No conda is needed (or called) here: the snippet reads environment-setup/ and
requirements.txt of the checkout it runs in, and compares them with the installed
distributions; conda's own behaviour is labelled on the page where it is modelled.
"""
# requires: checkout

# --8<-- [start:setup]
import argparse
import importlib.metadata
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

import torch


def find_checkout(*starts: Path) -> Path:
    """The repository checkout: the first folder at or above a start holding environment-setup/."""
    for start in starts:
        for folder in (start, *start.parents):
            if (folder / "environment-setup").is_dir() and (folder / "requirements.txt").is_file():
                return folder
    raise FileNotFoundError("run this from a checkout of the PyTorch Notes repository")


root = find_checkout(Path(sys.argv[0]).resolve().parent, Path.cwd())  # the script's folder, or here
assert find_checkout(root / "environment-setup") == root  # from a folder below: the checkout above it ✓ finds-above
outside = []  # away from a checkout (the filesystem's root) the search stops, saying why
try:
    find_checkout(Path(root.anchor))
except FileNotFoundError as err:
    outside.append(str(err))
assert outside == ["run this from a checkout of the PyTorch Notes repository"]  # ✓ outside-checkout
# --8<-- [end:setup]

# --8<-- [start:pins]
# `name==version`, maybe after `- `, maybe for some Pythons only (`; python_version < "3.11"`)
PIN = re.compile(r'^\s*(?:- )?([A-Za-z0-9._-]+)==([^\s;]+)(?:; python_version (<|>=) "3\.(\d+)")?$')


def read_pins(path: Path) -> dict[str, str]:
    """Every `name==version` line of a requirements file (and of the files it includes
    with `-r`), or of a `pip:` list in YAML, that applies to the Python running this."""
    pins = {}
    for line in path.read_text().splitlines():
        if line.startswith("-r "):
            pins |= read_pins(path.parent / line.removeprefix("-r ").strip())
        elif match := PIN.match(line):
            name, version, op, minor = match.groups()
            here = sys.version_info[:2]
            if op is None or (here < (3, int(minor))) == (op == "<"):
                pins[name] = version
    return pins


requirements = read_pins(root / "requirements.txt")  # what `make test` installs into .venv/
environment_file = root / "environment-setup" / "environment.yml"
pins = read_pins(environment_file)
print(pins == requirements, pins["torch"], pins["torchvision"])  # same packages and versions ✓ pins-equal
#> True 2.15.0 0.29.2
installed = {name: importlib.metadata.version(name) for name in pins}  # every pinned package
print(len(pins), installed == pins)  # ... is installed here at its pinned version ✓ installed-equal
#> 21 True
torch_needs = [re.match(r"[\w.-]+", r)[0] for r in importlib.metadata.requires("torch") if "extra ==" not in r]
print("filelock" in torch_needs and "filelock" in pins, "sympy" in torch_needs and "sympy" not in pins)  # torch needs both; one is pinned ✓ deps-unpinned
#> True True
torch_line = f"      - torch=={pins['torch']}\n"
edits = {  # changes of the environment file: three of its exact pins, then three other kinds of line
    "changed": lambda text: text.replace(torch_line, "      - torch==2.14.1\n"),
    "added": lambda text: text + "      - scipy==1.15.0\n",
    "removed": lambda text: text.replace(torch_line, ""),
    "range": lambda text: text + "      - scipy>=1.15\n",
    "extras": lambda text: text + "      - uvicorn[standard]==0.30.0\n",
    "marker": lambda text: text + '      - uvloop==0.21.0; sys_platform == "linux"\n',
}
with tempfile.TemporaryDirectory() as folder:
    edited = Path(folder) / "environment.yml"
    still_true = {}
    for kind, edit in edits.items():
        edited.write_text(edit(environment_file.read_text()))
        still_true[kind] = read_pins(edited) == requirements  # the first True above, after the edit
print(still_true)  # ✓ pins-drift
#> {'changed': False, 'added': False, 'removed': False, 'range': True, 'extras': True, 'marker': True}
text = environment_file.read_text()
header, dependencies = text.split("\ndependencies:\n")
channels = re.findall(r"^  - (\S+)$", header, re.MULTILINE)
conda_deps = re.findall(r"^  - ([^\s:]+)$", dependencies, re.MULTILINE)  # all but `pip:`
pip_entries = re.findall(r"^      - (.+)$", dependencies, re.MULTILINE)
not_pins = [entry for entry in pip_entries if not PIN.match(entry)]  # no index option among them
print(channels, conda_deps, not_pins)  # ✓ channels-deps
#> ['conda-forge'] ['python=3.11', 'pip'] ['-e ..']
print(re.search(r"^name: (\S+)$", text, re.MULTILINE)[1])  # the environment's name ✓ env-name
#> pytorch-notes
print(sys.version_info[:2], torch.__version__)  # the Python of this run; torch's build label ✓ torch-label
#> (3, 11) 2.15.0+cu132
# --8<-- [end:pins]

# --8<-- [start:cuda-from-pip]
print(torch.version.cuda, torch.backends.cuda.is_built())  # a CUDA 13.2 build, GPU or not ✓ cuda-build
#> 13.2 True
linux_only = [r for r in importlib.metadata.requires("torch") if 'platform_system == "Linux"' in r]
names = [re.match(r"[\w.-]+", r)[0] for r in linux_only]
print(names)  # ✓ linux-deps
#> ['cuda-toolkit', 'cuda-bindings', 'nvidia-cudnn-cu13', 'nvidia-cusparselt-cu13', 'nvidia-nccl-cu13', 'nvidia-nvshmem-cu13', 'triton']
assert all(importlib.metadata.version(name) for name in names)  # pip installed each ✓ deps-installed
cuda_libs = [r for r in importlib.metadata.requires("torch") if re.match(r"(nvidia|cuda)-", r)]
print(sorted({r.partition(";")[2].strip() for r in cuda_libs}))  # the condition each one carries ✓ conditions
#> ['platform_system == "Linux"', 'platform_system == "Linux" and python_version < "3.15"']
assert cuda_libs and all(r in linux_only for r in cuda_libs)  # none for Windows or macOS ✓ linux-only
toolkit = re.search(r"cuda-toolkit\[([^\]]*)\]", " ".join(linux_only))  # None where torch has none
print(toolkit and toolkit[1])  # the parts of cuda-toolkit it asks for; cudart: the runtime ✓ toolkit-parts
#> cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx
if toolkit:  # each part is a package of its own, named in cuda-toolkit's metadata
    wanted = "|".join(toolkit[1].split(","))
    parts = [r for r in importlib.metadata.requires("cuda-toolkit") if re.search(f"extra == '({wanted})'", r)]
    parts = sorted({re.match(r"[\w.-]+", r)[0] for r in parts})
    assert "nvidia-cuda-runtime" in parts and all(importlib.metadata.version(p) for p in parts)  # ✓ parts-installed
# --8<-- [end:cuda-from-pip]

# --8<-- [start:em-dash]
remove = argparse.ArgumentParser(prog="conda remove")  # conda remove's argument layout
remove.add_argument("-n", "--name")
remove.add_argument("--all", action="store_true")
remove.add_argument("package_names", nargs="*")
for line in ["-n env_name --all", "-n env_name \u2014all"]:  # as typed / as in the notes
    print(remove.parse_args(line.split()))  # ✓ em-dash-parse
    #> Namespace(name='env_name', all=True, package_names=[])
    #> Namespace(name='env_name', all=False, package_names=['—all'])
print(unicodedata.name("\u2014"), "\u2014all".startswith("-"))  # ✓ em-dash-name
#> EM DASH False
# only the ASCII "-" starts an option: any other dash, single or doubled, gives a package name
dashes = [d * k for d in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d" for k in (1, 2)]
parsed = [remove.parse_args(["-n", "env_name", f"{d}all"]) for d in dashes]
options = [d for d, p in zip(dashes, parsed, strict=True) if p.all or p.package_names != [f"{d}all"]]
assert remove.prefix_chars == "-" and dashes and options == []  # none read as an option ✓ em-dash-ascii-only
# --8<-- [end:em-dash]


# --8<-- [start:condarc]
def conda_config_add(channels: list[str] | None, url: str, *, conda_before_25_9: bool) -> list:
    """`conda config --add channels URL` as conda's source does it (a model: no conda here).

    --add is --prepend: the URL goes to the top (moved there if already listed).
    Before release 25.9, a missing `channels` list was first started as ["defaults"].
    """
    if channels is None:
        channels = ["defaults"] if conda_before_25_9 else []
    return [url] + [c for c in channels if c != url]


tuna = "https://mirrors.tuna.tsinghua.edu.cn/anaconda"
for before_25_9 in (True, False):
    channels = None  # no ~/.condarc yet
    for url in [f"{tuna}/pkgs/free/", f"{tuna}/pkgs/main/", f"{tuna}/cloud/pytorch/"]:
        channels = conda_config_add(channels, url, conda_before_25_9=before_25_9)
    print("conda < 25.9 " if before_25_9 else "conda >= 25.9", [c.removeprefix(tuna) for c in channels])  # ✓ model
    #> conda < 25.9  ['/cloud/pytorch/', '/pkgs/main/', '/pkgs/free/', 'defaults']
    #> conda >= 25.9 ['/cloud/pytorch/', '/pkgs/main/', '/pkgs/free/']
    if before_25_9:
        notes_file = (root / "environment-setup" / "tsinghua-notes.condarc").read_text()
        assert re.findall(r"^  - (\S+)$", notes_file, re.MULTILINE) == channels  # ✓ notes-condarc
# --8<-- [end:condarc]

# --8<-- [start:depends]
# A package file names its dependencies; it does not contain them.
print([r for r in importlib.metadata.requires("torchvision") if "extra ==" not in r])  # ✓ depends
#> ['numpy', 'torch (>=2.14.0)', 'pillow (!=8.3.*,>=5.3.0)']
top_level = {f.parts[0] for f in importlib.metadata.files("torchvision")}
print(sorted(top_level))  # what it holds ✓ holds
#> ['torchvision', 'torchvision-0.29.2.dist-info', 'torchvision.libs']
theirs = {f.parts[0] for name in ("torch", "numpy", "pillow") for f in importlib.metadata.files(name)} - {".."}
assert {"torch", "numpy", "PIL"} <= theirs and not top_level & theirs  # none of their folders ✓ holds-none
# --8<-- [end:depends]
