/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_DEADLOCK_WATCH_H
#define PFC_DEADLOCK_WATCH_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RoceSwitch;

/// One paused egress port of a PFC deadlock cycle.
struct PfcDeadlockHop
{
    uint32_t node{0};       //!< node id of the paused egress port
    uint32_t port{0};       //!< its port index
    uint8_t priority{0};    //!< the paused priority
    uint32_t peerNode{0};   //!< node at the other end of the cable (the next hop)
    uint32_t peerPort{0};   //!< its port (the ingress whose buffer is full)
    Time pausedSince;       //!< start of the port's current pause
    uint64_t queueBytes{0}; //!< bytes waiting on (port, priority)
    uint32_t packets{0};    //!< packets waiting on (port, priority)
    std::string flows;      //!< its flows, most bytes first: "src->dst:sport bytes, ..."
};

/// A flow whose frames wait on the ports of a deadlock cycle.
struct PfcDeadlockFlow
{
    uint32_t src{0};     //!< source node (RoceAddress::ToNodeId)
    uint32_t dst{0};     //!< destination node
    uint16_t sport{0};   //!< UDP source port (the queue pair's)
    uint8_t priority{0}; //!< DSCP
    uint64_t bytes{0};   //!< bytes of its frames in the cycle's queues
    uint32_t packets{0}; //!< its frames there
};

/// What PfcDeadlockWatch found.
struct PfcDeadlock
{
    Time detected;                      //!< simulated time of the detection
    Time since;                         //!< when the last port of the cycle paused
    std::vector<PfcDeadlockHop> cycle;  //!< the loop, each hop waiting for the next
    std::vector<PfcDeadlockFlow> flows; //!< flows in the cycle, most bytes first
    std::string message;                //!< one line naming the loop and the first flows
};

/**
 * \ingroup training-net
 * \brief Detects a PFC deadlock (a cyclic buffer dependency) at packet level and ends the run.
 *
 * The watch costs nothing while no port is paused: it wakes up when a port is paused (the
 * switches' PfcPause trace, received side) and then every PauseThreshold / 2 while one
 * stays paused. At each wake-up it takes the ports paused without a break for at least
 * PauseThreshold on a priority with bytes waiting, and builds their wait-for graph: a
 * paused egress (node A, port p, priority q) waits for the ingress buffer of its peer
 * (node B, port p'), which drains only through the egress ports of B whose queues hold
 * frames that came in on p'; an edge goes to each of those that is itself paused long
 * enough. A cycle in that graph can never drain by itself: PFC will not resume any of its
 * ports. Pauses that clear on their own (incast, a slow receiver) leave no cycle and never
 * trigger it, however long they last.
 *
 * On a cycle: GetDeadlock() holds the loop (node:port and priority of each hop, since
 * when) and the flows whose frames sit in it, the Deadlock trace fires and, with
 * StopSimulation, the simulation stops at once (Simulator::Stop): the program reports it
 * and the results database keeps what was recorded (StatsRecorder: status 'deadlock').
 *
 * Limits: one watch sees the switches added to it; under MPI a cycle across ranks is not
 * found (each rank sees its own part).
 */
class PfcDeadlockWatch : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    PfcDeadlockWatch();
    ~PfcDeadlockWatch() override;

    /**
     * Watch the ports of a node's forwarding object.
     * \param sw the node's RoceSwitch (ports added already or later)
     * \param nodeId the id the messages give the node (the topology node id)
     */
    void Add(Ptr<RoceSwitch> sw, uint32_t nodeId);

    /**
     * Build the wait-for graph now and look for a cycle (also what each wake-up does).
     * \return true if a deadlock was found (now or before)
     */
    bool Check();

    /** \return true once a deadlock was found */
    bool HasDeadlock() const
    {
        return m_found;
    }

    /** \return the deadlock found (empty cycle if none) */
    const PfcDeadlock& GetDeadlock() const
    {
        return m_deadlock;
    }

    /** \return (port, priority) pairs paused by their peer now, over the watched nodes */
    uint32_t GetPausedPorts() const;

    /** \return the PauseThreshold attribute */
    Time GetPauseThreshold() const
    {
        return m_threshold;
    }

    /** Deadlock trace signature. \param deadlock what was found */
    typedef void (*DeadlockTracedCallback)(const PfcDeadlock& deadlock);

  protected:
    void DoDispose() override;

  private:
    /** PfcPause trace of switch `index` (received side starts the watch). */
    void PauseTraced(uint32_t index, uint32_t port, uint8_t priority, bool sent);
    /** A wake-up: Check, and again later while a port stays paused. */
    void Wake();
    /** Fill m_deadlock.flows and .message from m_deadlock.cycle. */
    void Describe();

    std::vector<Ptr<RoceSwitch>> m_switches;                 //!< watched nodes
    std::vector<uint32_t> m_nodeIds;                         //!< their ids
    std::unordered_map<const RoceSwitch*, uint32_t> m_index; //!< switch -> index
    bool m_enabled{true};                                    //!< Enabled
    bool m_stop{true};                                       //!< StopSimulation
    Time m_threshold;                                        //!< PauseThreshold
    uint32_t m_maxFlows{8};                                  //!< MaxFlowsReported
    bool m_found{false};                                     //!< a deadlock was found
    PfcDeadlock m_deadlock;                                  //!< it
    EventId m_wake;                                          //!< next wake-up
    TracedCallback<const PfcDeadlock&> m_deadlockTrace;      //!< Deadlock
};

} // namespace ns3

#endif // PFC_DEADLOCK_WATCH_H
