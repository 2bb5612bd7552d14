"""Ping-pong between ranks 0 and 1 through mpi4py: prints the median round trip in ns.

usage: python pingpong.py BYTES REPETITIONS
"""

import statistics
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size_bytes, reps = int(sys.argv[1]), int(sys.argv[2])
buf = bytearray(max(size_bytes, 1))
view = [memoryview(buf)[:size_bytes], MPI.BYTE]
rtts = []
for i in range(reps + 5):
    t = MPI.Wtime()
    if rank == 0:
        comm.Send(view, dest=1, tag=7)
        comm.Recv(view, source=1, tag=7)
    elif rank == 1:
        comm.Recv(view, source=0, tag=7)
        comm.Send(view, dest=0, tag=7)
    if i >= 5:
        rtts.append(MPI.Wtime() - t)
if rank == 0:
    print(f"rtt_ns {statistics.median(rtts) * 1e9:.0f}")
