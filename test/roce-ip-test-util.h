/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_IP_TEST_UTIL_H
#define ROCE_IP_TEST_UTIL_H

// What the IP-on-RoCE suites (roce-ip, roce-apps) count on a fabric: drops by reason,
// priority and IP protocol, and the PFC frames sent per priority.

#include "ns3/callback.h"
#include "ns3/packet.h"
#include "ns3/roce-header.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"

#include <cstdint>
#include <map>
#include <string>

namespace ns3
{
namespace roce_test
{

/** Drops and PFC frames of a fabric, counted from the traces. */
class FabricCounters
{
  public:
    /** \param f the fabric */
    explicit FabricCounters(const RoceFabricNodes& f)
    {
        for (uint32_t i = 0; i < f.devices.GetN(); ++i)
        {
            f.devices.Get(i)->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&FabricCounters::DeviceDrop, this));
            f.devices.Get(i)->TraceConnectWithoutContext(
                "PfcTx",
                MakeCallback(&FabricCounters::PfcSent, this));
        }
        for (uint32_t i = 0; i < f.nodes.GetN(); ++i)
        {
            f.nodes.Get(i)->GetObject<RoceSwitch>()->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&FabricCounters::SwitchDrop, this));
        }
    }

    std::map<std::string, uint64_t> deviceDrops;               //!< by reason
    uint64_t switchDrops[RoceNetDevice::NUM_PRIORITIES + 1]{}; //!< by priority
    std::map<uint8_t, uint64_t> switchDropsByProtocol;         //!< by IPv4 protocol (17 UDP)
    uint64_t pfcFrames[RoceNetDevice::NUM_PRIORITIES]{};       //!< PAUSE/RESUME sent

  private:
    void DeviceDrop(Ptr<const Packet> p, const std::string& reason)
    {
        ++deviceDrops[reason];
    }

    void SwitchDrop(Ptr<const Packet> p, uint32_t port, uint8_t priority, const std::string& r)
    {
        ++switchDrops[priority];
        RoceIpUdpHeader ip;
        if (p->PeekHeader(ip) == RoceIpUdpHeader::SIZE)
        {
            ++switchDropsByProtocol[ip.GetProtocol()];
        }
    }

    void PfcSent(uint8_t priority, bool pause, uint16_t quanta)
    {
        ++pfcFrames[priority];
    }
};

} // namespace roce_test
} // namespace ns3

#endif // ROCE_IP_TEST_UTIL_H
