"""Read the files that reproduce the set-up: pins, conda environment files, PyCharm runs.

Shared by the Environment & tooling snippets and by tests/test_environment_*.py:

- `read_requirements` / `read_conda_environment`: the pins in requirements.txt (the
  single source of truth) and in environment-setup/*.yml, normalised so that they
  can be compared package by package (`pin_drift` names every difference).
- `read_run_configuration` / `pycharm_command`: a PyCharm run configuration
  (.run/*.run.xml) and the command line PyCharm builds from it.
"""

from __future__ import annotations

import os
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from docverify.paths import REPO_ROOT

REQUIREMENTS = REPO_ROOT / "requirements.txt"
ENVIRONMENT_SETUP = REPO_ROOT / "environment-setup"
RUN_CONFIGURATIONS = REPO_ROOT / ".run"

_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*(?P<version>[^\s;#]+)\s*$")


def normalize_name(name: str) -> str:
    """Package names compare as PyPI does (PEP 503): case and `-_.` do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Pin:
    name: str  # as written
    version: str  # public version, e.g. "2.14.1"
    local: str | None = None  # local label, e.g. "cpu" in 2.14.1+cpu

    @property
    def key(self) -> str:
        return normalize_name(self.name)

    def __str__(self) -> str:
        return f"{self.name}=={self.version}" + (f"+{self.local}" if self.local else "")


def parse_pin(line: str) -> Pin | None:
    """`name==version[+local]` -> Pin; options, paths and comments -> None."""
    match = _PIN.match(line.strip())
    if not match:
        return None
    version, _, local = match["version"].partition("+")
    return Pin(match["name"], version, local or None)


def read_requirements(path: Path = REQUIREMENTS) -> dict[str, Pin]:
    """Every `name==version` line of a requirements file, keyed by normalised name."""
    pins: dict[str, Pin] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue  # blank, comment, `-e .` or another pip option
        pin = parse_pin(line)
        if pin is None:
            raise ValueError(f"{path}: not an exact pin (name==version): {line!r}")
        pins[pin.key] = pin
    return pins


@dataclass(frozen=True)
class CondaEnvironment:
    path: Path
    name: str
    channels: tuple[str, ...]
    conda_deps: tuple[str, ...]  # e.g. ("python=3.11", "pip")
    pip_options: tuple[str, ...]  # e.g. ("--extra-index-url https://...",)
    pip_pins: dict[str, Pin] = field(default_factory=dict)
    pip_other: tuple[str, ...] = ()  # e.g. ("-e ..",)

    def conda_spec(self, package: str) -> str | None:
        """The version part of a conda dependency (`python=3.11` -> `3.11`), if pinned."""
        for dep in self.conda_deps:
            match = re.match(r"^([A-Za-z0-9._-]+)\s*(?:=+\s*(.+))?$", dep)
            if match and normalize_name(match[1]) == normalize_name(package):
                return match[2]
        return None


def read_conda_environment(path: Path) -> CondaEnvironment:
    """Parse a conda environment file; raise ValueError naming what is malformed."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be a mapping")
    for key in ("name", "channels", "dependencies"):
        if key not in data:
            raise ValueError(f"{path}: missing required key `{key}`")
    conda_deps: list[str] = []
    pip_section: list[str] | None = None
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            if set(dep) != {"pip"} or not isinstance(dep["pip"], list):
                raise ValueError(f"{path}: unexpected mapping in dependencies: {dep!r}")
            pip_section = [str(item) for item in dep["pip"]]
        else:
            conda_deps.append(str(dep))
    if pip_section is None:
        raise ValueError(f"{path}: no `pip:` section under dependencies")
    options, pins, other = [], {}, []
    for item in pip_section:
        if item.startswith("--"):
            options.append(item)
        elif (pin := parse_pin(item)) is not None:
            pins[pin.key] = pin
        else:
            other.append(item)
    return CondaEnvironment(
        path=path,
        name=str(data["name"]),
        channels=tuple(str(c) for c in data["channels"]),
        conda_deps=tuple(conda_deps),
        pip_options=tuple(options),
        pip_pins=pins,
        pip_other=tuple(other),
    )


def pin_drift(
    requirements: dict[str, Pin], env: CondaEnvironment, allowed_local: dict[str, str | None]
) -> list[str]:
    """Every difference between requirements.txt and an environment file's pip pins.

    `allowed_local` maps packages that may carry a build label in this file to the
    one label they must carry (e.g. {"torch": "cpu"}); every other pin must match
    requirements.txt exactly, and nothing may be pinned that requirements.txt lacks.
    """
    problems = []
    for key, want in requirements.items():
        got = env.pip_pins.get(key)
        if got is None:
            problems.append(f"{want.name}: pinned {want.version} in requirements.txt, missing")
            continue
        if got.version != want.version:
            problems.append(
                f"{want.name}: requirements.txt pins {want.version}, {env.path.name} pins {got}"
            )
        expected_local = allowed_local.get(key)
        if got.local != expected_local:
            label = f"+{expected_local}" if expected_local else "no build label"
            problems.append(f"{want.name}: {env.path.name} pins {got}, expected {label}")
    for key, got in env.pip_pins.items():
        if key not in requirements:
            problems.append(f"{got.name}: pinned in {env.path.name} but not in requirements.txt")
    return problems


# --- PyCharm run configurations -------------------------------------------------------


@dataclass(frozen=True)
class RunConfiguration:
    """The options of a PyCharm "Python" run configuration that decide its command line."""

    name: str
    sdk_home: str
    interpreter_options: str
    module_mode: bool
    script_name: str  # a script path, or the module name when module_mode is true
    parameters: str
    working_directory: str
    pass_parent_envs: bool
    envs: dict[str, str]


# The notes' set-up: launcher typed into "Interpreter options", script run over SSH.
NOTES_RUN_CONFIGURATION = RunConfiguration(
    name="corr",
    sdk_home="",
    interpreter_options="-m torch.distributed.launch --nproc_per_node=2",
    module_mode=False,
    script_name="/home/lzy/PythonPro/corr.py",
    parameters="",
    working_directory="",
    pass_parent_envs=True,
    envs={},
)


def read_run_configuration(path: Path) -> RunConfiguration:
    """Parse a .run/*.run.xml file the way PyCharm stores a Python run configuration."""
    root = ET.parse(path).getroot()
    if root.tag != "component" or root.get("name") != "ProjectRunConfigurationManager":
        raise ValueError(f"{path}: root must be <component name='ProjectRunConfigurationManager'>")
    config = root.find("configuration")
    if config is None or config.get("type") != "PythonConfigurationType":
        raise ValueError(f"{path}: needs <configuration type='PythonConfigurationType'>")
    options = {o.get("name"): o.get("value", "") for o in config.findall("option")}
    envs = {e.get("name", ""): e.get("value", "") for e in config.findall("envs/env")}
    return RunConfiguration(
        name=config.get("name", ""),
        sdk_home=options.get("SDK_HOME", ""),
        interpreter_options=options.get("INTERPRETER_OPTIONS", ""),
        module_mode=options.get("MODULE_MODE", "false") == "true",
        script_name=options.get("SCRIPT_NAME", ""),
        parameters=options.get("PARAMETERS", ""),
        working_directory=options.get("WORKING_DIRECTORY", ""),
        pass_parent_envs=options.get("PARENT_ENVS", "true") == "true",
        envs=envs,
    )


@dataclass(frozen=True)
class PyCharmCommand:
    argv: list[str]
    cwd: str
    env: dict[str, str]

    def __str__(self) -> str:
        return shlex.join(self.argv)


def pycharm_command(
    config: RunConfiguration,
    *,
    interpreter: str,
    project_dir: str,
    unbuffered_flag: bool = True,
) -> PyCharmCommand:
    """The command line PyCharm runs for `config`, with $PROJECT_DIR$ substituted.

    Modelled on PyCharm's source (intellij-community, python/src/.../run/): the
    command is built from ordered groups, "Exe Options" (the interpreter options),
    then the module group (`-m NAME` in module mode), then the script group (script
    path and parameters). For remote interpreters (SSH, Docker) PyCharm's
    `PythonRemoteInterpreterManager.addUnbuffered` appends `-u` to the end of the
    Exe Options group unless a `-u` is already there; that is the `-u` of the notes.
    Local runs get PYTHONUNBUFFERED=1 in the environment instead. `unbuffered_flag`
    selects the remote behaviour (the default: the harder case).
    """

    def expand(text: str) -> str:
        return text.replace("$PROJECT_DIR$", project_dir)

    exe_options = shlex.split(expand(config.interpreter_options))
    if unbuffered_flag and "-u" not in exe_options:
        exe_options.append("-u")
    argv = [interpreter, *exe_options]
    if config.module_mode:
        argv += ["-m", config.script_name]
    elif config.script_name.strip():
        argv.append(expand(config.script_name))
    argv += shlex.split(expand(config.parameters))
    env = dict(os.environ) if config.pass_parent_envs else {}
    env.update({"PYTHONUNBUFFERED": "1", "PYCHARM_HOSTED": "1"})
    env.update({k: expand(v) for k, v in config.envs.items()})
    return PyCharmCommand(argv, expand(config.working_directory) or project_dir, env)
