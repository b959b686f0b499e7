"""Training-time model code (needs torch): the decoder, tokenizer training, training loop and export."""
