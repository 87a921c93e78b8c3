/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-queue-pair.h"

#include "rdma-nic.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaQueuePair")
                            .SetParent<Object>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RdmaQueuePair>();
    return tid;
}

RdmaQueuePair::RdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

RdmaQueuePair::~RdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaQueuePair::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_rtoRunning = false;
    m_rtoQueued = false;
    if (m_cc)
    {
        m_cc->Stop();
        m_cc->Dispose();
        m_cc = nullptr;
    }
    m_messages.TakeAll();
    m_nic = nullptr;
    Object::DoDispose();
}

double
RdmaQueuePair::GetRate() const
{
    return m_cc ? m_cc->GetRate() : m_lineRate;
}

double
RdmaQueuePair::GetAlpha()
{
    return m_cc ? m_cc->GetAlpha() : 0.0;
}

void
RdmaQueuePair::SeekSendMessage()
{
    // messages are contiguous in PSN space starting at m_messages.front().firstPsn
    size_t i = 0;
    while (i < m_messages.size() && m_messages[i].firstPsn + m_messages[i].packets <= m_sndNxt)
    {
        ++i;
    }
    m_curMsg = i;
}

void
RdmaQueuePair::WindowChanged(uint64_t bytes)
{
    if (m_nic)
    {
        m_nic->WindowChanged(this, bytes);
    }
}

void
RdmaQueuePair::RateChanged(double rate)
{
    if (m_nic)
    {
        m_nic->RateChanged(this, rate);
    }
}

} // namespace ns3
