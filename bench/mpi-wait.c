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
 * lines to stderr:
 *   mpi-wait rank R: W s waiting (C s CPU) in N calls
 *   mpi-messages rank R: S sent, M s in K calls of MPI_Isend, MPI_Test, MPI_Testany, MPI_Irecv
 * Built by bench-mpi.sh with mpicc -shared -fPIC; not part of the module.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double g_waiting;             /* seconds inside the blocking calls */
static double g_waitingCpu;          /* CPU seconds of this thread inside them */
static unsigned long g_calls;        /* blocking calls */
static double g_messageTime;         /* seconds inside the calls that send and receive messages */
static unsigned long g_messageCalls; /* those calls */
static unsigned long g_sent;         /* MPI_Isend calls */

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
    const int r = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    g_waiting += Clock(CLOCK_MONOTONIC) - t0;
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

int
MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
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
