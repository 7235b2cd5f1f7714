"""Running torch.distributed jobs from PyCharm: the `-u` problem, the fix, torchrun.

Page: docs/environment/pycharm.md
The command lines come from ptnotes.environment_files.pycharm_command, a model of
how PyCharm assembles them; the error is produced by running the real command.
"""
# timeout: 240

import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from torch.distributed.launch import parse_args as launch_parse_args
from torch.distributed.run import get_args_parser as torchrun_parser

from ptnotes.environment_files import (
    NOTES_RUN_CONFIGURATION,
    RUN_CONFIGURATIONS,
    pycharm_command,
    read_run_configuration,
)

# --8<-- [start:command-lines]
notes = NOTES_RUN_CONFIGURATION  # the launcher typed into "Interpreter options"
notes_fix = replace(notes, interpreter_options="-u " + notes.interpreter_options)  # `-u` first
modern = read_run_configuration(RUN_CONFIGURATIONS / "ddp_train_torchrun.run.xml")

for label, config in [("notes", notes), ("notes' fix", notes_fix), ("modern", modern)]:
    command = pycharm_command(config, interpreter="python", project_dir="$PROJECT_DIR$")
    print(f"{label:>10}: {command}")
    #>      notes: python -m torch.distributed.launch --nproc_per_node=2 -u /home/lzy/PythonPro/corr.py
    #> notes' fix: python -u -m torch.distributed.launch --nproc_per_node=2 /home/lzy/PythonPro/corr.py
    #>     modern: python -u -m torch.distributed.run --standalone --nproc_per_node=2 --tee=3 snippets/distributed/ddp_train.py
# --8<-- [end:command-lines]

with tempfile.TemporaryDirectory() as tmp:
    # --8<-- [start:where-u-goes]
    # A module that reports what the interpreter handed on to it.
    Path(tmp, "show_args.py").write_text(
        "import sys\n"
        "python_took = sys.orig_argv[1 : sys.orig_argv.index('-m')]\n"
        "print('python took', python_took, '| the module got', sys.argv[1:])\n"
    )
    for argv in (
        ["-m", "show_args", "--nproc_per_node=2", "-u", "corr.py"],  # the notes' order
        ["-u", "-m", "show_args", "--nproc_per_node=2", "corr.py"],  # the notes' fix
    ):
        shown = subprocess.run(
            [sys.executable, *argv], cwd=tmp, capture_output=True, text=True, check=True
        )
        print(shown.stdout.strip())
        #> python took [] | the module got ['--nproc_per_node=2', '-u', 'corr.py']
        #> python took ['-u'] | the module got ['--nproc_per_node=2', 'corr.py']
    # --8<-- [end:where-u-goes]

    # --8<-- [start:real-error]
    script = Path(tmp, "corr.py")
    script.write_text("print('never reached')\n")
    broken = pycharm_command(notes, interpreter=sys.executable, project_dir=tmp)
    argv = [script.as_posix() if a.endswith("corr.py") else a for a in broken.argv]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}  # Python's defaults
    result = subprocess.run(
        argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=200, check=False
    )
    print("exit status", result.returncode)
    #> exit status 2
    print(result.stderr.splitlines()[-1])
    #> launch.py: error: unrecognized arguments: -u
    warning = next(line for line in result.stderr.splitlines() if "FutureWarning" in line)
    print(warning[warning.index("FutureWarning") :])
    #> FutureWarning: The module torch.distributed.launch is deprecated
    # --8<-- [end:real-error]

# --8<-- [start:fixed-parse]
args = launch_parse_args(["--nproc_per_node=2", "corr.py"])  # what launch sees after the fix
print(args.nproc_per_node, args.training_script, args.training_script_args, args.use_env)
#> 2 corr.py [] False
# --8<-- [end:fixed-parse]

# --8<-- [start:em-dash]
args = torchrun_parser().parse_args(["\u2014nproc_per_node=2", "main.py"])  # pasted from the notes
print(repr(args.nproc_per_node), repr(args.training_script), args.training_script_args)
#> '1' '—nproc_per_node=2' ['main.py']
# --8<-- [end:em-dash]
