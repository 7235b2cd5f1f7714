"""What the DistributedSampler page says about its own snippets, read from the snippet file.

The page says that every snippet builds its samplers with `num_replicas=` and `rank=`
(no process group), except the one that shows the error raised without them.
"""

from __future__ import annotations

import ast

from docverify.contract.snippets import SNIPPETS_DIR

SNIPPET = SNIPPETS_DIR / "distributed" / "distributed_sampler.py"


def sampler_problems(source: str) -> list[str]:
    """Why the source breaks the page's rule (every DistributedSampler gets num_replicas= and
    rank=, but one `DistributedSampler(dataset)` marked "no process group"), or []."""
    lines = source.splitlines()
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "DistributedSampler"
    ]
    without = [c for c in calls if not {"num_replicas", "rank"} <= {k.arg for k in c.keywords}]
    problems = [] if len(calls) >= 2 else [f"only {len(calls)} samplers"]
    if len(without) != 1:
        problems.append(f"{len(without)} samplers without both num_replicas= and rank=, not 1")
    elif without[0].keywords or "no process group" not in lines[without[0].lineno - 1]:
        problems.append(f"line {without[0].lineno}: not the one DistributedSampler(dataset) shown")
    return problems


def test_every_sampler_but_the_error_one_is_given_num_replicas_and_rank() -> None:
    source = SNIPPET.read_text(encoding="utf-8")
    assert source.count("DistributedSampler(") > 10
    assert sampler_problems(source) == []


def test_the_check_fails_on_a_sampler_that_reads_the_process_group() -> None:
    good = (
        "DistributedSampler(d, num_replicas=2, rank=0)\nDistributedSampler(d)  # no process group\n"
    )
    assert sampler_problems(good) == []
    one_rank_only = good.replace("num_replicas=2, rank=0", "rank=0")
    assert sampler_problems(one_rank_only) == [
        "2 samplers without both num_replicas= and rank=, not 1"
    ]
    unmarked = good.replace("  # no process group", "")
    assert sampler_problems(unmarked) == ["line 2: not the one DistributedSampler(dataset) shown"]
