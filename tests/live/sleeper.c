/* Every rank sleeps SECONDS inside the MPI job (a long run to interrupt). */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    sleep(argc > 1 ? atoi(argv[1]) : 120);
    MPI_Finalize();
    return 0;
}
