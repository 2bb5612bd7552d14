/* A head-to-head deadlock: after one exchange that completes (rank 0 sends 8 bytes
 * with tag 1, rank 1 receives them), ranks 0 and 1 each wait in MPI_Recv for the
 * other (tag 2), which never sends; the run ends only when it is killed. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    double x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) MPI_Send(&x, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank < 2) MPI_Recv(&x, 1, MPI_DOUBLE, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
