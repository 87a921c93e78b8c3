/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Time each MPI rank spends waiting for the others and passing messages, for bench-mpi.sh: a
 * preloaded library (LD_PRELOAD, through the MPI profiling interface) around the calls of ns-3's
 * engines. The granted-time-window engine (ns3::DistributedSimulatorImpl) waits in the
 * MPI_Allgather of every window; the null-message engine (ns3::NullMessageSimulatorImpl) in
 * MPI_Waitany when its next event is beyond the time its neighbours allow. Both poll, so the
 * waits also take CPU time: the thread's CPU time inside them is counted apart from the wall time
 * (with other load on the machine a waiting rank is also descheduled). Every frame to another
 * rank is one MPI_Isend (ns3::MpiInterface::SendPacket), completed by MPI_Test, and received by
 * MPI_Testany and the MPI_Irecv posted again for the next one: the time of those calls is the
 * cost of the messages themselves (their serialisation is not counted). Those calls are timed by
 * the wall clock (read in user space, about 20 ns): they do not block, and there are millions of
 * them, where the thread's CPU clock is a system call (about 0.5 us on the benchmark's machine)
 * that made the measurement itself cost a rank seconds. At MPI_Finalize each rank prints two
 * lines to stderr, and rank 0 a third where the engine synchronised by MPI_Allgather:
 *   mpi-wait rank R: W s waiting (C s CPU) in N calls
 *   mpi-messages rank R: S sent, M s in K calls of MPI_Isend, MPI_Test, MPI_Testany, MPI_Irecv
 *   mpi-windows: K windows, work per rank A s (mean), the busiest rank's per window B s (+P %)
 * Built by bench-mpi.sh with mpicc -shared -fPIC; not part of the module.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double g_waiting;             /* seconds inside the blocking calls */
static double g_waitingCpu;          /* CPU seconds of this thread inside them */
static unsigned long g_calls;        /* blocking calls */
static double g_messageTime;         /* seconds inside the calls that send and receive messages */
static unsigned long g_messageCalls; /* those calls */
static unsigned long g_sent;         /* MPI_Isend calls */
static double* g_work;               /* wall seconds between two MPI_Allgather calls, per window */
static size_t g_windows;             /* entries of g_work */
static size_t g_workCapacity;        /* allocated entries of g_work */
static double g_lastReturn;          /* when the last MPI_Allgather returned (0: none yet) */

static double
Clock(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
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
    const double t0 = Clock(CLOCK_MONOTONIC);
    const double c0 = Clock(CLOCK_THREAD_CPUTIME_ID);
    /* the work before the first call is the set-up, which differs between ranks */
    if (g_lastReturn > 0)
    {
        if (g_windows == g_workCapacity)
        {
            g_workCapacity = g_workCapacity ? 2 * g_workCapacity : 4096;
            g_work = realloc(g_work, g_workCapacity * sizeof *g_work);
            if (!g_work)
            {
                fprintf(stderr, "mpi-wait: out of memory\n");
                abort();
            }
        }
        g_work[g_windows++] = t0 - g_lastReturn;
    }
    const int r = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_lastReturn = Clock(CLOCK_MONOTONIC);
    g_waiting += g_lastReturn - t0;
    g_waitingCpu += Clock(CLOCK_THREAD_CPUTIME_ID) - c0;
    ++g_calls;
    return r;
}

int
MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status)
{
    const double t0 = Clock(CLOCK_MONOTONIC);
    const double c0 = Clock(CLOCK_THREAD_CPUTIME_ID);
    const int r = PMPI_Waitany(count, requests, index, status);
    g_waiting += Clock(CLOCK_MONOTONIC) - t0;
    g_waitingCpu += Clock(CLOCK_THREAD_CPUTIME_ID) - c0;
    ++g_calls;
    return r;
}

int
MPI_Isend(const void* buf,
          int count,
          MPI_Datatype type,
          int dest,
          int tag,
          MPI_Comm comm,
          MPI_Request* request)
{
    const double c0 = Clock(CLOCK_MONOTONIC);
    const int r = PMPI_Isend(buf, count, type, dest, tag, comm, request);
    g_messageTime += Clock(CLOCK_MONOTONIC) - c0;
    ++g_messageCalls;
    ++g_sent;
    return r;
}

int
MPI_Test(MPI_Request* request, int* flag, MPI_Status* status)
{
    const double c0 = Clock(CLOCK_MONOTONIC);
    const int r = PMPI_Test(request, flag, status);
    g_messageTime += Clock(CLOCK_MONOTONIC) - c0;
    ++g_messageCalls;
    return r;
}

int
MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status)
{
    const double c0 = Clock(CLOCK_MONOTONIC);
    const int r = PMPI_Testany(count, requests, index, flag, status);
    g_messageTime += Clock(CLOCK_MONOTONIC) - c0;
    ++g_messageCalls;
    return r;
}

int
MPI_Irecv(void* buf,
          int count,
          MPI_Datatype type,
          int source,
          int tag,
          MPI_Comm comm,
          MPI_Request* request)
{
    const double c0 = Clock(CLOCK_MONOTONIC);
    const int r = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    g_messageTime += Clock(CLOCK_MONOTONIC) - c0;
    ++g_messageCalls;
    return r;
}

/* Rank 0 prints how the ranks' work was spread over the windows: a window ends when the rank
 * with most work in it is done, so the sum over windows of the largest work is the run's time
 * with nothing but the imbalance added to the mean work (every rank has one entry per window:
 * MPI_Gather is collective). */
static void
PrintWindows(int rank)
{
    int ranks = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double* all = rank == 0 ? malloc(g_windows * ranks * sizeof *all + 1) : NULL;
    /* the gather needs rank 0's buffer: every rank learns whether it exists */
    int ok = rank != 0 || all != NULL;
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
    {
        if (rank == 0)
        {
            fprintf(stderr,
                    "mpi-windows: not printed (no memory for %zu windows x %d ranks)\n",
                    g_windows,
                    ranks);
        }
        return;
    }
    PMPI_Gather(g_work,
                (int)g_windows,
                MPI_DOUBLE,
                all,
                (int)g_windows,
                MPI_DOUBLE,
                0,
                MPI_COMM_WORLD);
    if (rank != 0)
    {
        return;
    }
    double mean = 0;
    double slowest = 0;
    for (size_t w = 0; w < g_windows; ++w)
    {
        double largest = 0;
        for (int r = 0; r < ranks; ++r)
        {
            const double work = all[r * g_windows + w];
            mean += work / ranks;
            largest = work > largest ? work : largest;
        }
        slowest += largest;
    }
    fprintf(stderr,
            "mpi-windows: %zu windows, work per rank %.3f s (mean), the busiest rank's per window "
            "%.3f s (+%.0f %%)\n",
            g_windows,
            mean,
            slowest,
            mean > 0 ? 100 * (slowest - mean) / mean : 0.0);
    free(all);
}

int
MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* collective: every rank made the same MPI_Allgather calls */
    if (g_lastReturn > 0)
    {
        PrintWindows(rank);
    }
    fprintf(stderr,
            "mpi-wait rank %d: %.3f s waiting (%.3f s CPU) in %lu calls\n",
            rank,
            g_waiting,
            g_waitingCpu,
            g_calls);
    fprintf(stderr,
            "mpi-messages rank %d: %lu sent, %.3f s in %lu calls of MPI_Isend, MPI_Test, "
            "MPI_Testany, MPI_Irecv\n",
            rank,
            g_sent,
            g_messageTime,
            g_messageCalls);
    return PMPI_Finalize();
}
