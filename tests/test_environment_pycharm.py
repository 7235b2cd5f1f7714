"""The PyCharm run configuration in .run/ is valid and really launches two processes.

The XML is parsed the way PyCharm stores a Python run configuration, turned into
the command line PyCharm would run (ptnotes.environment_files.pycharm_command,
modelled on PyCharm's source), and that command is run: both ranks must finish.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from docverify.paths import REPO_ROOT
from ptnotes.environment_files import (
    NOTES_RUN_CONFIGURATION,
    RUN_CONFIGURATIONS,
    RunConfiguration,
    pycharm_command,
    read_run_configuration,
)

RUN_XML = RUN_CONFIGURATIONS / "ddp_train_torchrun.run.xml"
LAUNCH_TIMEOUT_S = 300  # three Python processes importing torch on a busy 2-core machine


def _config() -> RunConfiguration:
    return read_run_configuration(RUN_XML)


def _interpreter(config: RunConfiguration) -> str:
    """The configuration's interpreter (the Makefile's .venv), else the one running the tests."""
    sdk = Path(config.sdk_home.replace("$PROJECT_DIR$", str(REPO_ROOT)))
    return str(sdk) if sdk.is_file() else sys.executable


def test_run_configuration_is_a_pycharm_python_configuration() -> None:
    assert RUN_XML.is_file()
    for path in RUN_CONFIGURATIONS.glob("*.xml"):
        assert path.name.endswith(".run.xml"), f"PyCharm reads .run/<name>.run.xml, not {path}"
    config = _config()
    assert config.module_mode, "module mode: `-m torch.distributed.run`, i.e. torchrun"
    assert config.script_name == "torch.distributed.run"
    assert config.interpreter_options == "", "nothing in Interpreter options: `-u` can't land wrong"
    assert config.working_directory == "$PROJECT_DIR$"
    assert config.sdk_home == "$PROJECT_DIR$/.venv/bin/python"
    params = config.parameters.split()
    assert "--nproc_per_node=2" in params and "--standalone" in params
    script = REPO_ROOT / params[-1]
    assert script.is_file(), f"the configuration launches {params[-1]}, which does not exist"


def test_command_model_reproduces_the_notes_command() -> None:
    # The notes' broken set-up: launcher in "Interpreter options", remote interpreter.
    notes = replace(NOTES_RUN_CONFIGURATION, pass_parent_envs=False)
    python = "/home/lzy/anaconda3/bin/python"
    broken = pycharm_command(notes, interpreter=python, project_dir="/p")
    # The notes: ... python -m torch.distributed.launch —nproc_per_node=2 -u /home/lzy/PythonPro/corr.py
    assert str(broken) == (
        f"{python} -m torch.distributed.launch --nproc_per_node=2 -u /home/lzy/PythonPro/corr.py"
    )
    fixed = replace(notes, interpreter_options="-u " + notes.interpreter_options)
    assert str(pycharm_command(fixed, interpreter=python, project_dir="/p")) == (
        f"{python} -u -m torch.distributed.launch --nproc_per_node=2 /home/lzy/PythonPro/corr.py"
    )
    # Module mode puts `-m` after every interpreter option, the added `-u` included.
    modern = pycharm_command(_config(), interpreter="python", project_dir="/p")
    assert modern.argv[:4] == ["python", "-u", "-m", "torch.distributed.run"]
    assert modern.cwd == "/p"


@pytest.mark.torchrun
def test_run_configuration_runs_both_processes() -> None:
    config = _config()
    command = pycharm_command(config, interpreter=_interpreter(config), project_dir=str(REPO_ROOT))
    # Test-only addition: torchrun's own INFO log reports the ranks it started and
    # how the worker group ended (the command line itself is unchanged).
    env = {**command.env, "LOGLEVEL": "INFO"}
    env.pop("PYTHONWARNINGS", None)  # the script runs with Python's default warnings
    proc = subprocess.Popen(
        command.argv,
        cwd=command.cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a timeout stops the launcher and both ranks
    )
    try:
        output, _ = proc.communicate(timeout=LAUNCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        pytest.fail(f"{command} ran longer than {LAUNCH_TIMEOUT_S} s:\n{output}")
    assert proc.returncode == 0, f"{command} exited {proc.returncode}:\n{output}"
    # Both processes were started as ranks 0 and 1 of one group ...
    assert re.search(r"global_ranks=\[0, 1\]", output), f"not two ranks:\n{output}"
    # ... and the launcher saw every process of the group exit with status 0.
    assert "WorkerState.SUCCEEDED" in output, f"worker group did not succeed:\n{output}"
    # --tee=3 prefixes each line a rank prints with [default<local rank>]: (ddp_train.py
    # prints from rank 0 only, values it gathered from both ranks).
    assert re.search(r"^\[default0\]:", output, re.MULTILINE), f"no output from rank 0:\n{output}"
