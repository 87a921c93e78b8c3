/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitchMmu");

NS_OBJECT_ENSURE_REGISTERED(RoceSwitchMmu);

TypeId
RoceSwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitchMmu")
            .SetParent<Object>()
            .SetGroupName("TrainingNet")
            .AddConstructor<RoceSwitchMmu>()
            .AddAttribute("BufferSize",
                          "Shared packet buffer of the switch in bytes; 0 (default): scaled "
                          "with the ports as switch chips are, BufferTimePerPort of line rate "
                          "per port (1 MB per 400 Gb/s port), at least 32 MiB",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitchMmu::SetBufferSize,
                                               &RoceSwitchMmu::GetBufferSizeAttribute),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BufferTimePerPort",
                          "With BufferSize 0: buffer bytes per port = its rate times this "
                          "(20 us: 1 MB per 400 Gb/s, 250 KB per 100 Gb/s)",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RoceSwitchMmu::m_bufferTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Mtu",
                          "RoCE payload MTU used to size reserve, headroom and resume offset",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_mtu),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("Reserve",
                          "Guaranteed bytes per (ingress port, priority); 0 = 2 * (Mtu + 98), "
                          "lowered so that all reserves take at most BufferSize / 4",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_reserve),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ResumeOffset",
                          "RESUME needs shared use + this <= threshold; 0 = 2 * (Mtu + 98)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_resumeOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Headroom",
                          "Headroom bytes per (ingress port, lossless priority); 0 = computed "
                          "per port: 2 * (Mtu + 98) + PFC response + 2 * rate * delay",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_headroomAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HeadroomPoolSize",
                          "0: each (port, lossless priority) has its own pre-allocated headroom. "
                          "> 0: one headroom pool of this many bytes is pre-allocated instead, "
                          "shared by all ports (each still bounded by its own headroom)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_poolSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Layout",
                          "Buffer layout: training-net (this model's reserve, headroom and "
                          "resume), hpcc (alibaba-edu's SwitchMmu) or ns3-datacenter "
                          "(inet-tub's dynamic threshold); see the class description. Set "
                          "before ports are added",
                          EnumValue(LAYOUT_OWN),
                          MakeEnumAccessor(&RoceSwitchMmu::m_layout),
                          MakeEnumChecker(LAYOUT_OWN,
                                          "training-net",
                                          LAYOUT_HPCC,
                                          "hpcc",
                                          LAYOUT_NS3DATACENTER,
                                          "ns3-datacenter"))
            .AddAttribute("Alpha",
                          "Dynamic threshold factor: threshold = Alpha * free buffer",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&RoceSwitchMmu::m_alpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PfcResponseQuanta",
                          "PFC response (bytes still arriving after a PAUSE is sent, beyond "
                          "MTUs and propagation) in quanta (64 bytes) at 100 Gb/s; scaled "
                          "linearly with the port rate",
                          UintegerValue(394),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_pfcResponseQuanta),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable packets at egress dequeue",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitchMmu::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "ECN Kmin in bytes (at 25 Gb/s if EcnScaleWithRate)",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_kmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmax",
                          "ECN Kmax in bytes (at 25 Gb/s if EcnScaleWithRate)",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&RoceSwitchMmu::m_kmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "ECN marking probability at Kmax",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&RoceSwitchMmu::m_pmax),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("EcnScaleWithRate",
                          "Scale Kmin and Kmax by port rate / 25 Gb/s",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitchMmu::m_ecnScale),
                          MakeBooleanChecker())
            .AddTraceSource("BufferOccupancy",
                            "Bytes in the shared buffer",
                            MakeTraceSourceAccessor(&RoceSwitchMmu::m_used),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Drop",
                            "A packet was refused (port, priority, bytes, reason: "
                            "LossyThreshold, BufferFull or HeadroomOverflow)",
                            MakeTraceSourceAccessor(&RoceSwitchMmu::m_dropTrace),
                            "ns3::RoceSwitchMmu::DropTracedCallback");
    return tid;
}

RoceSwitchMmu::RoceSwitchMmu()
    : m_used(0)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

RoceSwitchMmu::~RoceSwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

void
RoceSwitchMmu::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_rng = nullptr;
    Object::DoDispose();
}

