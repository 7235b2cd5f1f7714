"""The device a snippet should use when it is device-parametric.

The test harness sets NOTES_DEVICE to "cpu" or "cuda" for snippets that declare
`# devices: cpu, cuda`; run by hand, a snippet uses CUDA when it is available.
"""

import os

import torch


def notes_device() -> torch.device:
    requested = os.environ.get("NOTES_DEVICE")
    if requested:
        return torch.device(requested)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
