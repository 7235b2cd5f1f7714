"""environment-setup/ reproduces requirements.txt: same Python, same pins, valid files.

requirements.txt is the single source of truth; the conda environment files must
pin exactly the same versions (torch/torchvision may carry the build label of
their variant). A drift fails here, naming the package.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from docverify.paths import REPO_ROOT
from ptnotes.environment_files import (
    ENVIRONMENT_SETUP,
    REQUIREMENTS,
    CondaEnvironment,
    pin_drift,
    read_conda_environment,
    read_requirements,
)

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# file -> build label torch and torchvision must carry in it (None: the PyPI wheel).
VARIANTS = {
    "environment.yml": "cpu",
    "environment-cuda.yml": None,
}
ENV_FILES = sorted(ENVIRONMENT_SETUP.glob("*.yml"))


def _python_series() -> str:
    """`requires-python = "==3.11.*"` in pyproject.toml -> "3.11"."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    match = re.fullmatch(r"==\s*(\d+\.\d+)\.\*", pyproject["project"]["requires-python"])
    assert match, "pyproject.toml requires-python is no longer of the form ==X.Y.*"
    return match[1]


def _load(name: str) -> CondaEnvironment:
    return read_conda_environment(ENVIRONMENT_SETUP / name)


def test_every_environment_file_has_a_declared_variant() -> None:
    assert sorted(p.name for p in ENV_FILES) == sorted(VARIANTS)


def test_requirements_are_exact_pins() -> None:
    pins = read_requirements()
    assert {"torch", "torchvision"} <= set(pins)
    assert all(pin.local is None for pin in pins.values()), "requirements.txt pins no build label"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_environment_file_structure(name: str) -> None:
    data = yaml.safe_load((ENVIRONMENT_SETUP / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    for key in ("name", "channels", "dependencies"):
        assert key in data, f"{name}: missing required key `{key}`"
    env = _load(name)
    assert env.conda_spec("python") == _python_series(), (
        f"{name}: python must be {_python_series()} as in pyproject.toml"
    )
    assert any(dep == "pip" for dep in env.conda_deps), f"{name}: conda must install pip"
    # PyTorch comes from pip, exactly pinned; never from a conda channel.
    conda_torch = [d for d in env.conda_deps if re.match(r"^(py)?torch", d)]
    assert not conda_torch, f"{name}: PyTorch must not come from conda: {conda_torch}"
    assert "pytorch" not in env.channels, f"{name}: the pytorch channel stopped at 2.5"
    for item in env.pip_other:
        assert "torch" not in item, f"{name}: unpinned torch entry in the pip section: {item!r}"
    assert {"torch", "torchvision"} <= set(env.pip_pins), f"{name}: torch/torchvision not pinned"
    assert env.pip_other == ("-e ..",), f"{name}: unexpected pip entries {env.pip_other}"


def test_cpu_file_uses_the_cpu_wheel_index() -> None:
    assert _load("environment.yml").pip_options == (f"--extra-index-url {CPU_INDEX}",)
    assert _load("environment-cuda.yml").pip_options == ()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_environment_pins_equal_requirements(name: str) -> None:
    label = VARIANTS[name]
    problems = pin_drift(read_requirements(), _load(name), {"torch": label, "torchvision": label})
    assert not problems, f"{name} drifted from requirements.txt:\n" + "\n".join(problems)


def test_drift_is_reported_by_package_name(tmp_path: Path) -> None:
    # The check itself: a file with one changed pin fails, naming that package.
    numpy = read_requirements(REQUIREMENTS)["numpy"].version
    text = (ENVIRONMENT_SETUP / "environment-cuda.yml").read_text(encoding="utf-8")
    assert f"numpy=={numpy}" in text
    drifted = tmp_path / "environment-cuda.yml"
    drifted.write_text(text.replace(f"numpy=={numpy}", "numpy==1.0"), encoding="utf-8")
    problems = pin_drift(read_requirements(REQUIREMENTS), read_conda_environment(drifted), {})
    assert f"numpy: requirements.txt pins {numpy}, environment-cuda.yml pins numpy==1.0" in problems


@pytest.mark.parametrize("name", ["tsinghua.condarc", "tsinghua-notes.condarc"])
def test_condarc_examples_are_valid_yaml(name: str) -> None:
    data = yaml.safe_load((ENVIRONMENT_SETUP / name).read_text(encoding="utf-8"))
    assert isinstance(data.get("channels"), list)
    assert data.get("show_channel_urls") is True


@pytest.mark.skipif(shutil.which("conda") is None, reason="needs conda: no `conda` on PATH")
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_conda_accepts_environment_file(name: str) -> None:
    # A real conda solves the file (dry run: nothing is installed; needs the channels).
    result = subprocess.run(
        ["conda", "env", "create", "--dry-run", "--json", "--file", str(ENVIRONMENT_SETUP / name)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    json.loads(result.stdout)
