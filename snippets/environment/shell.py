"""Which start-up files bash reads: login vs interactive shells, and the notes' fix.

Page: docs/environment/shell.md
Every case runs a real `bash` in a temporary HOME whose start-up files only write
their own name to $HOME/read.log; the system files in /etc are read as usual.
"""

# --8<-- [start:setup]
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

assert shutil.which("bash"), "this page needs bash"
home = Path(tempfile.mkdtemp(prefix="home-"))  # a throw-away HOME; removed at the end
# --8<-- [end:setup]


# --8<-- [start:helper]
def marker(name: str) -> str:
    """A line of shell that appends `name` to $HOME/read.log."""
    return f'echo {name} >> "$HOME/read.log"\n'


def files_read(home: Path, *bash_args: str, command: str = "true", **variables: str) -> str:
    """Start bash with `bash_args` in HOME=home (and `variables` set); return the start-up
    files it read, in order."""
    log = home / "read.log"
    log.unlink(missing_ok=True)
    env = {"HOME": str(home), "PATH": os.defpath, "TERM": "dumb", **variables}  # ✓ own-home
    result = subprocess.run(
        ["bash", *bash_args, "-c", command],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,  # stderr: `-i` without a terminal warns about job control
        text=True,
        timeout=30,
        check=True,
    )
    read = " ".join(log.read_text().split()) if log.exists() else "(none)"
    return read + (f" | {result.stdout.strip()}" if result.stdout.strip() else "")


# --8<-- [end:helper]

# --8<-- [start:who-reads-what]
for name in [".bash_profile", ".bash_login", ".profile", ".bashrc"]:
    (home / name).write_text(marker(name))
cases = {
    "login (bash -l)": ["-l"],
    "interactive (bash -i)": ["-i"],
    "login + interactive (an ssh session)": ["-l", "-i"],
    "neither (bash -c, scripts)": [],
}
for what, args in cases.items():
    print(f"{what}: {files_read(home, *args)}")  # ✓ who-reads
    #> login (bash -l): .bash_profile
    #> interactive (bash -i): .bashrc
    #> login + interactive (an ssh session): .bash_profile
    #> neither (bash -c, scripts): (none)
# `ssh host command`: sshd starts `bash -c command` with SSH_CLIENT (client address, ports) set,
# and no SHLVL: no shell started it
print(files_read(home, SSH_CLIENT="192.0.2.1 50000 22"))  # ✓ ssh-command
#> .bashrc
# a `bash -c` started from a shell of an SSH session inherits SSH_CLIENT, and SHLVL=1 or more
print(files_read(home, SSH_CLIENT="192.0.2.1 50000 22", SHLVL="1"))  # ✓ ssh-nested
#> (none)
# --8<-- [end:who-reads-what]

# --8<-- [start:first-found]
(home / ".bash_profile").unlink()
print(files_read(home, "-l"))  # only the first of the three that exists ✓ first-found
#> .bash_login
(home / ".bash_login").unlink()
print(files_read(home, "-l"))  # ✓ first-found
#> .profile
# --8<-- [end:first-found]

# --8<-- [start:notes-fix]
(home / ".bash_profile").write_text(
    marker(".bash_profile") + "if [ -f ~/.bashrc ]; then\nsource ~/.bashrc\nfi\n"
)
print(files_read(home, "-l", "-i"))  # the notes' .bash_profile: now .bashrc runs too ✓ notes-fix
#> .bash_profile .bashrc
print(files_read(home, "-l"))  # ✓ notes-fix
#> .bash_profile .bashrc
# --8<-- [end:notes-fix]

# --8<-- [start:conda-sh]
# A stand-in for a conda installed in ~/miniconda3 (there is no conda on this machine):
# bin/conda and condabin/conda are programs that only say who they are, and
# etc/profile.d/conda.sh does what the real file does (see the box below).
prefix = home / "miniconda3"
for folder in ["bin", "condabin"]:
    (prefix / folder).mkdir(parents=True)
    (prefix / folder / "conda").write_text(f'#!/bin/sh\necho "the program {folder}/conda $*"\n')
    (prefix / folder / "conda").chmod(0o755)
