/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "network-probes.h"

#include "stats-recorder.h"

#include "ns3/collective-executor.h"
#include "ns3/data-rate.h"
#include "ns3/flow-network.h"
#include "ns3/node.h"
#include "ns3/object-map.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-item.h"
#include "ns3/queue.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-wire.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceSwitchProbe);
NS_OBJECT_ENSURE_REGISTERED(PointToPointPortProbe);
NS_OBJECT_ENSURE_REGISTERED(FlowNetworkPortProbe);
NS_OBJECT_ENSURE_REGISTERED(RdmaNicProbe);

// ---- RoceSwitchProbe ------------------------------------------------------------------

TypeId
RoceSwitchProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitchProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

RoceSwitchProbe::RoceSwitchProbe(StatsRecorder* recorder, Ptr<RoceSwitch> sw, uint32_t node)
    : StatsProbe(recorder),
      m_switch(sw),
      m_node(node)
{
}

Ptr<RoceSwitchProbe>
RoceSwitchProbe::Attach(StatsRecorder* recorder, Ptr<Node> node, uint32_t topoId)
{
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    if (!sw)
    {
        return nullptr;
    }
    Ptr<RoceSwitchProbe> probe = CreateObject<RoceSwitchProbe>(recorder, sw, topoId);
    recorder->AddPorts(topoId, sw, PeekPointer(sw));
    if (recorder->RecordsDrops())
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            sw->GetPort(p)->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(&RoceSwitchProbe::DeviceDrop, PeekPointer(probe), p));
        }
    }
    if (recorder->RecordsPfcEvents())
    {
        sw->TraceConnectWithoutContext("PfcPause", MakeCallback(&RoceSwitchProbe::PfcPause, probe));
        sw->TraceConnectWithoutContext("PfcResume",
                                       MakeCallback(&RoceSwitchProbe::PfcResume, probe));
    }
    if (recorder->RecordsDrops())
    {
        sw->TraceConnectWithoutContext("Drop", MakeCallback(&RoceSwitchProbe::SwitchDrop, probe));
    }
    return probe;
}

uint32_t
RoceSwitchProbe::GetNPorts() const
{
    return m_switch->GetNPorts();
}

void
RoceSwitchProbe::DoDispose()
{
    m_switch = nullptr;
    StatsProbe::DoDispose();
}

void
RoceSwitchProbe::PfcPause(uint32_t port, uint8_t priority, bool sent)
{
    m_recorder->WritePfcEvent(
        {Simulator::Now().GetNanoSeconds(), m_node, port, priority, true, sent});
}

void
RoceSwitchProbe::PfcResume(uint32_t port, uint8_t priority, bool sent)
{
    m_recorder->WritePfcEvent(
        {Simulator::Now().GetNanoSeconds(), m_node, port, priority, false, sent});
}

void
RoceSwitchProbe::SwitchDrop(Ptr<const Packet> packet,
                            uint32_t port,
                            uint8_t priority,
                            const std::string& reason)
{
    m_recorder->WriteDrop({Simulator::Now().GetNanoSeconds(),
                           m_node,
                           port == RoceSwitch::NO_PORT ? -1 : int64_t(port),
                           priority,
                           "switch",
                           reason.c_str(),
                           packet ? packet->GetSize() : 0});
}

void
RoceSwitchProbe::DeviceDrop(RoceSwitchProbe* probe,
                            uint32_t port,
                            Ptr<const Packet> packet,
                            const std::string& reason)
{
    probe->m_recorder->WriteDrop({Simulator::Now().GetNanoSeconds(),
                                  probe->m_node,
                                  int64_t(port),
                                  -1,
                                  "device",
                                  reason.c_str(),
                                  packet ? packet->GetSize() : 0});
}

// ---- PointToPointPortProbe --------------------------------------------------------------

namespace
{

/**
 * The root queue disc the internet stack's TrafficControlLayer put in front of device d of a
 * node, or null. Found by TypeId name and attribute, so that this module does not link
 * traffic-control: that module's tests need the internet module, which an ns-3 tree built
 * for training-net alone does not have.
 */
Ptr<Object>
RootQueueDisc(Ptr<Node> node, uint32_t d)
{
    TypeId tcId;
    if (!TypeId::LookupByNameFailSafe("ns3::TrafficControlLayer", &tcId))
    {
        return nullptr;
    }
    Ptr<Object> tc = node->GetObject<Object>(tcId);
    if (!tc)
    {
        return nullptr;
    }
    ObjectMapValue roots;
    tc->GetAttribute("RootQueueDiscList", roots);
    return d < roots.GetN() ? roots.Get(d) : nullptr;
}

} // namespace

