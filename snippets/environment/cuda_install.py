"""A CUDA build of PyTorch, and why torch.cuda.is_available() is False: the installed torch's version
strings and metadata, the CUDA runtime it brings, the driver it does not, and what a machine without
a driver reports.

Page: docs/environment/cuda_install.md
Runs everywhere with the same output: what depends on the machine having a GPU is in asserts,
the driver-less ones in an `if not torch.cuda.is_available()` branch.
"""

# --8<-- [start:setup]
import importlib.metadata
import warnings
from pathlib import Path

import torch

# --8<-- [end:setup]

# --8<-- [start:which-build]
print(torch.__version__)  # the version with its local tag: the build ✓ version
#> 2.15.0+cu132
print(torch.version.cuda)  # the CUDA version it was compiled with (None in a CPU-only build) ✓ version-cuda
#> 13.2
print(torch.backends.cuda.is_built())  # compiled with CUDA support: says nothing about a GPU ✓ is-built
#> True
print(importlib.metadata.version("torch"))  # what pip records: PyPI's wheels carry no local tag ✓ metadata-version
#> 2.15.0

tag = torch.__version__.partition("+")[2]
expected = "cpu" if torch.version.cuda is None else "cu" + torch.version.cuda.replace(".", "")
print(tag, expected, tag == expected)  # the tag names the CUDA version: cu132 = CUDA 13.2 ✓ tag-matches
#> cu132 cu132 True
print(torch.cuda.get_arch_list())  # the GPU architectures this build has kernels for ✓ arch-list
#> ['sm_75', 'sm_80', 'sm_86', 'sm_90', 'sm_100', 'sm_120']
# --8<-- [end:which-build]

# --8<-- [start:runtime-driver]
cuda_requirements = [r for r in importlib.metadata.requires("torch") or [] if r.startswith(("nvidia-", "cuda-"))]
print(len(cuda_requirements) > 0, cuda_requirements[0].split(";")[0])  # the CUDA libraries are pip packages ✓ cuda-requirements
#> True cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.2.2
print(all('platform_system == "Linux"' in r for r in cuda_requirements))  # each one for Linux only ✓ linux-only
#> True

site_packages = Path(torch.__file__).parents[1]  # where pip installed torch and its dependencies
runtime = sorted(p.relative_to(site_packages).as_posix() for p in site_packages.glob("nvidia/**/libcudart.so.*"))
driver = sorted(p.relative_to(site_packages).as_posix() for p in site_packages.glob("nvidia/**/libcuda.so*"))
print(runtime)  # the CUDA runtime: installed with torch ✓ runtime-installed
#> ['nvidia/cu13/lib/libcudart.so.13']
print(driver)  # the driver's library: not ✓ no-driver-package
#> []
# --8<-- [end:runtime-driver]

# --8<-- [start:no-driver]
if not torch.cuda.is_available():  # this machine: a CUDA build, no GPU driver
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # is_available() answers False without raising or warning
        assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0  # ✓ false-quietly
    messages = []
    for attempt in (torch.cuda.init, lambda: torch.zeros(1, device="cuda")):
        try:
            attempt()
        except RuntimeError as err:
            messages.append(str(err))
    no_driver = "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
    assert messages == [no_driver, no_driver], messages  # what using CUDA says instead ✓ no-driver-message
# --8<-- [end:no-driver]

# --8<-- [start:messages]
lib = Path(torch.__file__).parent / "lib"
binaries = b"".join(path.read_bytes() for path in lib.glob("*c10_cuda*"))  # the CUDA part of the core library
python_source = Path(torch.cuda.__file__).read_text(encoding="utf-8")
print(  # where each message is written in the installed torch ✓ messages-found
    {
        "Found no NVIDIA driver": b"Found no NVIDIA driver on your system" in binaries,
        "driver too old": b"The NVIDIA driver on your system is too old (found version" in binaries,
        "not compiled": "Torch not compiled with CUDA enabled" in python_source,
        "sm not compatible": "is not compatible with the current PyTorch installation" in python_source,
    }
)
#> {'Found no NVIDIA driver': True, 'driver too old': True, 'not compiled': True, 'sm not compatible': True}
# --8<-- [end:messages]


# --8<-- [start:diagnose]
def diagnose(cuda: str | None, hip: str | None, available: bool) -> str:
    """The first thing to check, from torch.version.cuda, torch.version.hip and torch.cuda.is_available()."""
    if available:
        return "the GPU works"
    if cuda is None and hip is None:
        return "CPU-only build: reinstall torch from the index URL of a CUDA build"
    build = f"CUDA {cuda}" if cuda else f"ROCm {hip}"
    return f"{build} build, no usable GPU: check the driver and CUDA_VISIBLE_DEVICES"


print(diagnose(None, None, False))  # what a CPU-only wheel reports (not installed here) ✓ diagnose-cpu
#> CPU-only build: reinstall torch from the index URL of a CUDA build
print(diagnose("13.2", None, True))  # what a working NVIDIA GPU machine reports ✓ diagnose-works
#> the GPU works
print(diagnose(None, "7.1", False), "|", diagnose(None, "7.1", True))  # a ROCm build for AMD GPUs: cuda is None ✓ diagnose-rocm
#> ROCm 7.1 build, no usable GPU: check the driver and CUDA_VISIBLE_DEVICES | the GPU works
facts = (torch.version.cuda, torch.version.hip)
if torch.cuda.is_available():  # requires: cuda
    assert diagnose(*facts, True) == "the GPU works"  # ✓ diagnose-gpu
else:
    assert diagnose(*facts, False).startswith(f"CUDA {torch.version.cuda} build, no usable GPU")  # this machine ✓ diagnose-here
# --8<-- [end:diagnose]
