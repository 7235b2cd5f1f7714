"""Describe the machine a measurement ran on, for timing and benchmark pages."""

import platform
import sys

import torch


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine() -> str:
    """One line: CPU model, torch threads, torch and Python versions, GPU if any."""
    parts = [
        f"CPU: {cpu_model()}",
        f"torch threads: {torch.get_num_threads()}",
        f"torch {torch.__version__}",
        f"Python {sys.version.split()[0]}",
    ]
    if torch.cuda.is_available():
        parts.append(f"GPU: {torch.cuda.get_device_name()}")
    return " · ".join(parts)
