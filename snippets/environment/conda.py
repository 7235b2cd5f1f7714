"""Installing with conda: the environment files, what pip brings, channels, em dashes.

Page: docs/environment/conda.md
No conda is needed (or called) here: the snippet checks the files in
environment-setup/ against requirements.txt and the installed wheels.
"""

import argparse
import importlib.metadata
import re
import unicodedata

import torch
import yaml

from ptnotes.environment_files import (
    ENVIRONMENT_SETUP,
    pin_drift,
    read_conda_environment,
    read_requirements,
)

# --8<-- [start:pins]
pins = read_requirements()  # requirements.txt: what `make` installs into .venv/
cpu = read_conda_environment(ENVIRONMENT_SETUP / "environment.yml")
cuda = read_conda_environment(ENVIRONMENT_SETUP / "environment-cuda.yml")
print(cpu.conda_deps, cpu.pip_options)
#> ('python=3.11', 'pip') ('--extra-index-url https://download.pytorch.org/whl/cpu',)
for name in ["torch", "torchvision", "numpy"]:
    print(f"{name:12} {pins[name]!s:22} {cpu.pip_pins[name]!s:26} {cuda.pip_pins[name]}")
    #> torch        torch==2.14.1          torch==2.14.1+cpu          torch==2.14.1
    #> torchvision  torchvision==0.29.1    torchvision==0.29.1+cpu    torchvision==0.29.1
    #> numpy        numpy==2.4.6           numpy==2.4.6               numpy==2.4.6
cpu_drift = pin_drift(pins, cpu, {"torch": "cpu", "torchvision": "cpu"})
print("same pins everywhere:", not cpu_drift and not pin_drift(pins, cuda, {}))
#> same pins everywhere: True
# --8<-- [end:pins]

# --8<-- [start:cuda-from-pip]
print(torch.__version__, torch.version.cuda)  # the PyPI wheel the tests run on
#> 2.14.1+cu130 13.0
linux_only = [r for r in importlib.metadata.requires("torch") if 'platform_system == "Linux"' in r]
print([re.match(r"[\w.-]+", r)[0] for r in linux_only])
#> ['cuda-toolkit', 'cuda-bindings', 'nvidia-cudnn-cu13', 'nvidia-cusparselt-cu13', 'nvidia-nccl-cu13', 'nvidia-nvshmem-cu13', 'triton']
# --8<-- [end:cuda-from-pip]

# --8<-- [start:depends]
# A package file names its dependencies; it does not contain them.
print([r for r in importlib.metadata.requires("torchvision") if "extra ==" not in r])
#> ['numpy', 'torch (>=2.14.0)', 'pillow (!=8.3.*,>=5.3.0)']
# --8<-- [end:depends]


# --8<-- [start:condarc]
def conda_config_add(rc: dict, key: str, value: str) -> None:
    """`conda config --add KEY VALUE` as conda's main_config.py does it (a model)."""
    if key == "channels" and key not in rc:
        rc[key] = ["defaults"]  # the first --add keeps `defaults`, at the end
    if value in rc[key]:
        rc[key].remove(value)
    rc[key].insert(0, value)  # --add is --prepend: highest priority


tuna = "https://mirrors.tuna.tsinghua.edu.cn/anaconda"
rc: dict = {}
conda_config_add(rc, "channels", f"{tuna}/pkgs/free/")
conda_config_add(rc, "channels", f"{tuna}/pkgs/main/")
rc["show_channel_urls"] = True  # conda config --set show_channel_urls yes
conda_config_add(rc, "channels", f"{tuna}/cloud/pytorch/")
notes_file = yaml.safe_load((ENVIRONMENT_SETUP / "tsinghua-notes.condarc").read_text())
assert rc == notes_file
print([c.removeprefix(tuna) for c in rc["channels"]])
#> ['/cloud/pytorch/', '/pkgs/main/', '/pkgs/free/', 'defaults']
# --8<-- [end:condarc]

# --8<-- [start:em-dash]
remove = argparse.ArgumentParser(prog="conda remove")  # conda remove's argument layout
remove.add_argument("-n", "--name")
remove.add_argument("--all", action="store_true")
remove.add_argument("package_names", nargs="*")
for line in ["-n env_name --all", "-n env_name \u2014all"]:  # as typed / as in the notes
    print(remove.parse_args(line.split()))
    #> Namespace(name='env_name', all=True, package_names=[])
    #> Namespace(name='env_name', all=False, package_names=['—all'])
print(unicodedata.name("\u2014"), "\u2014all".startswith("-"))
#> EM DASH False
# --8<-- [end:em-dash]
