"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, but puts `sys.path`
back as it was after loading each one, so a path inserted here would be gone
before the next hook runs. This hook therefore imports the package itself from
this checkout's src/: once `docverify` is in `sys.modules`, every later hook's
`from docverify.x import y` finds `x` inside that package, wherever `sys.path`
points. pytest does the same with `pythonpath`.
"""

import importlib
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

_loaded = sys.modules.get("docverify")
if _loaded is not None and Path(_loaded.__file__).resolve().parent.parent != SRC:
    # Imported from another checkout before this hook ran: forget it and its modules.
    for name in [n for n in sys.modules if n == "docverify" or n.startswith("docverify.")]:
        del sys.modules[name]
sys.path.insert(0, str(SRC))
try:
    importlib.import_module("docverify")
finally:
    sys.path.remove(str(SRC))
