/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FLOWS_H
#define ROCE_HPCC_FLOWS_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/tn-topology.h"

#include <cstdint>
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
    /// value given to config.baseRttAttribute: the largest over the flows of 2 x the path's
    /// propagation delay + one payload's wire time per hop (the HPCC family's maxRtt)
    Time baseRtt;
    /// queue pairs per class of their congestion control (TypeId name; "none" without one)
    std::map<std::string, uint64_t> congestionControls;
    /// window of the QPs of each (source, destination) node pair at the end, bytes (0 = none;
    /// the last QP's when the pair has several)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> windows;
    /// with familyEcmp: the switch uplinks of each flow, in file order ((switch node, egress
    /// port) per hop where the switch had more than one next hop)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> familyPaths;
    uint64_t cnpsSent{0}; //!< CNPs sent by the NICs (DCQCN's notification point)
    /// busiest directed link: its wire busy time / (last flow end - first flow start)
    double bottleneckUtilisation{0};
    uint32_t bottleneckSrc{0};  //!< node sending on the busiest link
    uint32_t bottleneckPort{0}; //!< its port
    uint32_t bottleneckDst{0};  //!< node at the other end
};

/**
 * The HPCC family's ECMP hash, its switches' EcmpHash: MurmurHash3 (x86, 32-bit) of the 12
 * bytes source IP, destination IP, UDP source port | destination port << 16 (each a
 * little-endian word), seeded by the switch's node id. The family takes it modulo the number of
 * next hops toward the destination, listed in the order its breadth-first search from the
 * destination found them.
 * \param sip source IPv4 address \param dip destination IPv4 address
 * \param sport UDP source port \param dport UDP destination port \param seed switch node id
 * \return the hash
 */
uint32_t RoceHpccFamilyEcmpHash(uint32_t sip,
                                uint32_t dip,
                                uint16_t sport,
                                uint16_t dport,
                                uint32_t seed);

/**
 * \ingroup training-net
 * \brief Runs HPCC-style topology and flow files on the RoCE model: the roce-hpcc-flows
 * example's library side.
 *
 * The files are read by tn-hpcc-files (formats in tn-hpcc-files.h; every error names
 * file:line), a config file by RoceHpccConfigReader. Run builds the fabric (RoceHelper), gives
 * each source node a RoceFlowApplication with its flows (a queue pair per flow, as in the HPCC
 * family; with sharedQp every flow of a (src, dst, priority) uses one QP) and writes:
 *
 * fct.txt, one line per finished flow, in completion order:
 * `sip dip sport dport size start_ns fct_ns ideal_fct_ns`, IPv4 addresses as 8 hex digits
 * (NodeIp), sport = UDP source port of the QP, dport = the file's dst_port, ideal_fct_ns =
 * RoceIdealFctNs. The PFC file gets one line per PFC event of a node's forwarding object, in
 * time order: `time_ns node port priority pause|resume sent|received` (PAUSE sent: when the
 * ingress queue starts being paused; received: every PAUSE frame). pcap files are
 * RoceLinkHelper's (RocePcapFiles: full frames with the ICRC).
 *
 * Bottleneck utilisation: for every directed link, the time its sender spent putting frames
 * on the wire (every frame: data, ACK, CNP, PFC) divided by the time from the first flow's
 * start to the last flow's end; the largest value and its link are reported.
 */
class RoceHpccFlows
{
  public:
    /**
     * Load a topology file with a 3- or 4-number header (tn_hpcc_topology_load).
     * \param path file name
     * \param topo output (caller destroys)
     * \param torCount output: the ToR count of a 4-number header, 0 for 3 numbers
     * \param error "file:line: ..." on failure
     * \param ignoreTrailing lines after the announced links are ignored instead of refused
     * \param notice set when lines were ignored
     * \return true on success
     */
    static bool LoadTopology(const std::string& path,
                             tn_topology** topo,
                             uint32_t* torCount,
                             std::string* error,
                             bool ignoreTrailing = false,
                             std::string* notice = nullptr);

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
     * \return its IPv4 address as a host-order number (0x0b000001 + ...)
     */
    static uint32_t NodeIp(uint32_t node)
    {
        return 0x0b000001u + ((node / 256) << 16) + ((node % 256) << 8);
    }
};

} // namespace ns3

#endif // ROCE_HPCC_FLOWS_H
