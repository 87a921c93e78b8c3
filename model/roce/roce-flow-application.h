/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_APPLICATION_H
#define ROCE_FLOW_APPLICATION_H

#include "rdma-queue-pair.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup training-net
 * \brief Drives flows (RDMA WRITEs at given start times) from the RdmaNic of its node, as
 * the HPCC family of simulators drives a flow file.
 *
 * Each flow gets a queue pair of its own, as HPCC gives every flow: the first lane of its
 * (destination, priority) that no running flow of this application uses
 * (RdmaWriteRequest::lane; each lane is a QP with its own UDP source port). When all
 * RdmaQueuePair::MAX_LANES lanes are busy the flow joins the lane with the fewest running
 * flows and is counted (GetSharedQpFlows). With SharedQp every flow of a (destination,
 * priority) uses lane 0: one QP, its flows run one after the other.
 *
 * Flows start at their start time (absolute simulation time; a time already past starts at
 * the application's start). FlowStart fires when a flow is posted, FlowEnd when its message
 * ended, successfully or not (RdmaMessageRecord::status). StopApplication cancels the flows
 * not started yet.
 */
class RoceFlowApplication : public Application
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RoceFlowApplication();
    ~RoceFlowApplication() override;

    /**
     * Add a flow (before the application starts).
     * \param flowId caller's id, passed to the trace sources
     * \param request the WRITE (lane is chosen here)
     * \param start start time
     */
    void AddFlow(uint64_t flowId, const RdmaWriteRequest& request, Time start);

    /** \return flows that had to share a QP because all lanes were busy */
    uint64_t GetSharedQpFlows() const;

    /** FlowStart: (flow id, the request as posted, lane chosen). */
    typedef void (*FlowStartTracedCallback)(uint64_t flowId, const RdmaWriteRequest& request);

    /** FlowEnd: (flow id, the sender's record of the message). */
    typedef void (*FlowEndTracedCallback)(uint64_t flowId, const RdmaMessageRecord& record);

  private:
    /// A flow to drive.
    struct Flow
    {
        uint64_t id;              //!< caller's id
        RdmaWriteRequest request; //!< what to post
        Time start;               //!< when
    };

    void StartApplication() override;
    void StopApplication() override;
    void DoDispose() override;

    /// Post flow i of m_flows.
    void Start(uint32_t i);
    /// Completion of a posted flow.
    void Done(const RdmaMessageRecord& record);

    /// Key of a (destination, priority).
    static uint64_t Key(uint32_t dst, uint8_t priority)
    {
        return (uint64_t(dst) << 3) | priority;
    }

    bool m_sharedQp{false};                                        //!< SharedQp attribute
    Ptr<RdmaNic> m_nic;                                            //!< the node's NIC
    std::vector<Flow> m_flows;                                     //!< flows added
    std::vector<EventId> m_starts;                                 //!< their start events
    std::map<uint64_t, uint32_t> m_byMessage;                      //!< message id -> flow
    std::unordered_map<uint64_t, std::vector<uint32_t>> m_lanes;   //!< running flows per lane
    uint64_t m_sharedQpFlows{0};                                   //!< flows beyond the lanes
    TracedCallback<uint64_t, const RdmaWriteRequest&> m_flowStart; //!< FlowStart
    TracedCallback<uint64_t, const RdmaMessageRecord&> m_flowEnd;  //!< FlowEnd
};

} // namespace ns3

#endif // ROCE_FLOW_APPLICATION_H
