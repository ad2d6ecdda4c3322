"""The TensorFlow import steps (tf-and-pytorch-import.md §3, §4): ``one-import-tf`` converts a
GraphDef, SavedModel or Keras file, ``one-import-bcq`` a GraphDef with its BCQ information,
both in process with TensorFlow's converter. TensorFlow's output goes to the step log (and
stdout with ``-V``). The output path is checked before TensorFlow runs; ``save_intermediate``
writes TensorFlow's TFLite model as ``<output base>.tflite``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..formats.files import check_output_path, write_atomically
from ..ir import Model
from ..report.console import detail, is_verbose, warn
from .stage import Stage
from .tf_options import ImportTfOptions

if TYPE_CHECKING:
    from ..frontends.tensorflow.importer import TfImport


class TfImportStage(Stage[ImportTfOptions]):
    """``one-import-tf``."""

    def load(self, options: ImportTfOptions) -> Model:
        check_output_path(options.output_path)
        imported = self.imported(options)
        if options.save_intermediate:
            base = os.path.splitext(options.output_path)[0]
            write_atomically(f"{base}.tflite", lambda output: output.write(imported.tflite))
        return imported.model

    def imported(self, options: ImportTfOptions) -> TfImport:
        from ..frontends.tensorflow import import_tf

        return import_tf(
            options.input_path, options.tf_options(), note=detail, verbose=is_verbose()
        )


class BcqImportStage(TfImportStage):
    """``one-import-bcq``."""

    def imported(self, options: ImportTfOptions) -> TfImport:
        from ..frontends.tensorflow import import_bcq

        return import_bcq(
            options.input_path, options.tf_options(), warn=warn, note=detail, verbose=is_verbose()
        )


IMPORT_TF = TfImportStage()
IMPORT_BCQ = BcqImportStage()
