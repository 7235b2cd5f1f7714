"""Running torch.distributed jobs from PyCharm: the `-u` problem, the fix, torchrun.

Page: docs/environment/pycharm.md
PyCharm itself is not run here (a desktop program): `pycharm_command` models the
command line it builds, checked against the one line the notes copied from PyCharm's
console. Everything else runs: the pinned launcher's own code on the arguments Python
hands it (in this process), the fix, and, as a real command line, the command that the
.run configuration implies, under torch.distributed.run, launching the standard-library
script environment-setup/torchrun_ranks.py (two processes that start at once).
"""
# requires: checkout
# timeout: 240

# --8<-- [start:setup]
import ast
import contextlib
import importlib.metadata
import inspect
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import torch.distributed.elastic.utils.logging as elastic_logging
import torch.distributed.launch as legacy_launch
import torch.distributed.run as torchrun
from torch.distributed.run import config_from_args
from torch.distributed.run import get_args_parser as torchrun_parser

work = Path(tempfile.mkdtemp(prefix="pycharm-"))  # a scratch folder, removed at the end
# --8<-- [end:setup]


# --8<-- [start:command-model]
def pycharm_command(
    python: str, options: str, target: str, parameters: str = "", *, module_mode=False, remote=True
) -> list[str]:
    """The command line PyCharm runs for a Python run configuration (a model, see the box).

    The interpreter, its "Interpreter options", then `-m MODULE` in module mode or the
    script path, then "Parameters". For a remote (SSH) interpreter PyCharm also adds
    `-u` at the end of the interpreter options, unless they already hold one.
    """
    exe_options = shlex.split(options)
    if remote and "-u" not in exe_options:
        exe_options.append("-u")
    start = ["-m", target] if module_mode else [target]
    return [python, *exe_options, *start, *shlex.split(parameters)]


# The notes' console line (after its `ssh://user@host:22` prefix), copied verbatim:
NOTES_CONSOLE = (
    "/home/lzy/anaconda3/bin/python -m torch.distributed.launch \u2014nproc_per_node=2"
    " -u /home/lzy/PythonPro/corr.py"
)
python = "/home/lzy/anaconda3/bin/python"
corr = "/home/lzy/PythonPro/corr.py"
notes = pycharm_command(python, "-m torch.distributed.launch \u2014nproc_per_node=2", corr)
assert " ".join(notes) == NOTES_CONSOLE  # the model gives exactly what PyCharm ran ✓ notes-console
fix = pycharm_command(python, "-u -m torch.distributed.launch --nproc_per_node=2", corr)
print(" ".join(fix))  # the notes' fix, with `--` typed as two hyphens ✓ fix-command
#> /home/lzy/anaconda3/bin/python -u -m torch.distributed.launch --nproc_per_node=2 /home/lzy/PythonPro/corr.py
# --8<-- [end:command-model]

# --8<-- [start:where-u-goes]
# A module that reports what the interpreter handed on to it.
(work / "show_args.py").write_text(
    "import sys\n"
    "python_took = sys.orig_argv[1 : sys.orig_argv.index('-m')]\n"
    "print('python took', python_took, '| the module got', sys.argv[1:])\n"
)
for argv in (
    ["-m", "show_args", "--nproc_per_node=2", "-u", "corr.py"],  # the notes' order
    ["-u", "-m", "show_args", "--nproc_per_node=2", "corr.py"],  # the notes' fix
):
    shown = subprocess.run(
        [sys.executable, *argv], cwd=work, capture_output=True, text=True, check=True
    )
    print(shown.stdout.strip())  # ✓ where-u
    #> python took [] | the module got ['--nproc_per_node=2', '-u', 'corr.py']
    #> python took ['-u'] | the module got ['--nproc_per_node=2', 'corr.py']
help_text = subprocess.run([sys.executable, "--help"], capture_output=True, text=True, check=True).stdout
assert "-m mod : run library module as a script (terminates option list)" in help_text  # ✓ m-ends-options
options = ["-u", "-O", "-B", "-X", "dev", "-c", "pass"]  # interpreter options, after the module name
shown = subprocess.run(
    [sys.executable, "-m", "show_args", *options], cwd=work, capture_output=True, text=True, check=True
)
assert shown.stdout.strip() == f"python took [] | the module got {options}"  # all handed on ✓ m-all-handed-on
# --8<-- [end:where-u-goes]

