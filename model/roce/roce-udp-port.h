/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_UDP_PORT_H
#define ROCE_UDP_PORT_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class Node;
class RdmaNic;
class RoceNetDevice;
class Socket;

/**
 * \ingroup training-net
 * \brief Topology node ids and IPv4 addresses of the nodes whose RDMA NICs talk through
 * RoceUdpPorts (one book shared by all ports of a run).
 */
class RoceUdpAddressBook : public SimpleRefCount<RoceUdpAddressBook>
{
  public:
    /**
     * \param id topology node id \param addresses its IPv4 addresses (the first is where
     * packets to it are sent; any of them identifies it as a sender)
     */
    void Add(uint32_t id, const std::vector<Ipv4Address>& addresses);
    /** \param id topology node id \return its address (0.0.0.0 if unknown) */
    Ipv4Address GetAddress(uint32_t id) const;
    /**
     * \param address an IPv4 address \param id set to the node id having it
     * \return false if no node of the book has it
     */
    bool GetId(Ipv4Address address, uint32_t* id) const;

  private:
    std::unordered_map<uint32_t, Ipv4Address> m_addressOf; //!< id -> address
    std::unordered_map<uint32_t, uint32_t> m_idOf;         //!< address (host order) -> id
};

/**
 * \ingroup training-net
 * \brief The port of an RdmaNic on an ordinary ns-3 node: RoCEv2 over the node's own UDP/IP
 * stack (InternetStackHelper) and devices (PointToPoint, Csma, ...).
 *
 * Setup() gives the node a RoceSwitch with one RoceNetDevice, the NIC's port, joined by a
 * RoceChannel without delay to a second RoceNetDevice that hands every packet the NIC sends
 * (its whole RoCE packet) to this object. The NIC thus keeps its whole behaviour: it sends at
 * the port's DataRate (the node's link rate), paces by its congestion control, and its
 * go-back-N and retransmission timer recover what the network loses.
 *
 * Each RoCE packet leaves as one UDP datagram to port 4791 of the peer's first address
 * (RoceUdpAddressBook): the BTH .. ICRC bytes are the UDP payload, the RoCE DSCP and ECN go
 * into the IPv4 TOS (SocketIpTosTag), so devices whose queue discs mark ECN (RED, CoDel,
 * FqCoDel with UseEcn) mark the NIC's data packets and DCQCN reacts. A datagram received on
 * UDP port 4791 gets back the RoCE IPv4/UDP header the NIC expects (addresses from the node
 * ids of the book, TOS as received) and goes to RdmaNic::Receive. The UDP source port is the
 * socket's, 4791, not the RoCE flow entropy: ns-3's own routing decides the paths.
 *
 * Datagrams from an address not in the book are dropped (counted, GetUnknownSenderDrops).
 */
class RoceUdpPort : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceUdpPort();
    ~RoceUdpPort() override;

    /**
     * What Setup() would refuse on a node: no internet stack (IPv4 and UDP).
     * \param node the node \return "" if usable, else the reason
     */
    static std::string Check(Ptr<Node> node);

    /**
     * Give `node` the RoCE port and attach `nic` (already aggregated to the node, its local
     * id set) to it; the port object aggregates itself to the node.
     * \param node a node with the internet stack (Check() == "")
     * \param nic the node's RDMA NIC
     * \param rate line rate of the NIC's port (the node's link rate)
     * \param book the addresses of every node of the run
     */
    void Setup(Ptr<Node> node, Ptr<RdmaNic> nic, DataRate rate, Ptr<RoceUdpAddressBook> book);

    /** \return RoCE packets sent as UDP datagrams */
    uint64_t GetSentDatagrams() const
    {
        return m_sent;
    }

    /** \return UDP datagrams received and handed to the NIC */
    uint64_t GetReceivedDatagrams() const
    {
        return m_received;
    }

    /** \return datagrams from addresses not in the book, dropped */
    uint64_t GetUnknownSenderDrops() const
    {
        return m_unknown;
    }

  protected:
    void DoDispose() override;

  private:
    /** The NIC sent a packet (the fabric receive callback of the inner device). */
    void FromNic(Ptr<RoceNetDevice> dev, Ptr<Packet> p, uint32_t port);
    /** Datagrams arrived on UDP port 4791. */
    void FromNetwork(Ptr<Socket> socket);

    Ptr<Node> m_node;
    Ptr<RdmaNic> m_nic;
    Ptr<RoceNetDevice> m_nicPort; //!< the NIC's device
    Ptr<RoceNetDevice> m_inner;   //!< its peer, which hands packets to FromNic
    Ptr<Socket> m_socket;         //!< UDP, bound to port 4791
    Ptr<RoceUdpAddressBook> m_book;
    uint32_t m_localId{0};
    uint64_t m_sent{0};
    uint64_t m_received{0};
    uint64_t m_unknown{0};
};

} // namespace ns3

#endif // ROCE_UDP_PORT_H
