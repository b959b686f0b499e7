"""Decoding engine: ar, parallel (draft tree + verify), confident; drafters, tree masks, calibration."""
