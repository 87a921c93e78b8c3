/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_TEST_UTIL_H
#define ROCE_TEST_UTIL_H

// Test-only traffic source and helpers for the roce-fabric TestSuites: builds RoCEv2 packets
// with real headers and feeds them to a RoceNetDevice through its pull source at line rate,
// so the fabric can be tested without the RDMA NIC; and the scaffolding the collective and
// flow-level suites share (a topology owned by a test).

#include "ns3/abort.h"
#include "ns3/attribute.h"
#include "ns3/config.h"
#include "ns3/packet.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/simple-ref-count.h"
#include "ns3/simulator.h"
#include "ns3/tn-topology.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace roce_test
{

/**
 * Scope guard of a test's global state: attribute defaults changed through SetDefault and the
 * RNG seed and run number are restored when it goes out of scope. Declared first in DoRun, it
 * also restores them when an NS_TEST_ASSERT returns early, so a failing test does not change
 * the defaults the next tests of the runner see.
 */
class DefaultsGuard
{
  public:
    DefaultsGuard()
        : m_seed(RngSeedManager::GetSeed()),
          m_run(RngSeedManager::GetRun())
    {
    }

    ~DefaultsGuard()
    {
        // reverse order: a default set twice ends at its value before the first change
        for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
        {
            Config::SetDefault(it->first, *it->second);
        }
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
    }

    DefaultsGuard(const DefaultsGuard&) = delete;
    DefaultsGuard& operator=(const DefaultsGuard&) = delete;

    /**
     * Config::SetDefault, remembering the current default first.
     * \param name "ns3::Type::Attribute"
     * \param value new default
     */
    void SetDefault(const std::string& name, const AttributeValue& value)
    {
        const std::string::size_type sep = name.rfind("::");
        NS_ABORT_MSG_IF(sep == std::string::npos, "DefaultsGuard: bad attribute path " << name);
        TypeId tid;
        NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(name.substr(0, sep), &tid),
                        "DefaultsGuard: unknown type in " << name);
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_IF(!tid.LookupAttributeByName(name.substr(sep + 2), &info),
                        "DefaultsGuard: unknown attribute " << name);
        m_saved.emplace_back(name, info.initialValue->Copy());
        Config::SetDefault(name, value);
    }

    /**
     * Set the RNG seed and run (restored on scope exit).
     * \param seed seed \param run run number
     */
    void SetSeed(uint32_t seed, uint64_t run)
    {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(run);
    }

  private:
    uint32_t m_seed;
    uint64_t m_run;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_saved;
};

/**
 * Build an L3 RoCEv2 packet (IPv4+UDP+BTH[+RETH]+payload+ICRC).
 * \return the packet
 */
inline Ptr<Packet>
BuildPacket(uint32_t srcNode,
            uint32_t dstNode,
            uint16_t sport,
            uint8_t dscp,
            uint8_t opcode,
            uint32_t destQp,
            uint32_t psn,
            uint32_t payload,
            uint8_t ecn = RoceIpUdpHeader::ECT0)
{
    Ptr<Packet> p = Create<Packet>(payload);
    if (RoceBthHeader::HasReth(opcode))
    {
        RoceRethHeader reth;
        reth.SetVirtualAddress(0x1000);
        reth.SetRkey(0x77);
        reth.SetDmaLength(payload);
        p->AddHeader(reth);
    }
    RoceBthHeader bth;
    bth.SetOpcode(opcode);
    bth.SetDestQp(destQp);
    bth.SetPsn(psn);
    p->AddHeader(bth);
    p->AddTrailer(RoceIcrcTrailer());
    RoceIpUdpHeader ip;
    ip.SetSource(RoceAddress::FromNodeId(srcNode));
    ip.SetDestination(RoceAddress::FromNodeId(dstNode));
    ip.SetSourcePort(sport);
    ip.SetDscp(dscp);
    ip.SetEcn(ecn);
    ip.SetUdpPayloadSize(static_cast<uint16_t>(p->GetSize()));
    p->AddHeader(ip);
    return p;
}

/**
 * A line-rate source of RDMA WRITE_MIDDLE packets of one flow, installed as the pull source of
 * a device: it hands out the next packet whenever the device asks and the priority is not
 * paused, until `count` packets were sent.
 */
class TestSource : public SimpleRefCount<TestSource>
{
  public:
    uint32_t srcNode{0};                //!< source node id
    uint32_t dstNode{0};                //!< destination node id
    uint16_t sport{1000};               //!< UDP source port
    uint8_t priority{3};                //!< DSCP
    uint32_t qp{0x11};                  //!< destination QP
    uint32_t payload{4096};             //!< payload bytes
    uint32_t count{0};                  //!< packets to send
    uint32_t sent{0};                   //!< packets sent
    uint8_t ecn{RoceIpUdpHeader::ECT0}; //!< ECN codepoint

    /** \param pausedMask paused priorities \return next packet or 0 */
    Ptr<Packet> Pull(uint8_t pausedMask)
    {
        if (sent >= count || ((pausedMask >> priority) & 1))
        {
            return nullptr;
        }
        return BuildPacket(srcNode,
                           dstNode,
                           sport,
                           priority,
                           RoceBthHeader::RC_WRITE_MIDDLE,
                           qp,
                           sent++,
                           payload,
                           ecn);
    }

    /** \param dev device to feed */
    void Install(Ptr<RoceNetDevice> dev)
    {
        dev->SetPullCallback(MakeCallback(&TestSource::Pull, this));
    }
};

/** Decoded summary of a received packet. */
struct RxRecord
{
    int64_t timeNs; //!< arrival time
    uint32_t src;   //!< source node
    uint32_t psn;   //!< PSN
    uint32_t qp;    //!< destination QP
    uint16_t sport; //!< UDP source port
    uint8_t ecn;    //!< ECN
    uint32_t port;  //!< ingress port
};

/** Records what a node's local receive callback gets. */
class TestSink : public SimpleRefCount<TestSink>
{
  public:
    std::vector<RxRecord> rx; //!< records

    /** \param p packet \param port ingress port */
    void Receive(Ptr<Packet> p, uint32_t port)
    {
        RoceIpUdpHeader ip;
        p->RemoveHeader(ip);
        RoceBthHeader bth;
        p->PeekHeader(bth);
        rx.push_back(RxRecord{Simulator::Now().GetNanoSeconds(),
                              RoceAddress::ToNodeId(ip.GetSource()),
                              bth.GetPsn(),
                              bth.GetDestQp(),
                              ip.GetSourcePort(),
                              ip.GetEcn(),
                              port});
    }
};

/** A topology from a spec (tn_topology_from_spec), owned for the length of a test; error holds
 * the parser's message when the spec is refused. */
struct Topology
{
    explicit Topology(const std::string& spec)
    {
        tn_error err;
        if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
        {
            error = err.message;
        }
    }

    ~Topology()
    {
        tn_topology_destroy(topo);
    }

    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;

    tn_topology* topo{nullptr}; //!< the topology, null when refused
    std::string error;          //!< why it was refused
};

} // namespace roce_test
} // namespace ns3

#endif // ROCE_TEST_UTIL_H
