/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DISTRIBUTED_HELPER_H
#define DISTRIBUTED_HELPER_H

#include "ns3/collective.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief One simulation over several MPI ranks with ns-3's mpi module, or none.
 *
 * Enable() turns distributed simulation on when training-net was built against an ns-3 with
 * its mpi module AND the program was started by an MPI launcher (mpirun sets
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK) with more than one rank: it selects the engine
 * (environment variable TN_MPI_ENGINE: "granted" for ns::DistributedSimulatorImpl, the default, or
 * "null" for ns3::NullMessageSimulatorImpl) and calls MpiInterface::Enable. Otherwise every call
 * answers as for one process (rank 0 of 1), so programs need no #ifdef and no other change.
 * RoceHelper::Install places nodes on ranks (system ids) when GetSize() > 1.
 */
class DistributedHelper
{
  public:
    /**
     * \param argc the program's argc (MPI may consume arguments)
     * \param argv the program's argv
     * \return true when this run is distributed over MPI ranks
     */
    static bool Enable(int* argc, char*** argv);
    /** MPI_Finalize when Enable() turned MPI on; call after Simulator::Destroy(). */
    static void Disable();

    /**
     * Prepare the next simulation of this process, after Simulator::Destroy() (every rank
     * calls it). ns-3's MPI interface frees its receive buffers when a simulation is destroyed,
     * so it is disabled and enabled again on a fresh duplicate of MPI_COMM_WORLD (Enable()
     * initialises MPI itself, so that this does not finalise it). That is safe only when no
     * frame between ranks was left on its way (RoceRemoteChannel::GetFramesInFlight summed
     * over the ranks): a run stopped early (a signal, a time limit) may leave some, which
     * would land in the freed buffers. No-op in one process.
     * \return true when another simulation may run (always in one process)
     */
    static bool NextSimulation();
    /** \return true when this build can run over MPI (ns-3's mpi module present) */
    static bool IsAvailable();
    /** \return true between Enable() (when it turned MPI on) and Disable() */
    static bool IsEnabled();
    /** \return this process's rank (its nodes' system id), 0 when not distributed */
    static uint32_t GetRank();
    /** \return number of ranks, 1 when not distributed */
    static uint32_t GetSize();
    /** \return the engine's name ("" when not distributed) */
    static std::string GetEngine();
    /** Wait for every rank (no-op when not distributed). */
    static void Barrier();
    /**
     * \param value this rank's value
     * \return the sum over all ranks (value when not distributed)
     */
    static uint64_t SumAll(uint64_t value);
    /**
     * \param value this rank's value
     * \return the largest value of all ranks (value when not distributed)
     */
    static double MaxAll(double value);
    /**
     * After Simulator::Run: join the parts of a collective that every rank simulated
     * (Collective::MergeRanks: counts summed, earliest start, latest end), so that its
     * duration and Check() answer for the whole collective on every rank. Every rank must
     * call it for the same collectives in the same order; no-op when not distributed.
     * \param collective the collective
     */
    static void MergeCollective(Ptr<Collective> collective);

    /**
     * Stop every rank with a non-zero exit when a check failed on any rank: each rank calls
     * this with its own verdict; when one is false, the lowest failing rank prints its message
     * (nothing when it is empty: already printed) and every rank exits with `status`.
     * \param ok this rank's verdict
     * \param message one line to print when !ok
     * \param status the exit status of every rank when one is not ok
     */
    static void ExitUnlessAll(bool ok, const std::string& message, int status = 1);

    /**
     * A program's output in a distributed run comes from rank 0: on the other ranks std::cout
     * is discarded from this call on (their error lines go through ExitUnlessAll, or are
     * printed by rank 0 when every rank reaches the same verdict). No-op in one process.
     */
    static void QuietUnlessRoot();

    /**
     * Every rank reads the same command line and input and reaches the same verdict: from
     * this call until ReleaseErrors(), std::cerr of the ranks other than 0 is held, so that an
     * error line is printed once. No-op in one process.
     */
    static void HoldErrors();

    /**
     * Show std::cerr of this rank again (HoldErrors).
     * \return the first line held ("" on rank 0 and in one process)
     */
    static std::string ReleaseErrors();

    /**
     * The sampling tick of a StatsRecorder in a distributed run (StatsRecorder::SetRankSync):
     * every rank calls it at the same simulated instant. In one process a recorder stops
     * sampling when the event queue is empty; over ranks a rank's own queue does not say it:
     * another rank may still be busy, or a frame between ranks may be on its way. The ranks
     * exchange whether their queue holds an event (the granted engine's scheduler,
     * ns3::RoceFrameScheduler, which tells) and how many frames they sent to and
     * received from other ranks (RoceRemoteChannel::GetFramesInFlight).
     * Only the granted engine can: the ranks meet inside one time window, while the
     * null-message engine would wait for null messages the blocked ranks cannot send
     * (StatsHelper refuses to record with it).
     * \param signal the signal this rank caught (0: none)
     * \param busy set to true when some rank has an event left or a frame is in flight
     * \return the largest signal caught by a rank (0: none)
     */
    static int SyncTick(int signal, bool* busy);

    /**
     * \param ok this rank's verdict
     * \return true when it is true on every rank
     */
    static bool AllOf(bool ok);

    /**
     * \param values this rank's values
     * \return the values of every rank, in rank order (values when not distributed)
     */
    static std::vector<int64_t> AllGather(std::vector<int64_t> values);

    /**
     * \param value rank 0's value (ignored on the other ranks)
     * \return rank 0's value, on every rank
     */
    static int64_t Broadcast(int64_t value);
};

} // namespace ns3

#endif // DISTRIBUTED_HELPER_H
