"""Benchmarks behind BENCHMARKS.md: `python -m benchmarks` regenerates it."""
