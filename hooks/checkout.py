"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, so putting this
checkout's src/ first here makes every later hook's `import docverify` read
the code of the site being built. pytest does the same with `pythonpath`.

MkDocs puts `sys.path` back as it was after running each hook file, so the
path alone does not last: the package is imported here, from this checkout,
and later `import docverify.x` statements follow the package's own `__path__`.
"""

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
if sys.path[:1] != [SRC]:
    sys.path.insert(0, SRC)
for name in [m for m in sys.modules if m == "docverify" or m.startswith("docverify.")]:
    if not str(getattr(sys.modules[name], "__file__", "") or "").startswith(SRC):
        del sys.modules[name]  # imported from another checkout's src/
import docverify  # noqa: E402  (this checkout's, while SRC is first on the path)

assert docverify.__file__.startswith(SRC), docverify.__file__
