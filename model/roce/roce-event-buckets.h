/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An ns-3 scheduler for flow-level runs: events in buckets of equal time.
 */
#ifndef ROCE_EVENT_BUCKETS_H
#define ROCE_EVENT_BUCKETS_H

#include "ns3/event-impl.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <functional>
#include <map>
#include <typeinfo>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief An event that names, when it is scheduled, the memory its run reads first.
 *
 * RoceEventBuckets asks for that memory a few events before the event's turn: a flow-level
 * run's events each read another NIC's state, a cache miss apiece at 16,384 NPUs. The
 * addresses are hints only: one that is stale by the event's turn costs a useless prefetch
 * (which never faults), nothing else.
 */
class RoceHintedEvent : public EventImpl
{
  public:
    const void* hints[3]{nullptr, nullptr, nullptr}; //!< addresses to prefetch (null: none)

    /**
     * Asked three, two and one events before its turn (stages 0, 1 and 2), once its object
     * and hints are cached: ask for what its run reads after them, each stage what the one
     * before brought may name. Only a hint: it must not change anything the run reads.
     * \param stage the stage
     */
    virtual void Prefetch(uint32_t stage) const
    {
    }
};

/**
 * \ingroup training-net
 * \brief An ns-3 scheduler that keeps the events of each time stamp in one array, in uid order.
 *
 * Orders events as every ns-3 scheduler does (time, then uid). A flow-level run (FlowNetwork)
 * schedules each message's delivery and ACK a fixed path delay after its flow ends, and the
 * NPUs of a collective move in step, so thousands of events share a time stamp: a binary heap
 * of 10^5 events (RoceEventHeap) walks its depth in cache misses at every insert and removal
 * (8.5 % of a 16,384-NPU ring2d run), where here an insert appends to its time's array and a
 * removal reads the next entry of the earliest array. The arrays are found by time in a map
 * that holds one entry per distinct time waiting (a few hundred there), the one inserted into
 * last looked at first.
 *
 * ns-3 gives events increasing uids as they are scheduled, so appending keeps each array in
 * uid order; an event inserted with a smaller uid than its array's last (events moved over from
 * another scheduler) is put in its place. Remove erases the event from its array.
 */
class RoceEventBuckets : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceEventBuckets();
    ~RoceEventBuckets() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /**
     * Makes this scheduler the simulation's when the program kept ns-3's default
     * (SchedulerType ns3::MapScheduler) and the simulation runs neither this one nor
     * RoceFrameScheduler (a packet-level fabric's, which must order frame arrivals); the
     * events already scheduled move over in their order. Called by FlowNetwork::Build: a
     * program that names a scheduler keeps it.
     */
    static void Use();
    /** \return true when this scheduler orders this process's simulation's events (tests) */
    static bool InUse();

    /**
     * Calls hook between two events, once every `every` events removed, while this scheduler
     * orders this process's simulation (InUse). For what must look at the wall clock where
     * one event may take seconds and simulated time crawls (the scenario runner's live view:
     * a fluid recomputation over a million flows took seconds per event, and its ticks in
     * simulated time came minutes apart). The hook must not schedule events. Null, or every
     * 0, clears it.
     * \param hook the function \param every events between calls
     * \return whether it is set (false: no simulation runs on this scheduler)
     */
    static bool SetBetweenEvents(std::function<void()> hook, uint32_t every);

  private:
    /// How many events ahead RemoveNext prefetches the event's object.
    static constexpr size_t PREFETCH_DISTANCE = 8;
    /// How many events ahead it prefetches what a RoceHintedEvent names (its object is in
    /// cache by then).
    static constexpr size_t HINT_DISTANCE = 4;
    /// How many events ahead a RoceHintedEvent's stages run (RoceHintedEvent::Prefetch).
    static constexpr size_t STAGE_DISTANCE[3] = {3, 2, 1};

    /** \param impl an event \return it as a hinted event, or null: the answer of one
     * dynamic_cast per kind of event, kept (a cast per event cost 3.7 % of a 1,024-NPU
     * flow-level run: its type names compared as strings across shared libraries) */
    const RoceHintedEvent* AsHinted(const EventImpl* impl);

    /// The events of one time stamp: events[head, end) wait, in uid order.
    struct Bucket
    {
        std::vector<Scheduler::Event> events; //!< the events, the first head already out
        size_t head{0};                       //!< the first waiting
    };

    /** \param ts a time stamp \return its bucket, created if none */
    Bucket& BucketOf(uint64_t ts);
    /** \param it a bucket nothing waits in: freed, its array kept for a later time */
    void Release(std::map<uint64_t, uint32_t>::iterator it);

    std::map<uint64_t, uint32_t> m_byTime; //!< time -> index in m_buckets, of waiting buckets
    std::vector<Bucket> m_buckets;         //!< buckets, in use or free
    std::vector<uint32_t> m_free;          //!< indices of free buckets (their arrays kept)
    uint64_t m_lastTs{0};                  //!< the time inserted into last
    uint32_t m_last{UINT32_MAX};           //!< its bucket (UINT32_MAX: none)
    uint64_t m_count{0};                   //!< events waiting
    /// AsHinted's answers: the last kinds of event seen (their type) and whether each is hinted
    const std::type_info* m_kinds[4]{nullptr, nullptr, nullptr, nullptr};
    bool m_kindHinted[4]{false, false, false, false};
    uint32_t m_nextKind{0};          //!< the entry the next new kind replaces
    std::function<void()> m_between; //!< SetBetweenEvents' hook (empty: none)
    uint32_t m_betweenEvery{0};      //!< its spacing in events
    uint32_t m_betweenLeft{0};       //!< events until its next call

    static RoceEventBuckets* s_current; //!< the scheduler of this process's simulation, if any
};

} // namespace ns3

#endif // ROCE_EVENT_BUCKETS_H
