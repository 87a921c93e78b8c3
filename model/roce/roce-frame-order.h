/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FRAME_ORDER_H
#define ROCE_FRAME_ORDER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <map>

namespace ns3
{

/**
 * \ingroup training-net
 * The tie-break key of a frame on a RoCE cable: its sending node, that node's interface and the
 * sending end's count of frames before it. The sender's own events set it, so it is the same
 * whichever rank runs the receiver and whenever the receiver learns of the frame.
 */
struct RoceFrameKey
{
    uint32_t node{0};    //!< sending node's id
    uint32_t ifIndex{0}; //!< sending device's interface index
    uint64_t seq{0};     //!< frames this end sent before this one
};

/**
 * \ingroup training-net
 * The event scheduler of every simulation with a RoCE fabric: the same runs as ns-3's map
 * scheduler, but events of equal time are ordered so that the order does not depend on when
 * each was scheduled for the frames of cables (RoceChannel, RoceRemoteChannel):
 *   1. frame arrivals first, by their RoceFrameKey (node, interface, sequence);
 *   2. then every other event in the order it was scheduled (its uid), as ns-3 does.
 * In one process a frame's arrival is scheduled when it is sent; a frame from another MPI rank
 * only when the engine hands it over. With arrivals ordered by a key the sender set, one
 * process and any number of ranks run the events of an instant in the same order, so the same
 * rows come out (the other events of a node are scheduled by that node's own events, whose
 * order is then the same by induction).
 *
 * RoceChannel::Attach installs it (Simulator::SetScheduler) when the simulation runs another;
 * DistributedHelper binds it as SchedulerType. Remove of a frame arrival (never cancelled by
 * the channels) searches the whole queue.
 */
class RoceFrameScheduler : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceFrameScheduler();
    ~RoceFrameScheduler() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /** Install this scheduler in the current simulation unless it already runs one. */
    static void Use();
    /** \return true when this process's simulation runs this scheduler and it holds an event */
    static bool HasEvents();

    /**
     * While one lives, the next event scheduled is a frame arrival with this key (the channel
     * builds one around its Simulator::ScheduleWithContext call). With another scheduler
     * installed the key is ignored.
     */
    class Arrival
    {
      public:
        /** \param key the frame's key */
        explicit Arrival(const RoceFrameKey& key);
        ~Arrival();
        Arrival(const Arrival&) = delete;
        Arrival& operator=(const Arrival&) = delete;
    };

  private:
    /** the total order of events */
    struct Order
    {
        uint64_t ts;      //!< time stamp
        uint32_t other;   //!< 0 for a frame arrival, 1 for any other event
        RoceFrameKey key; //!< frame arrivals only
        uint32_t uid;     //!< scheduling order

        /** \param o the other \return true when this runs first */
        bool operator<(const Order& o) const;
    };

    std::map<Order, Scheduler::Event> m_events; //!< the queue

    static RoceFrameScheduler* s_current; //!< the scheduler of this process's simulation
    static const RoceFrameKey* s_next;    //!< key of the arrival being scheduled, if any
};

} // namespace ns3

#endif // ROCE_FRAME_ORDER_H
