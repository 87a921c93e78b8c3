/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Time each MPI rank spends waiting for the others, for bench-mpi.sh: a preloaded library
 * (LD_PRELOAD, through the MPI profiling interface) around the calls where ns-3's engines
 * block. The granted-time-window engine (ns3::DistributedSimulatorImpl) waits in the
 * MPI_Allgather of every window; the null-message engine (ns3::NullMessageSimulatorImpl) in
 * MPI_Waitany when its next event is beyond the time its neighbours allow. At MPI_Finalize each
 * rank prints one line to stderr:
 *   mpi-wait rank R: W s waiting in N calls
 * Built by bench-mpi.sh with mpicc -shared -fPIC; not part of the module.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double g_waiting;      /* seconds inside the blocking calls */
static unsigned long g_calls; /* blocking calls */

static double
Now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int
MPI_Allgather(const void* sendbuf,
              int sendcount,
              MPI_Datatype sendtype,
              void* recvbuf,
              int recvcount,
              MPI_Datatype recvtype,
              MPI_Comm comm)
{
    const double t0 = Now();
    const int r = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_waiting += Now() - t0;
    ++g_calls;
    return r;
}

int
MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status)
{
    const double t0 = Now();
    const int r = PMPI_Waitany(count, requests, index, status);
    g_waiting += Now() - t0;
    ++g_calls;
    return r;
}

int
MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "mpi-wait rank %d: %.3f s waiting in %lu calls\n", rank, g_waiting, g_calls);
    return PMPI_Finalize();
}
