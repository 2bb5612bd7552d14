"""Which network for my program: one workload on several networks (docs/guides/compare.md)."""
