"""Train the byte-level BPE tokenizer (HF `tokenizers`): CJK characters and digits are split off first."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from tokenizers import Regex, decoders, models, pre_tokenizers, trainers
from tokenizers import Tokenizer as HFTokenizer

from globalgen_ros.runtime.format import SPECIAL_TOKENS
from globalgen_ros.runtime.tokenizer import Tokenizer
from globalgen_ros.schema import Schema

CJK = r"[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"


def new_tokenizer() -> HFTokenizer:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(CJK), behavior="isolated"),
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    return tok


def corpus_texts(train_jsonl: str | Path, schema: Schema) -> Iterator[str]:
    """Yield the texts the tokenizer is trained on: user turns, replies and schema names."""
    for intent in schema.intents:
        yield intent.name
        for slot in intent.slots:
            yield slot.name
            yield from slot.values
    with open(train_jsonl, encoding="utf-8") as f:
        for line in f:
            for turn in json.loads(line)["turns"]:
                yield " " + turn["user"]
                yield " " + turn["reply"]


def train_tokenizer(texts: Iterable[str], vocab_size: int, out: str | Path | None = None) -> Tokenizer:
    """Train BPE on texts; special tokens get ids 0..8; write tokenizer.json if out is given."""
    tok = new_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    if out is not None:
        tok.save(str(out))
    return Tokenizer(hf=tok)
