"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, but restores
`sys.path` after loading each one, so a path put first here is gone before the
next hook runs. So this hook imports the package itself, from this checkout's
src/: every later `import docverify.<module>` finds that package in
`sys.modules` and its modules through its `__path__`, and reads the code of
the site being built. pytest does the same with `pythonpath`.
"""

import importlib
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)
importlib.import_module("docverify")
