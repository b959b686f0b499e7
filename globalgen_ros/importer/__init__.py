"""Import a LLaMA-family checkpoint (Hugging Face directory or GGUF file) into the project's int8 ONNX layout.

    globalgen import SOURCE --out models/NAME      (docs/import.md)

`source.py` reads either form into one `ImportedSource` (HF parameter names, float weights, tokenizer.json,
chat template); `convert.py` builds the project's `LlamaWithHeads` from it; `write.py` exports, quantizes,
checks and writes the manifest; `plain.py` runs the imported decoder with the engine (any token allowed).
"""
