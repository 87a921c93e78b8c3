/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "distributed-helper.h"

#include "ns3/abort.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#include <cstdlib>
#include <iostream>

#ifdef TN_MPI
#include "ns3/mpi-interface.h"

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
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
           std::getenv("PMIX_RANK");
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
    GlobalValue::Bind("SimulatorImplementationType", StringValue(type));
    MpiInterface::Enable(argc, argv);
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
        g_enabled = false;
    }
#endif
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

void
DistributedHelper::ExitUnlessAll(bool ok, const std::string& message)
{
    const double size = GetSize();
    const double rank = GetRank();
    // -(lowest failing rank), or -size when every rank is fine: that rank alone speaks
    const double worst = MaxAll(ok ? -size : -rank);
    if (worst == -size)
    {
        return;
    }
    if (-worst == rank)
    {
        std::cerr << message << std::endl;
    }
    Disable();
    std::exit(1);
}

} // namespace ns3
