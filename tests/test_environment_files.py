"""environment-setup/ reproduces requirements.txt: same Python, same pins, valid files.

requirements.txt is the single source of truth. The conda environment file must
install exactly the verified build: the same packages at the same versions, from
PyPI (no other package index, no build label such as `+cpu`), with the Python
series of pyproject.toml. A drift fails here, naming the package. The conda page
(snippets/environment/conda.py) checks the same pins against the installed
distributions; this file adds the YAML structure and the failure messages.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from docverify import pyproject as pyproject_toml
from docverify.matrix.stacks import PINNED_PYTHON, marker_applies, version_key
from docverify.paths import REPO_ROOT

REQUIREMENTS = REPO_ROOT / "requirements.txt"
ENVIRONMENT_SETUP = REPO_ROOT / "environment-setup"
ENV_FILES = sorted(ENVIRONMENT_SETUP.glob("*.yml"))
_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<version>[^\s;#]+)\s*(?:;\s*(?P<marker>.+))?$"
)


def _key(name: str) -> str:
    """Package names compare as PyPI does (PEP 503): case and `-_.` do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pin(line: str) -> tuple[str, str] | None:
    """`name==version` -> (normalised name, version); anything else -> None.

    A pin with an environment marker counts where it applies to the pinned Python
    (the Python the environment file installs); else it is None too.
    """
    match = _PIN.match(line.strip())
    if not match or (match["marker"] and not marker_applies(match["marker"], PINNED_PYTHON)):
        return None
    return _key(match["name"]), match["version"]


def read_requirements(path: Path = REQUIREMENTS) -> dict[str, str]:
    """Every pin of a requirements file, following `-r other.txt` (relative to the file)."""
    pins = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins |= read_requirements(path.parent / line.removeprefix("-r ").strip())
            continue
        if not line or line.startswith("-"):
            continue  # blank, comment, `-e .` or another pip option
        pin = _pin(line)
        assert pin or _PIN.match(line), f"{path}: not an exact pin (name==version): {line!r}"
        if pin:
            pins[pin[0]] = pin[1]
    return pins


def requirement_options(path: Path = REQUIREMENTS) -> list[str]:
    """Every pip option line of a requirements file and the files it includes with `-r`
    (`--extra-index-url URL`, `--index-url URL`, `--find-links DIR`, ...), but `-r` and
    `-e`: each changes where pip looks for wheels, so the environment file must repeat it."""
    options = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = " ".join(raw.split("#", 1)[0].split())
        if line.startswith("-r "):
            options += requirement_options(path.parent / line.removeprefix("-r ").strip())
        elif line.startswith("-") and not line.startswith(("-e ", "--editable ")):
            options.append(line)
    return options


@dataclass(frozen=True)
class CondaEnvironment:
    name: str
    data: dict
    channels: list[str]
    conda_deps: list[str]  # e.g. ["python=3.11", "pip"]
    pip_options: list[str]  # e.g. ["--extra-index-url https://..."]
    pip_pins: dict[str, str]  # normalised name -> version as written (with any +label)
    pip_other: list[str]  # e.g. ["-e .."]


def read_conda_environment(path: Path) -> CondaEnvironment:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: top level must be a mapping"
    for key in ("name", "channels", "dependencies"):
        assert key in data, f"{path.name}: missing required key `{key}`"
    conda_deps, pip_section = [], None
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            assert set(dep) == {"pip"} and isinstance(dep["pip"], list), dep
            pip_section = [str(item) for item in dep["pip"]]
        else:
            conda_deps.append(str(dep))
    assert pip_section is not None, f"{path.name}: no `pip:` section under dependencies"
    options = [item for item in pip_section if item.startswith("--")]
    pins = dict(p for item in pip_section if (p := _pin(item)))
    other = [item for item in pip_section if not item.startswith("--") and not _pin(item)]
    return CondaEnvironment(
        str(data["name"]), data, data["channels"], conda_deps, options, pins, other
    )


