"""Option models of ``one-import-tf`` and ``one-import-bcq`` (tf-and-pytorch-import.md §3.1,
§4.2): the TensorFlow import's options plus the step's paths and ``save_intermediate``."""

from __future__ import annotations

from pydantic import ConfigDict

from ..frontends.tensorflow.options import TfOptions
from .options import StepOptions


class ImportTfOptions(StepOptions, TfOptions):
    """``one-import-tf``; :meth:`tf_options` are those of the TensorFlow import."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    save_intermediate: bool = False

    def tf_options(self) -> TfOptions:
        return TfOptions(**{key: getattr(self, key) for key in TfOptions.model_fields})


class ImportBcqOptions(ImportTfOptions):
    """``one-import-bcq``: a GraphDef, its input and output arrays required."""
