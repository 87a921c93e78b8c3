/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_FLOWS_H
#define ROCE_HPCC_FLOWS_H

#include "ns3/net-device-container.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PcapFileWrapper;

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
 * \brief An ns-3 attribute value a config key maps to.
 */
struct RoceHpccSetting
{
    std::string typeName;  //!< ns3::RdmaNic, ns3::RoceSwitchMmu or ns3::RoceNetDevice
    std::string attribute; //!< attribute name
    std::string value;     //!< value as ns-3 reads it from a string
    std::string key;       //!< config key it comes from
    uint32_t line{0};      //!< line of the key in the config file
};

/**
 * \ingroup training-net
 * \brief A config key the runner does not use, with the reason.
 */
struct RoceHpccIgnored
{
    std::string key;    //!< the key
    std::string value;  //!< its value as written
    uint32_t line{0};   //!< line in the config file
    std::string reason; //!< why it is ignored
};

/**
 * \ingroup training-net
 * \brief A KMAX_MAP, KMIN_MAP or PMAX_MAP of an HPCC config: value per link rate.
 */
struct RoceHpccRateMap
{
    std::vector<std::pair<uint64_t, double>> entries; //!< (rate bit/s, value)
    uint32_t line{0};                                 //!< line of the key (0 = not given)
};

/**
 * \ingroup training-net
 * \brief Options of RoceHpccFlows::Run (the roce-hpcc-flows example).
 */
struct RoceHpccConfig
{
    std::string topologyFile; //!< HPCC-style topology file (3- or 4-number header)
    std::string flowFile;     //!< HPCC-style flow file
    std::string fctFile;      //!< output: one line per finished flow
    std::string pfcFile;      //!< output: one line per PFC event ("" = none)
    std::string pcapPrefix;   //!< pcap of every device, PREFIX-node-device.pcap ("" = none)
    std::string cc{"dcqcn"};  //!< dcqcn or none
    uint32_t mtu{4096};       //!< payload bytes per packet (256..9000, any value)
    uint32_t seed{1};         //!< RngSeedManager seed
    double stopSeconds{0};    //!< simulated stop time (0 = until every flow finished)
    bool sharedQp{false};     //!< flows of one (src, dst, priority) share one QP
    /// Lines after the announced links or flows are ignored with a notice, as HPCC reads
    /// only the announced count (set by --config); otherwise they are an error.
    bool ignoreTrailingLines{false};

    // from a config file (ParseConfigFile)
    std::string configFile;                //!< the config file ("" = none)
    std::vector<RoceHpccSetting> settings; //!< attribute values of the config's keys
    std::vector<RoceHpccIgnored> ignored;  //!< keys not used
    std::vector<std::string> notices;      //!< other remarks to print
    RoceHpccRateMap kmin;                  //!< KMIN_MAP (KB = 1000 bytes)
    RoceHpccRateMap kmax;                  //!< KMAX_MAP (KB = 1000 bytes)
    RoceHpccRateMap pmax;                  //!< PMAX_MAP
    bool rateStepsAbsolute{false};         //!< RATE_AI/RATE_HAI are per flow, not per 25G
    double errorRatePerLink{0};            //!< ERROR_RATE_PER_LINK (links with error_rate 0)
};

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
    /// busiest directed link: its wire busy time / (last flow end - first flow start)
    double bottleneckUtilisation{0};
    uint32_t bottleneckSrc{0};  //!< node sending on the busiest link
    uint32_t bottleneckPort{0}; //!< its port
    uint32_t bottleneckDst{0};  //!< node at the other end
};

/**
 * \ingroup training-net
 * \brief pcap files of RoCE devices whose failed writes are reported (unlike
 * PcapHelperForDevice::EnablePcapAll, which aborts when a file cannot be opened and never
 * reports a full disk).
 *
 * One file per device, named as EnablePcap names them (PREFIX-node-device.pcap), full
 * Ethernet frames sent and received (the device's Sniffer trace), DLT_EN10MB.
 */
class RocePcapFiles
{
  public:
    /**
     * Open one file per device and hook it to the device.
     * \param prefix file name prefix
     * \param devices RoceNetDevices
     * \param error "FILE: cannot open for writing" on failure
     * \return true on success
     */
    bool Open(const std::string& prefix, const NetDeviceContainer& devices, std::string* error);