def pin_drift(requirements: dict[str, str], env: CondaEnvironment, file_name: str) -> list[str]:
    """Every difference between requirements.txt and an environment file's pip pins."""
    problems = []
    for key, want in requirements.items():
        got = env.pip_pins.get(key)
        if got is None:
            problems.append(f"{key}: pinned {want} in requirements.txt, missing in {file_name}")
        elif got != want:
            problems.append(f"{key}: requirements.txt pins {want}, {file_name} pins {key}=={got}")
    problems += [
        f"{key}: pinned in {file_name} but not in requirements.txt"
        for key in env.pip_pins
        if key not in requirements
    ]
    return problems


def option_drift(options: list[str], env: CondaEnvironment, file_name: str) -> list[str]:
    """Every pip option that only one of requirements.txt and an environment file gives."""
    theirs = [" ".join(option.split()) for option in env.pip_options]
    return [
        f"pip option {option!r} in requirements.txt, missing in {file_name}"
        for option in options
        if option not in theirs
    ] + [
        f"pip option {option!r} in {file_name} but not in requirements.txt"
        for option in theirs
        if option not in options
    ]


def _python_series() -> str:
    """The pinned Python ("3.11"), which requires-python in pyproject.toml must allow."""
    requires = pyproject_toml.load(REPO_ROOT)["project"]["requires-python"]
    low, high = re.fullmatch(r">=(\d+\.\d+),<(\d+\.\d+)", requires).groups()
    assert version_key(low) <= version_key(PINNED_PYTHON) < version_key(high), requires
    return PINNED_PYTHON


def test_one_environment_file() -> None:
    # One file, the verified build: a second variant (e.g. `+cpu` wheels) would be
    # a build the suite never runs.
    assert [p.name for p in ENV_FILES] == ["environment.yml"]


def test_requirements_are_exact_pins() -> None:
    pins = read_requirements()
    assert {"torch", "torchvision"} <= set(pins)
    assert all("+" not in version for version in pins.values()), "no build label"


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_environment_file_structure(path: Path) -> None:
    env = read_conda_environment(path)
    pythons = [d for d in env.conda_deps if re.match(r"^python\s*=", d)]
    assert pythons == [f"python={_python_series()}"], (
        f"{path.name}: python must be {_python_series()} as in pyproject.toml, got {pythons}"
    )
    assert "pip" in env.conda_deps, f"{path.name}: conda must install pip"
    # PyTorch comes from pip, exactly pinned; never from a conda channel.
    conda_torch = [d for d in env.conda_deps if re.match(r"^(py)?torch", d)]
    assert not conda_torch, f"{path.name}: PyTorch must not come from conda: {conda_torch}"
    assert "pytorch" not in env.channels, f"{path.name}: the pytorch channel stopped at 2.5"
    assert env.pip_other == ["-e .."], f"{path.name}: unexpected pip entries {env.pip_other}"


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_environment_file_installs_from_pypi_only(path: Path) -> None:
    # No extra or replacement index: the `+cpu` wheels of PyTorch's index are a build
    # the suite never runs.
    assert read_conda_environment(path).pip_options == []


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_environment_pins_equal_requirements(path: Path) -> None:
    problems = pin_drift(read_requirements(), read_conda_environment(path), path.name)
    assert not problems, f"{path.name} drifted from requirements.txt:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_environment_pip_options_equal_requirements(path: Path) -> None:
    problems = option_drift(requirement_options(), read_conda_environment(path), path.name)
    assert not problems, f"{path.name} drifted from requirements.txt:\n" + "\n".join(problems)


def test_requirement_changes_that_are_not_pins_fail_too(tmp_path: Path) -> None:
    # A change that leaves every exact pin as it is still fails: a pip option that the
    # environment file does not repeat is reported by name, and a requirement that is
    # not an exact pin for the pinned Python (a range, extras, another marker) is refused.
    env = read_conda_environment(ENVIRONMENT_SETUP / "environment.yml")
    for name in ("requirements.txt", "requirements-docs.txt"):
        (tmp_path / name).write_text(
            (REPO_ROOT / name).read_text(encoding="utf-8"), encoding="utf-8"
        )
    changed = tmp_path / "requirements.txt"
    original = changed.read_text(encoding="utf-8")
    index = "--extra-index-url https://download.pytorch.org/whl/cpu"
    changed.write_text(original + index + "\n", encoding="utf-8")
    assert read_requirements(changed) == read_requirements()  # the pins are unchanged ...
    drift = option_drift(requirement_options(changed), env, "environment.yml")
    assert drift == [f"pip option {index!r} in requirements.txt, missing in environment.yml"]
    for line, refusal in [
        ("scipy>=1.15", "not an exact pin"),
        ("uvicorn[standard]==0.30.0", "not an exact pin"),
        ('uvloop==0.21.0; sys_platform == "linux"', "unsupported environment marker"),
    ]:
        changed.write_text(original + line + "\n", encoding="utf-8")
        with pytest.raises((AssertionError, ValueError), match=re.escape(refusal)):
            read_requirements(changed)


