"""The two-command set-up, CI and the publishing workflow agree with each other."""

from __future__ import annotations

import hashlib
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from docverify.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
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


def test_every_pin_is_exact() -> None:
    requirements = (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    entries = [line.strip() for line in requirements if line.strip() and not line.startswith("#")]
    loose = [e for e in entries if e != "-e ." and not re.fullmatch(r"[A-Za-z0-9_.\-]+==[\w.]+", e)]
    assert not loose, f"requirements.txt entries without an exact == pin: {loose}"


def test_python_version_is_the_same_everywhere() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["requires-python"] == "==3.11.*"
    assert re.search(r"^PYTHON \?= python3\.11$", MAKEFILE, flags=re.MULTILINE)


def test_install_is_skipped_when_pins_are_unchanged() -> None:
    # The stamp's name is a hash of the pins: present and current on a set-up checkout...
    pins = (REPO_ROOT / "requirements.txt").read_bytes() + (
        REPO_ROOT / "pyproject.toml"
    ).read_bytes()
    stamp = REPO_ROOT / ".venv" / f".installed-{hashlib.sha256(pins).hexdigest()[:16]}"
    if not stamp.exists():
        pytest.skip("not run through `make`: no install stamp in .venv/")
    up_to_date = subprocess.run(["make", "--question", "setup"], cwd=REPO_ROOT, check=False)
    assert up_to_date.returncode == 0
    # ...and a change of pins (simulated by another hash) makes make reinstall.
    changed = subprocess.run(
        ["make", "--question", "setup", "PINS_HASH=0000000000000000"], cwd=REPO_ROOT, check=False
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


def test_make_serve_serves_at_the_root_of_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    # mkdocs serve mounts the site under site_url's path; README promises http://127.0.0.1:8000/.
    from mkdocs.config import load_config

    monkeypatch.delenv("SITE_URL", raising=False)
    config = load_config(str(REPO_ROOT / "mkdocs.yml"))
    assert config["site_url"] == "http://127.0.0.1:8000/"
    assert {"snippets", "hooks"} <= {Path(p).name for p in config["watch"]}
    assert re.search(r"^serve:.*\n\t.*mkdocs serve --dev-addr 127\.0\.0\.1:8000", MAKEFILE, re.M)
