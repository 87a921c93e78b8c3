/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FRAME_ORDER_H
#define ROCE_FRAME_ORDER_H

#include "ns3/event-impl.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

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

class RoceNetDevice;

/**
 * \ingroup training-net
 * The event of a frame's arrival at the receiving device: it carries the frame's key, which is
 * how RoceFrameScheduler tells a frame arrival from any other event (no state beside the event).
 */
class RoceFrameArrival final : public EventImpl
{
  public:
    /**
     * \param key the frame's key
     * \param device the receiving device
     * \param frame the frame
     * \param ethernet whether it carries its Ethernet header (RoceNetDevice::Receive)
     */
    RoceFrameArrival(const RoceFrameKey& key,
                     const Ptr<RoceNetDevice>& device,
                     const Ptr<Packet>& frame,
                     bool ethernet = true);
    ~RoceFrameArrival() override;

    /**
     * One arrival per frame hop, each deleted when it has run: freed arrivals wait on a list
     * for the next frames (a run holds about one per busy cable) instead of going back to
     * malloc. One list per process: a simulation runs in one thread.
     * \param size the object's size \return the memory
     */
    static void* operator new(std::size_t size);
    /** \param p memory operator new returned */
    static void operator delete(void* p);

    /** \return the frame's key */
    const RoceFrameKey& GetKey() const
    {
        return m_key;
    }

    /**
     * Ask the cache for the receiving device and the frame, which the arrival touches first
     * when it runs (RoceFrameScheduler, when it hands the arrival out): their loads then overlap
     * instead of stalling one after the other. Reads this arrival's own fields only.
     */
    void Prefetch() const
    {
        __builtin_prefetch(PeekPointer(m_device));
        if (m_frame) // a test's arrival may carry none
        {
            __builtin_prefetch(PeekPointer(m_frame));
            __builtin_prefetch(reinterpret_cast<const char*>(PeekPointer(m_frame)) + 64);
        }
    }

  private:
    void Notify() override;

    RoceFrameKey m_key;          //!< the frame's key
    Ptr<RoceNetDevice> m_device; //!< the receiving device
    Ptr<Packet> m_frame;         //!< the frame
    bool m_ethernet;             //!< whether it carries its Ethernet header

    /** a freed arrival's memory on the free list */
    struct Free
    {
        Free* next; //!< the next one
    };

    static Free* s_free; //!< the free list
};