TypeId
PointToPointPortProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PointToPointPortProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

PointToPointPortProbe::PointToPointPortProbe(StatsRecorder* recorder)
    : StatsProbe(recorder)
{
}

Ptr<PointToPointPortProbe>
PointToPointPortProbe::Attach(StatsRecorder* recorder, Ptr<Node> node, uint32_t topoId)
{
    Ptr<PointToPointPortProbe> probe = CreateObject<PointToPointPortProbe>(recorder);
    PointToPointPortProbe* self = PeekPointer(probe);
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
        if (!dev)
        {
            continue;
        }
        const uint32_t port = probe->m_ports.size();
        Port s;
        s.dev = dev;
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        s.rateBps = rate.Get().GetBitRate();
        probe->m_ports.push_back(s);
        // counters by trace: the device keeps none
        dev->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeBoundCallback(&PointToPointPortProbe::TxBegin, self, port));
        // a full device queue is reported once, by MacTxDrop (not also by the queue's Drop)
        for (const char* trace : {"MacTxDrop", "PhyTxDrop", "PhyRxDrop"})
        {
            dev->TraceConnectWithoutContext(
                trace,
                MakeBoundCallback(&PointToPointPortProbe::Drop, self, port));
        }
        Ptr<Object> queueDisc = RootQueueDisc(node, d);
        if (queueDisc)
        {
            queueDisc->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(&PointToPointPortProbe::QueueDiscDrop, self, port));
            queueDisc->TraceConnectWithoutContext(
                "BytesInQueue",
                MakeBoundCallback(&PointToPointPortProbe::QueueDiscBytes, self, port));
        }
    }
    recorder->AddPorts(topoId, probe, self);
    return probe;
}

uint32_t
PointToPointPortProbe::GetNCounterPorts() const
{
    return m_ports.size();
}

void
PointToPointPortProbe::ReadPortCounters(uint32_t port, PortCounterValues* c) const
{
    const Port& s = m_ports[port];
    *c = PortCounterValues();
    c->txBytes = s.txBytes;
    c->txPackets = s.txPackets;
    c->queueBytes[0] = s.dev->GetQueue()->GetNBytes() + s.queueDiscBytes;
    c->drops = s.drops;
    c->busyNs = s.busyNs - std::max<int64_t>(0, s.txEndNs - Simulator::Now().GetNanoSeconds());
    c->dataAtNs = s.txStartNs; // an ns-3 study's frames all carry its traffic
}

void
PointToPointPortProbe::DoDispose()
{
    m_ports.clear();
    StatsProbe::DoDispose();
}

void
PointToPointPortProbe::TxBegin(PointToPointPortProbe* probe, uint32_t port, Ptr<const Packet> p)
{
    Port& s = probe->m_ports[port];
    s.txBytes += p->GetSize();
    ++s.txPackets;
    // the device's own frame time
    const int64_t ns = DataRate(s.rateBps).CalculateBytesTxTime(p->GetSize()).GetNanoSeconds();
    s.busyNs += ns;
    s.txStartNs = Simulator::Now().GetNanoSeconds();
    s.txEndNs = s.txStartNs + ns;
}

void
PointToPointPortProbe::Drop(PointToPointPortProbe* probe, uint32_t port, Ptr<const Packet>)
{
    ++probe->m_ports[port].drops;
}

void
PointToPointPortProbe::QueueDiscDrop(PointToPointPortProbe* probe,
                                     uint32_t port,
                                     Ptr<const QueueDiscItem>)
{
    ++probe->m_ports[port].drops;
}

void
PointToPointPortProbe::QueueDiscBytes(PointToPointPortProbe* probe,
                                      uint32_t port,
                                      uint32_t,
                                      uint32_t bytes)
{
    probe->m_ports[port].queueDiscBytes = bytes;
}

// ---- FlowNetworkPortProbe ---------------------------------------------------------------

TypeId
FlowNetworkPortProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowNetworkPortProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

FlowNetworkPortProbe::FlowNetworkPortProbe(StatsRecorder* recorder,
                                           Ptr<FlowNetwork> network,
                                           uint32_t mtu,
                                           uint32_t node)
    : StatsProbe(recorder),
      m_network(network),
      m_packetWire(mtu + RoceWire::DATA_OVERHEAD)
{
    uint32_t count = 0;
    const uint32_t* out = tn_topology_out_links(network->GetTopology(), node, &count);
    m_links.assign(out, out + count);
    for (uint32_t link : m_links)
    {
        m_rateBps.push_back(static_cast<double>(network->GetLinkRate(link)));
    }
}

