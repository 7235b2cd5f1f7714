"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, and restores
`sys.path` after loading each one, so a path put first here would be gone by
the next hook: this hook imports `docverify` from this checkout's src/ while
it is first, and every later hook's `import docverify` (and its submodules,
found through the package's own path) reads the code of the site being built.
pytest does the same with `pythonpath`.
"""

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
if sys.path[:1] != [str(SRC)]:
    sys.path.insert(0, str(SRC))
for name in [m for m in sys.modules if m == "docverify" or m.startswith("docverify.")]:
    del sys.modules[name]  # imported from elsewhere before this hook: not this code
import docverify  # noqa: E402  (cached in sys.modules: later imports find this one)

if Path(docverify.__file__).resolve().parent != SRC / "docverify":
    raise ImportError(f"docverify comes from {docverify.__file__}, not from {SRC}")
