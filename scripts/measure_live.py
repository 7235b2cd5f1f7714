"""How long `make serve` takes from saving a snippet, or a page, to the page showing it.

    make measure-live        # or: .venv/bin/python scripts/measure_live.py [--port 8123]

Starts `make serve` (the English edition) on a port of 127.0.0.1 and times its first
page; then `make serve ZH=1` (both editions), waits for the first build, then
saves snippets/tensors/reshape.py with one `#>` line made stale and times until
the served English page shows "Live verification FAILED" (and then the Chinese
page, 实时验证失败), then saves it back and times until the English page no
longer shows it; then saves docs/tensors/reshape.md with a sentence added and times
until the page shows it. The files are put back whatever happens. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNIPPET = ROOT / "snippets" / "tensors" / "reshape.py"
PAGE = ROOT / "docs" / "tensors" / "reshape.md"
EDIT = "A sentence saved while serving. {-}"
PAGES = {"en": "tensors/reshape/", "zh": "zh/tensors/reshape/"}
FAILED = {"en": "Live verification FAILED", "zh": "实时验证失败"}


def page(port: int, lang: str) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{PAGES[lang]}", timeout=5) as r:
            return r.read().decode("utf-8")
    except OSError:  # not served yet, or rebuilding
        return ""


def seconds_until(condition, limit: float = 120.0) -> float:
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > limit:
            raise TimeoutError(f"not within {limit} s")
        time.sleep(0.1)
    return time.monotonic() - start


def _serve(port: int, *, zh: bool) -> subprocess.Popen:
    return subprocess.Popen(
        ["make", "serve", f"PORT={port}", *(["ZH=1"] if zh else [])],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # make, mkdocs and the live runner stop together
    )


def _first_page(port: int, *, zh: bool) -> float:
    server = _serve(port, zh=zh)
    try:
        return seconds_until(lambda: "</html>" in page(port, "zh" if zh else "en"), limit=600)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8123)
    port = parser.parse_args().port
    original = SNIPPET.read_text(encoding="utf-8")
    prose = PAGE.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#> torch.Size"))
    stale = "".join(
        [*lines[:at], lines[at].replace("torch.Size", "torch.Sise", 1), *lines[at + 1 :]]
    )
    first = _first_page(port, zh=False)
    print(f"make serve: first page after {first:.1f} s (the English edition)")
    server = _serve(port, zh=True)
    try:
        both = seconds_until(lambda: "</html>" in page(port, "zh"), limit=600)
        print(f"make serve ZH=1: first page after {both:.1f} s (both editions)")
        time.sleep(3)  # let the watcher settle after the first build
        SNIPPET.write_text(stale, encoding="utf-8")
        failed = seconds_until(lambda: FAILED["en"] in page(port, "en"))
        also_zh = seconds_until(lambda: FAILED["zh"] in page(port, "zh"))
        print(
            f"stale #> line saved: FAILED on the English page after {failed:.1f} s, "
            f"on the Chinese page {also_zh:.1f} s later"
        )
        SNIPPET.write_text(original, encoding="utf-8")
        fixed = seconds_until(lambda: FAILED["en"] not in page(port, "en"))
        print(f"fixed file saved: the English page verified again after {fixed:.1f} s")
        time.sleep(2)
        PAGE.write_text(prose + f"\n{EDIT}\n", encoding="utf-8")
        edited = seconds_until(lambda: EDIT.split(" {", maxsplit=1)[0] in page(port, "en"))
        print(f"a page's prose saved: the page shows it after {edited:.1f} s")
    finally:
        SNIPPET.write_text(original, encoding="utf-8")
        PAGE.write_text(prose, encoding="utf-8")
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()


if __name__ == "__main__":
    main()
