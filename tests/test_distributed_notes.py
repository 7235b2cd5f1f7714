"""What the original notes' DDP code does and does not contain, read from the notes themselves.

The distributed pages say things about the notes' code as a whole ("the notes'
code doesn't call `set_epoch`"), which no quote of a few words can show. These
tests read the notes (docverify.contract.boxes.SEEDS_DIR, where the quote test reads them)
and are skipped, naming the reason, where they are not present.
"""

from __future__ import annotations

import ast
import re

import pytest

from docverify.contract import boxes
from docverify.contract.snippets import SNIPPETS_DIR

DDP_START, DDP_END = "分布式训练\n", "Pycharm下的分布式运行"
COLLECTIVES = SNIPPETS_DIR / "distributed" / "collectives.py"


@pytest.fixture(scope="module")
def notes() -> str:
    if not boxes.SEEDS_DIR.is_dir():
        pytest.skip(f"the original notes are not at {boxes.SEEDS_DIR} (set NOTES_SEEDS_DIR)")
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(boxes.SEEDS_DIR.glob("*")))


def ddp_part(text: str) -> str:
    """The notes' distributed-training part: from its heading to the PyCharm section."""
    start = text.index(DDP_START)  # ValueError where the notes have no such part
    return text[start : text.index(DDP_END, start)]


def tells_the_sampler_the_epoch(text: str) -> bool:
    """Whether the notes' DDP code creates a DistributedSampler and calls its set_epoch."""
    ddp = ddp_part(text)
    assert "DistributedSampler(train_dataset)" in ddp, "the notes' sampler is not where it was"
    return "set_epoch" in ddp


def test_the_notes_never_call_set_epoch(notes: str) -> None:
    assert not tells_the_sampler_the_epoch(notes)


def test_the_notes_evaluate_on_local_rank_0(notes: str) -> None:
    loop = "for epc in range(EPOCH_CNT):\n    train(epc)\n    if local_rank == 0:\n        test()"
    assert loop in ddp_part(notes)


def loader_with_sampler(text: str) -> str:
    """The arguments of the notes' DataLoader call that passes `sampler=train_sampler`."""
    ddp = ddp_part(text)
    end = ddp.index("sampler=train_sampler")
    return ddp[ddp.rindex("DataLoader(", 0, end) : end]


def test_the_notes_loader_passes_shuffle_false_with_its_sampler(notes: str) -> None:
    assert "shuffle=False" in loader_with_sampler(notes)


def test_the_checks_fail_on_notes_that_say_otherwise() -> None:
    fixed = (
        f"{DDP_START}train_sampler = DistributedSampler(train_dataset)\n"
        f"for epc in range(EPOCH_CNT):\n    train_sampler.set_epoch(epc)\n{DDP_END}"
    )
    assert tells_the_sampler_the_epoch(fixed)
    shuffled = (
        f"{DDP_START}DataLoader(dataset=d, shuffle=True,\n    sampler=train_sampler){DDP_END}"
    )
    assert "shuffle=False" not in loader_with_sampler(shuffled)
    with pytest.raises(ValueError):
        ddp_part("notes without a distributed part")


def code_lines(text: str) -> str:
    """The notes' code in `text`: lines without Chinese prose, `#` comments removed."""
    lines = (line.split("#")[0] for line in text.splitlines())
    return "\n".join(line for line in lines if not re.search(r"[\u4e00-\u9fff]", line))


def loss_combining_calls(text: str) -> list[str]:
    """The torch.distributed functions the notes' DDP code calls (`dist.x(` or `torch.distributed.x(`)."""
    return re.findall(r"\b(?:dist|torch\.distributed)\.(\w+)\(", code_lines(ddp_part(text)))


def test_the_notes_code_combines_the_loss_with_all_reduce_not_reduce(notes: str) -> None:
    calls = loss_combining_calls(notes)
    assert "all_reduce" in calls and "reduce" not in calls
    assert "torch.distributed.reduce()" in ddp_part(notes)  # the prose names reduce()


def reduce_loss_source() -> str:
    """The snippet's `reduce_loss`, without its comments, whitespace removed."""
    tree = ast.parse(COLLECTIVES.read_text(encoding="utf-8"))
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "reduce_loss")
    return "".join(code_lines(ast.unparse(func)).split())


def test_the_reduce_loss_helper_is_the_notes_verbatim(notes: str) -> None:
    assert reduce_loss_source() in "".join(code_lines(ddp_part(notes)).split())


def notes_train(text: str) -> list[ast.stmt]:
    """The body of the loop in the notes' `train(epc)`, parsed (comments removed)."""
    lines = code_lines(ddp_part(text)).splitlines()
    start = lines.index("def train(epc):")
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1].strip()), len(lines))
    func = ast.parse("\n".join(lines[start:end])).body[0]
    loop = next(n for n in func.body if isinstance(n, ast.For))
    return loop.body


def reduce_loss_order(text: str) -> tuple[bool, bool]:
    """Whether `train` calls reduce_loss(loss, ...) after `total_loss += loss.item()`, and reads `loss` after it."""
    body = notes_train(text)
    added = next(
        i
        for i, s in enumerate(body)
        if isinstance(s, ast.AugAssign) and ast.unparse(s.target) == "total_loss"
    )
    reduced = next(i for i, s in enumerate(body) if ast.unparse(s).startswith("reduce_loss(loss"))
    reads_loss = any(
        isinstance(n, ast.Name) and n.id == "loss" and isinstance(n.ctx, ast.Load)
        for s in body[reduced + 1 :]
        for n in ast.walk(s)
    )
    return added < reduced, reads_loss


def test_the_notes_reduce_the_loss_after_adding_it_up_and_never_use_the_result(notes: str) -> None:
    after_adding_up, used_afterwards = reduce_loss_order(notes)
    assert after_adding_up and not used_afterwards


def imports_f(text: str) -> bool:
    """Whether the notes' DDP code binds the name `F` (`import ... as F`, `from ... import F`, `F = ...`)."""
    return bool(re.search(r"\bas\s+F\b|\bimport\s+F\b|^\s*F\s*=", code_lines(ddp_part(text)), re.M))


def test_the_notes_never_import_functional_as_f(notes: str) -> None:
    assert "F.cross_entropy(" in code_lines(ddp_part(notes)) and not imports_f(notes)


def test_the_train_checks_fail_on_notes_that_say_otherwise() -> None:
    train = "def train(epc):\n    for data, target in train_loader:\n"
    used = f"{DDP_START}{train}        reduce_loss(loss, world_size)\n        total_loss += loss.item()\n{DDP_END}"
    assert reduce_loss_order(used) == (False, True)
    imported = f"{DDP_START}import torch.nn.functional as F\n{train}        pass\n{DDP_END}"
    assert imports_f(imported)


def test_the_code_checks_fail_on_notes_that_say_otherwise() -> None:
    with_reduce = f"{DDP_START}dist.all_reduce(t)\ndist.reduce(loss, dst=0)\n{DDP_END}"
    assert "reduce" in loss_combining_calls(with_reduce)
    prose_only = f"{DDP_START}用 torch.distributed.reduce() 融合\ndist.all_reduce(t)\n{DDP_END}"
    assert loss_combining_calls(prose_only) == ["all_reduce"]
    changed = (
        f"{DDP_START}def reduce_loss(tensor, world_size):\n    dist.all_reduce(tensor)\n{DDP_END}"
    )
    assert reduce_loss_source() not in "".join(code_lines(ddp_part(changed)).split())
