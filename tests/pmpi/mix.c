/* A 4-rank program mixing the ways to send, for the stats file test (tests/test_pmpi.py
 * derives every message it sends from this list):
 *   A  rank 0 -> 1  MPI_Send of 100 ints (400 B), tag 1
 *   B  rank 1 -> 0  MPI_Isend + MPI_Wait of 1000 B; rank 0 MPI_Irecv + MPI_Test loop
 *   C  ring         MPI_Sendrecv of 8 doubles (64 B) to rank + 1
 *   D  rank 2 -> 3  a vector type (10 blocks of 2 ints, stride 5: 80 B packed);
 *                   rank 3 MPI_Probe, then MPI_Recv of 20 ints
 *   E  rank 3 -> 2  a persistent send of 4 ints (16 B), started three times
 *   F  MPI_Allreduce of 1 int;  G  MPI_Bcast of 64 doubles from rank 0;
 *   H  MPI_Alltoall of 1 int per rank;  I  MPI_Ibarrier and MPI_Win_create (unhandled);
 *   J  MPI_Barrier
 * Exits 1 (after printing why) on a wrong value received. */
#include <mpi.h>
#include <stdio.h>

static int bad;
static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int ints[100];
    for (int i = 0; i < 100; i++) ints[i] = r == 0 ? i : -1;
    if (r == 0) MPI_Send(ints, 100, MPI_INT, 1, 1, MPI_COMM_WORLD);
    if (r == 1) {
        MPI_Recv(ints, 100, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(ints[99] == 99, "A");
    }

    char bytes[1000] = {0};
    MPI_Request req;
    if (r == 1) {
        bytes[999] = 42;
        MPI_Isend(bytes, 1000, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (r == 0) {
        int flag = 0;
        MPI_Irecv(bytes, 1000, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req);
        while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        expect(bytes[999] == 42, "B");
    }

    double out[8], in[8];
    for (int i = 0; i < 8; i++) out[i] = r + 0.5;
    MPI_Sendrecv(out, 8, MPI_DOUBLE, (r + 1) % p, 3, in, 8, MPI_DOUBLE, (r + p - 1) % p, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(in[7] == (r + p - 1) % p + 0.5, "C");

    MPI_Datatype vec;
    MPI_Type_vector(10, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int grid[50], packed[20];
    for (int i = 0; i < 50; i++) grid[i] = i;
    if (r == 2) MPI_Send(grid, 1, vec, 3, 4, MPI_COMM_WORLD);
    if (r == 3) {
        MPI_Status st;
        int count = 0;
        MPI_Probe(2, 4, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        expect(count == 20, "D count");
        MPI_Recv(packed, count, MPI_INT, 2, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(packed[2] == 5 && packed[19] == 46, "D values");
    }
    MPI_Type_free(&vec);

    int four[4] = {r, r, r, r};
    if (r == 3 || r == 2) {
        if (r == 3)
            MPI_Send_init(four, 4, MPI_INT, 2, 5, MPI_COMM_WORLD, &req);
        else
            MPI_Recv_init(four, 4, MPI_INT, 3, 5, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 3; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
        expect(four[0] == 3, "E");
    }

    int one = r + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(sum == p * (p + 1) / 2, "F");
    double b[64];
    for (int i = 0; i < 64; i++) b[i] = r == 0 ? i : -1;
    MPI_Bcast(b, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    expect(b[63] == 63, "G");
    int to[64], from[64];
    for (int i = 0; i < p; i++) to[i] = 10 * r + i;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
    expect(from[p - 1] == 10 * (p - 1) + r, "H");

    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win win;
    int cell = 0;
    MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return bad;
}
