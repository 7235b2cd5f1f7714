"""The PyCharm run configurations in .run/ are what the PyCharm page says they are.

The page itself (snippets/environment/pycharm.py) parses
.run/torchrun_ranks.run.xml, builds the command line it implies and runs it
under torch.distributed.run: two ranks, exit status 0. This file checks the rest of
what the page states about the file, read with the same XML parser: one
`.run/<name>.run.xml` per configuration, a "Python" configuration in module mode,
nothing in Interpreter options, the project's .venv interpreter, and a script that
exists in this repository.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from docverify.paths import REPO_ROOT

RUN_CONFIGURATIONS = REPO_ROOT / ".run"
RUN_XML = RUN_CONFIGURATIONS / "torchrun_ranks.run.xml"


def _options(path=RUN_XML) -> dict[str, str]:
    root = ET.parse(path).getroot()
    assert root.tag == "component" and root.get("name") == "ProjectRunConfigurationManager"
    config = root.find("configuration")
    assert config is not None and config.get("type") == "PythonConfigurationType"
    return {o.get("name"): o.get("value", "") for o in config.findall("option")}


def test_every_file_is_a_run_configuration() -> None:
    files = sorted(RUN_CONFIGURATIONS.glob("*.xml"))
    assert RUN_XML in files
    for path in files:
        assert path.name.endswith(".run.xml"), f"PyCharm reads .run/<name>.run.xml, not {path}"
        _options(path)


def test_ddp_configuration_is_torchrun_in_module_mode() -> None:
    option = _options()
    assert option["MODULE_MODE"] == "true", "module mode: `-m torch.distributed.run`, i.e. torchrun"
    assert option["SCRIPT_NAME"] == "torch.distributed.run"
    assert option["INTERPRETER_OPTIONS"] == "", (
        "nothing in Interpreter options: `-u` can't land wrong"
    )
    assert option["WORKING_DIRECTORY"] == "$PROJECT_DIR$"
    assert option["SDK_HOME"] == "$PROJECT_DIR$/.venv/bin/python", "the interpreter `make` creates"
    params = option["PARAMETERS"].split()
    assert {"--standalone", "--nproc_per_node=2", "--tee=3"} <= set(params)
    script = REPO_ROOT / params[-1]
    assert script.is_file(), f"the configuration launches {params[-1]}, which does not exist"


def test_the_ddp_training_script_reads_its_local_rank_from_the_environment() -> None:
    # The PyCharm page: a script written for torchrun reads LOCAL_RANK from the environment,
    # "as the DDP training script does" (no `--local_rank` argument).
    source = (REPO_ROOT / "snippets" / "distributed" / "ddp_train.py").read_text(encoding="utf-8")
    assert 'local_rank = int(os.environ["LOCAL_RANK"])' in source
    assert not re.search(r"add_argument\(\s*['\"]--local[-_]rank", source)
