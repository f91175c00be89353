"""MAID benchmarks: ``.venv/bin/python -m benchmarks --help``; figures in docs/performance.md."""
