/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-link-helper.h"

#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#ifdef TN_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/roce-remote-channel.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceLinkHelper");

namespace
{
/**
 * The one pcap writer of RoCE devices: a file named name, hooked to the device's frames with
 * the ICRC computed where bytes leave the model (RoceIcrcTrailer).
 * \return the file, or null with *error set
 */
Ptr<PcapFileWrapper>
OpenRocePcap(const std::string& name, Ptr<RoceNetDevice> device, std::string* error)
{
    Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
    file->Open(name, std::ios::out);
    if (file->Fail())
    {
        *error = name + ": cannot open for writing";
        return nullptr;
    }
    file->Init(PcapHelper::DLT_EN10MB);
    if (file->Fail())
    {
        *error = name + ": writing failed";
        return nullptr;
    }
    device->TraceConnectWithoutContext("Sniffer",
                                       MakeBoundCallback(&RoceIcrcTrailer::PcapSink, file));
    return file;
}

/// ascii sink for queue events
void
AsciiQueueEvent(Ptr<OutputStreamWrapper> stream,
                std::string prefixContext,
                Ptr<const Packet> p,
                uint8_t queue)
{
    *stream->GetStream() << prefixContext.substr(0, 1) << " " << Simulator::Now().GetSeconds()
                         << " " << prefixContext.substr(2) << " q=" << unsigned(queue) << " " << *p
                         << std::endl;
}

/// ascii sink for receive events
void
AsciiRx(Ptr<OutputStreamWrapper> stream, std::string context, Ptr<const Packet> p)
{
    *stream->GetStream() << "r " << Simulator::Now().GetSeconds() << " " << context << " " << *p
                         << std::endl;
}

/// ascii sink for drops
void
AsciiDrop(Ptr<OutputStreamWrapper> stream,
          std::string context,
          Ptr<const Packet> p,
          const std::string& reason)
{
    *stream->GetStream() << "d " << Simulator::Now().GetSeconds() << " " << context << " " << reason
                         << " " << *p << std::endl;
}

/// ascii sink for PFC
void
AsciiPfc(Ptr<OutputStreamWrapper> stream,
         std::string prefixContext,
         uint8_t priority,
         bool pause,
         uint16_t quanta)
{
    *stream->GetStream() << prefixContext.substr(0, 1) << " " << Simulator::Now().GetSeconds()
                         << " " << prefixContext.substr(2) << " pfc priority=" << unsigned(priority)
                         << (pause ? " pause" : " resume") << " quanta=" << quanta << std::endl;
}
} // namespace

RoceLinkHelper::RoceLinkHelper()
{
    m_deviceFactory.SetTypeId("ns3::RoceNetDevice");
    m_channelFactory.SetTypeId("ns3::RoceChannel");
    m_switchFactory.SetTypeId("ns3::RoceSwitch");
}

void
RoceLinkHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
RoceLinkHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
RoceLinkHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

Ptr<RoceSwitch>
RoceLinkHelper::GetOrInstallSwitch(Ptr<Node> node)
{
    Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
    if (!sw)
    {
        sw = m_switchFactory.Create<RoceSwitch>();
        node->AggregateObject(sw);
    }
    return sw;
}