int64_t
RoceSwitchMmu::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
RoceSwitchMmu::AddPort(DataRate rate, Time delay, uint8_t pfcEnableMask)
{
    NS_LOG_FUNCTION(this << rate << delay << unsigned(pfcEnableMask));
    // the default reserve depends on the port count: changing it under queued bytes would
    // corrupt the accounting
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_used > 0, "RoceSwitchMmu::AddPort: ports are added before traffic");
    const uint32_t port = m_portRate.size();
    const uint64_t bps = rate.GetBitRate();
    const uint64_t frame = m_mtu + PACKET_OVERHEAD;
    const double response = m_pfcResponseQuanta * 64.0 * (double(bps) / 100e9);
    const double propagation = 2.0 * double(bps) / 8.0 * delay.GetSeconds();
    // the family sizes headroom as whole bytes of rate x delay, times 3 (its config scripts)
    const uint64_t headroom =
        m_layout == LAYOUT_OWN
            ? 2 * frame + static_cast<uint64_t>(response + propagation + 0.5)
            : bps * static_cast<uint64_t>(delay.GetNanoSeconds()) / 8 / 1000000000 * 3;
    m_portRate.push_back(bps);
    m_headroomSize.push_back(headroom);
    m_portBuffer += double(bps) / 8.0 * m_bufferTime.GetSeconds();
    UpdateBufferSize();
    m_lossless.push_back(pfcEnableMask);
    const double scale = m_ecnScale ? double(bps) / 25e9 : 1.0;
    m_kminPort.push_back(static_cast<uint64_t>(m_kmin * scale));
    m_kmaxPort.push_back(static_cast<uint64_t>(m_kmax * scale));
    m_ingress.resize(m_ingress.size() + NUM_PRIORITIES, 0);
    m_headroom.resize(m_headroom.size() + NUM_PRIORITIES, 0);
    uint32_t lossless = 0;
    for (uint32_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        lossless += (pfcEnableMask >> p) & 1;
    }
    // the family pre-allocates one headroom per port (hpcc) or one per priority (ns3-datacenter)
    const uint64_t allocated = m_layout == LAYOUT_HPCC            ? 1
                               : m_layout == LAYOUT_NS3DATACENTER ? NUM_PRIORITIES
                                                                  : lossless;
    m_totalHeadroom += headroom * allocated;
    m_losslessQueues += lossless;
    const uint64_t layout = GetTotalReserve() + GetTotalHeadroom();
    if (layout > m_bufferSize)
    {
        NS_LOG_WARN("RoceSwitchMmu: reserves + headrooms ("
                    << layout << ") exceed BufferSize " << m_bufferSize
                    << ": no shared pool; set HeadroomPoolSize or a larger BufferSize");
    }
    NS_LOG_DEBUG("port " << port << " rate " << bps << " headroom " << headroom << " kmin "
                         << m_kminPort.back() << " kmax " << m_kmaxPort.back());
    return port;
}

void
RoceSwitchMmu::SetBufferSize(uint64_t bytes)
{
    // internal invariant: the call order of the API (set up once, before use), which the helpers
    // keep
    NS_ABORT_MSG_IF(m_used > 0, "RoceSwitchMmu: BufferSize changed under traffic");
    m_bufferAttr = bytes;
    UpdateBufferSize();
}

uint64_t
RoceSwitchMmu::GetBufferSizeAttribute() const
{
    return m_bufferAttr;
}

void
RoceSwitchMmu::UpdateBufferSize()
{
    // switch chips carry about 1 MB per 400 Gb/s port (Tomahawk 4: 113 MB for 64 x 400G): a
    // fixed buffer would leave a switch of hundreds of fast ports nothing but headroom
    m_bufferSize = m_bufferAttr > 0
                       ? m_bufferAttr
                       : std::max<uint64_t>(MIN_AUTO_BUFFER, static_cast<uint64_t>(m_portBuffer));
}

uint64_t
RoceSwitchMmu::GetReserve() const
{
    if (m_reserve > 0)
    {
        return m_reserve;
    }
    if (m_layout != LAYOUT_OWN)
    {
        return m_layout == LAYOUT_HPCC ? HPCC_RESERVE : 0;
    }
    const uint64_t frame = m_mtu + PACKET_OVERHEAD;
    const uint64_t queues = uint64_t(NUM_PRIORITIES) * m_portRate.size();
    // two frames keep every (port, priority) moving; on switches with many ports that would
    // take the whole buffer (2048 ports: 137 MB), so the reserves are capped at a quarter
    return queues == 0 ? 2 * frame : std::min<uint64_t>(2 * frame, m_bufferSize / 4 / queues);
}

