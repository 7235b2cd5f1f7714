"""What the original notes' DDP code does and does not contain, read from the notes themselves.

The distributed pages say things about the notes' code as a whole ("the notes'
code doesn't call `set_epoch`"), which no quote of a few words can show. These
tests read the notes (docverify.boxes.SEEDS_DIR, where the quote test reads them)
and are skipped, naming the reason, where they are not present.
"""

from __future__ import annotations

import pytest

from docverify import boxes

DDP_START, DDP_END = "分布式训练\n", "Pycharm下的分布式运行"


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


def test_the_checks_fail_on_notes_that_say_otherwise() -> None:
    fixed = (
        f"{DDP_START}train_sampler = DistributedSampler(train_dataset)\n"
        f"for epc in range(EPOCH_CNT):\n    train_sampler.set_epoch(epc)\n{DDP_END}"
    )
    assert tells_the_sampler_the_epoch(fixed)
    with pytest.raises(ValueError):
        ddp_part("notes without a distributed part")
