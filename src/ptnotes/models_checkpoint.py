"""Load the matching part of a checkpoint into a model (docs/models/saving.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class PartialLoad:
    loaded: list[str] = field(default_factory=list)  # copied from the checkpoint
    shape_mismatch: list[str] = field(default_factory=list)  # in both, different shapes: kept
    not_in_model: list[str] = field(default_factory=list)  # checkpoint keys the model lacks
    not_in_checkpoint: list[str] = field(default_factory=list)  # model keys left as they were


def load_matching(model: nn.Module, checkpoint: Mapping[str, torch.Tensor]) -> PartialLoad:
    """Copy every checkpoint entry whose name AND shape match the model; report the rest.

    Unlike `load_state_dict(strict=False)`, which still raises on a shape mismatch,
    this skips such entries, so a model with a new head can reuse a trained body.
    """
    own = model.state_dict()
    report = PartialLoad()
    usable = {}
    for key, value in checkpoint.items():
        if key not in own:
            report.not_in_model.append(key)
        elif own[key].shape != value.shape:
            report.shape_mismatch.append(key)
        else:
            usable[key] = value
            report.loaded.append(key)
    report.not_in_checkpoint = [key for key in own if key not in usable]
    model.load_state_dict(usable, strict=False)
    return report