/**
 * \ingroup training-net
 * The event scheduler of every simulation with a RoCE fabric: events of equal time are ordered
 * so that the order does not depend on when each was scheduled for the frames of cables
 * (RoceChannel, RoceRemoteChannel):
 *   1. frame arrivals (RoceFrameArrival) first, by their RoceFrameKey (node, interface,
 *      sequence);
 *   2. then every other event in the order it was scheduled (its uid), as ns-3 does.
 * In one process a frame's arrival is scheduled when it is sent; a frame from another MPI rank
 * only when the engine hands it over. With arrivals ordered by a key the sender set, one
 * process and any number of ranks run the events of an instant in the same order, so the same
 * rows come out (the other events of a node are scheduled by that node's own events, whose
 * order is then the same by induction).
 *
 * Only the arrivals need the key; every other event waits in the ns-3 scheduler named by the
 * attribute OtherEvents (ns-3 orders by time and uid, so any of them gives the same order; but
 * HeapScheduler, whose Remove breaks its heap in ns-3.37 to 3.39). The next event is the earlier
 * of the two heads, the arrival's on equal time.
 *
 * The arrivals of one sending end (node, interface) come in their order: a cable delivers its
 * frames in the order sent, each later than the one before. So each sending end's arrivals wait
 * in a queue of their own (a lane, first in first out) and only each lane's first is in a binary
 * heap: the heap holds one entry per busy sending end, not one per frame on the wire (a fast
 * link with some delay has tens of frames in flight; a heap of them all outgrew the caches at
 * 1,024 GPUs). An arrival that is not later than the last of its lane (an order a cable does not
 * make) waits in a second heap of single arrivals; the next arrival is the earlier of the two
 * heaps' heads, so the order is the key's whatever is inserted. Remove of an arrival is O(n)
 * (nothing removes one but a test: a frame on a cable always arrives); of another event, what the
 * OtherEvents scheduler's Remove costs (O(log n) for ns-3's map).
 *
 * RoceChannel::Attach installs it (Simulator::SetScheduler) when the simulation runs another,
 * with that SchedulerType as OtherEvents (ns-3's default ns3::MapScheduler becomes
 * RoceEventHeap, the same order at less cost); DistributedHelper binds it as SchedulerType
 * (OtherEvents then RoceEventHeap, the attribute's default).
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

    /**
     * Install this scheduler in the current simulation unless it already runs one; the
     * scheduler the simulation was told to use (SchedulerType) keeps the other events.
     */
    static void Use();
    /** \return true when this process's simulation runs this scheduler and it holds an event */
    static bool HasEvents();
    /** \return true when this process's simulation runs this scheduler */
    static bool InUse();
    /**
     * \param name set to the simulation's SchedulerType (the global value), if not null
     * \return true when it is ns-3's default (ns3::MapScheduler), which a program that names
     * none has: a fabric then installs a scheduler of its own that orders events the same way
     * (time, then uid) at less cost (Use; RoceEventBuckets::Use for a flow-level run)
     */
    static bool SchedulerTypeIsDefault(std::string* name = nullptr);

    /**
     * \return the entries of the heaps the next arrival is chosen from (one per busy lane, and
     * the single arrivals): what each RemoveNext of an arrival sorts (tests)
     */
    size_t GetFrameHeapSize() const;

  private:
    /**
     * An arrival in the heap: its order (time, key, uid) and what rebuilds its event (the
     * implementation and context), each once: 40 bytes, where the order beside a whole
     * Scheduler::Event took 56 (the heap's sift-down touches fewer cache lines).
     */
    struct Frame
    {
        uint64_t ts;      //!< time stamp
        uint64_t seq;     //!< the key's sequence
        uint32_t node;    //!< the key's node
        uint32_t ifIndex; //!< the key's interface
        uint32_t uid;     //!< scheduling order
        uint32_t context; //!< the event's context
        EventImpl* impl;  //!< the event

        /** \return the event it holds */
        Scheduler::Event Event() const
        {
            Scheduler::Event ev;
            ev.impl = impl;
            ev.key.m_ts = ts;
            ev.key.m_uid = uid;
            ev.key.m_context = context;
            return ev;
        }
    };

    static_assert(sizeof(Frame) == 40, "a frame arrival's heap entry is 40 bytes");

    /**
     * Inline, so that the heaps' comparisons need no call (through the PLT of the library).
     * \param a an arrival's order \param b another's \return true when a runs first
     */
    template <class A, class B>
    static bool RunsFirst(const A& a, const B& b)
    {
        if (a.ts != b.ts)
        {
            return a.ts < b.ts;
        }
        return std::tie(a.node, a.ifIndex, a.seq, a.uid) <
               std::tie(b.node, b.ifIndex, b.seq, b.uid);
    }

    /** a lane's first arrival in the heap of lanes: its order and its lane */
    struct Head
    {
        uint64_t ts;      //!< time stamp
        uint64_t seq;     //!< the key's sequence
        uint32_t node;    //!< the key's node
        uint32_t ifIndex; //!< the key's interface
        uint32_t uid;     //!< scheduling order
        uint32_t lane;    //!< index in m_lanes
        /// the arrival itself: PrefetchAround asks for it without reading the lane's ring, whose
        /// slot, written when the frame was sent, is seldom in a cache
        EventImpl* impl;

        /** \param f the lane's first arrival \param l the lane */
        Head(const Frame& f, uint32_t l)
            : ts(f.ts),
              seq(f.seq),
              node(f.node),
              ifIndex(f.ifIndex),
              uid(f.uid),
              lane(l),
              impl(f.impl)
        {
        }
    };

    static_assert(sizeof(Head) == 40, "a lane's heap entry is 40 bytes");

    /** one sending end's arrivals in their order: a ring of a power of two slots */
    struct Lane
    {
        std::vector<Frame> ring; //!< the slots
        uint32_t first{0};       //!< the first arrival's slot
        uint32_t count{0};       //!< arrivals waiting
        uint64_t lastTs{0};      //!< the last arrival's time (when count > 0)
        uint64_t lastSeq{0};     //!< and its sequence: kept here, its slot is seldom in a cache

        /** \return the first arrival */
        const Frame& Front() const
        {
            return ring[first];
        }

        /** \param i an index under count \return the i-th arrival */
        Frame& At(uint32_t i)
        {
            return ring[(first + i) & (ring.size() - 1)];
        }

        /** \param f an arrival later than every waiting one */
        void PushBack(const Frame& f);
        /** take the first arrival out */
        void PopFront();
        /** \param i an index under count: take the i-th arrival out */
        void Erase(uint32_t i);
    };

    /** a sending end's lane in the open-addressed table */
    struct LaneSlot
    {
        uint64_t end{0};           //!< node << 32 | interface
        uint32_t lane{UINT32_MAX}; //!< index in m_lanes; UINT32_MAX: a free slot
    };

    /** \param node a sending node \param ifIndex its interface \return its lane, made on first use
     */
    uint32_t LaneOf(uint32_t node, uint32_t ifIndex);
    /** \return true when the next arrival is a lane's first, false when a single one */
    bool LaneFirst() const;
    /** \return the time of the next arrival; there is one */
    uint64_t NextFrameTime() const;
    /** the heap of lanes' first has a new or no top lane: restore the heap below it */
    void SiftDownHead();
    /**
     * \param out the arrival handed out now: ask the cache for what it touches first (its
     * device and frame) and for the next lane's first arrival, so that their loads overlap
     * with each other and with the events run before them instead of stalling each in turn
     */
    void PrefetchAround(const Frame& out) const;
    /** rebuild the heap of lanes from the lanes (after a Remove) */
    void RebuildHeads();

    /** \param type the TypeId name of the scheduler of the other events */
    void SetOtherEvents(const std::string& type);
    /** \return true when the next event is a frame arrival */
    bool FrameFirst() const;

    /** the heaps' order: std::push_heap keeps the largest first, so the later arrival is less */
    struct Later
    {
        /** \param a an arrival (Frame or Head) \param b another \return true when b runs first */
        template <class T>
        bool operator()(const T& a, const T& b) const
        {
            return RunsFirst(b, a);
        }
    };

    std::vector<Frame> m_frames;       //!< arrivals out of their lane's order, a min-heap
    std::vector<Head> m_heads;         //!< each busy lane's first arrival, a min-heap
    std::vector<Lane> m_lanes;         //!< every sending end's arrivals, in its order
    std::vector<LaneSlot> m_laneSlots; //!< sending end -> lane, at most half full
    Ptr<Scheduler> m_others;           //!< every other event
    std::string m_othersType;          //!< its TypeId name

    static RoceFrameScheduler* s_current; //!< the scheduler of this process's simulation
};

