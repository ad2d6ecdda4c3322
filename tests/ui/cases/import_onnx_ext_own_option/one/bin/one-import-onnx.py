"""one-import-onnx installed the reference's way: this folder is <install>/bin, where the
driver looks for one-import-onnx-ext."""

import sys

sys.path.insert(0, "{fixtures}/../../src")

from one_cmds.cli.programs import main_for

sys.exit(main_for(sys.argv[0])(sys.argv[1:]))
