"""Command-line programs: ``onecc``, ``one-build`` and the single-step drivers. Argument
parsing and exit codes only; configuration lives in :mod:`one_cmds.config`."""
