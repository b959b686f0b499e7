"""Subcommands of the `globalgen` console script."""
