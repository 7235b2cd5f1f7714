#!/usr/bin/env bash
# Does `from torchstat import stat; stat(model, (3, 32, 32))` (the notes) still work?
# Tried in a throwaway venv, never in the project's .venv:  bash snippets/models/torchstat_try.sh
# Output: docs/assets/generated/models/torchstat_output.txt (shown on docs/models/flops.md).
set -u
VENV=/tmp/ts-venv
OUT=docs/assets/generated/models/torchstat_output.txt
python3.11 -m venv "$VENV"
"$VENV/bin/pip" install -q torchstat==0.0.7 torch==2.14.1 numpy==2.4.6 "pandas>=2"  # as pinned / today

cat > /tmp/torchstat_model.py <<'PY'
import torch
from torch import nn
from torchstat import stat


class SmallCNN(nn.Module):  # the model of snippets/models/flops.py, with module activations
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        return self.fc(self.gap(self.relu2(self.conv2(x))).flatten(1))


stat(SmallCNN(), (3, 32, 32))
PY

run() {
    echo "\$ pip list: $("$VENV/bin/pip" list 2>/dev/null | grep -E '^(numpy|pandas|torch|torchstat) ' | tr -s ' ' | paste -sd, -)"
    "$VENV/bin/python" -W default /tmp/torchstat_model.py 2>&1 | tail -n "$1"
    echo
}
{
    echo "# 1. torchstat 0.0.7 with today's numpy and pandas"
    run 3
    echo "# 2. pandas < 2 (pip install 'pandas<2' 'numpy<2')"
    "$VENV/bin/pip" install -q "pandas<2" "numpy<2"
    run 3
    echo "# 3. numpy 1.23.5, pandas 1.5.3 (the last numpy with np.long before it came back in 2.x)"
    "$VENV/bin/pip" install -q numpy==1.23.5 pandas==1.5.3
    run 30
} > "$OUT"
cat "$OUT"
