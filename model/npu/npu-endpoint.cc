/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "npu-endpoint.h"

#include "collective-executor.h"
#include "collective.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NpuEndpoint");
NS_OBJECT_ENSURE_REGISTERED(NpuEndpoint);

TypeId
NpuEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NpuEndpoint")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<NpuEndpoint>()
            .AddAttribute("Engine",
                          "Collective engine: baseline (NPU-driven) or ace (ACE, ISCA 2021).",
                          EnumValue(BASELINE),
                          MakeEnumAccessor(&NpuEndpoint::m_engine),
                          MakeEnumChecker(BASELINE, "baseline", ACE, "ace"))
            .AddAttribute("MemoryBandwidth",
                          "The NPU's memory bandwidth (default 900 GB/s, the HBM of the ACE "
                          "paper's NPU).",
                          DataRateValue(DataRate("7200Gbps")),
                          MakeDataRateAccessor(&NpuEndpoint::m_memoryBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("ReductionRate",
                          "ACE: bytes per second its reducers reduce (default 512 GB/s).",
                          DataRateValue(DataRate("4096Gbps")),
                          MakeDataRateAccessor(&NpuEndpoint::m_reductionRate),
                          MakeDataRateChecker())
            .AddAttribute("ClockRate",
                          "Compute cycles per second (ASTRA-sim workloads count cycles at "
                          "1 GHz).",
                          UintegerValue(1000000000),
                          MakeUintegerAccessor(&NpuEndpoint::m_clockRate),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("BaselineComputeShare",
                          "Share of the compute units a baseline (NPU-driven) collective takes "
                          "while it runs (ACE takes none).",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&NpuEndpoint::m_computeShare),
                          MakeDoubleChecker<double>(0.0, 0.99))
            .AddAttribute("BaselineMemoryPerNetworkByte",
                          "Memory bytes a baseline collective moves per network byte, for the "
                          "bandwidth it takes from compute kernels (3.5 measured on a ring "
                          "all-reduce, see the training-net-npu suite).",
                          DoubleValue(3.5),
                          MakeDoubleAccessor(&NpuEndpoint::m_baselineMemoryPerByte),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("AceMemoryPerNetworkByte",
                          "The same for ACE (about 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&NpuEndpoint::m_aceMemoryPerByte),
                          MakeDoubleChecker<double>(0.0))
            .AddTraceSource("MemoryTraffic",
                            "Memory bytes read or written by the collective engine.",
                            MakeTraceSourceAccessor(&NpuEndpoint::m_memoryTrace),
                            "ns3::NpuEndpoint::MemoryTracedCallback");
    return tid;
}

NpuEndpoint::NpuEndpoint()
{
    NS_LOG_FUNCTION(this);
}

NpuEndpoint::~NpuEndpoint() = default;

std::string
NpuEndpoint::GetConfigError() const
{
    const std::pair<const char*, uint64_t> rates[] = {
        {"MemoryBandwidth", m_memoryBandwidth.GetBitRate()},
        {"ReductionRate", m_reductionRate.GetBitRate()},
    };
    for (const auto& rate : rates)
    {
        if (rate.second < RoceNetDevice::MIN_DATA_RATE_BPS)
        {
            return std::string("ns3::NpuEndpoint::") + rate.first + " " +
                   std::to_string(rate.second) + "bps is below the lowest rate a fabric takes (" +
                   std::to_string(RoceNetDevice::MIN_DATA_RATE_BPS) + "bps, 1Gbps)";
        }
    }
    // the NIC's injection rate derived from the memory (LimitInjection) must be one a fabric
    // takes too, else RdmaNic refuses it when the fabric is built, after the run is recorded
    const double perByte = m_engine == ACE ? m_aceMemoryPerByte : m_baselineMemoryPerByte;
    if (perByte > 0 && static_cast<double>(m_memoryBandwidth.GetBitRate()) / perByte <
                           static_cast<double>(RoceNetDevice::MIN_DATA_RATE_BPS))
    {
        const char* share =
            m_engine == ACE ? "AceMemoryPerNetworkByte" : "BaselineMemoryPerNetworkByte";
        return "ns3::NpuEndpoint::MemoryBandwidth " +
               std::to_string(m_memoryBandwidth.GetBitRate()) + "bps leaves the NIC " +
               std::to_string(static_cast<uint64_t>(
                   static_cast<double>(m_memoryBandwidth.GetBitRate()) / perByte)) +
               "bps to inject (MemoryBandwidth / " + share +
               "), below the lowest rate a fabric takes (" +
               std::to_string(RoceNetDevice::MIN_DATA_RATE_BPS) + "bps): give at least " +
               std::to_string(static_cast<uint64_t>(
                   std::ceil(perByte * static_cast<double>(RoceNetDevice::MIN_DATA_RATE_BPS)))) +
               "bps";
    }
    if (m_clockRate < MIN_CLOCK_RATE_HZ)
    {
        return "ns3::NpuEndpoint::ClockRate " + std::to_string(m_clockRate) +
               " Hz is below the lowest clock an NPU takes (at least " +
               std::to_string(MIN_CLOCK_RATE_HZ) +
               " Hz, 1 MHz: a kernel of the workload limit, 10^9 cycles, then takes 1000 "
               "simulated seconds)";
    }
    return "";
}

void
NpuEndpoint::DoDispose()
{
    if (m_executor)
    {
        m_executor->SetBytesListener(nullptr);
    }
    m_executor = nullptr;
    Object::DoDispose();
}

void
NpuEndpoint::NotifyNewAggregate()
{
    if (!m_executor)
    {
        Ptr<CollectiveExecutor> exec = GetObject<CollectiveExecutor>();
        if (exec)
        {
            m_executor = exec;
            exec->SetReductionTimeCallback(MakeCallback(&NpuEndpoint::ReductionTime, this));
            exec->SetBytesListener(this);
            exec->TraceConnectWithoutContext("PartStart",
                                             MakeCallback(&NpuEndpoint::PartStart, this));
            exec->TraceConnectWithoutContext("PartEnd", MakeCallback(&NpuEndpoint::PartEnd, this));
            LimitInjection();
        }
    }
    Object::NotifyNewAggregate();
}

void
NpuEndpoint::LimitInjection()
{
    Ptr<RdmaTransport> nic = GetObject<RdmaTransport>(); // the executor may not have found it yet
    if (!nic)
    {
        return;
    }
    const double links = static_cast<double>(nic->GetLineRate());
    const double perByte = m_engine == ACE ? m_aceMemoryPerByte : m_baselineMemoryPerByte;
    double limit =
        perByte > 0 ? static_cast<double>(m_memoryBandwidth.GetBitRate()) / perByte : links;
    if (m_engine == ACE)
    {
        limit = std::min(limit, static_cast<double>(m_reductionRate.GetBitRate()));
    }
    m_injectionLimit = DataRate(limit < links ? static_cast<uint64_t>(limit) : 0);
    // flow level has no injection pacing (FlowNic): the limit is then not applied
    nic->SetAttributeFailSafe("InjectionRate", DataRateValue(m_injectionLimit));
}

Time
NpuEndpoint::ReductionTime(uint64_t bytes)
{
    // baseline: a kernel reads the staged and the local operand and writes the result
    const double seconds =
        m_engine == ACE
            ? static_cast<double>(bytes) * 8.0 / static_cast<double>(m_reductionRate.GetBitRate())
            : 3.0 * static_cast<double>(bytes) * 8.0 /
                  static_cast<double>(m_memoryBandwidth.GetBitRate());
    Time t = Seconds(seconds);
    m_reductionTime += t;
    return t;
}

void
NpuEndpoint::Count(uint64_t bytes, const char* what)
{
    if (bytes == 0)
    {
        return;
    }
    m_memoryBytes += bytes;
    if (!m_memoryTrace.IsEmpty())
    {
        m_memoryTrace(bytes, what); // its std::string is built per call: 2.5 calls a transfer
    }
}

void
NpuEndpoint::TransferSent(uint64_t bytes, bool reduce)
{
    m_networkBytes += bytes;
    if (m_engine == BASELINE)
    {
        Count(bytes, "send"); // the NIC reads the source from memory
    }
}

void
NpuEndpoint::TransferReceived(uint64_t bytes, bool reduce)
{
    if (m_engine == BASELINE)
    {
        // the NIC writes the data; a reduce then reads it and the local operand back and
        // writes the sum
        Count(bytes, reduce ? "reduce" : "receive");
        if (reduce)
        {
            Count(3 * bytes, "reduce");
        }
    }
}

namespace
{
/** Bytes of a rank's input (in = true) or output of a collective (tn-schedule.h). */
uint64_t
RankBytes(Ptr<const Collective> c, uint32_t rank, bool in)
{
    const uint64_t S = c->GetBytes();
    const uint32_t N = c->GetRanks();
    const bool root = rank == c->GetRoot();
    const uint64_t own = tn_slice_of(S, N, rank).length;
    switch (c->GetOperation())
    {
    case TN_COLL_ALL_REDUCE:
    case TN_COLL_ALL_TO_ALL:
        return S;
    case TN_COLL_REDUCE_SCATTER:
        return in ? S : own;
    case TN_COLL_ALL_GATHER:
        return in ? own : S;
    case TN_COLL_BROADCAST:
        return in ? (root ? S : 0) : S;
    case TN_COLL_REDUCE:
        return in ? S : (root ? S : 0);
    default:
        return 0;
    }
}
} // namespace

Time
NpuEndpoint::Compute(uint64_t cycles, uint64_t memoryBytes, ComputeDoneCallback done)
{
    double compute = 1.0;
    double memory = static_cast<double>(m_memoryBandwidth.GetBitRate()) / 8.0;
    if (m_activeParts > 0 && m_executor)
    {
        if (m_engine == BASELINE)
        {
            compute -= m_computeShare;
        }
        // the collective's memory demand: its links at line rate, both directions
        double links = 0;
        Ptr<RdmaTransport> nic = m_executor->GetNic();
        if (nic)
        {
            links = static_cast<double>(nic->GetLineRate()) / 8.0;
        }
        memory -= 2 * links * (m_engine == ACE ? m_aceMemoryPerByte : m_baselineMemoryPerByte);
        memory = std::max(memory, 0.01 * static_cast<double>(m_memoryBandwidth.GetBitRate()) / 8);
    }
    const double seconds =
        std::max(static_cast<double>(cycles) / (static_cast<double>(m_clockRate) * compute),
                 static_cast<double>(memoryBytes) / memory);
    Time t = Seconds(seconds);
    m_computeTime += t;
    if (memoryBytes > 0)
    {
        m_memoryTrace(memoryBytes, "compute");
    }
    if (!done.IsNull())
    {
        Simulator::Schedule(t, &NpuEndpoint::ComputeEnded, done);
    }
    return t;
}

void
NpuEndpoint::ComputeEnded(ComputeDoneCallback done)
{
    done();
}

void
NpuEndpoint::PartStart(Ptr<const Collective> c, uint32_t rank)
{
    ++m_activeParts;
    if (m_engine == ACE)
    {
        Count(RankBytes(c, rank, true), "input");
    }
}

void
NpuEndpoint::PartEnd(Ptr<const Collective> c, uint32_t rank)
{
    NS_ASSERT(m_activeParts > 0);
    --m_activeParts;
    if (m_engine == ACE)
    {
        Count(RankBytes(c, rank, false), "output");
    }
}

} // namespace ns3
