/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_OUTPUT_H
#define ROCE_HPCC_OUTPUT_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/tn-hpcc-files.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief The HPCC family's output files of a run of flows, written from trace sources:
 * RoceFlowApplication's FlowStart and FlowEnd, RoceSwitch's PfcPause and PfcResume.
 *
 * fct.txt, one line per finished flow, in completion order:
 * `sip dip sport dport size start_ns fct_ns ideal_fct_ns`, IPv4 addresses as 8 hex digits
 * (RoceAddress::FromNodeId), sport = UDP source port of the QP, dport = the file's dst_port,
 * ideal_fct_ns as given (RoceIdealFctNs). A flow whose message failed (RdmaNic RetryLimit) has
 * no line and is counted apart. When every flow has ended the simulation stops.
 *
 * The PFC file gets one line per PFC event of a node's forwarding object, in time order:
 * `time_ns node port priority pause|resume sent|received` (PAUSE sent: when the ingress queue
 * starts being paused; received: every PAUSE frame).
 */
class RoceHpccOutput
{
  public:
    /**
     * \param flows the flows in file order (index = the applications' flow id)
     * \param idealNs each flow's ideal FCT in ns, same order
     */
    RoceHpccOutput(const std::vector<tn_hpcc_flow>& flows, const std::vector<uint64_t>& idealNs);
    ~RoceHpccOutput();
    RoceHpccOutput(const RoceHpccOutput&) = delete;
    RoceHpccOutput& operator=(const RoceHpccOutput&) = delete;

    /**
     * Create the files.
     * \param fctPath the FCT file \param pfcPath the PFC file ("" = none)
     * \param error "path: cannot open for writing"
     * \return false when a file cannot be created (none is left open)
     */
    bool Open(const std::string& fctPath, const std::string& pfcPath, std::string* error);

    /**
     * With a PFC file: its lines from the PfcPause and PfcResume trace sources of every
     * node's RoceSwitch.
     * \param nodes the fabric's nodes, node id order (a node's index is its id in the lines)
     */
    void ConnectPfc(const NodeContainer& nodes);

    /** FlowStart trace sink: the first start opens the span of the flows. */
    void FlowStart(uint64_t i, const RdmaWriteRequest& request);
    /** FlowEnd trace sink: flow `i`'s line, or its failure. */
    void FlowEnd(uint64_t i, const RdmaMessageRecord& record);

    /**
     * Close the files.
     * \param error "path: writing failed" for the first file that could not be written
     * \return false when one could not be written
     */
    bool Close(std::string* error);

    uint64_t GetFinished() const;      //!< \return flows with a line in the FCT file
    uint64_t GetFailed() const;        //!< \return flows whose message failed
    uint64_t GetFctBelowIdeal() const; //!< \return finished flows whose FCT is below the ideal
    uint64_t GetPfcEvents() const;     //!< \return lines written to the PFC file
    /** \return the time from the first flow's start to the last flow's end (to now when some
     * flow has not finished); zero before the first start */
    Time GetSpan() const;

  private:
    /** PfcPause / PfcResume sink: one line of the PFC file. */
    static void Pfc(RoceHpccOutput* output,
                    bool pause,
                    uint32_t node,
                    uint32_t port,
                    uint8_t priority,
                    bool sent);
    /** Stop the simulation when no flow is left. */
    void StopWhenAllEnded();

    const std::vector<tn_hpcc_flow>& m_flows; //!< file order
    const std::vector<uint64_t>& m_idealNs;   //!< file order
    std::string m_fctPath;                    //!< for messages
    std::string m_pfcPath;                    //!< for messages
    std::FILE* m_fct{nullptr};                //!< FCT file
    std::FILE* m_pfc{nullptr};                //!< PFC file, or none
    uint64_t m_finished{0};                   //!< GetFinished
    uint64_t m_failed{0};                     //!< GetFailed
    uint64_t m_belowIdeal{0};                 //!< GetFctBelowIdeal
    uint64_t m_pfcEvents{0};                  //!< GetPfcEvents
    bool m_started{false};                    //!< a flow has started
    Time m_firstStart;                        //!< the first flow's start
    Time m_lastEnd;                           //!< the last finished flow's end
};

/**
 * \ingroup training-net
 * \brief The busiest directed link of a fabric over a span of time.
 */
struct RoceBusiestLink
{
    /// its sender's wire busy time over the span: every frame (data, ACK, CNP, PFC) as its link
    /// counts it (RoceNetDevice::GetTxWireBytes) at the device's data rate
    double utilisation{0};
    uint32_t src{0};  //!< node sending on it
    uint32_t port{0}; //!< its port
    uint32_t dst{0};  //!< node at the other end

    /**
     * \param nodes the fabric's nodes (a node's index is its id here)
     * \param devices its RoceNetDevices \param span the time their counters cover
     * \return the busiest link; utilisation 0 when the span is empty
     */
    static RoceBusiestLink Find(const NodeContainer& nodes,
                                const NetDeviceContainer& devices,
                                Time span);
};

} // namespace ns3

#endif // ROCE_HPCC_OUTPUT_H
