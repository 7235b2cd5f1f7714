"""The two-command set-up, CI and the publishing workflow agree with each other."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from docverify import pyproject as pyproject_toml

REPO_ROOT = Path(__file__).resolve().parents[1]  # the checkout under test
README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
REQUIREMENTS = REPO_ROOT / "requirements.txt"
DOCS_REQUIREMENTS = REPO_ROOT / "requirements-docs.txt"
MEASURE_REQUIREMENTS = REPO_ROOT / "requirements-measure.txt"
# The commands README.md gives, in order: indented code lines (not fenced: pages
# and the README alike show no hand-written code blocks that could drift).
README_COMMANDS = re.findall(r"^    (make \S+.*)$", README, flags=re.MULTILINE)
MAKE_TARGETS = set(re.findall(r"^([a-z][-a-z0-9]*):", MAKEFILE, flags=re.MULTILINE))


def test_readme_gives_serve_then_test() -> None:
    assert README_COMMANDS[:2] == ["make serve", "make test"]
    assert "Python 3.11" in README


def test_ci_runs_exactly_the_readme_test_command() -> None:
    lines = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1].strip() == README_COMMANDS[1]


def _entries(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _pinned(path: Path) -> set[str]:
    """Normalised names pinned in a requirements file (not following `-r`)."""
    return {re.sub(r"[-_.]+", "-", e.split("==")[0]).lower() for e in _entries(path) if "==" in e}


@pytest.mark.parametrize(
    "path", [REQUIREMENTS, DOCS_REQUIREMENTS, MEASURE_REQUIREMENTS], ids=lambda p: p.name
)
def test_every_pin_is_exact(path: Path) -> None:
    allowed = {
        "requirements.txt": ["-r requirements-docs.txt"],
        "requirements-docs.txt": ["-e ."],
        "requirements-measure.txt": ["-r requirements.txt"],
    }
    entries = _entries(path)
    loose = [
        e
        for e in entries
        if e not in allowed[path.name]
        and not re.fullmatch(r'[A-Za-z0-9_.\-]+==[\w.]+(; python_version (<|>=) "3\.\d+")?', e)
    ]
    assert not loose, f"{path.name} entries without an exact == pin: {loose}"
    assert all(e in entries for e in allowed[path.name]), f"{path.name} lacks {allowed[path.name]}"


def test_the_plugin_loads_without_torch_or_the_test_stack() -> None:
    # What the docs set installs must be enough for the plugins mkdocs.yml loads: MkDocs
    # itself loads them here, with the test stack made unimportable.
    blocked = ("torch", "torchvision", "numpy", "matplotlib", "pytest", "playwright", "harness")
    program = textwrap.dedent(
        f"""
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {blocked!r}:
                    raise ImportError(f"the docs set has no {{name}}")
        sys.meta_path.insert(0, Block())
        from mkdocs.config import load_config
        print(sorted(load_config("mkdocs.yml")["plugins"]))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "'notes'" in result.stdout


def test_python_version_is_the_same_everywhere() -> None:
    # Any of 3.10-3.13 installs and runs (pyproject, the Makefile's check); one of them,
    # the pinned Python, is the default, CI's and the version matrix's reference.
    from docverify.matrix.stacks import PINNED_PYTHON

    pyproject = pyproject_toml.load(REPO_ROOT)
    assert pyproject["project"]["requires-python"] == ">=3.10,<3.14"
    assert "(3, 10) <= sys.version_info[:2] <= (3, 13)" in MAKEFILE
    assert re.search(rf"^PYTHON \?= python{re.escape(PINNED_PYTHON)}$", MAKEFILE, flags=re.M)
    containers = [
        job["container"]
        for path in WORKFLOWS
        for job in _workflow(path)["jobs"].values()
        if "container" in job
    ]
    assert containers and set(containers) == {f"python:{PINNED_PYTHON}-bookworm"}


def test_each_requirements_line_with_a_marker_has_its_pinned_python_twin() -> None:
    # `numpy==2.2.6; python_version < "3.11"` needs `numpy==X; python_version >= "3.11"`:
    # every package is pinned exactly once for every Python from 3.10 to 3.13.
    from docverify.matrix.stacks import requirement_pins

    names = _pinned(REQUIREMENTS) | _pinned(DOCS_REQUIREMENTS)
    for python in ("3.10", "3.11", "3.12", "3.13"):
        pins = {re.sub(r"[-_.]+", "-", n) for n in requirement_pins(REQUIREMENTS, python)}
        missing = names - pins - {"tomli"}
        assert not missing, f"no pin for {sorted(missing)} on Python {python}"


def test_the_ci_version_matrix_is_the_declared_one() -> None:
    # The workflow's strategy matrix lists exactly the stacks of docverify.matrix.stacks.
    from docverify.matrix.stacks import stacks

    jobs = [job for path in WORKFLOWS for job in _workflow(path)["jobs"].values()]
    matrices = [j["strategy"]["matrix"]["stack"] for j in jobs if "strategy" in j]
    assert matrices == [[s.name for s in stacks(REQUIREMENTS)]]


