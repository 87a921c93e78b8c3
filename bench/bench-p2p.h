/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The benchmarks' common baseline: ns-3's PointToPointNetDevice on a chain of H hops
 * (100 Gb/s, 1 us), packets sent at the line rate and forwarded from the receive callback
 * (no IP stack, as the RoCE model bypasses it too). Forwarding sends the received packet
 * object on, so each hop costs what ns-3's unmodified device path costs: the channel's copy
 * and the device's copy for its traces, nothing more. It measures the per-packet-hop cost floor
 * of an ns-3 device on this machine, in the same run as the model it is compared with.
 */
#ifndef BENCH_P2P_H
#define BENCH_P2P_H

#include "ns3/data-rate.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace ns3
{
namespace bench
{

const uint64_t RATE = 100000000000ULL; //!< link rate, bit/s
const uint64_t LATENCY_NS = 1000;      //!< link latency

/// Point-to-point chain driver.
class P2pChain
{
  public:
    P2pChain(uint32_t hops, uint32_t packets, uint32_t size)
        : m_packets(packets),
          m_size(size)
    {
        m_nodes.Create(hops + 1);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(RATE)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(LATENCY_NS)));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1000p")));
        for (uint32_t i = 0; i < hops; ++i)
        {
            NetDeviceContainer d = p2p.Install(m_nodes.Get(i), m_nodes.Get(i + 1));
            m_out.push_back(d.Get(0));
            d.Get(1)->SetReceiveCallback(MakeCallback(&P2pChain::Receive, this));
            m_in.push_back(d.Get(1));
        }
        // PPP header (2 bytes) on the wire, no preamble/IFG in the ns-3 model
        m_interval = NanoSeconds(((m_size + 2) * 8ULL * 1000000000ULL + RATE - 1) / RATE);
    }

    void Start()
    {
        SendOne();
    }

    uint32_t Received() const
    {
        return m_received;
    }

  private:
    void SendOne()
    {
        m_out[0]->Send(Create<Packet>(m_size), m_out[0]->GetBroadcast(), 0x0800);
        if (++m_sent < m_packets)
        {
            Simulator::Schedule(m_interval, &P2pChain::SendOne, this);
        }
    }

    bool Receive(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t proto, const Address& from)
    {
        // device i+1 of link i: forward on link i+1 if any
        for (size_t i = 0; i < m_in.size(); ++i)
        {
            if (m_in[i] == dev)
            {
                if (i + 1 < m_out.size())
                {
                    // forward the received packet itself: the channel and the device each
                    // made their copy already and nothing else holds this one, so a third
                    // copy would charge the baseline more than ns-3's own device path does
                    m_out[i + 1]->Send(ConstCast<Packet>(p), m_out[i + 1]->GetBroadcast(), proto);
                }
                else
                {
                    ++m_received;
                }
                return true;
            }
        }
        return false;
    }

    NodeContainer m_nodes;
    std::vector<Ptr<NetDevice>> m_out;
    std::vector<Ptr<NetDevice>> m_in;
    uint32_t m_packets;
    uint32_t m_size;
    uint32_t m_sent{0};
    uint32_t m_received{0};
    Time m_interval;
};

/**
 * Run the chain once.
 * \param hops links \param packets packets sent \param size packet size
 * \param received set to the packets that crossed the whole chain
 * \return wall seconds of Simulator::Run
 */
inline double
RunP2p(uint32_t hops, uint32_t packets, uint32_t size, uint32_t* received)
{
    P2pChain chain(hops, packets, size);
    Simulator::ScheduleNow(&P2pChain::Start, &chain);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    *received = chain.Received();
    Simulator::Destroy();
    return std::chrono::duration<double>(t1 - t0).count();
}

/// Many independent point-to-point links, each with its own sender at the line rate.
class P2pLinks
{
  public:
    P2pLinks(uint32_t links, uint32_t packetsPerLink, uint32_t size)
        : m_size(size)
    {
        m_nodes.Create(2 * links);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(RATE)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(LATENCY_NS)));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1000p")));
        Time interval = NanoSeconds(((size + 2) * 8ULL * 1000000000ULL + RATE - 1) / RATE);
        m_senders.resize(links);
        for (uint32_t i = 0; i < links; ++i)
        {
            NetDeviceContainer d = p2p.Install(m_nodes.Get(2 * i), m_nodes.Get(2 * i + 1));
            d.Get(1)->SetReceiveCallback(MakeCallback(&P2pLinks::Receive, this));
            m_senders[i] = Sender{this, d.Get(0), packetsPerLink, interval};
            // staggered starts, as the links of a real run are not in lock step
            Simulator::Schedule(NanoSeconds(i % interval.GetNanoSeconds()),
                                &Sender::SendOne,
                                &m_senders[i]);
        }
    }

    uint64_t Received() const
    {
        return m_received;
    }

  private:
    struct Sender
    {
        P2pLinks* owner;
        Ptr<NetDevice> dev;
        uint32_t left;
        Time interval;

        void SendOne()
        {
            dev->Send(Create<Packet>(owner->m_size), dev->GetBroadcast(), 0x0800);
            if (--left > 0)
            {
                Simulator::Schedule(interval, &Sender::SendOne, this);
            }
        }
    };

    bool Receive(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t proto, const Address& from)
    {
        ++m_received;
        return true;
    }

    NodeContainer m_nodes;
    std::vector<Sender> m_senders;
    uint32_t m_size;
    uint64_t m_received{0};
};

/**
 * Run many links at once: the point-to-point cost at the concurrency of a large fabric (the
 * working set of thousands of busy devices does not fit in the caches, as in the model run
 * it is compared with).
 * \param links links \param packetsPerLink packets each \param size packet size
 * \param received set to the packets received
 * \return wall seconds of Simulator::Run
 */
inline double
RunP2pLinks(uint32_t links, uint32_t packetsPerLink, uint32_t size, uint64_t* received)
{
    P2pLinks all(links, packetsPerLink, size);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    *received = all.Received();
    Simulator::Destroy();
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace bench
} // namespace ns3

#endif // BENCH_P2P_H
