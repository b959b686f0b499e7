"""ONNX Runtime sessions of the decoder and its extra heads (docs/architecture.md, "ONNX interface")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

from globalgen_ros.runtime.artifacts import ModelArtifactError, ModelArtifacts, check_file, load_artifacts

MASKED = -1e4  # additive attention mask value of a hidden position
HEAD_VOCAB_FILE = "heads_vocab.npy"  # full token ids of the heads' draft vocabulary (absent: the whole vocabulary)
DEFAULT_DECODER = "model.int8.onnx"  # the decoder of a manifest without a "decoder" entry (models/default)


def past_names(n_layers: int) -> list[str]:
    """Return the decoder's past K/V input names in input order: past_k_0, past_v_0, past_k_1, ..."""
    return [f"past_{kv}_{i}" for i in range(n_layers) for kv in "kv"]


@dataclass(frozen=True)
class ModelDims:
    n_layers: int
    n_heads: int
    head_dim: int
    hidden_size: int
    vocab_size: int
    n_extra_heads: int
    max_len: int
    n_kv_heads: int = 0  # K/V heads (grouped-query attention: fewer than n_heads); 0: n_heads

    @property
    def kv_row_shape(self) -> tuple[int, int, int, int]:
        return (self.n_layers, 2, self.n_kv_heads or self.n_heads, self.head_dim)  # one token's K and V, all layers

    @classmethod
    def from_config(cls, cfg: dict) -> ModelDims:
        n_heads = cfg["num_attention_heads"]
        return cls(n_layers=cfg["num_hidden_layers"], n_heads=n_heads,
                   head_dim=cfg.get("head_dim") or cfg["hidden_size"] // n_heads, hidden_size=cfg["hidden_size"],
                   vocab_size=cfg["vocab_size"], n_extra_heads=cfg.get("num_extra_heads", 0),
                   max_len=cfg.get("max_position_embeddings", 512),
                   n_kv_heads=cfg.get("num_key_value_heads") or n_heads)


def session_options(threads: int, spin: bool = False) -> ort.SessionOptions:
    """Return options for latency: `threads` intra-op threads, sequential execution, all graph optimisations.

    Spinning worker threads are off by default: on a shared CPU (a robot runs perception and planning too) they
    made forwards 3-5x slower in median; measured on this machine with other processes running.
    """
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    return opts


def open_session(path, threads: int, spin: bool = False) -> ort.InferenceSession:
    try:
        return ort.InferenceSession(str(path), session_options(threads, spin), providers=["CPUExecutionProvider"])
    except Exception as e:  # ORT raises its own exception types for unreadable models
        raise ModelArtifactError(f"model file corrupt: ONNX Runtime cannot load {path} ({e}). Re-export the model "
                                 f"(`globalgen export`) or restore it from git.") from e


class OnnxModel:
    """The int8 decoder (k new tokens against a KV cache) and the multi-token heads."""

    def __init__(self, artifacts: ModelArtifacts | str | None = None, *, threads: int = 1, spin: bool = False,
                 decoder_file: str | None = None, heads_file: str = "heads.int8.onnx"):
        """Open the decoder (`decoder_file`, default: the manifest's "decoder", else model.int8.onnx) and, when
        config.json has extra heads (num_extra_heads > 0), `heads_file`; a model without heads needs none."""
        if not isinstance(artifacts, ModelArtifacts):
            required = ("config.json",) + ((decoder_file,) if decoder_file else ())
            artifacts = load_artifacts(artifacts, required=required)
        decoder_file = decoder_file or artifacts.manifest.get("decoder") or DEFAULT_DECODER
        self.artifacts = artifacts
        self.dims = ModelDims.from_config(artifacts.config)
        self.threads = threads
        self.decoder_file = decoder_file
        self.decoder = open_session(check_file(artifacts.root, decoder_file, None, False), threads, spin)
        self.heads_session = (open_session(check_file(artifacts.root, heads_file, None, False), threads, spin)
                              if self.dims.n_extra_heads else None)
        self.heads_take_token = self.heads_session is not None and "token" in {
            i.name for i in self.heads_session.get_inputs()}
        # Heads trained for an imported model score a draft vocabulary (importer/heads.py): its full ids.
        self.head_vocab = (np.load(artifacts.path(HEAD_VOCAB_FILE)) if self.heads_session is not None
                           and HEAD_VOCAB_FILE in artifacts.manifest.get("files", {}) else None)
        # Per-tensor activation quantization makes a token's logits depend on the other tokens of its forward.
        self.row_independent = b"DynamicQuantizeLinear" not in artifacts.path(decoder_file).read_bytes()
        L = self.dims.n_layers
        self.past_names = [(name, n // 2, n % 2) for n, name in enumerate(past_names(L))]  # (input, layer, K/V)
        inputs = {i.name for i in self.decoder.get_inputs()}
        if not {"logit_rows", *past_names(L)} <= inputs:
            raise ModelArtifactError(
                f"{artifacts.path(decoder_file)} has the inputs {sorted(inputs)}, not logit_rows and the per-layer "
                f"past_k_i / past_v_i of this version: re-export it (`globalgen export --checkpoint ... --out ...`)")
        self._empty_kv = np.zeros((0, *self.dims.kv_row_shape), np.float32)
        self._rows = np.arange(self.dims.max_len + 64, dtype=np.int64)  # logit_rows are slices of this

    def forward(self, input_ids: np.ndarray, position_ids: np.ndarray, mask: np.ndarray,
                past_kv: np.ndarray | None, logits_from: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run k new tokens; return logits (1, k - logits_from, V), hidden (1, k, d), new_kv (k, L, 2, H, D).

        input_ids, position_ids: (1, k) int64; mask: (1, 1, k, P + k) float32 additive; past_kv: rows
        (P, L, 2, H, D) float32. Each layer's K and V, past_kv[:, i, j], is fed as its own input; when it is one
        contiguous block (the hot buffer's layer-major layout, cache/kv.py) ORT reads it in place, otherwise it
        is copied here first. Logits are computed for rows logits_from.. only (a prompt needs its last row).
        """
        past = self._empty_kv if past_kv is None else past_kv
        k = input_ids.shape[1]
        if not 0 <= logits_from < k:
            raise ValueError(f"logits_from={logits_from} is not a row of a {k}-token forward")
        rows = self._rows[logits_from:k] if k <= len(self._rows) else np.arange(logits_from, k, dtype=np.int64)
        feeds = {"input_ids": input_ids, "position_ids": position_ids, "attention_mask": mask, "logit_rows": rows}
        for name, i, j in self.past_names:
            feeds[name] = np.ascontiguousarray(past[:, i, j])
        logits, hidden, new_kv = self.decoder.run(None, feeds)
        return logits, hidden, new_kv

    def heads(self, hidden: np.ndarray, token: np.ndarray | None = None) -> np.ndarray:
        """Return head logits (n, K, V) for final hidden states (n, d); head j predicts the token j + 2 ahead
        (V: the draft vocabulary when `head_vocab` is set, whose entry i is the token id of column i).
        Recurrent heads (importer/recurrent_heads.py) also take `token` (n,): the token after each hidden state."""
        if self.heads_session is None:
            raise RuntimeError("this model has no extra heads (num_extra_heads = 0)")
        feeds = {"hidden": np.ascontiguousarray(hidden, dtype=np.float32)}
        if self.heads_take_token:
            feeds["token"] = np.zeros(len(hidden), np.int64) if token is None else np.asarray(token, np.int64)
        return self.heads_session.run(None, feeds)[0]
