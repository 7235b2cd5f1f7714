"""Worker started by snippets/distributed/launching.py through a launcher.

It reports how the launcher told it who it is: its command-line arguments and
its environment, as JSON on one line. It does not import torch, so it starts
in milliseconds.
"""

import json
import os
import sys

print(json.dumps({"argv": sys.argv[1:], "env": dict(os.environ)}))