Ptr<FlowNetworkPortProbe>
FlowNetworkPortProbe::Attach(StatsRecorder* recorder,
                             Ptr<FlowNetwork> network,
                             uint32_t mtu,
                             uint32_t topoId)
{
    Ptr<FlowNetworkPortProbe> probe =
        CreateObject<FlowNetworkPortProbe>(recorder, network, mtu, topoId);
    recorder->AddPorts(topoId, probe, PeekPointer(probe));
    return probe;
}

uint32_t
FlowNetworkPortProbe::GetNCounterPorts() const
{
    return m_links.size();
}

bool
FlowNetworkPortProbe::IsPortCopy(uint32_t port) const
{
    const tn_symmetry* sym = m_network->GetSymmetry();
    return sym && tn_symmetry_canonical_link(sym, m_links[port]) != m_links[port];
}

PortActivity*
FlowNetworkPortProbe::GetPortActivity(uint32_t port, uint32_t* key) const
{
    *key = m_network->GetCarrierLink(m_links[port]);
    return PeekPointer(m_network);
}

void
FlowNetworkPortProbe::ReadPortCounters(uint32_t port, PortCounterValues* c) const
{
    *c = PortCounterValues();
    // the wire bytes the fluid rates carried, as frames of full packets
    double wire = 0;
    m_network->GetLinkCounters(m_links[port], &wire, &c->dataAtNs);
    c->txPackets = static_cast<uint64_t>(std::ceil(wire / m_packetWire - 1e-9));
    const double frames = wire - double(c->txPackets) * RoceNetDevice::WIRE_OVERHEAD;
    c->txBytes = frames > 0 ? static_cast<uint64_t>(frames + 0.5) : 0;
    // the transmitter is busy for the wire bits at line rate
    c->busyNs = static_cast<int64_t>(std::llround(wire * 8e9 / m_rateBps[port]));
}

void
FlowNetworkPortProbe::DoDispose()
{
    m_network = nullptr;
    StatsProbe::DoDispose();
}

// ---- RdmaNicProbe -----------------------------------------------------------------------

TypeId
RdmaNicProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNicProbe").SetParent<StatsProbe>().SetGroupName("TrainingNet");
    return tid;
}

RdmaNicProbe::RdmaNicProbe(StatsRecorder* recorder, Ptr<RdmaTransport> nic)
    : StatsProbe(recorder),
      m_nic(nic)
{
}

Ptr<RdmaNicProbe>
RdmaNicProbe::Attach(StatsRecorder* recorder, Ptr<Node> node)
{
    Ptr<RdmaTransport> nic = node->GetObject<RdmaTransport>();
    if (!nic)
    {
        return nullptr;
    }
    Ptr<RdmaNicProbe> probe = CreateObject<RdmaNicProbe>(recorder, nic);
    if (recorder->RecordsFlows())
    {
        nic->TraceConnectWithoutContext("MessageComplete",
                                        MakeCallback(&RdmaNicProbe::MessageComplete, probe));
    }
    return probe;
}

Time
RdmaNicProbe::GetLastDataTime() const
{
    return m_nic ? m_nic->GetLastDataRxTime() : NanoSeconds(-1);
}

void
RdmaNicProbe::DoDispose()
{
    m_nic = nullptr;
    StatsProbe::DoDispose();
}

void
RdmaNicProbe::MessageComplete(const RdmaMessageRecord& r)
{
    tn_db_flow row{};
    row.src_node = r.src;
    row.message = r.id;
    row.dst_node = r.dst;
    row.qpn = r.qpn;
    row.priority = r.priority;
    row.udp_sport = r.udpSourcePort;
    row.lane = r.lane;
    row.bytes = r.bytes;
    row.start_ns = r.start.GetNanoSeconds();
    row.end_ns = r.end.GetNanoSeconds();
    row.ideal_fct_ns = m_recorder->GetIdealFct(r.src, r.dst, r.bytes);
    row.retx_bytes = r.retransmittedBytes;
    // collective data carries the collective's id as R_Key (notifications have the top bit)
    row.collective = (r.remoteKey != 0 && !(r.remoteKey & CollectiveExecutor::NOTIFY_KEY_BIT) &&
                      m_recorder->IsCollectiveFollowed(r.remoteKey))
                         ? int64_t(r.remoteKey)
                         : -1;
    m_recorder->WriteFlow(row);
}

} // namespace ns3