def _stamp(prefix: str, *files: str) -> Path:
    # As the Makefile names it: the files, then `$(PYTHON) -V`'s line (this interpreter is
    # .venv's, made from that PYTHON). Without the version line no stamp ever matched, and
    # the test below skipped even under `make test`.
    pins = b"".join((REPO_ROOT / name).read_bytes() for name in files)
    pins += f"Python {platform.python_version()}\n".encode()
    return REPO_ROOT / ".venv" / f".installed-{prefix}{hashlib.sha256(pins).hexdigest()[:16]}"


def test_install_is_skipped_when_pins_are_unchanged() -> None:
    # The stamp's name is a hash of the pins: present and current on a set-up checkout...
    stamp = _stamp("", "requirements.txt", "requirements-docs.txt", "pyproject.toml")
    if not stamp.exists():
        pytest.skip("not run through `make`: no install stamp in .venv/")
    # ...for the docs set too: the full install covers it.
    assert _stamp("docs-", "requirements-docs.txt", "pyproject.toml").exists()
    python = f"PYTHON={sys.executable}"  # the Python whose version the stamps hash
    up_to_date = subprocess.run(["make", "--question", "setup", python], cwd=REPO_ROOT, check=False)
    assert up_to_date.returncode == 0
    # ...and a change of pins (simulated by another hash) makes make reinstall.
    changed = subprocess.run(
        ["make", "--question", "setup", python, "PINS_HASH=0000000000000000"],
        cwd=REPO_ROOT,
        check=False,
    )
    assert changed.returncode == 1


# --- GitHub Actions ------------------------------------------------------------------------


def _workflow(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_there_is_a_workflow() -> None:
    assert WORKFLOWS, "no workflow in .github/workflows"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_commits(path: Path) -> None:
    uses = re.findall(r"uses:\s*(\S+)", path.read_text(encoding="utf-8"))
    unpinned = [u for u in uses if not re.fullmatch(r"[\w.\-/]+@[0-9a-f]{40}", u)]
    assert uses and not unpinned, f"{path.name}: actions not pinned to a commit SHA: {unpinned}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_least_privilege(path: Path) -> None:
    workflow = _workflow(path)
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        extra = {k: v for k, v in job.get("permissions", {}).items() if v != "read"}
        assert not extra or name == "publish", f"{path.name}: job {name} asks for {extra}"
        assert "timeout-minutes" in job, f"{path.name}: job {name} has no timeout"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_call_the_documented_make_targets(path: Path) -> None:
    runs = [
        step["run"]
        for job in _workflow(path)["jobs"].values()
        for step in job["steps"]
        if "run" in step
    ]
    targets = re.findall(r"\bmake (\w[-\w]*)", "\n".join(runs))
    assert targets, f"{path.name}: no make target called"
    for target in targets:
        assert target in MAKE_TARGETS, f"{path.name}: `make {target}` is not a Makefile target"
        assert f"make {target}" in README, f"{path.name}: `make {target}` is not in README.md"


def make_dry_run(*args: str) -> str:
    """What `make` would run (nothing is run): the commands of the targets and what they need."""
    done = subprocess.run(
        ["make", "--dry-run", "--always-make", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_make_serve_serves_the_docs_set_at_the_root_of_localhost() -> None:
    serve = make_dry_run("serve")
    assert "-r requirements-docs.txt" in serve and "-r requirements.txt" not in serve
    assert "mkdocs serve --dirty --livereload --dev-addr 127.0.0.1:8000" in serve
    assert "--dev-addr 127.0.0.1:8042" in make_dry_run("serve", "PORT=8042")


def test_a_busy_port_is_one_line_naming_the_way_out() -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        done = subprocess.run(
            ["make", "--no-print-directory", "serve", f"PORT={port}"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode != 0
    assert done.stderr.splitlines()[0] == (
        f"make serve: port {port} is in use; pick another: make serve PORT=8001"
    )
    assert "Traceback" not in done.stdout + done.stderr


def test_build_needs_only_the_docs_set_and_test_the_full_set() -> None:
    build = make_dry_run("build")
    assert "-r requirements-docs.txt" in build and "-r requirements.txt" not in build
    for target in ("test", "pytest", "setup", "update-examples"):
        assert "-r requirements.txt" in make_dry_run(target), target


def test_a_copied_environment_is_named_with_the_way_out(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "mkdocs").write_text("#!/somewhere/else/.venv/bin/python\n", encoding="utf-8")
    done = subprocess.run(
        ["make", "--dry-run", "lint", f"VENV={venv}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert f"make a new one: rm -rf {venv} && make setup" in done.stderr


def test_the_map_of_the_machinery_is_the_code_s_own() -> None:
    """CONTRIBUTING.md's map: every module of src/docverify and tests/harness, as their
    docstrings and imports say (docverify.machinery_map)."""
    from docverify.machinery_map import rewrite

    contributing = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert rewrite(contributing) == contributing, (
        "CONTRIBUTING.md's map is out of date: run `python -m docverify.machinery_map --write`"
    )
