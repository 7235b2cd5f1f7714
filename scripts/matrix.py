"""`make matrix`: run the snippets on every declared stack and record each `#>` block's output.

    python scripts/matrix.py                     # every stack in docverify.matrix.stacks
    python scripts/matrix.py --stack py3.11-torch2.4.1 --stack py3.13-torch2.14.1
    python scripts/matrix.py --setup-only        # only make (or refresh) the environments

Each stack gets its own virtual environment under .matrix/venvs/<stack>/ (ignored by
git) with the snippets' runtime packages only, installed by uv from its cache: a
rerun of an unchanged stack reuses its environment (a stamp file names the hash of
its requirements), a new one links the cached wheels instead of downloading them.
uv does not read pip's configuration, so this machine's pip constraints file (which
caps torch for the shared .venv) does not apply to these environments, and only to
them. In each environment, `python -m docverify.matrix.record` (this checkout's src/ and
tests/ on PYTHONPATH, for the recorder and the snippet harness) writes the stack's
results to docs/assets/generated/matrix/<stack>.json; commit them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from docverify.matrix.records import RESULTS_DIR  # noqa: E402
from docverify.matrix.stacks import Stack, requirement_pins, stacks  # noqa: E402
from docverify.site.site_config import OPTIONS_VARIABLE, markdown_options  # noqa: E402

VENVS = ROOT / ".matrix" / "venvs"


def find_python(version: str) -> str:
    """An interpreter of `version` ("3.12"): python3.12 on PATH, else pyenv's, else the
    version itself, which uv finds among the Pythons it knows (or fetches, as on CI)."""
    candidates = [shutil.which(f"python{version}")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    pattern = f"versions/{version}.*/bin/python{version}"
    candidates += sorted(str(p) for p in pyenv_root.glob(pattern))
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    return version


def find_uv() -> str:
    uv = os.environ.get("UV") or shutil.which("uv")
    if not uv:
        raise SystemExit("uv not found: `make matrix` installs it, or set UV=/path/to/uv")
    return uv


def ensure_venv(stack: Stack, uv: str) -> tuple[Path, bool]:
    """The stack's interpreter, and whether its environment had to be (re)installed."""
    venv = VENVS / stack.name
    python = venv / "bin" / "python"
    requirements = "\n".join(stack.requirements()) + "\n"
    # --seed: pip (and, before Python 3.12, setuptools), as `python -m venv` gives a
    # reader; torch.utils.benchmark imports setuptools on older torch.
    how = f"uv venv --seed\n{requirements}"
    stamp = venv / f".installed-{hashlib.sha256(how.encode()).hexdigest()[:16]}"
    if stamp.is_file() and python.is_file():
        return python, False
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run(
        [uv, "venv", "--quiet", "--seed", "--python", find_python(stack.python), str(venv)],
        check=True,
    )
    (venv / "requirements.txt").write_text(requirements, encoding="utf-8")
    subprocess.run(
        [
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "-r",
            str(venv / "requirements.txt"),
        ],
        check=True,
    )
    stamp.touch()
    return python, True


# The recorder (docverify.matrix.record) reads snippet sections with pymdownx itself,
# as the site renders them (with the options read here from mkdocs.yml, which it
# gets in OPTIONS_VARIABLE: MkDocs and its plugins stay out of the stacks). Those
# pure-Python packages (and pathspec: embed roots are globs), at requirements-docs.txt's pins for the stack's Python, join
# the runtime ones, with their own stamp: adding them does not reinstall torch.
RECORDER_PACKAGES = ("pymdown-extensions", "pyyaml", "pathspec")


def ensure_recorder_packages(stack: Stack, python: Path, uv: str) -> None:
    pins = requirement_pins(ROOT / "requirements-docs.txt", stack.python)
    wanted = [f"{name}=={pins[name]}" for name in RECORDER_PACKAGES]
    stamp = (
        python.parent.parent
        / f".recorder-{hashlib.sha256(' '.join(wanted).encode()).hexdigest()[:16]}"
    )
    if not stamp.is_file():
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", str(python), *wanted], check=True
        )
        stamp.touch()


def record(stack: Stack, python: Path, extra: list[str]) -> int:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")]),
        "MPLBACKEND": "Agg",
        OPTIONS_VARIABLE: json.dumps(
            {"pymdownx.snippets": markdown_options(ROOT)["pymdownx.snippets"]}
        ),
    }
    out = RESULTS_DIR / f"{stack.name}.json"
    command = [
        str(python),
        "-m",
        "docverify.matrix.record",
        "--stack",
        stack.name,
        "--out",
        str(out),
    ]
    return subprocess.run([*command, *extra], cwd=ROOT, env=env, check=False).returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", action="append", help="only this stack (repeatable)")
    parser.add_argument("--setup-only", action="store_true", help="make the environments only")
    parser.add_argument("-k", dest="only", help="only snippets whose path contains this")
    args = parser.parse_args(argv)
    declared = {s.name: s for s in stacks()}
    unknown = [n for n in args.stack or () if n not in declared]
    if unknown:
        raise SystemExit(f"unknown stack(s) {unknown}; declared: {', '.join(declared)}")
    chosen = [declared[n] for n in args.stack] if args.stack else list(declared.values())
    uv = find_uv()
    failed = []
    for stack in chosen:
        start = time.monotonic()
        python, installed = ensure_venv(stack, uv)
        ensure_recorder_packages(stack, python, uv)
        setup_s = time.monotonic() - start
        code = 0
        if not args.setup_only:
            code = record(stack, python, ["-k", args.only] if args.only else [])
            if code:
                failed.append(stack.name)
        total = time.monotonic() - start
        what = "installed" if installed else "reused"
        print(
            f"matrix: {stack.name}: environment {what} in {setup_s:.0f} s, total {total:.0f} s",
            flush=True,
        )
    if failed:
        print(f"matrix: the recorder failed on {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
