/* netsens-trace-merge DIR: the OTF2 archive DIR/traces.otf2 from the records each rank
 * of a stopped run wrote on SIGTERM (DIR/traces.rank-<N>.partial, trace.h), so a run
 * that never reached MPI_Finalize (a deadlock ended by a timeout) still has its trace;
 * the partial files are removed once it is written. Exit code 2 and one line on error. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "netsens-trace-merge: error: %s: %s\n", path, what);
    return 2;
}

/* Appends `n` bytes of `f` to the growing block `*block` of `*len` bytes. */
static int append(FILE *f, char **block, size_t *len, size_t n)
{
    *block = realloc(*block, *len + n + 1);
    if (*block == NULL || fread(*block + *len, 1, n, f) != n) return -1;
    *len += n;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: netsens-trace-merge DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char path[4096];
    char *recs = NULL, *names = NULL, *comms = NULL;
    size_t recs_len = 0, names_len = 0, comms_len = 0;
    int64_t size = 1, *rec_counts = NULL, *name_counts = NULL, *comm_counts = NULL;
    struct tracer_gap *gaps = NULL;
    for (int64_t rank = 0; rank < size; rank++) {
        snprintf(path, sizeof path, "%s/" NS_TRACE_PARTIAL, dir, (int)rank);
        FILE *f = fopen(path, "rb");
        if (f == NULL) return fail("missing (that rank was not stopped by SIGTERM)", path);
        struct trace_partial h;
        if (fread(&h, sizeof h, 1, f) != 1 || h.magic != NS_TRACE_PARTIAL_MAGIC ||
            h.rank != rank || h.size < 1 || h.nrecs < 0 || h.name_bytes < 0 || h.comm_words < 0)
            return fail("not a partial trace of this run", path);
        if (rank == 0) {
            size = h.size;
            rec_counts = calloc((size_t)size, sizeof(int64_t));
            name_counts = calloc((size_t)size, sizeof(int64_t));
            comm_counts = calloc((size_t)size, sizeof(int64_t));
            gaps = calloc((size_t)size, sizeof *gaps);
        } else if (h.size != size) {
            return fail("from a run of another size", path);
        }
        rec_counts[rank] = h.nrecs;
        name_counts[rank] = h.name_bytes;
        comm_counts[rank] = h.comm_words;
        gaps[rank] = h.gap;
        if (append(f, &recs, &recs_len, sizeof(struct trace_rec) * (size_t)h.nrecs) != 0 ||
            append(f, &names, &names_len, (size_t)h.name_bytes) != 0 ||
            append(f, &comms, &comms_len, sizeof(int64_t) * (size_t)h.comm_words) != 0)
            return fail("truncated", path);
        fclose(f);
    }
    if (ns_trace_assemble(dir, (int)size, (struct trace_rec *)recs, rec_counts, names,
                          name_counts, (int64_t *)comms, comm_counts, gaps) != 0)
        return fail("could not write the OTF2 archive", dir);
    for (int64_t rank = 0; rank < size; rank++) {
        snprintf(path, sizeof path, "%s/" NS_TRACE_PARTIAL, dir, (int)rank);
        unlink(path);
    }
    return 0;
}