(prefix / "etc" / "profile.d").mkdir(parents=True)
(prefix / "etc" / "profile.d" / "conda.sh").write_text(
    f"export CONDA_EXE='{prefix}/bin/conda'\n"  # variables for the conda program
    f"export CONDA_PYTHON_EXE='{prefix}/bin/python'\n"
    "export CONDA_SHLVL=0\n"
    'export PATH="$(dirname "$(dirname "$CONDA_EXE")")/condabin:$PATH"\n'
    'conda() { echo "the shell function conda $*"; }\n'  # what `conda activate` needs
)
# The notes' first line in ~/.bashrc (their second, `conda activate`, needs a real conda):
(home / ".bashrc").write_text(marker(".bashrc") + f". {prefix}/etc/profile.d/conda.sh\n")
probe = (
    'echo "CONDA_EXE=${CONDA_EXE#$HOME/} CONDA_SHLVL=${CONDA_SHLVL-}'
    ' condabin on PATH: $(case ":$PATH:" in *condabin:*) echo yes;; *) echo no;; esac)'
    ' conda is: $(type -t conda || echo nothing)"'
    '; conda activate demo 2>/dev/null || echo "conda activate: exit status $?"'
)
print(files_read(home, "-i", command=probe))  # the interactive shell that read .bashrc ✓ conda-sh
#> .bashrc | CONDA_EXE=miniconda3/bin/conda CONDA_SHLVL=0 condabin on PATH: yes conda is: function
#> the shell function conda activate demo
child = "sh -c 'echo \"$CONDA_PYTHON_EXE ${PATH%%:*}\"'"  # a child process: it sees exported variables only
exported = files_read(home, "-i", command=child)  # the other variable; PATH's first folder
assert exported == f".bashrc | {prefix}/bin/python {prefix}/condabin", exported  # ✓ conda-sh-exports
# --8<-- [end:conda-sh]

# --8<-- [start:functions]
script = home / "train.sh"  # a script, run by that interactive shell
script.write_text(probe + "\n")
print(files_read(home, "-i", command=f"bash {script}"))  # inherits variables, not functions ✓ script
#> .bashrc | CONDA_EXE=miniconda3/bin/conda CONDA_SHLVL=0 condabin on PATH: yes conda is: file
#> the program condabin/conda activate demo
print(files_read(home, command=f"bash {script}"))  # started by a shell that read nothing: no conda at all ✓ no-shell
#> (none) | CONDA_EXE= CONDA_SHLVL= condabin on PATH: no conda is: nothing
#> conda activate: exit status 127
sourcing = home / "train_sourcing.sh"  # a script that sources conda.sh itself
sourcing.write_text(f". {prefix}/etc/profile.d/conda.sh\n" + probe + "\n")
print(files_read(home, command=f"bash {sourcing}"))  # ✓ sourcing
#> (none) | CONDA_EXE=miniconda3/bin/conda CONDA_SHLVL=0 condabin on PATH: yes conda is: function
#> the shell function conda activate demo
change = "export CONDA_SHLVL=1"  # a program (a child process) tries it, then a function
tries = (
    f'sh -c "{change}"; echo "after a program: ${{CONDA_SHLVL-unset}}"'
    f'; f() {{ {change}; }}; f; echo "after a function: ${{CONDA_SHLVL-unset}}"'
)
print(files_read(home, command=tries))  # ✓ program-vs-function
#> (none) | after a program: unset
#> after a function: 1
# --8<-- [end:functions]

# --8<-- [start:debian-skel]
skel = Path("/etc/skel")  # the files Debian and Ubuntu give every new user
assert (skel / ".bashrc").is_file() and (skel / ".profile").is_file(), "needs Debian's /etc/skel"
assert "If not running interactively, don't do anything" in (skel / ".bashrc").read_text()  # ✓ skel-return
assert 'PATH="$HOME/.local/bin:$PATH"' in (skel / ".profile").read_text()  # ✓ skel-local-bin
debian_home = Path(tempfile.mkdtemp(prefix="home-"))
for name in [".bashrc", ".profile"]:  # the real files, a marker at the very end
    (debian_home / name).write_text((skel / name).read_text() + marker(name))
print(files_read(debian_home, "-l", "-i"))  # .profile sources .bashrc: no fix needed ✓ skel-login
#> .bashrc .profile
print(files_read(debian_home, "-l"))  # .bashrc returns at once when not interactive ✓ skel-noninteractive
#> .profile
(debian_home / ".bash_profile").write_text(marker(".bash_profile"))
print(files_read(debian_home, "-l", "-i"))  # a new ~/.bash_profile hides ~/.profile ✓ skel-hidden
#> .bash_profile
(debian_home / ".bash_profile").write_text(". ~/.profile\n" + marker(".bash_profile"))
print(files_read(debian_home, "-l", "-i"))  # unless it starts by sourcing ~/.profile ✓ skel-kept
#> .bashrc .profile .bash_profile
# --8<-- [end:debian-skel]

# --8<-- [start:clean-up]
shutil.rmtree(home)
shutil.rmtree(debian_home)
assert not home.exists() and not debian_home.exists()  # ✓ removed
# --8<-- [end:clean-up]
