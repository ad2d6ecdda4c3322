"""Configuration: INI/TOML/workflow files and command lines into validated option models.

Entry points: :func:`one_cmds.config.load.plan_from_config`,
:func:`one_cmds.config.load.plan_from_arguments` and
:func:`one_cmds.config.workflow.plans_from_workflow`; the driver registry is
:data:`one_cmds.config.drivers.DRIVERS`.
"""
