/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-udp-port.h"

#include "rdma-nic.h"
#include "roce-channel.h"
#include "roce-header.h"
#include "roce-net-device.h"
#include "roce-switch.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceUdpPort");

NS_OBJECT_ENSURE_REGISTERED(RoceUdpPort);

void
RoceUdpAddressBook::Add(uint32_t id, const std::vector<Ipv4Address>& addresses)
{
    // internal invariant: RoceHelper::InstallInternetStack gives every NPU an address first
    NS_ABORT_MSG_IF(addresses.empty(), "RoceUdpAddressBook: node " << id << " has no address");
    m_addressOf[id] = addresses.front();
    for (const Ipv4Address& a : addresses)
    {
        m_idOf[a.Get()] = id;
    }
}

Ipv4Address
RoceUdpAddressBook::GetAddress(uint32_t id) const
{
    auto it = m_addressOf.find(id);
    return it == m_addressOf.end() ? Ipv4Address::GetAny() : it->second;
}

bool
RoceUdpAddressBook::GetId(Ipv4Address address, uint32_t* id) const
{
    auto it = m_idOf.find(address.Get());
    if (it == m_idOf.end())
    {
        return false;
    }
    *id = it->second;
    return true;
}

TypeId
RoceUdpPort::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceUdpPort")
                            .SetParent<Object>()
                            .SetGroupName("TrainingNet")
                            .AddConstructor<RoceUdpPort>();
    return tid;
}

RoceUdpPort::RoceUdpPort()
{
    NS_LOG_FUNCTION(this);
}

RoceUdpPort::~RoceUdpPort()
{
    NS_LOG_FUNCTION(this);
}

void
RoceUdpPort::DoDispose()
{
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_socket = nullptr;
    if (m_inner)
    {
        m_inner->SetFabricReceiveCallback(RoceNetDevice::FabricReceiveCallback());
        m_inner->Dispose();
    }
    m_inner = nullptr;
    m_nicPort = nullptr;
    m_nic = nullptr;
    m_node = nullptr;
    m_book = nullptr;
    Object::DoDispose();
}

std::string
RoceUdpPort::Check(Ptr<Node> node)
{
    if (!node->GetObject<Ipv4>() || !node->GetObject<UdpSocketFactory>())
    {
        return "node " + std::to_string(node->GetId()) +
               " has no internet stack (install it with InternetStackHelper first)";
    }
    if (node->GetObject<RoceSwitch>())
    {
        return "node " + std::to_string(node->GetId()) + " already has a RoCE port or fabric";
    }
    return "";
}

void
RoceUdpPort::Setup(Ptr<Node> node, Ptr<RdmaNic> nic, DataRate rate, Ptr<RoceUdpAddressBook> book)
{
    NS_LOG_FUNCTION(this << node << nic << rate);
    const std::string why = Check(node);
    // internal invariant: RoceHelper::InstallInternetStack checks the node (Check) first
    NS_ABORT_MSG_IF(!why.empty(), "RoceUdpPort::Setup: " << why);
    m_node = node;
    m_nic = nic;
    m_book = book;
    m_localId = nic->GetLocalId();

    // the NIC's port and its peer: a cable inside the node, at the node's link rate and
    // without PFC (the network behind is lossy)
    Ptr<RoceChannel> cable = CreateObject<RoceChannel>();
    cable->SetAttribute("Delay", TimeValue(Seconds(0)));
    Ptr<RoceNetDevice> ends[2];
    for (auto& end : ends)
    {
        end = CreateObject<RoceNetDevice>();
        end->SetNode(node);
        end->SetAddress(Mac48Address::Allocate());
        end->SetDataRate(rate);
        end->SetAttribute("PfcEnableMask", UintegerValue(0));
        end->Attach(cable);
    }
    m_nicPort = ends[0];
    m_inner = ends[1];
    m_inner->SetFabricReceiveCallback(MakeCallback(&RoceUdpPort::FromNic, this));

    Ptr<RoceSwitch> sw = CreateObject<RoceSwitch>();
    node->AggregateObject(sw);
    sw->AddPort(m_nicPort);
    nic->Attach(sw);

    m_socket = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
    // internal invariant: the RoCE UDP port is bound once per node, by RoceUdpPort::Setup
    NS_ABORT_MSG_IF(m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(),
                                                     RoceIpUdpHeader::ROCE_UDP_PORT)) != 0,
                    "RoceUdpPort: node " << node->GetId() << ": UDP port 4791 is taken");
    m_socket->SetIpRecvTos(true);
    m_socket->SetRecvCallback(MakeCallback(&RoceUdpPort::FromNetwork, this));
    node->AggregateObject(this);
}

void
RoceUdpPort::FromNic(Ptr<RoceNetDevice> dev, Ptr<Packet> p, uint32_t port)
{
    RoceIpUdpHeader ip;
    p->RemoveHeader(ip);
    const uint32_t peer = RoceAddress::ToNodeId(ip.GetDestinationRaw());
    const Ipv4Address to = m_book->GetAddress(peer);
    // internal invariant: RoceHelper::InstallInternetStack gives every NPU an address first
    NS_ABORT_MSG_IF(to == Ipv4Address::GetAny(),
                    "RoceUdpPort: node " << m_localId << " sends to node " << peer
                                         << ", which has no address");
    InetSocketAddress address(to, RoceIpUdpHeader::ROCE_UDP_PORT);
    address.SetTos(static_cast<uint8_t>((ip.GetDscp() << 2) | ip.GetEcn()));
    m_socket->SendTo(p, 0, address);
    ++m_sent;
}

void
RoceUdpPort::FromNetwork(Ptr<Socket> socket)
{
    Address from;
    while (Ptr<Packet> p = socket->RecvFrom(from))
    {
        const InetSocketAddress sender = InetSocketAddress::ConvertFrom(from);
        uint32_t peer = 0;
        if (!m_book->GetId(sender.GetIpv4(), &peer))
        {
            NS_LOG_WARN("node " << m_localId << ": datagram from unknown " << sender.GetIpv4());
            ++m_unknown;
            continue;
        }
        SocketIpTosTag tos;
        const uint8_t t = p->RemovePacketTag(tos) ? tos.GetTos() : 0;
        RoceIpUdpHeader ip;
        ip.SetSource(RoceAddress::FromNodeId(peer));
        ip.SetDestination(RoceAddress::FromNodeId(m_localId));
        ip.SetDscp(t >> 2);
        ip.SetEcn(t & 3);
        ip.SetSourcePort(sender.GetPort());
        ip.SetUdpPayloadSize(static_cast<uint16_t>(p->GetSize()));
        p->AddHeader(ip);
        ++m_received;
        m_nic->Receive(p);
    }
}

} // namespace ns3
