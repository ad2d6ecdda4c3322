"""The ``one-partition`` step (backends-and-packaging.md §5): the partition engine on the
handed-on model, or on ``<work>/<input_file>``."""

from __future__ import annotations

from ..ir import Model
from ..partition import partition
from ..report.console import detail
from .options import PartitionOptions
from .stage import PackagingStage


class PartitionStage(PackagingStage[PartitionOptions]):
    def save(self, model: Model | None, options: PartitionOptions, profile: bool) -> int:
        written = partition(
            model,
            part_file=options.part_file,
            input_file=options.input_file,
            work_path=options.work_path,
            backends=options.backends,
            default=options.default,
            profile=profile,
        )
        for path in written:
            detail(f"one-partition: wrote {path}")
        return 0


PARTITION = PartitionStage()
