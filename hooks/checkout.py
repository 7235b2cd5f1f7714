"""MkDocs hook, listed first: the hooks import `docverify` from this checkout's src/.

The virtual environment's editable install points at the src/ of the checkout
it was made in, which may be another one (a venv shared between worktrees).
MkDocs loads the hooks in the order mkdocs.yml lists them, with their folder on
sys.path only while each one loads. So this hook imports the `docverify`
package from this checkout's src/ while it loads (every later `docverify.x`
import then comes from that package's folder), and puts src/ first on sys.path
for good at startup, for the processes the hooks start (live verification).
pytest does the same with `pythonpath`.
"""

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _src_first() -> None:
    if sys.path[:1] != [SRC]:
        sys.path.insert(0, SRC)


_src_first()
import docverify  # noqa: E402, F401  (bound to this checkout's src/, see above)


def on_startup(command, dirty):
    _src_first()
