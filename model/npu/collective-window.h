/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The window of one stream of a generated collective's rank program (Collective::SetupProgram,
 * doc/npu-collectives.rst): the ops held, their states, the joins of their dependencies, and
 * the index an arriving message's op is found by, packed in one block.
 */
#ifndef COLLECTIVE_WINDOW_H
#define COLLECTIVE_WINDOW_H

#include "ns3/tn-program.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/// A generated collective's state of one op: one struct of one cache line (the window's
/// block aligns it), so that an event at an op touches one line and not one per array (the
/// flow level's profile at 1,024 NPUs was led by those misses).
struct CollectiveOpState
{
    uint32_t transfer{UINT32_MAX}; //!< its transfer's number (the sender's numbering, see
                                   //!< Collective; a receive's is set when it arrives)
    uint32_t succBegin{0};         //!< the joins whose list holds it: succJoins[begin, end)
    uint32_t succEnd{0};
    uint32_t join{UINT32_MAX};    //!< the join of its dep list (none: UINT32_MAX)
    uint8_t flags{0};             //!< Collective's Flag bits
    uint8_t lane{0};              //!< its pair's lane (Collective::GetPairLane, looked up once)
    int64_t times[3]{-1, -1, -1}; //!< send: issue; receive: first, last byte, ready (ns)
    int64_t doneNs{-1};           //!< when it was done (acknowledged, or ready)
    int64_t sentNs{-1};           //!< receive: its send's issue time (set when it arrives)
};

/// Ops of a window sharing one dep list: deps not done yet, and where its ops start.
struct CollectiveJoin
{
    uint32_t pending;
    uint32_t opBegin; //!< its ops: joinOps[opBegin, next join's opBegin)
};

/// A window's ops of one (direction, peer), an array by match: groupOps[start, the next
/// group's start, or the window's ops after the last) holds the slots of matches match,
/// match + 1, ...
struct CollectiveGroup
{
    uint64_t key;   //!< CollectiveWindow::GroupKey(direction, peer); groups sorted by it
    uint32_t start; //!< its first slot in groupOps
    uint32_t match; //!< match of its first op
};

/// A window's arrays as built (Collective::FillWindow), before CollectiveWindow::Pack.
struct CollectiveWindowArrays
{
    std::vector<CollectiveOpState> ops;  //!< per slot
    std::vector<CollectiveJoin> joins;   //!< per distinct dep list, and an end sentinel
    std::vector<uint32_t> joinOps;       //!< slots, by join
    std::vector<uint32_t> succJoins;     //!< joins, by slot
    std::vector<CollectiveGroup> groups; //!< by key, and an end sentinel (start: the ops)
    std::vector<uint32_t> groupOps;      //!< slots, by group and match
};

/**
 * The state of an open stream's window: held only while the stream is open, so that a rank's
 * closed streams cost a few words each (a 16,384-NPU ring2d rank has about 127 streams at a
 * window of 32 ops). A message's look-up (Find) reads its first cache line (with its groups,
 * when they are few) and the second (aligned as a pair, which caches fetch together), then
 * its slot, and the executor its OpState and program op: its arrays are one block (Pack),
 * where separate vectors, each reached through its own pointer in a 300-byte struct, and a
 * group's fields in three of them, cost 4 to 6 lines more per message.
 */
struct alignas(128) CollectiveWindow
{
    /// One cache line of the block (an OpState each, the other arrays after them).
    struct alignas(64) Line
    {
        uint8_t bytes[64];
    };

    /// Groups held in the first cache line (a ring's window has a few peers).
    static constexpr uint32_t INLINE_GROUPS = 3;

    /** \return the key of the group of ops in direction send (else receive) with peer */
    static uint64_t GroupKey(bool send, uint32_t peer)
    {
        return (static_cast<uint64_t>(send) << 32) | peer;
    }

    CollectiveWindow() = default;
    CollectiveWindow(const CollectiveWindow&) = delete;
    CollectiveWindow& operator=(const CollectiveWindow&) = delete;

    ~CollectiveWindow()
    {
        tn_rank_program_free(&rp);
    }

    /**
     * Copies the arrays into the block (reused when it is large enough) and sets the first
     * line from rp as it is now.
     * \param arrays the window's arrays: as many ops as rp holds, groups sorted by key and
     * ended by a sentinel
     */
    void Pack(const CollectiveWindowArrays& arrays);

    /** \return the groups (in the first line when they fit there) */
    const CollectiveGroup* Groups() const
    {
        return groups <= INLINE_GROUPS ? inlineGroups : group;
    }

    /** \return index of the (send, peer) group, SIZE_MAX if none */
    size_t FindGroup(bool send, uint32_t peer) const;

    /**
     * \param send direction \param peer other rank \param match the transfer's match number
     * \return the program index of the op named so, UINT32_MAX if it is not in the window
     */
    uint32_t Find(bool send, uint32_t peer, uint32_t match) const;

    uint32_t first{0};                             //!< program index of slot 0 (rp.first, packed)
    uint32_t count{0};                             //!< ops held (rp.count, as packed)
    uint32_t groups{0};                            //!< groups
    mutable uint32_t lastGroup{0};                 //!< the group found last (looked at first)
    CollectiveGroup inlineGroups[INLINE_GROUPS]{}; //!< the groups, when at most INLINE_GROUPS
    // the second line
    const tn_program_op* prog{nullptr}; //!< rp.ops, as packed
    CollectiveOpState* ops{nullptr};    //!< per slot
    uint32_t* groupOps{nullptr};        //!< slots, by group and match
    CollectiveGroup* group{nullptr};    //!< the groups (inlineGroups or in the block)
    CollectiveJoin* joins{nullptr};     //!< per distinct dep list, and an end sentinel
    uint32_t* joinOps{nullptr};         //!< slots, by join
    uint32_t* succJoins{nullptr};       //!< joins, by slot
    std::vector<Line> block;            //!< the arrays above (reused by the next Pack)
    tn_rank_program rp{};               //!< the window: ops rp.first, rp.first + 1, ...
};

} // namespace ns3

#endif // COLLECTIVE_WINDOW_H
