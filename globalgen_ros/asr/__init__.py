"""Speech recognition with vosk (no rclpy): model loading, streaming recognition, WAV input."""
