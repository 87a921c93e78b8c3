/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FLOWS_H
#define ROCE_HPCC_FLOWS_H

#include "ns3/nstime.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief One flow of an HPCC-style flow file.
 */
struct RoceHpccFlow
{
    uint32_t src{0};     //!< source node id
    uint32_t dst{0};     //!< destination node id
    uint8_t priority{0}; //!< traffic class 0..7
    uint16_t dport{0};   //!< destination port given in the file (reported in fct.txt)
    uint64_t bytes{0};   //!< size
    uint64_t startNs{0}; //!< start time in ns
    uint32_t line{0};    //!< line number in the file
};

/**
 * \ingroup training-net
 * \brief Options of RoceHpccFlows::Run (the roce-hpcc-flows example).
 */
struct RoceHpccConfig
{
    std::string topologyFile; //!< HPCC-style topology file
    std::string flowFile;     //!< HPCC-style flow file
    std::string fctFile;      //!< output: one line per finished flow
    std::string cc{"dcqcn"};  //!< dcqcn or none
    uint32_t mtu{4096};       //!< path MTU
    uint32_t seed{1};         //!< RngSeedManager seed
    double stopSeconds{0};    //!< simulated stop time (0 = until every flow finished)
};

/**
 * \ingroup training-net
 * \brief Figures of a RoceHpccFlows::Run.
 */
struct RoceHpccResult
{
    uint64_t flows{0};              //!< flows in the file
    uint64_t finished{0};           //!< flows finished (lines written)
    uint64_t fctBelowIdeal{0};      //!< finished flows whose FCT is below the ideal (must be 0)
    double wallSeconds{0};          //!< wall-clock time of Simulator::Run
    Time simTime;                   //!< simulated time at the end
    uint64_t events{0};             //!< events executed
    uint64_t dataPacketHops{0};     //!< data packets sent by NICs x hops of their path
    uint64_t retransmittedBytes{0}; //!< sum over NICs
};

/**
 * \ingroup training-net
 * \brief Runs HPCC-style topology and flow files on the RoCE model (DESIGN section 7).
 *
 * Flow file: the first line holds the number of flows; then one line per flow
 * `src dst priority dst_port size_bytes start_seconds` (fields separated by blanks; blank
 * lines are ignored). src and dst are topology node ids of NPUs (non-switch nodes). Every
 * error names file:line: wrong field count, a field that is not a number or out of range
 * (priority > 7, port > 65535), a node out of range or a switch, src == dst, fewer or more
 * flow lines than announced.
 *
 * Each flow is an RDMA WRITE of size_bytes posted at start_seconds on the QP of
 * (src, dst, priority) of the source NIC (flows of the same triple share the QP and run
 * one after the other). fct.txt gets one line per finished flow, in completion order:
 * `sip dip sport dport size start_ns fct_ns ideal_fct_ns`, IPv4 addresses as 8 hex digits
 * (node n = 0x0b000001 + ((n/256) << 16) + ((n%256) << 8)), sport = UDP source port of the
 * QP, dport = the file's dst_port.
 *
 * Ideal FCT = the FCT of the flow alone in the network (a lower bound of the measured FCT):
 * base RTT + data serialisation, where
 *  - base RTT = sum over the path of 2 x link latency + the wire time of one ACK on each hop
 *    back (ACK wire bytes 86);
 *  - data serialisation = the store-and-forward pipeline at the link rates: all data packets
 *    through the slowest hop, the first packet through the hops before it and the last packet
 *    through the hops after it; wire bytes per packet = payload + 82 (Ethernet 14, IPv4 20,
 *    UDP 8, BTH 12, ICRC 4, FCS 4, preamble/SFD 8, IFG 12) + 16 (RETH) on the first packet.
 * The path is the one tn_routes_path picks with flow hash 0: the shipped files have
 * symmetric shortest paths (same rates and latencies on every ECMP choice).
 */
class RoceHpccFlows
{
  public:
    /**
     * Parse a flow file.
     * \param path file name (used in error messages)
     * \param topo topology (node range and kinds)
     * \param flows output
     * \param error message "file:line: ..." on failure
     * \return true on success
     */
    static bool ParseFlowFile(const std::string& path,
                              const tn_topology* topo,
                              std::vector<RoceHpccFlow>* flows,
                              std::string* error);

    /**
     * Ideal FCT of a flow (see class doc).
     * \param topo topology \param routes its routes (tn_routes*) \param flow the flow
     * \param mtu path MTU
     * \return ideal FCT in ns (rounded up)
     */
    static uint64_t IdealFctNs(const tn_topology* topo,
                               const void* routes,
                               const RoceHpccFlow& flow,
                               uint32_t mtu);

    /**
     * Build the fabric, run every flow, write the FCT file. Creates and destroys the
     * simulation (Simulator::Destroy is called at the end).
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
