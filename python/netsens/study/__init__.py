"""Studies and their results: a study's definition and values, the sweep that runs its
points, the results store (one Parquet file per point), its verification, and claims
that let several sweeps share one store.
"""
