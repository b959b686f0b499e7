"""Shared fixtures of the model tests: a small seeded corpus and a tokenizer trained on it (no torch)."""

from pathlib import Path

import pytest

__all__ = ["schema", "small_corpus", "small_tokenizer"]  # fixtures: `from model_fixtures import *`

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = REPO_ROOT / "models" / "default"


@pytest.fixture(scope="session")
def schema():
    from globalgen_ros.schema import load_schema

    return load_schema()


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """A seeded corpus of 3000 training dialogues and 300 eval cases."""
    from globalgen_ros.corpus.build import build

    out = tmp_path_factory.mktemp("corpus")
    build(out, seed=7, n_train=3000, n_eval=300)
    return out


@pytest.fixture(scope="session")
def small_tokenizer(small_corpus, schema, tmp_path_factory):
    """A 1024-token BPE trained on small_corpus."""
    from globalgen_ros.model.tokenizer import corpus_texts, train_tokenizer

    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    return train_tokenizer(corpus_texts(small_corpus / "train.jsonl", schema), 1024, path)