uint64_t
RoceSwitchMmu::GetResumeOffset() const
{
    if (m_resumeOffset > 0)
    {
        return m_resumeOffset;
    }
    return m_layout == LAYOUT_HPCC            ? HPCC_RESUME_OFFSET
           : m_layout == LAYOUT_NS3DATACENTER ? NS3DC_RESUME_OFFSET
                                              : 2 * (uint64_t(m_mtu) + PACKET_OVERHEAD);
}

uint64_t
RoceSwitchMmu::GetTotalHeadroom() const
{
    if (m_poolSize > 0)
    {
        return m_poolSize;
    }
    return m_headroomAttr > 0 ? m_headroomAttr * m_losslessQueues : m_totalHeadroom;
}

uint64_t
RoceSwitchMmu::GetFree() const
{
    if (m_layout == LAYOUT_NS3DATACENTER)
    {
        // ns3-datacenter's ingress pool is the unsigned buffer - headrooms: where the headrooms
        // of its 8 priorities exceed the buffer (a 10-port leaf with 400 Gb/s uplinks in 4 MiB)
        // it wraps to about 2^64, a pool that never fills, so it never pauses there
        const uint64_t pool = m_bufferSize - GetTotalReserve() - GetTotalHeadroom();
        return pool > m_sharedUsed ? pool - m_sharedUsed : 0;
    }
    // the family's control frames (its queue 0) bypass the buffer accounting
    const uint64_t control = m_layout == LAYOUT_OWN ? m_controlUsed : 0;
    const uint64_t taken = GetTotalReserve() + GetTotalHeadroom() + m_sharedUsed + control;
    return taken >= m_bufferSize ? 0 : m_bufferSize - taken;
}

namespace
{
/// alpha x bytes as bytes, held below 2^64 (ns3-datacenter's wrapped pool, a large Alpha)
uint64_t
ScaleBytes(double alpha, uint64_t bytes)
{
    const double t = alpha * static_cast<double>(bytes);
    return t >= 1.8e19 ? UINT64_C(18000000000000000000) : static_cast<uint64_t>(t);
}
} // namespace

uint64_t
RoceSwitchMmu::GetThreshold() const
{
    return ScaleBytes(m_alpha, GetFree());
}

uint64_t
RoceSwitchMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    const uint32_t idx = port * NUM_PRIORITIES + priority;
    return m_ingress[idx] + m_headroom[idx];
}

bool
RoceSwitchMmu::Admit(uint32_t port, uint8_t priority, uint32_t bytes, const char** reason)
{
    NS_ASSERT(port < m_portRate.size() && priority < NUM_PRIORITIES);
    const uint32_t idx = port * NUM_PRIORITIES + priority;
    const uint64_t used = m_ingress[idx];
    const uint64_t reserve = GetReserve();
    if (used + bytes <= reserve)
    {
        m_ingress[idx] = used + bytes;
    }
    else
    {
        const uint64_t shared = used > reserve ? used - reserve : 0;
        const uint64_t sharedAdd = used + bytes - std::max(used, reserve);
        const bool ns3dc = m_layout == LAYOUT_NS3DATACENTER;
        // ns3-datacenter takes T after the packet joined the shared pool, and keeps a queue in
        // its headroom until that drains
        const uint64_t free = GetFree();
        const uint64_t threshold =
            ns3dc ? ScaleBytes(m_alpha, free > bytes ? free - bytes : 0) : GetThreshold();
        const bool lossless = (m_lossless[port] >> priority) & 1;
        if (shared + sharedAdd > threshold || (ns3dc && lossless && m_headroom[idx] > 0))
        {
            if (!lossless)
            {
                *reason = "LossyThreshold";
                ++m_drops;
                m_dropTrace(port, priority, bytes, *reason);
                return false;
            }
            if (m_headroom[idx] + bytes > GetHeadroomSize(port) ||
                (m_poolSize > 0 && m_poolUsed + bytes > m_poolSize))
            {
                // no memory is left for it: the headroom is smaller than the bytes in flight
                *reason = "HeadroomOverflow";
                ++m_drops;
                ++m_headroomOverflows;
                NS_LOG_WARN("headroom overflow on port " << port << " priority "
                                                         << unsigned(priority));
                m_dropTrace(port, priority, bytes, *reason);
                return false;
            }
            m_headroom[idx] += bytes;
            if (m_poolSize > 0)
            {
                m_poolUsed += bytes;
            }
        }
        else
        {
            if (!lossless && m_used + bytes > m_bufferSize)
            {
                *reason = "BufferFull";
                ++m_drops;
                m_dropTrace(port, priority, bytes, *reason);
                return false;
            }
            m_ingress[idx] = used + bytes;
            m_sharedUsed += sharedAdd;
        }
    }
    m_used = m_used + bytes;
    if (m_used > m_maxUsed)
    {
        m_maxUsed = m_used;
    }
    return true;
}

