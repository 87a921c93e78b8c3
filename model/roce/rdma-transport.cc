/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-transport.h"

#include "roce-fabric.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTransport").SetParent<Object>().SetGroupName("TrainingNet");
    return tid;
}

RdmaTransport::RdmaTransport() = default;

RdmaTransport::~RdmaTransport() = default;

void
RdmaTransport::DoDispose()
{
    m_fabric = nullptr;
    Object::DoDispose();
}

uint64_t
RdmaTransport::PostWrite(uint32_t dst, uint64_t bytes, uint8_t priority, CompletionCallback done)
{
    RdmaWriteRequest request;
    request.dst = dst;
    request.bytes = bytes;
    request.priority = priority;
    return Post(request, done);
}

} // namespace ns3
