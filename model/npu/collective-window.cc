/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-window.h"

#include <algorithm>
#include <cstddef>
#include <memory>

namespace ns3
{

void
CollectiveWindow::Pack(const CollectiveWindowArrays& a)
{
    // the block: an OpState per line, then the slots by group and match (what a message's
    // look-up reads next), the groups when they do not fit the first line, the joins, the
    // slots by join and the joins by slot
    static_assert(sizeof(CollectiveOpState) == sizeof(Line) &&
                      alignof(CollectiveGroup) <= alignof(Line) &&
                      alignof(CollectiveJoin) <= alignof(CollectiveGroup) &&
                      alignof(uint32_t) <= alignof(CollectiveJoin),
                  "OpState fills a line; each array after it aligned by the one before");
    static_assert(offsetof(CollectiveWindow, prog) == sizeof(Line),
                  "the look-up's fields in the first line");
    const size_t n = a.ops.size();
    const uint32_t g = static_cast<uint32_t>(a.groups.size() - 1); // the sentinel
    const bool inlined = g <= INLINE_GROUPS;
    auto align = [](size_t at) {
        return (at + alignof(CollectiveGroup) - 1) & ~(alignof(CollectiveGroup) - 1);
    };
    const size_t groupsAt = align(a.groupOps.size() * sizeof(uint32_t));
    const size_t joinsAt = groupsAt + (inlined ? 0 : g * sizeof(CollectiveGroup));
    const size_t joinOpsAt = joinsAt + a.joins.size() * sizeof(CollectiveJoin);
    const size_t succAt = joinOpsAt + a.joinOps.size() * sizeof(uint32_t);
    const size_t tailBytes = succAt + a.succJoins.size() * sizeof(uint32_t);
    const size_t lines = n + (tailBytes + sizeof(Line) - 1) / sizeof(Line);
    if (lines > block.capacity())
    {
        // an eighth spare, not resize's doubling: a window's renewals vary by a line or two,
        // and doubling left most windows of a large run at twice their size
        std::vector<Line> larger;
        larger.reserve(lines + lines / 8);
        block.swap(larger);
    }
    block.resize(lines);
    uint8_t* tail = reinterpret_cast<uint8_t*>(block.data() + n);
    ops = reinterpret_cast<CollectiveOpState*>(block.data());
    groupOps = reinterpret_cast<uint32_t*>(tail);
    group = inlined ? inlineGroups : reinterpret_cast<CollectiveGroup*>(tail + groupsAt);
    joins = reinterpret_cast<CollectiveJoin*>(tail + joinsAt);
    joinOps = reinterpret_cast<uint32_t*>(tail + joinOpsAt);
    succJoins = reinterpret_cast<uint32_t*>(tail + succAt);
    // the arrays' objects begin their lifetime in the block's storage
    std::uninitialized_copy(a.ops.begin(), a.ops.end(), ops);
    std::uninitialized_copy(a.groups.begin(), a.groups.begin() + g, group);
    std::uninitialized_copy(a.groupOps.begin(), a.groupOps.end(), groupOps);
    std::uninitialized_copy(a.joins.begin(), a.joins.end(), joins);
    std::uninitialized_copy(a.joinOps.begin(), a.joinOps.end(), joinOps);
    std::uninitialized_copy(a.succJoins.begin(), a.succJoins.end(), succJoins);
    first = rp.first;
    count = rp.count;
    prog = rp.ops;
    groups = g;
    lastGroup = lastGroup < groups ? lastGroup : 0;
}

size_t
CollectiveWindow::FindGroup(bool send, uint32_t peer) const
{
    const uint64_t key = GroupKey(send, peer);
    const CollectiveGroup* begin = Groups();
    // a rank's messages come in runs of one direction and peer
    if (lastGroup < groups && begin[lastGroup].key == key)
    {
        return lastGroup;
    }
    const CollectiveGroup* end = begin + groups;
    const CollectiveGroup* it =
        std::lower_bound(begin, end, key, [](const CollectiveGroup& g, uint64_t v) {
            return g.key < v;
        });
    if (it == end || it->key != key)
    {
        return SIZE_MAX;
    }
    lastGroup = static_cast<uint32_t>(it - begin);
    return lastGroup;
}

uint32_t
CollectiveWindow::Find(bool send, uint32_t peer, uint32_t match) const
{
    const size_t g = FindGroup(send, peer);
    if (g == SIZE_MAX)
    {
        return UINT32_MAX;
    }
    const CollectiveGroup* all = Groups();
    const uint32_t end = g + 1 < groups ? all[g + 1].start : count;
    if (match < all[g].match || match - all[g].match >= end - all[g].start)
    {
        return UINT32_MAX;
    }
    return first + groupOps[all[g].start + (match - all[g].match)];
}

} // namespace ns3