# --8<-- [start:real-error]
broken = pycharm_command(python, "-m torch.distributed.launch --nproc_per_node=2", "corr.py")
handed_on = broken[broken.index("torch.distributed.launch") + 1 :]  # as show_args got it
print(handed_on)  # ✓ handed-on
#> ['--nproc_per_node=2', '-u', 'corr.py']
# What `python -m torch.distributed.launch` does, in this process: sys.argv becomes the
# module's file and the arguments it is handed, and the module's last line calls main().
assert inspect.getsource(legacy_launch).endswith('if __name__ == "__main__":\n    main()\n')  # ✓ main-last
saved_argv, sys.argv = sys.argv, [legacy_launch.__file__, *handed_on]
stderr = io.StringIO()
try:
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(stderr):
        warnings.simplefilter("always")  # record it, whatever the filters in force
        legacy_launch.main()
except SystemExit as stop:
    print("exit status", stop.code)  # the status `python` exits with ✓ exit-2
    #> exit status 2
finally:
    sys.argv = saved_argv
print(stderr.getvalue().splitlines()[-1])  # ✓ unrecognized-u
#> launch.py: error: unrecognized arguments: -u
assert stderr.getvalue().endswith("launch.py: error: unrecognized arguments: -u\n")  # the notes' line ✓ notes-message
[warning] = caught
text = f"{warning.category.__name__}: {warning.message}".splitlines()[:5]
print("\n".join(line.rstrip() for line in text))  # torch ends one line with a space ✓ deprecated
#> FutureWarning: The module torch.distributed.launch is deprecated
#> and will be removed in future. Use torchrun.
#> Note that --use-env is set by default in torchrun.
#> If your script expects `--local-rank` argument to be set, please
#> change it to read from `os.environ['LOCAL_RANK']` instead. See
# --8<-- [end:real-error]

# --8<-- [start:fixed-parse]
args = legacy_launch.parse_args(["--nproc_per_node=2", "corr.py"])  # what launch sees after the fix
print(args.nproc_per_node, args.training_script, args.training_script_args)  # ✓ fixed-parse
#> 2 corr.py []
# What each launcher appends to a worker's command line (one process: no OMP_NUM_THREADS set-up)
for launcher, parsed in [
    ("launch  ", legacy_launch.parse_args(["corr.py"])),
    ("torchrun", torchrun_parser().parse_args(["corr.py"])),
]:
    print(launcher, config_from_args(parsed)[2])  # ✓ local-rank-arg
    #> launch   ['-u', 'corr.py', '--local-rank=${local_rank}']
    #> torchrun ['-u', 'corr.py']
assert 'local_rank = int(os.environ["LOCAL_RANK"])' in torchrun.__doc__  # torchrun's own docs ✓ local-rank-env
# --8<-- [end:fixed-parse]

# --8<-- [start:em-dash]
dash = NOTES_CONSOLE[NOTES_CONSOLE.index("nproc_per_node") - 1]  # the notes' character before it
print(f"U+{ord(dash):04X}", dash == "-")  # an em dash, not a hyphen ✓ em-dash-code
#> U+2014 False
args = torchrun_parser().parse_args(["\u2014nproc_per_node=2", "main.py"])  # pasted from the notes
print(repr(args.nproc_per_node), repr(args.training_script), args.training_script_args)  # ✓ em-dash
#> '1' '—nproc_per_node=2' ['main.py']
legacy = legacy_launch.parse_args(["\u2014nproc_per_node=2", "main.py"])  # the notes' launcher
assert vars(legacy).items() >= vars(args).items()  # reads it the same way ✓ em-dash-launch
pycharm_line = legacy_launch.parse_args(["\u2014nproc_per_node=2", "-u", "corr.py"])  # the notes' PyCharm line
print(repr(pycharm_line.training_script), pycharm_line.training_script_args)  # -u: no error ✓ em-dash-pycharm
#> '—nproc_per_node=2' ['-u', 'corr.py']
# --8<-- [end:em-dash]


# --8<-- [start:read-configuration]
def find_checkout(*starts: Path) -> Path:
    """The repository checkout: the first folder at or above a start holding `.run/`."""
    for start in starts:
        for folder in (start, *start.parents):
            if (folder / ".run").is_dir() and (folder / "requirements.txt").is_file():
                return folder
    raise FileNotFoundError("run this from a checkout of the PyTorch Notes repository")


project_dir = find_checkout(Path(sys.argv[0]).resolve().parent, Path.cwd())  # PyCharm's $PROJECT_DIR$
outside = []  # away from a checkout (the filesystem's root) the search stops, saying why
try:
    find_checkout(Path(project_dir.anchor))
except FileNotFoundError as err:
    outside.append(str(err))
