"""Grounding: what an utterance says (numbers, spans), checked with the ecosystem's parsers."""
