"""Import a LLaMA-family checkpoint (Hugging Face directory or GGUF file) into the project's ONNX layout, and run it.

    globalgen import SOURCE --out models/NAME [--weights int8|int4]      (docs/import.md)

`source.py` reads either form into one `ImportedSource` (HF parameter names, float weights, tokenizer.json,
chat template); `convert.py` builds the project's `LlamaWithHeads` from it; `write.py` exports, quantizes
(`weights.py`: int8 per row, or 4-bit weight-only blocks), checks and writes the manifest; `plain.py` runs the
imported decoder with the engine (any token allowed, its end ids). `Assistant(model_dir=IMPORTED)` is an
`assistant.ChatAssistant`: the understanding model decides, `prompt.py` states it in the system prompt,
`chat.py` renders the model's chat template.
"""
