/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STUDY_TOPOLOGY_H
#define STUDY_TOPOLOGY_H

#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Reads the nodes and links of an ordinary ns-3 study (PointToPointHelper,
 * CsmaHelper, ... with InternetStackHelper) into a tn_topology, so collectives can be
 * planned, verified and estimated on it (CollectiveHelper::Install(NodeContainer)).
 *
 * The NPUs are the given nodes, ranks in their order (topology node ids 0..n-1); every node
 * reachable from them through channels becomes a switch (its id in the order it is found,
 * breadth first: deterministic). A channel with two devices is a cable between their nodes;
 * a channel with more (a Csma bus) is a switch of its own with a cable to each node on it.
 * A cable's rate is the DataRate attribute of its device (or of its channel, as Csma has
 * it; the smaller of the two ends), its latency the channel's Delay attribute (0 without
 * one). Devices without a channel (loopback) are skipped.
 */
class StudyTopology
{
  public:
    /**
     * \param npus the NPU nodes in rank order
     * \param nodes set to the node of every topology node id (null for a shared medium's
     *        switch)
     * \param error set to the reason when the study cannot be read: an NPU listed twice, a
     *        link whose rate cannot be read (naming node, device and its type), NPUs not
     *        connected to each other
     * \return the topology (the caller destroys it), or null with *error set
     */
    static tn_topology* Read(const NodeContainer& npus,
                             std::vector<Ptr<Node>>* nodes,
                             std::string* error);

    /**
     * \param device a device
     * \return the rate of its DataRate attribute or, without one, of its channel's (bit/s),
     *         0 if neither has one
     */
    static uint64_t GetRate(Ptr<NetDevice> device);
};

} // namespace ns3

#endif // STUDY_TOPOLOGY_H
