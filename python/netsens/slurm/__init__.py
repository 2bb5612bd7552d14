"""The Slurm executor: a study's missing points as one job array, the array's task, and
where the jobs stand.
"""
