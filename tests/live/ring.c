/* A ring: ITER rounds, each rank sends SIZE bytes to its right neighbour and receives
 * from its left; the test derives counts and the run time's lower bound by hand.
 * Usage: ring ITER SIZE */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iter = argc > 1 ? atoi(argv[1]) : 10;
    int bytes = argc > 2 ? atoi(argv[2]) : 8;
    char *out = calloc(bytes + 1, 1), *in = calloc(bytes + 1, 1);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < iter; i++) {
        MPI_Sendrecv(out, bytes, MPI_BYTE, right, 0, in, bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
