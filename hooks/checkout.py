"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, so putting this
checkout's src/ first here makes every later hook's `import docverify` read
the code of the site being built. pytest does the same with `pythonpath`.
"""

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
if sys.path[:1] != [SRC]:
    sys.path.insert(0, SRC)

# MkDocs restores sys.path after loading each hook, so the line above lasts only while
# this file runs: importing the package now binds `docverify` (and, through its
# __path__, every submodule a later hook imports) to this checkout's src/.
import docverify  # noqa: E402, F401