def test_drift_is_reported_by_package_name(tmp_path: Path) -> None:
    # The check itself: a file with one changed pin or a build label fails, naming the package.
    numpy, torch = read_requirements()["numpy"], read_requirements()["torch"]
    text = (ENVIRONMENT_SETUP / "environment.yml").read_text(encoding="utf-8")
    assert f"numpy=={numpy}" in text and f"torch=={torch}\n" in text
    drifted = tmp_path / "environment.yml"
    drifted.write_text(
        text.replace(f"numpy=={numpy}", "numpy==1.0").replace(
            f"torch=={torch}\n", f"torch=={torch}+cpu\n"
        ),
        encoding="utf-8",
    )
    problems = pin_drift(read_requirements(), read_conda_environment(drifted), drifted.name)
    assert f"numpy: requirements.txt pins {numpy}, environment.yml pins numpy==1.0" in problems
    assert f"torch: requirements.txt pins {torch}, environment.yml pins torch=={torch}+cpu" in (
        problems
    )


@pytest.mark.parametrize("name", ["tsinghua.condarc", "tsinghua-notes.condarc"])
def test_condarc_examples_are_valid_yaml(name: str) -> None:
    data = yaml.safe_load((ENVIRONMENT_SETUP / name).read_text(encoding="utf-8"))
    assert isinstance(data.get("channels"), list)
    assert data.get("show_channel_urls") is True


def test_condarc_of_today_has_no_free_or_pytorch_channel() -> None:
    # What the conda page says of the current form: `defaults` redirected to the
    # mirror, conda-forge as a custom channel, no `free`, no PyTorch entry.
    data = yaml.safe_load((ENVIRONMENT_SETUP / "tsinghua.condarc").read_text(encoding="utf-8"))
    mirror = "https://mirrors.tuna.tsinghua.edu.cn/anaconda/"
    assert data["channels"] == ["defaults"]
    assert data["default_channels"]
    assert all(url.startswith(mirror) for url in data["default_channels"])
    assert all("/pkgs/free" not in url for url in data["default_channels"])
    assert data["custom_channels"]["conda-forge"].startswith(mirror)
    assert "pytorch" not in json.dumps(data)


@pytest.mark.skipif(shutil.which("conda") is None, reason="needs conda: no `conda` on PATH")
@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_conda_accepts_environment_file(path: Path) -> None:
    # A real conda solves the file (dry run: nothing is installed; needs the channels).
    result = subprocess.run(
        ["conda", "env", "create", "--dry-run", "--json", "--file", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    json.loads(result.stdout)


def test_make_test_installs_requirements_txt_into_the_venv() -> None:
    # The conda page: requirements.txt is "the single list of versions that `make test`
    # installs into .venv/".
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^VENV\s*:=\s*\.venv$", makefile, re.MULTILINE)
    assert re.search(r"^BIN\s*:=\s*\$\(VENV\)/bin$", makefile, re.MULTILINE)
    # `make test` needs $(STAMP), whose recipe installs requirements.txt (and nothing else).
    assert re.search(r"^test: \$\(STAMP\)", makefile, re.MULTILINE)
    recipe = re.search(r"^\$\(STAMP\):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, re.MULTILINE)
    assert recipe, "no recipe for $(STAMP)"
    assert re.findall(r"\$\(BIN\)/python -m pip install [^\n]*-r (\S+)", recipe[1]) == [
        "requirements.txt"
    ]
