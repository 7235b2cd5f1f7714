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
import socket
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


@contextmanager
def network_blocked() -> Iterator[None]:
    """Only loopback and Unix sockets work: downloads fail fast with a clear error."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(address: object) -> None:
        if isinstance(address, tuple) and not _is_local_host(address[0]):
            raise NetworkBlockedError(f"snippets must not use the network (tried {address!r})")

    def connect(self, address):
        check(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        check(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local_host(host):
            raise NetworkBlockedError(f"snippets must not use the network (looked up {host!r})")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = real_connect
        socket.socket.connect_ex = real_connect_ex
        socket.getaddrinfo = real_getaddrinfo


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


@contextmanager
def torch_globals_restored() -> Iterator[None]:
    """Undo what a snippet may change globally in PyTorch."""
    dtype = torch.get_default_dtype()
    grad = torch.is_grad_enabled()
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
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
        _close_figures()


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@contextmanager
def process_state(path: Path, workdir: Path, device: str) -> Iterator[None]:
    """argv, cwd, environment and sys.path as for `python <path>`, restored afterwards."""
    saved_argv, saved_path, saved_env = sys.argv[:], sys.path[:], os.environ.copy()
    saved_cwd = Path.cwd()
    sys.argv = [str(path)]
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