void
RoceSwitchMmu::Release(uint32_t port, uint8_t priority, uint32_t bytes)
{
    const uint32_t idx = port * NUM_PRIORITIES + priority;
    const uint64_t fromHeadroom = std::min<uint64_t>(m_headroom[idx], bytes);
    m_headroom[idx] -= fromHeadroom;
    if (m_poolSize > 0)
    {
        m_poolUsed -= std::min(m_poolUsed, fromHeadroom);
    }
    const uint64_t rest = bytes - fromHeadroom;
    const uint64_t used = m_ingress[idx];
    NS_ASSERT_MSG(used >= rest, "RoceSwitchMmu: release of unaccounted bytes");
    const uint64_t reserve = GetReserve();
    const uint64_t shared = used > reserve ? used - reserve : 0;
    m_sharedUsed -= std::min(shared, rest);
    m_ingress[idx] = used - rest;
    m_used = m_used - bytes;
}

void
RoceSwitchMmu::AdmitControl(uint32_t bytes)
{
    m_controlUsed += bytes;
    m_used = m_used + bytes;
    if (m_used > m_maxUsed)
    {
        m_maxUsed = m_used;
    }
}

void
RoceSwitchMmu::ReleaseControl(uint32_t bytes)
{
    m_controlUsed -= bytes;
    m_used = m_used - bytes;
}

bool
RoceSwitchMmu::ShouldPause(uint32_t port, uint8_t priority) const
{
    const uint32_t idx = port * NUM_PRIORITIES + priority;
    if (m_headroom[idx] > 0)
    {
        return true;
    }
    if (m_layout == LAYOUT_NS3DATACENTER)
    {
        return false; // it pauses only once a packet went to the headroom
    }
    const uint64_t shared = GetSharedBytes(port, priority);
    return shared > 0 && shared >= GetThreshold();
}

bool
RoceSwitchMmu::ShouldResume(uint32_t port, uint8_t priority) const
{
    const uint32_t idx = port * NUM_PRIORITIES + priority;
    if (m_headroom[idx] > 0)
    {
        return false;
    }
    const uint64_t shared = GetSharedBytes(port, priority);
    const uint64_t xon = m_layout == LAYOUT_NS3DATACENTER ? NS3DC_XON : 1;
    return shared < xon || shared + GetResumeOffset() <= GetThreshold();
}

double
RoceSwitchMmu::GetMarkProbability(uint32_t port, uint64_t queueBytes) const
{
    if (!m_ecnEnabled)
    {
        return 0;
    }
    const uint64_t kmin = m_kminPort[port];
    const uint64_t kmax = m_kmaxPort[port];
    if (queueBytes <= kmin)
    {
        return 0;
    }
    if (queueBytes > kmax || kmax <= kmin)
    {
        return 1;
    }
    return m_pmax * double(queueBytes - kmin) / double(kmax - kmin);
}

bool
RoceSwitchMmu::ShouldMarkEcn(uint32_t port, uint64_t queueBytes)
{
    if (!m_ecnEnabled || queueBytes <= m_kminPort[port])
    {
        return false;
    }
    const double p = GetMarkProbability(port, queueBytes);
    return p >= 1 || m_rng->GetValue() < p;
}

} // namespace ns3
