"""Benchmarks, run as modules from the repository root: python -m benchmarks.<name>."""
