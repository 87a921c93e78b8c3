/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "stats-probe.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(StatsProbe);

TypeId
StatsProbe::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StatsProbe").SetParent<Object>().SetGroupName("TrainingNet");
    return tid;
}

StatsProbe::StatsProbe(StatsRecorder* recorder)
    : m_recorder(recorder)
{
}

StatsProbe::~StatsProbe() = default;

void
StatsProbe::DoDispose()
{
    m_recorder = nullptr;
    Object::DoDispose();
}

Time
StatsProbe::GetLastDataTime() const
{
    return NanoSeconds(-1);
}

void
StatsProbe::GetUnfinished(std::vector<std::string>* /* what */) const
{
}

void
StatsProbe::Sample(int64_t /* startNs */, int64_t /* endNs */)
{
}

void
StatsProbe::WriteSummary(int64_t /* startNs */, int64_t /* endNs */)
{
}

} // namespace ns3
