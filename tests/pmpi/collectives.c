/* Checks every expanded collective's answer against a value computed by hand from the
 * rank numbers; prints "collectives ok" or one line per failure (exit 1). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, rank, size;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL rank %d: %s\n", rank, what);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size, r = rank;
    int tri = p * (p - 1) / 2; /* 0 + 1 + ... + (p-1) */

    int iv[2] = {r, 2 * r}, io[2] = {0, 0};
    MPI_Allreduce(iv, io, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(io[0] == tri && io[1] == 2 * tri, "allreduce int sum");
    double dv = r + 0.5, dout = 0;
    MPI_Allreduce(&dv, &dout, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    check(dout == p - 0.5, "allreduce double max");
    double din = r + 0.25;
    MPI_Allreduce(MPI_IN_PLACE, &din, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check(din == tri + 0.25 * p, "allreduce in place double sum");
    int mx = 10 * r;
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check(mx == 10 * (p - 1), "allreduce in place int max");

    int red = -1;
    MPI_Reduce(&r, &red, 1, MPI_INT, MPI_SUM, p - 1, MPI_COMM_WORLD);
    if (r == p - 1) check(red == tri, "reduce int sum to last rank");
    double dred = r;
    if (r == 0)
        MPI_Reduce(MPI_IN_PLACE, &dred, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    else
        MPI_Reduce(&dred, NULL, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r == 0) check(dred == p - 1, "reduce in place double max");

    int b[3] = {0, 0, 0};
    if (r == 1 % p) b[0] = 7, b[1] = 8, b[2] = 9;
    MPI_Bcast(b, 3, MPI_INT, 1 % p, MPI_COMM_WORLD);
    check(b[0] == 7 && b[1] == 8 && b[2] == 9, "bcast from rank 1");

    int *all = calloc((size_t)p * 2, sizeof(int));
    int mine[2] = {r, -r};
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (r == 0)
        for (int i = 0; i < p; i++) check(all[2 * i] == i && all[2 * i + 1] == -i, "gather");
    int got[2] = {-1, -1};
    for (int i = 0; i < 2 * p; i++) all[i] = (r == 0) ? 100 + i : 0;
    MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, 0, MPI_COMM_WORLD);
    check(got[0] == 100 + 2 * r && got[1] == 101 + 2 * r, "scatter");
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++) check(all[2 * i] == i && all[2 * i + 1] == -i, "allgather");
    for (int i = 0; i < 2 * p; i++) all[i] = (i / 2 == r) ? 5 * r : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++) check(all[2 * i] == 5 * i, "allgather in place");

    int *sa = malloc(sizeof(int) * (size_t)p), *ra = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) sa[i] = 100 * r + i; /* block i goes to rank i */
    MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++) check(ra[i] == 100 * i + r, "alltoall");

    int *rs_in = malloc(sizeof(int) * (size_t)p), rs_out = -1;
    for (int i = 0; i < p; i++) rs_in[i] = r + i;
    MPI_Reduce_scatter_block(rs_in, &rs_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(rs_out == tri + p * r, "reduce_scatter_block"); /* sum over ranks q of q + r */

    int sc = -1, ex = -1, v = r + 1;
    MPI_Scan(&v, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(sc == (r + 1) * (r + 2) / 2, "scan");
    MPI_Exscan(&v, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r > 0) check(ex == r * (r + 1) / 2, "exscan");
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    int hs = 0, hr = 0;
    MPI_Comm_size(half, &hs);
    MPI_Allreduce(&r, &hr, 1, MPI_INT, MPI_SUM, half);
    int expect = 0;
    for (int q = r % 2; q < p; q += 2) expect += q;
    check(hr == expect, "allreduce on a split communicator");
    MPI_Comm_free(&half);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0 && total == 0) printf("collectives ok\n");
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
