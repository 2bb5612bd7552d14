/* MPI_Init, MPI_Init_thread and MPI_Finalize: the library's setup (configuration,
 * communicator ids, clock offsets, wide-area links) and the stats file. */
#include "trace.h"

void ns_after_init(void)
{
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    ns_world_rank = rank;
    ns_world_size = size;
    ns_config_load(rank, size);
    ns_trace_init();
    ns_comm_ids_init();
    ns_clock_sync(ns_shadow_comm, rank, size);
    ns_wan_init(ns_shadow_comm, rank);
    PMPI_Barrier(ns_shadow_comm);
    ps_t start = ns_global_now(), rank0_start = start;
    PMPI_Bcast(&rank0_start, 1, MPI_INT64_T, 0, ns_shadow_comm);
    ns_stats_start(rank, size, start, rank0_start);
    if (ns_tracing) ns_trace_started();
}

void ns_before_finalize(void)
{
    ns_count_call(STAT_CALLS, "MPI_Finalize");
    /* The run ends here, for the trace and the stats alike; gathering and writing
     * the archive afterwards is not part of the program's run time. */
    ns_trace_finalize_paused();
    if (ns_tracing) ns_trace_finalize_entered();
    ns_stats_write();
    if (ns_tracing) ns_trace_finish();
    ns_finalizing = true;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) ns_after_init();
    return rc;
}

/* MPI_THREAD_MULTIPLE programs are out of scope: the library's state is per process and
 * unlocked, which FUNNELED and SERIALIZED programs never race on. */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) ns_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    ns_before_finalize();
    return PMPI_Finalize();
}
