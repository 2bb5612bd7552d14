/* A program whose messages depend on its timing, as HPCC's RandomAccess sends its
 * updates as they are ready: rank 0 makes ITEMS items, one every ITEM_US microseconds
 * (spinning on MPI_Wtime), and sends rank 1 all the items made so far whenever rank 1
 * has acknowledged the previous batch (an MPI_Test on the acknowledgement's receive,
 * polled between items). Rank 1 receives batches (MPI_Probe for the size, MPI_Recv)
 * and acknowledges each with one byte until it has every item. A fast network sends
 * an item a batch; a slow one sends few large batches.
 * Prints "batches N" on rank 0. usage: batches ITEMS ITEM_US */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int items = argc > 1 ? atoi(argv[1]) : 50;
    double item_s = (argc > 2 ? atof(argv[2]) : 200.0) * 1e-6;
    double *buf = calloc((size_t)items, sizeof(double));
    char ack = 0;
    if (rank == 0) {
        int made = 0, sent = 0, batches = 0;
        MPI_Request pending = MPI_REQUEST_NULL;
        double start = MPI_Wtime();
        while (sent < items) {
            if (made < items && MPI_Wtime() - start >= made * item_s) buf[made] = made, made++;
            int acked = 1;
            if (pending != MPI_REQUEST_NULL) MPI_Test(&pending, &acked, MPI_STATUS_IGNORE);
            if (acked && made > sent) {
                MPI_Send(buf + sent, made - sent, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                sent = made;
                batches++;
                MPI_Irecv(&ack, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &pending);
            }
        }
        MPI_Wait(&pending, MPI_STATUS_IGNORE);
        printf("batches %d\n", batches);
    } else if (rank == 1) {
        for (int got = 0; got < items;) {
            MPI_Status st;
            int n = 0;
            MPI_Probe(0, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            MPI_Recv(buf + got, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            got += n;
            MPI_Send(&ack, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