    /**
     * Close every file (call after Simulator::Run).
     * \param error "FILE: writing failed" for the first file that failed
     * \return true if every frame reached its file
     */
    bool Close(std::string* error);

    /** \return the number of files */
    size_t GetN() const
    {
        return m_files.size();
    }

  private:
    std::vector<std::pair<std::string, Ptr<PcapFileWrapper>>> m_files; //!< name, file
};

/**
 * \ingroup training-net
 * \brief Runs HPCC-style topology and flow files on the RoCE model (DESIGN section 7).
 *
 * Topology file: the core's HPCC-style format (tn_topology_load_file), with either header:
 * `N_nodes N_switches N_links` or `N_nodes N_switches N_ToRs N_links` (the variant whose
 * first N_ToRs switch ids are the top-of-rack switches; the ToR count is checked and
 * reported, routing does not need it).
 *
 * Flow file: the first line holds the number of flows; then one line per flow
 * `src dst priority dst_port size_bytes start_seconds` (fields separated by blanks; blank
 * lines are ignored). src and dst are topology node ids of NPUs (non-switch nodes). Every
 * error names file:line: wrong field count, a field that is not a number or out of range
 * (priority > 7, port > 65535), a node out of range or a switch, src == dst, fewer or more
 * flow lines than announced.
 *
 * Each flow is an RDMA WRITE of size_bytes posted at start_seconds on a queue pair of its
 * own, as in the HPCC family: the first lane of (src, dst, priority) that no running flow
 * uses (RdmaWriteRequest::lane; each lane is a QP with its own UDP source port). When all
 * RdmaQueuePair::MAX_LANES lanes are busy the flow joins the lane with the fewest running
 * flows and is counted in RoceHpccResult::sharedQpFlows. With sharedQp every flow of a
 * (src, dst, priority) uses lane 0 (one QP; its flows run one after the other).
 *
 * fct.txt gets one line per finished flow, in completion order:
 * `sip dip sport dport size start_ns fct_ns ideal_fct_ns`, IPv4 addresses as 8 hex digits
 * (node n = 0x0b000001 + ((n/256) << 16) + ((n%256) << 8)), sport = UDP source port of the
 * QP, dport = the file's dst_port. The PFC file gets one line per PFC event of a node's
 * forwarding object, in time order: `time_ns node port priority pause|resume sent|received`
 * (PAUSE sent: when the ingress queue starts being paused; received: every PAUSE frame).
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
 *
 * Bottleneck utilisation: for every directed link, the time its sender spent putting frames
 * on the wire (every frame: data, ACK, CNP, PFC) divided by the time from the first flow's
 * start to the last flow's end; the largest value and its link are reported.
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
     * \param ignoreTrailing lines after the announced flows are ignored (HPCC) instead of
     *        refused; then \p notice tells which
     * \param notice set when lines were ignored
     * \return true on success
     */
    static bool ParseFlowFile(const std::string& path,
                              const tn_topology* topo,
                              std::vector<RoceHpccFlow>* flows,
                              std::string* error,
                              bool ignoreTrailing = false,
                              std::string* notice = nullptr);

    /**
     * Load a topology file with a 3- or 4-number header (see class doc).
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
     * Read an HPCC / SimAI config file (`KEY value...` per line, as the HPCC project's
     * mix/config.txt) into config: file names, payload size, stop time, and the attribute
     * values of the keys the model has (config->settings); keys the model does not have go
     * to config->ignored with the reason. Relative file names are taken relative to
     * baseDir ("" = the current directory, as HPCC does). Errors name file:line and the key:
     * an unknown key (unless ignoreUnknown), a key given twice, a value that is not a number
     * of the key's kind or out of range.
     * \param path config file
     * \param baseDir folder for relative file names
     * \param ignoreUnknown unknown keys are ignored (listed) instead of refused
     * \param config output (fields of the keys found are overwritten)
     * \param error message on failure
     * \return true on success
     */
    static bool ParseConfigFile(const std::string& path,
                                const std::string& baseDir,
                                bool ignoreUnknown,
                                RoceHpccConfig* config,
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