NetDeviceContainer
RoceLinkHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    NS_LOG_FUNCTION(this << a << b);
    const bool remote = a->GetSystemId() != b->GetSystemId();
    Ptr<RoceChannel> ch;
    if (remote)
    {
#ifdef TN_MPI
        ObjectFactory remoteFactory = m_channelFactory;
        remoteFactory.SetTypeId("ns3::RoceRemoteChannel");
        ch = remoteFactory.Create<RoceChannel>();
        // internal invariant: RoceHelper builds every link with a latency of at least 1 ns (the
        // core refuses 0)
        NS_ABORT_MSG_IF(ch->GetDelay().IsZero(),
                        "RoceLinkHelper: the link between node "
                            << a->GetId() << " (rank " << a->GetSystemId() << ") and node "
                            << b->GetId() << " (rank " << b->GetSystemId()
                            << ") has zero delay; a link between ranks needs a positive delay "
                               "(the smallest such delay is the lookahead)");
#else
        NS_FATAL_ERROR("RoceLinkHelper: nodes " << a->GetId() << " and " << b->GetId()
                                                << " are on different ranks, but training-net "
                                                   "was built without MPI");
#endif
    }
    else
    {
        ch = m_channelFactory.Create<RoceChannel>();
    }
    NetDeviceContainer devs;
    Ptr<Node> nodes[2] = {a, b};
    for (auto& node : nodes)
    {
        Ptr<RoceNetDevice> dev = m_deviceFactory.Create<RoceNetDevice>();
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        dev->Attach(ch);
        devs.Add(dev);
#ifdef TN_MPI
        if (remote && node->GetSystemId() == MpiInterface::GetSystemId())
        {
            // frames from the other rank arrive through MPI
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(
                MakeBoundCallback(&RoceRemoteChannel::ReceiveFromRank, dev));
            dev->AggregateObject(receiver);
        }
#endif
    }
    for (uint32_t k = 0; k < 2; ++k)
    {
        GetOrInstallSwitch(nodes[k])->AddPort(DynamicCast<RoceNetDevice>(devs.Get(k)));
    }
    return devs;
}

void
RoceLinkHelper::EnablePcapInternal(std::string prefix,
                                   Ptr<NetDevice> nd,
                                   bool promiscuous,
                                   bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("RoceLinkHelper::EnablePcapInternal(): not a RoceNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    std::string error;
    // aborts on a file it cannot write, as PcapHelper::CreateFile does (RocePcapFiles reports)
    // internal invariant: as ns-3's PcapHelper: the pcap programs check the folder is writable
    // first
    NS_ABORT_MSG_UNLESS(OpenRocePcap(filename, device, &error), error);
}

void
RoceLinkHelper::EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                                    std::string prefix,
                                    Ptr<NetDevice> nd,
                                    bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("RoceLinkHelper::EnableAsciiInternal(): not a RoceNetDevice");
        return;
    }
    Packet::EnablePrinting();
    if (!stream)
    {
        AsciiTraceHelper asciiTraceHelper;
        std::string filename =
            explicitFilename ? prefix : asciiTraceHelper.GetFilenameFromDevice(prefix, device);
        stream = asciiTraceHelper.CreateFileStream(filename);
    }
    std::ostringstream ctx;
    ctx << "/NodeList/" << device->GetNode()->GetId() << "/DeviceList/" << device->GetIfIndex();
    const std::string c = ctx.str();
    device->TraceConnectWithoutContext("Enqueue",
                                       MakeBoundCallback(&AsciiQueueEvent, stream, "+ " + c));
    device->TraceConnectWithoutContext("Dequeue",
                                       MakeBoundCallback(&AsciiQueueEvent, stream, "- " + c));
    device->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&AsciiRx, stream, c));
    device->TraceConnectWithoutContext("Drop", MakeBoundCallback(&AsciiDrop, stream, c));
    device->TraceConnectWithoutContext("PfcTx", MakeBoundCallback(&AsciiPfc, stream, "t " + c));
    device->TraceConnectWithoutContext("PfcRx", MakeBoundCallback(&AsciiPfc, stream, "r " + c));
}

bool
RocePcapFiles::Open(const std::string& prefix,
                    const NetDeviceContainer& devices,
                    std::string* error)
{
    PcapHelper pcapHelper;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(devices.Get(i));
        if (!dev)
        {
            continue;
        }
        std::string name = pcapHelper.GetFilenameFromDevice(prefix, dev);
        Ptr<PcapFileWrapper> file = OpenRocePcap(name, dev, error);
        if (!file)
        {
            return false;
        }
        m_files.emplace_back(name, file);
    }
    return true;
}

bool
RocePcapFiles::Close(std::string* error)
{
    bool ok = true;
    for (auto& f : m_files)
    {
        f.second->Close();
        if (f.second->Fail() && ok)
        {
            *error = f.first + ": writing failed";
            ok = false;
        }
    }
    return ok;
}

} // namespace ns3
