"""The sandbox an in-process snippet run gets, and nothing leaks out of it.

Each guard is a context manager so that `run_snippet` reads as a list of them:
fresh random state, warnings as errors, no network, a time limit, a scratch
working directory, and PyTorch's global settings restored afterwards.
"""

from __future__ import annotations

import ipaddress
import os
import random
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch


class NetworkBlockedError(OSError):
    """A snippet tried to reach a host other than this machine."""


class SnippetTimeoutError(TimeoutError):
    """A snippet ran past its time limit."""


def _is_local_host(host: object) -> bool:
    if host in (None, "", "localhost"):
        return True
    if isinstance(host, bytes):
        host = host.decode()
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


_network_blocked = False


def _refuse_network(event: str, args: tuple) -> None:
    """An audit hook (PEP 578): while a snippet runs, refuse sockets to other hosts."""
    if not _network_blocked:
        return
    if event == "socket.getaddrinfo" and not _is_local_host(args[0]):
        raise NetworkBlockedError(f"snippets must not use the network (looked up {args[0]!r})")
    address = args[1] if event == "socket.connect" else None
    if isinstance(address, tuple) and not _is_local_host(address[0]):
        raise NetworkBlockedError(f"snippets must not use the network (tried {address!r})")


# Audit hooks cannot be removed, so one is added for the process and is on only
# inside `network_blocked()`. Python raises these events for every socket, from
# C or Python, so no function needs replacing.
sys.addaudithook(_refuse_network)


@contextmanager
def network_blocked() -> Iterator[None]:
    """Only loopback and Unix sockets work: downloads fail fast with a clear error."""
    global _network_blocked
    saved, _network_blocked = _network_blocked, True
    try:
        yield
    finally:
        _network_blocked = saved


@contextmanager
def time_limit(seconds: int, what: str) -> Iterator[None]:
    def expire(signum, frame):
        raise SnippetTimeoutError(f"{what} ran longer than its {seconds} s limit")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def warnings_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@contextmanager
def fresh_random_state() -> Iterator[None]:
    """Seed every generator from OS entropy, as a new interpreter would.

    A snippet must fix its own seed (torch.manual_seed or a torch.Generator) so
    that `python snippets/x.py` prints what the page shows. Seeding here with
    a fixed value would hide a missing seed; fresh entropy makes it fail.
    """
    seed = int.from_bytes(os.urandom(8), "little") >> 1
    random.seed(seed)
    np.random.seed(seed % 2**32)
    # Not torch.manual_seed: its first call imports torch._dynamo (seconds).
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    yield


# Global numeric settings a snippet may change, as dotted paths under torch.backends,
# coarse before fine: restoring a coarse one may reset the finer ones below it.
# (`fp32_precision` is the TF32 API of torch >= 2.9; older torch lacks those paths.)
_BACKEND_FLAGS = (
    "cudnn.enabled",
    "cudnn.benchmark",
    "cudnn.deterministic",
    "cudnn.allow_tf32",
    "cuda.matmul.allow_tf32",
    "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction",
    "fp32_precision",
    "cuda.matmul.fp32_precision",
    "cudnn.fp32_precision",
    "cudnn.conv.fp32_precision",
    "cudnn.rnn.fp32_precision",
    "mkldnn.fp32_precision",
    "mkldnn.matmul.fp32_precision",
    "mkldnn.conv.fp32_precision",
    "mkldnn.rnn.fp32_precision",
)


def _backend_flags() -> dict[str, object]:
    """The current value of every flag in _BACKEND_FLAGS that this torch has."""
    values: dict[str, object] = {}
    for path in _BACKEND_FLAGS:
        *parents, name = path.split(".")
        owner: object = torch.backends
        for part in parents:
            owner = getattr(owner, part, None)
        if owner is not None and hasattr(owner, name):
            values[path] = getattr(owner, name)
    return values


def _set_backend_flag(path: str, value: object) -> None:
    *parents, name = path.split(".")
    owner: object = torch.backends
    for part in parents:
        owner = getattr(owner, part)
    setattr(owner, name, value)


@contextmanager
def torch_globals_restored() -> Iterator[None]:
    """Undo what a snippet may change globally in PyTorch (and numpy's print options)."""
    dtype = torch.get_default_dtype()
    grad = torch.is_grad_enabled()
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    matmul_precision = torch.get_float32_matmul_precision()
    flags = _backend_flags()
    numpy_print = np.get_printoptions()
    try:
        yield
    finally:
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)
        torch.set_num_threads(threads)
        # Only when changed: the call imports torch._dynamo (seconds) the first time.
        if torch.are_deterministic_algorithms_enabled() != deterministic:
            torch.use_deterministic_algorithms(deterministic)
        torch.set_default_device(None)
        torch.set_printoptions(profile="default")
        np.set_printoptions(**numpy_print)
        _restore_numeric_flags(matmul_precision, flags)
        _close_figures()


def _restore_numeric_flags(matmul_precision: str, flags: dict[str, object]) -> None:
    # The legacy flags, the matmul precision and the fp32_precision API write
    # through to each other, so set only what differs, coarse before fine, until
    # all read back as saved (two rounds at most in practice).
    for _ in range(3):
        if torch.get_float32_matmul_precision() != matmul_precision:
            torch.set_float32_matmul_precision(matmul_precision)
        changed = [(p, v) for p, v in flags.items() if _backend_flags().get(p) != v]
        for path, value in changed:
            if _backend_flags().get(path) != value:
                _set_backend_flag(path, value)
        if torch.get_float32_matmul_precision() == matmul_precision and _backend_flags() == flags:
            return
    now = _backend_flags()
    left = {p: (now.get(p), v) for p, v in flags.items() if now.get(p) != v}
    raise RuntimeError(f"could not restore torch.backends flags (now, saved): {left}")


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@contextmanager
def process_state(
    path: Path, workdir: Path, device: str, *, argv0: Path | None = None
) -> Iterator[None]:
    """argv, cwd, environment and sys.path as for `python <argv0 or path>`, restored afterwards."""
    saved_argv, saved_path, saved_env = sys.argv[:], sys.path[:], os.environ.copy()
    saved_cwd, saved_modules = Path.cwd(), set(sys.modules)
    sys.argv = [str(argv0 or path)]
    sys.path.insert(0, str(path.parent))
    os.environ["NOTES_DEVICE"] = device
    os.chdir(workdir)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.environ.clear()
        os.environ.update(saved_env)
        _forget_local_modules(saved_modules, (path.parent, workdir))


def _forget_local_modules(before: set[str], folders: tuple[Path, ...]) -> None:
    """Unload modules the run imported from the snippet's folder or its working directory.

    A helper next to a snippet (`_image_grid.py`) must be imported afresh by the
    next snippet, as in a new interpreter. Everything else the run imported stays:
    torch loads submodules lazily, and a C extension cannot be imported twice.
    """
    roots = [folder.resolve() for folder in folders]
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None)
        if origin and any(Path(origin).resolve().is_relative_to(root) for root in roots):
            del sys.modules[name]