/**
 * \ingroup training-net
 * An ns-3 scheduler in one binary heap, ordered as every ns-3 scheduler (time, then uid): what
 * RoceFrameScheduler keeps the other events in when the program names ns-3's default
 * (ns3::MapScheduler). A packet-level run holds some 10^5 events (a transmission end per busy
 * port, a timer per queue pair); the map allocates a node per event and walks its tree on
 * every insert, the heap appends to one array and moves a new event, usually later than most,
 * a level or two. Remove (a queue pair's timer taken out when all is acknowledged) marks the
 * event, its key kept in a second heap: it is dropped when it comes to the top (the two heads
 * are then the same event), or in one pass when marked events are half of the heap; the head
 * is never a marked one.
 */
class RoceEventHeap : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceEventHeap();
    ~RoceEventHeap() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;
    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

  private:
    /** the heap's order: std::push_heap keeps the largest first, so the later event is less */
    struct Later
    {
        /** \param a an event \param b another \return true when b runs before a */
        bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
        {
            return b.key < a.key;
        }
    };

    /** the marked keys' order, the same */
    struct LaterKey
    {
        /** \param a a key \param b another \return true when b runs before a */
        bool operator()(const Scheduler::EventKey& a, const Scheduler::EventKey& b) const
        {
            return b < a;
        }
    };

    /** drop the marked events at the top, so that the head is a live one */
    void DropMarkedHead();

    std::vector<Scheduler::Event> m_heap;      //!< the events, marked ones included
    std::vector<Scheduler::EventKey> m_marked; //!< keys of the marked events in m_heap, a heap
};

} // namespace ns3

#endif // ROCE_FRAME_ORDER_H
