"""What the DistributedSampler page says about its own snippets, read from the snippet file.

The page says that every snippet builds its samplers with `num_replicas=` and `rank=`
(no process group), except the one that shows the error raised without them.
"""

from __future__ import annotations

import ast

from docverify.contract.snippets import SNIPPETS_DIR

SNIPPET = SNIPPETS_DIR / "distributed" / "distributed_sampler.py"


def _sampler_calls(source: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "DistributedSampler"
    ]


def test_every_sampler_but_the_error_one_is_given_num_replicas_and_rank() -> None:
    calls = _sampler_calls(SNIPPET.read_text(encoding="utf-8"))
    without = [c for c in calls if not {"num_replicas", "rank"} <= {k.arg for k in c.keywords}]
    assert len(calls) > 10
    assert len(without) == 1 and without[0].args and not without[0].keywords  # DistributedSampler(dataset)
    lines = SNIPPET.read_text(encoding="utf-8").splitlines()
    assert "no process group" in lines[without[0].lineno - 1]


def test_the_check_fails_on_a_sampler_that_reads_the_process_group() -> None:
    source = "DistributedSampler(data, rank=0)\nDistributedSampler(data)  # no process group\n"
    calls = _sampler_calls(source)
    without = [c for c in calls if not {"num_replicas", "rank"} <= {k.arg for k in c.keywords}]
    assert len(without) == 2
