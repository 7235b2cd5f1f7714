"""Read a YAML data file of this repository (the demand corpus, the search cases).

PyYAML's pure-Python safe loader takes about 0.1 s for the 90 KB corpus and more for
the 140 KB search cases, which several test modules read in each xdist worker;
libyaml's safe loader (`CSafeLoader`, in PyYAML's wheels) reads them about ten times
faster and builds the same objects. Where PyYAML was built without libyaml, the
pure-Python one is used.
"""

from __future__ import annotations

from pathlib import Path

import yaml

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read(path: Path):
    """The file's content, loaded safely (plain data: no Python objects)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
