"""Which start-up files bash reads: login vs interactive shells, and the notes' fix.

Page: docs/environment/shell.md
Every case runs a real `bash` in a temporary HOME whose start-up files only write
their own name to $HOME/read.log; the system files in /etc are read as usual.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

assert shutil.which("bash"), "this page needs bash"


# --8<-- [start:helper]
def marker(name: str) -> str:
    return f'echo {name} >> "$HOME/read.log"\n'


def files_read(home: Path, *bash_args: str, command: str = "true") -> str:
    """Start bash with `bash_args` in HOME=home; return the start-up files it read, in order."""
    log = home / "read.log"
    log.unlink(missing_ok=True)
    env = {"HOME": str(home), "PATH": os.defpath, "TERM": "dumb"}
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

with tempfile.TemporaryDirectory() as tmp:
    home = Path(tmp)
    # --8<-- [start:who-reads-what]
    for name in [".bash_profile", ".bash_login", ".profile", ".bashrc"]:
        (home / name).write_text(marker(name))
    cases = {
        "login (bash -l)": ["-l"],
        "interactive (bash -i)": ["-i"],
        "login + interactive (an ssh session)": ["-l", "-i"],
        "neither (bash -c, scripts, cron)": [],
    }
    for what, args in cases.items():
        print(f"{what}: {files_read(home, *args)}")
        #> login (bash -l): .bash_profile
        #> interactive (bash -i): .bashrc
        #> login + interactive (an ssh session): .bash_profile
        #> neither (bash -c, scripts, cron): (none)
    # --8<-- [end:who-reads-what]

    # --8<-- [start:first-found]
    (home / ".bash_profile").unlink()
    print(files_read(home, "-l"))  # only the first of the three that exists
    #> .bash_login
    (home / ".bash_login").unlink()
    print(files_read(home, "-l"))
    #> .profile
    # --8<-- [end:first-found]

    # --8<-- [start:notes-fix]
    (home / ".bash_profile").write_text(
        marker(".bash_profile") + "if [ -f ~/.bashrc ]; then\nsource ~/.bashrc\nfi\n"
    )
    print(files_read(home, "-l", "-i"))  # the notes' .bash_profile: now .bashrc runs too
    #> .bash_profile .bashrc
    print(files_read(home, "-l"))
    #> .bash_profile .bashrc
    # --8<-- [end:notes-fix]

    # --8<-- [start:functions]
    # What conda's shell set-up does, in miniature: define a shell *function* named
    # conda (the real one comes from `conda shell.bash hook` or etc/profile.d/conda.sh).
    (home / ".bashrc").write_text(marker(".bashrc") + "conda() { echo fake-conda $*; }\n")
    probe = "type -t conda || echo 'conda: not defined'"
    print(files_read(home, "-i", command=probe))
    #> .bashrc | function
    print(files_read(home, command=probe))  # a script: .bashrc never ran
    #> (none) | conda: not defined
    print(files_read(home, command=f". {home}/.bashrc; conda activate demo"))
    #> .bashrc | fake-conda activate demo
    # --8<-- [end:functions]

# --8<-- [start:debian-skel]
skel = Path("/etc/skel")  # the files Debian and Ubuntu give every new user
assert (skel / ".bashrc").is_file() and (skel / ".profile").is_file(), "needs Debian's /etc/skel"
with tempfile.TemporaryDirectory() as tmp:
    home = Path(tmp)
    for name in [".bashrc", ".profile"]:  # the real files, a marker at the very end
        (home / name).write_text((skel / name).read_text() + marker(name))
    print(files_read(home, "-l", "-i"))  # .profile sources .bashrc: no fix needed
    #> .bashrc .profile
    print(files_read(home, "-l"))  # .bashrc returns at once when not interactive
    #> .profile
    (home / ".bash_profile").write_text(marker(".bash_profile"))
    print(files_read(home, "-l", "-i"))  # a new ~/.bash_profile hides ~/.profile
    #> .bash_profile
# --8<-- [end:debian-skel]
