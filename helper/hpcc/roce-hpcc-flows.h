/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FLOWS_H
#define ROCE_HPCC_FLOWS_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-hpcc-family.h"
#include "ns3/roce-hpcc-inputs.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Figures of a RoceHpccFlows::Run.
 */
struct RoceHpccResult
{
    uint64_t flows{0};          //!< flows in the file
    uint64_t finished{0};       //!< flows finished (lines written)
    uint64_t failed{0};         //!< flows whose message failed (RdmaNic RetryLimit): no FCT line
    uint64_t fctBelowIdeal{0};  //!< finished flows whose FCT is below the ideal (must be 0)
    double wallSeconds{0};      //!< wall-clock time of Simulator::Run
    Time simTime;               //!< simulated time at the end
    uint64_t events{0};         //!< events executed
    uint64_t dataPacketHops{0}; //!< data packets sent by NICs x hops of their path
    uint64_t retransmittedBytes{0};   //!< sum over NICs
    uint64_t queuePairs{0};           //!< QPs created by the NICs (sender side)
    uint64_t sharedQpFlows{0};        //!< flows that had to share a QP (all lanes busy)
    uint64_t pfcEvents{0};            //!< lines written to the PFC file
    uint32_t torCount{0};             //!< ToR count of a 4-number topology header (0 = none)
    std::vector<std::string> notices; //!< input lines ignored (HPCC reads only what it announces)
    std::vector<RoceHpccSetting> ecnSettings; //!< switch attributes of the ECN maps
    /// value given to config.baseRttAttribute: the largest over the topology's host pairs of
    /// 2 x the path's propagation delay + one payload's wire time per hop (the HPCC family's
    /// maxRtt, RoceHpccMaxBaseRttNs)
    Time baseRtt;
    /// the HPCC family's maxBdp (RoceHpccMaxBaseRttNs), set with baseRtt: the window of GLOBAL_T 1
    uint64_t maxBdp{0};
    /// flows whose window (the family's pairBdp, or maxBdp with GLOBAL_T 1) is not their NIC's
    /// line rate x T: a link of the path slower than the NIC's (RdmaNic::SetPeerBaseRtt)
    uint64_t slowPathFlows{0};
    /// queue pairs per class of their congestion control (TypeId name; "none" without one)
    std::map<std::string, uint64_t> congestionControls;
    /// window of the QPs of each (source, destination) node pair at the end, bytes (0 = none;
    /// the last QP's when the pair has several)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> windows;
    /// with familyEcmp: the switch uplinks of each flow, in file order ((switch node, egress
    /// port) per hop where the switch had more than one next hop)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> familyPaths;
    uint64_t cnpsSent{0}; //!< CNPs sent by the NICs (DCQCN's notification point)
    /// ACKs that echoed a CE mark, received by the senders (with the HPCC family's DCQCN,
    /// CongestionNotification ack, its notifications)
    uint64_t ecnEchoes{0};
    /// busiest directed link: its wire busy time / (last flow end - first flow start)
    double bottleneckUtilisation{0};
    uint32_t bottleneckSrc{0};  //!< node sending on the busiest link
    uint32_t bottleneckPort{0}; //!< its port
    uint32_t bottleneckDst{0};  //!< node at the other end
};

/**
 * \ingroup training-net
 * \brief Runs HPCC-style topology and flow files on the RoCE model: the roce-hpcc-flows
 * example's library side, which installs the model's parts and runs them.
 *
 * RoceHpccInputs reads the files (tn-hpcc-files, formats in tn-hpcc-files.h; every error names
 * file:line), the routes and the ideal FCTs (RoceIdealFctNs); a config file is read before by
 * RoceHpccConfigReader. Run builds the fabric (RoceHelper) with the config's attributes, gives
 * each source node a RoceFlowApplication with its flows (a queue pair per flow, as in the HPCC
 * family; with sharedQp every flow of a (src, dst, priority) uses one QP), pins them on the
 * family's paths with familyEcmp (RoceHpccFamilyPaths) and writes the FCT and PFC files
 * (RoceHpccOutput, formats there) and pcap files (RocePcapFiles: full frames with the ICRC).
 * The bottleneck is RoceBusiestLink over the time from the first flow's start to the last
 * flow's end.
 */
class RoceHpccFlows
{
  public:
    /**
     * Build the fabric, run every flow, write the FCT (and PFC, pcap) files. Creates and
     * destroys the simulation (Simulator::Destroy is called at the end); attribute defaults
     * it sets for the config's switch keys are restored before it returns.
     * \param config options
     * \param result figures
     * \param error message on failure
     * \return true on success (all input valid; some flows may be unfinished at stopSeconds)
     */
    static bool Run(const RoceHpccConfig& config, RoceHpccResult* result, std::string* error);

    /**
     * \param node node id
     * \return its IPv4 address as a host-order number (RoceAddress::FromNodeId)
     */
    static uint32_t NodeIp(uint32_t node);

    /**
     * The --ns3::Type::Attribute options a command line gave win over the config keys mapped
     * to the same attributes (and over its base-RTT key): those settings are dropped, each
     * with a notice in config->notices.
     * \param config a config read by RoceHpccConfigReader::Read
     * \param given "ns3::Type::Attribute" of each --ns3:: option given
     *        (ProgramOptions::GetAttributesGiven)
     */
    static void PreferCommandLine(RoceHpccConfig* config, const std::vector<std::string>& given);

    /**
     * Print what a config file became: the count of keys used and ignored, each setting,
     * each key ignored with its reason.
     * \param path the config file \param config what RoceHpccConfigReader::Read made of it
     * \param out where to print
     */
    static void PrintConfig(const std::string& path, const RoceHpccConfig& config, std::FILE* out);

    /**
     * Print a finished run: the ECN and base-RTT settings it resolved, its notices, then its
     * figures (flows finished, queue pairs, bottleneck, PFC events, wall and simulated time,
     * events, packet-hops per wall second).
     * \param config the run's options \param result its figures \param out where to print
     */
    static void PrintSummary(const RoceHpccConfig& config,
                             const RoceHpccResult& result,
                             std::FILE* out);

    /**
     * \param config the run's options \param result its figures
     * \return "" when every flow finished, else why not (failed flows first)
     */
    static std::string Unfinished(const RoceHpccConfig& config, const RoceHpccResult& result);
};

} // namespace ns3

#endif // ROCE_HPCC_FLOWS_H
