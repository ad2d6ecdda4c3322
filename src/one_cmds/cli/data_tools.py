"""``one-create-quant-dataset`` and ``rawdata2hdf5``: package the data files a list names into
the h5 file ``one-quantize -d`` reads (one_cmds.quant.datasets says the layout)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from one_cmds.cli.app import ArgumentParser, Invocation, add_version, run
from one_cmds.quant.datasets import FORMATS, NUMPY, RAWDATA, package
from one_cmds.report import console

LIST_HELP = "Path to the text file which lists the paths of the data files to be converted."
PACKAGED = {RAWDATA: "Raw data", NUMPY: "Numpy data"}


def _parser(prog: str, description: str) -> ArgumentParser:
    parser = ArgumentParser(prog=prog, description=description)
    add_version(parser)
    return parser


def _check_given(parser: ArgumentParser, args: argparse.Namespace, flags: dict[str, str]) -> None:
    """An empty value counts as missing, as the reference checks (``-l ""``)."""
    missing = [flag for dest, flag in flags.items() if not getattr(args, dest)]
    if missing:
        parser.error("the following arguments are required: " + " ".join(missing))


def _package(data_format: str, data_list: str, output_path: str) -> int:
    count = package(data_format, data_list, output_path)
    console.out(f"{PACKAGED[data_format]} have been packaged to {output_path}")
    console.out(f"Number of packaged data: {count}")
    return 0


def _create_quant_dataset(invocation: Invocation, argv: list[str]) -> int:
    parser = _parser(invocation.prog, "command line tool to convert data files to hdf5 file")
    invocation.parser = parser
    parser.add_argument(
        "-i",
        "--input_data_format",
        choices=FORMATS,
        required=True,
        help="Input data format of either rawdata or numpy",
    )
    parser.add_argument("-l", "--data_list", required=True, help=LIST_HELP)
    parser.add_argument("-p", "--output_path", required=True, help="Path to the output file.")
    args = parser.parse_args(argv)
    _check_given(parser, args, {"data_list": "-l/--data_list", "output_path": "-p/--output_path"})
    return _package(args.input_data_format, args.data_list, args.output_path)


def _rawdata2hdf5(invocation: Invocation, argv: list[str]) -> int:
    parser = _parser(invocation.prog, "command line tool to convert raw data files to hdf5 file")
    invocation.parser = parser
    parser.add_argument("-l", "--data_list", required=True, help=LIST_HELP)
    parser.add_argument("-o", "--output_path", required=True, help="Path to the output hdf5 file.")
    args = parser.parse_args(argv)
    _check_given(parser, args, {"data_list": "-l/--data_list", "output_path": "-o/--output_path"})
    return _package(RAWDATA, args.data_list, args.output_path)


def one_create_quant_dataset(argv: Sequence[str] | None = None) -> int:
    """``one-create-quant-dataset``: raw or .npy files to an h5 file; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run(
        "one-create-quant-dataset", lambda invocation: _create_quant_dataset(invocation, args)
    )


def rawdata2hdf5(argv: Sequence[str] | None = None) -> int:
    """``rawdata2hdf5``: raw files to an h5 file; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run("rawdata2hdf5", lambda invocation: _rawdata2hdf5(invocation, args))
