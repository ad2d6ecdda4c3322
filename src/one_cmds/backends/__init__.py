"""Backend tools (backends-and-packaging.md §1-§3): finding ``<backend>-compile``,
``<backend>-profile`` and inference drivers, target files and command schemas, resolving what a
codegen/profile/infer step runs, and running it. The only place in the package that starts
processes.

This folder is also the package's backend root (§1.4, empty as shipped): lookup only takes
executable files named exactly like a tool (names such as ``dummy-compile`` cannot be Python
modules) and ``command/<backend>/*.py`` schemas, so the modules here never match.
"""
