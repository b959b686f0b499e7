"""Run-time side (numpy + onnxruntime + tokenizers): artifacts, ORT sessions, text format, constraints."""