assert outside == ["run this from a checkout of the PyTorch Notes repository"]  # ✓ outside-checkout
configuration = ET.parse(project_dir / ".run" / "torchrun_ranks.run.xml").find("configuration")
assert configuration.get("type") == "PythonConfigurationType"  # a "Python" run configuration ✓ python-config
option = {o.get("name"): o.get("value") for o in configuration.findall("option")}
for name in ["INTERPRETER_OPTIONS", "MODULE_MODE", "SCRIPT_NAME", "PARAMETERS"]:
    print(f"{name}: {option[name]!r}")  # ✓ options
    #> INTERPRETER_OPTIONS: ''
    #> MODULE_MODE: 'true'
    #> SCRIPT_NAME: 'torch.distributed.run'
    #> PARAMETERS: '--standalone --nproc_per_node=2 --tee=3 environment-setup/torchrun_ranks.py'
[entry] = importlib.metadata.entry_points(group="console_scripts", name="torchrun")
print(entry.value)  # the `torchrun` command calls this module's main() ✓ torchrun-entry
#> torch.distributed.run:main
command = pycharm_command(
    sys.executable,  # stands for SDK_HOME, the interpreter chosen in PyCharm
    option["INTERPRETER_OPTIONS"],
    option["SCRIPT_NAME"],
    option["PARAMETERS"],
    module_mode=option["MODULE_MODE"] == "true",
)
print(" ".join(["python", *command[1:]]))  # the remote `-u` lands before `-m`, harmlessly ✓ command
#> python -u -m torch.distributed.run --standalone --nproc_per_node=2 --tee=3 environment-setup/torchrun_ranks.py
# --8<-- [end:read-configuration]

# --8<-- [start:run-configuration]
env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}  # Python's defaults
env.update({e.get("name"): e.get("value") for e in configuration.findall("envs/env")})
env["LOGLEVEL"] = "INFO"  # torchrun then reports the ranks it starts and how they ended
env["PET_LOG_DIR"] = str(work / "torchrun-logs")  # torchrun's --log-dir, kept out of /tmp
run = subprocess.run(
    command,
    cwd=option["WORKING_DIRECTORY"].replace("$PROJECT_DIR$", str(project_dir)),
    env=env,
    capture_output=True,
    text=True,
    timeout=200,
    check=False,
)
output = run.stdout + run.stderr
print("exit status", run.returncode)  # ✓ exit-0
#> exit status 0
print(re.search(r"global_ranks=\[[0-9, ]*\]", output)[0], "WorkerState.SUCCEEDED" in output)  # ✓ two-ranks
#> global_ranks=[0, 1] True
ranks_line = next(line for line in output.splitlines() if "global_ranks=" in line)
print(ranks_line[0], elastic_logging.get_log_level())  # an INFO line; the default level ✓ loglevel
#> I WARNING
assert 'os.environ.get("LOGLEVEL", get_log_level())' in inspect.getsource(elastic_logging)  # ✓ loglevel-env
print(sorted(run.stdout.splitlines()))  # every line, prefixed with its rank's name ✓ tee-prefix
#> ['[default0]:rank 0 of 2, local rank 0', '[default1]:rank 1 of 2, local rank 1']
endpoint = re.search(r"rdzv_endpoint\s*: (\S+)", output)[1]  # --standalone: port 0, "any free port"
print(endpoint, int(re.search(r"master_port=(\d+)", output)[1]) > 0)  # the processes' port: a real one ✓ free-port
#> localhost:0 True
print(sorted(p.name for p in work.glob("torchrun-logs/*/attempt_0/*")))  # a log folder per rank ✓ log-dir
#> ['0', '1']
launched = ast.parse((project_dir / "environment-setup" / "torchrun_ranks.py").read_text(encoding="utf-8"))
subscripts = {ast.unparse(n) for n in ast.walk(launched) if isinstance(n, ast.Subscript)}
environ = {f"os.environ['{name}']" for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
assert subscripts == environ  # the ranks it prints: read from these variables ✓ env-ranks
imported = {a.name.split(".")[0] for n in ast.walk(launched) if isinstance(n, ast.Import) for a in n.names}
imported |= {n.module.split(".")[0] for n in ast.walk(launched) if isinstance(n, ast.ImportFrom) and n.module}
assert imported and imported <= sys.stdlib_module_names  # the launched script: standard library only ✓ stdlib-only
# --8<-- [end:run-configuration]

# --8<-- [start:clean-up]
shutil.rmtree(work)
# --8<-- [end:clean-up]
