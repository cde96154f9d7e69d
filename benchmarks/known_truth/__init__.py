"""Known-truth benchmark: see docs/known-truth.md."""
