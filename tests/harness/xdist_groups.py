"""Make `@pytest.mark.xdist_group` keep a group on one worker (loaded by tests/conftest.py).

Under `--dist loadgroup`, pytest-xdist sends tests whose node id ends in
`@<group>` to one worker. Each worker adds that suffix after collection by
assigning `item._nodeid`; pytest 9 keeps node ids in `item._id` instead, so
with our pins (pytest 9.2, pytest-xdist 3.8) the assignment changes nothing and
a group's tests are spread over workers as if unmarked. This hook adds the
suffix where xdist's own did not take, and does nothing once it does.
tests/test_project_setup.py runs the Makefile's pytest arguments on a group
and checks that it lands on one worker.
"""

from __future__ import annotations

import pytest


def group_suffix(item: pytest.Item) -> str | None:
    """`@<group>` as pytest-xdist builds it from the item's xdist_group marks."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "@" + "_".join(sorted(names)) if names else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):
        return  # not an xdist worker under --dist loadgroup
    for item in items:
        suffix = group_suffix(item)
        if suffix is None or item.nodeid.endswith(suffix):
            continue
        if not hasattr(item, "_id"):  # a pytest where xdist's own suffix should have worked
            raise pytest.UsageError(f"cannot tag {item.nodeid} with its xdist group {suffix}")
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(f"{item.nodeid}{suffix}")
