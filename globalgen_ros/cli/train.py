"""`globalgen train`: rebuild the corpus and tokenizer and train the default model (seeded; needs torch)."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `train` with the options of globalgen_ros.model.train."""
    p = subparsers.add_parser("train", help="train the model from the seeded corpus (needs torch)",
                              description=__doc__)
    from globalgen_ros.model.train_args import add_arguments

    add_arguments(p)
    return p


def run(args) -> int:
    from globalgen_ros.model.train import run as train_run

    return train_run(args)
