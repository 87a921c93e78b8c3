/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "distributed-helper.h"

#include "ns3/abort.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#ifdef TN_MPI
#include "ns3/mpi-interface.h"
#include "ns3/roce-frame-order.h"
#include "ns3/roce-remote-channel.h"

#include <mpi.h>
#endif

namespace ns3
{

namespace
{
/// set while MPI is on (one simulation per process)
bool g_enabled = false;
/// engine name while enabled
std::string g_engine;

bool
LaunchedByMpi()
{
    // one rank (mpirun -np 1) is one process: the distributed engine would only add its
    // windows, and its IsFinished answers for the last one alone
    for (const char* size : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        if (std::getenv(size))
        {
            return std::string(std::getenv(size)) != "1";
        }
    }
    return std::getenv("PMIX_RANK") != nullptr;
}
} // namespace

bool
DistributedHelper::IsAvailable()
{
#ifdef TN_MPI
    return true;
#else
    return false;
#endif
}

bool
DistributedHelper::Enable(int* argc, char*** argv)
{
    if (g_enabled || !LaunchedByMpi())
    {
        return g_enabled;
    }
#ifdef TN_MPI
    const char* engine = std::getenv("TN_MPI_ENGINE");
    std::string name = engine ? engine : "granted";
    std::string type;
    if (name == "granted")
    {
        type = "ns3::DistributedSimulatorImpl";
    }
    else if (name == "null")
    {
        type = "ns3::NullMessageSimulatorImpl";
    }
    else
    {
        std::cerr << "error: TN_MPI_ENGINE=" << name << ": use granted or null" << std::endl;
        std::exit(1);
    }
    // frame arrivals of equal time in the order of their keys on every rank, as in one process;
    // and it tells SyncTick whether the rank has an event left (DistributedSimulatorImpl's
    // IsFinished answers for all ranks at the last time window only)
    GlobalValue::Bind("SchedulerType", StringValue("ns3::RoceFrameScheduler"));
    GlobalValue::Bind("SimulatorImplementationType", StringValue(type));
    // MPI is initialised here, not by ns-3, so that NextSimulation can disable ns-3's
    // interface and enable it again without finalising MPI
    MPI_Init(argc, argv);
    MpiInterface::Enable(MPI_COMM_WORLD);
    g_enabled = true;
    g_engine = name;
    return true;
#else
    (void)argc;
    (void)argv;
    if (std::getenv("OMPI_COMM_WORLD_SIZE") && std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")) > 1)
    {
        std::cerr << "error: started by mpirun with several ranks, but training-net was built "
                     "without MPI (build it in an ns-3 tree configured with --enable-mpi)"
                  << std::endl;
        std::exit(1);
    }
    return false;
#endif
}

void
DistributedHelper::Disable()
{
#ifdef TN_MPI
    if (g_enabled)
    {
        MpiInterface::Disable();
        MPI_Finalize();
        g_enabled = false;
    }
#endif
}

bool
DistributedHelper::NextSimulation()
{
#ifdef TN_MPI
    if (g_enabled)
    {
        long long inFlight = RoceRemoteChannel::GetFramesInFlight();
        long long all = 0;
        MPI_Allreduce(&inFlight, &all, 1, MPI_LONG_LONG, MPI_SUM, MpiInterface::GetCommunicator());
        if (all != 0)
        {
            return false;
        }
        MpiInterface::Disable();
        MpiInterface::Enable(MPI_COMM_WORLD);
    }
#endif
    return true;
}

bool
DistributedHelper::IsEnabled()
{
    return g_enabled;
}

uint32_t
DistributedHelper::GetRank()
{
#ifdef TN_MPI
    if (g_enabled)
    {
        return MpiInterface::GetSystemId();
    }
#endif
    return 0;
}

uint32_t
DistributedHelper::GetSize()
{
#ifdef TN_MPI
    if (g_enabled)
    {
        return MpiInterface::GetSize();
    }
#endif
    return 1;
}

std::string
DistributedHelper::GetEngine()
{
    return g_engine;
}

void
DistributedHelper::Barrier()
{
#ifdef TN_MPI
    if (g_enabled)
    {
        MPI_Barrier(MpiInterface::GetCommunicator());
    }
#endif
}

uint64_t
DistributedHelper::SumAll(uint64_t value)
{
#ifdef TN_MPI
    if (g_enabled)
    {
        unsigned long long in = value;
        unsigned long long out = 0;
        MPI_Allreduce(&in,
                      &out,
                      1,
                      MPI_UNSIGNED_LONG_LONG,
                      MPI_SUM,
                      MpiInterface::GetCommunicator());
        return out;
    }
#endif
    return value;
}

double
DistributedHelper::MaxAll(double value)
{
#ifdef TN_MPI
    if (g_enabled)
    {
        double out = value;
        MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MpiInterface::GetCommunicator());
        return out;
    }
#endif
    return value;
}

void
DistributedHelper::MergeCollective(Ptr<Collective> collective)
{
    if (!g_enabled)
    {
        return;
    }
    const bool started = collective->IsStarted();
    const bool complete = collective->IsComplete();
    const bool partDone = collective->IsPartComplete();
    // earliest start: the largest negated start of the ranks that started it
    const double start = -MaxAll(started ? -collective->GetStartTime().GetDouble() : -1e300);
    const double end = MaxAll(complete ? collective->GetEndTime().GetDouble() : -1.0);
    const uint64_t incomplete = SumAll(partDone ? 0 : 1);
    const uint64_t issued = SumAll(collective->GetIssuedTransfers());
    const uint64_t ready = SumAll(collective->GetReadyTransfers());
    const uint64_t delivered = SumAll(collective->GetDeliveredBytes());
    collective->MergeRanks(TimeStep(static_cast<uint64_t>(start)),
                           incomplete ? Time(-1) : TimeStep(static_cast<uint64_t>(end)),
                           issued,
                           ready,
                           delivered);
}

int
DistributedHelper::SyncTick(int signal, bool* busy)
{
#ifdef TN_MPI
    if (g_enabled)
    {
        // internal invariant: SyncTick is called only under the granted engine (DistributedHelper
        // picks it)
        NS_ABORT_MSG_IF(g_engine != "granted",
                        "DistributedHelper::SyncTick needs the granted engine");
        long long local[2] = {RoceFrameScheduler::HasEvents() ? 1 : 0,
                              static_cast<long long>(RoceRemoteChannel::GetFramesInFlight())};
        long long all[2] = {0, 0};
        MPI_Allreduce(local, all, 2, MPI_LONG_LONG, MPI_SUM, MpiInterface::GetCommunicator());
        int caught = 0;
        MPI_Allreduce(&signal, &caught, 1, MPI_INT, MPI_MAX, MpiInterface::GetCommunicator());
        *busy = all[0] > 0 || all[1] != 0;
        return caught;
    }
#endif
    *busy = !Simulator::IsFinished();
    return signal;
}

std::vector<int64_t>
DistributedHelper::AllGather(std::vector<int64_t> values)
{
#ifdef TN_MPI
    if (g_enabled)
    {
        const int size = static_cast<int>(GetSize());
        int count = static_cast<int>(values.size());
        std::vector<int> counts(size);
        MPI_Allgather(&count,
                      1,
                      MPI_INT,
                      counts.data(),
                      1,
                      MPI_INT,
                      MpiInterface::GetCommunicator());
        std::vector<int> offsets(size, 0);
        for (int r = 1; r < size; ++r)
        {
            offsets[r] = offsets[r - 1] + counts[r - 1];
        }
        std::vector<long long> mine(values.begin(), values.end());
        std::vector<long long> all(static_cast<std::size_t>(offsets[size - 1] + counts[size - 1]));
        MPI_Allgatherv(mine.data(),
                       count,
                       MPI_LONG_LONG,
                       all.data(),
                       counts.data(),
                       offsets.data(),
                       MPI_LONG_LONG,
                       MpiInterface::GetCommunicator());
        return std::vector<int64_t>(all.begin(), all.end());
    }
#endif
    return values;
}

int64_t
DistributedHelper::Broadcast(int64_t value)
{
#ifdef TN_MPI
    if (g_enabled)
    {
        long long v = value;
        MPI_Bcast(&v, 1, MPI_LONG_LONG, 0, MpiInterface::GetCommunicator());
        return v;
    }
#endif
    return value;
}

bool
DistributedHelper::AllOf(bool ok)
{
    return MaxAll(ok ? 0.0 : 1.0) == 0.0;
}

void
DistributedHelper::QuietUnlessRoot()
{
    if (GetRank() != 0)
    {
        // stdout itself, so that printf and std::cout (synchronised with stdio) both go
        std::fflush(stdout);
        if (!std::freopen("/dev/null", "w", stdout))
        {
            std::cout.rdbuf(nullptr); // without a buffer the stream drops what it is given
        }
    }
}

namespace
{
/// HoldErrors: std::cerr's own buffer while held, and what was written meanwhile
std::streambuf* g_cerrBuffer = nullptr;
std::ostringstream g_held;
} // namespace

void
DistributedHelper::HoldErrors()
{
    if (GetRank() != 0 && !g_cerrBuffer)
    {
        g_held.str("");
        g_cerrBuffer = std::cerr.rdbuf(g_held.rdbuf());
    }
}

std::string
DistributedHelper::ReleaseErrors()
{
    if (!g_cerrBuffer)
    {
        return "";
    }
    std::cerr.rdbuf(g_cerrBuffer);
    g_cerrBuffer = nullptr;
    const std::string held = g_held.str();
    return held.substr(0, held.find('\n'));
}

void
DistributedHelper::ExitUnlessAll(bool ok, const std::string& message, int status)
{
    const double size = GetSize();
    const double rank = GetRank();
    // -(lowest failing rank), or -size when every rank is fine: that rank alone speaks
    const double worst = MaxAll(ok ? -size : -rank);
    if (worst == -size)
    {
        return;
    }
    if (-worst == rank && !message.empty())
    {
        std::cerr << message << std::endl;
    }
    Disable();
    std::exit(status);
}

} // namespace ns3
