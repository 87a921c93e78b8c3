/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FIFO_H
#define ROCE_FIFO_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * A first-in first-out queue that holds no memory while it is empty: a vector and the index
 * of its first live entry. std::deque allocates 576 bytes when it is built, and a queue pair
 * (one for every peer its NIC ever wrote to: 2.1 M of them in a 4,096-GPU hierarchical
 * all-reduce) keeps its messages in one, idle most of the time.
 *
 * An item taken out is replaced by a default one at once (what it holds, a callback's
 * bound objects say, is released then, as std::deque's pop_front does). The storage is
 * released when the queue empties, and compacted when its dead prefix outweighs the live
 * items, so push and pop are amortised O(1) and the memory follows the live items.
 */
template <typename T>
class RoceFifo
{
  public:
    /** \return the live items */
    size_t size() const
    {
        return m_items.size() - m_head;
    }

    /** \return whether no item is live */
    bool empty() const
    {
        return m_head == m_items.size();
    }

    /** \param i position from the first live item (< size()) \return that item */
    T& operator[](size_t i)
    {
        return m_items[m_head + i];
    }

    /** \return the first live item (the queue is not empty) */
    T& front()
    {
        return m_items[m_head];
    }

    /** \param item appended last */
    void push_back(T&& item)
    {
        m_items.push_back(std::move(item));
    }

    /** Take out the first item (the queue is not empty). */
    void pop_front()
    {
        m_items[m_head] = T();
        ++m_head;
        if (m_head == m_items.size())
        {
            m_items = std::vector<T>();
            m_head = 0;
        }
        else if (m_head >= COMPACT_AFTER && 2 * m_head >= m_items.size())
        {
            m_items.erase(m_items.begin(), m_items.begin() + m_head);
            m_head = 0;
        }
    }

    /** \return every live item, in order; the queue is left empty, holding no memory */
    std::vector<T> TakeAll()
    {
        std::vector<T> all;
        all.reserve(size());
        for (size_t i = m_head; i < m_items.size(); ++i)
        {
            all.push_back(std::move(m_items[i]));
        }
        m_items = std::vector<T>();
        m_head = 0;
        return all;
    }

    /** \return the items the storage has room for, dead ones included (tests) */
    size_t GetCapacity() const
    {
        return m_items.capacity();
    }

    /// dead items kept before a compaction is considered (fewer are not worth a move)
    static constexpr size_t COMPACT_AFTER = 32;

  private:
    std::vector<T> m_items; //!< items; those before m_head are taken out
    size_t m_head{0};       //!< index of the first live item
};

} // namespace ns3

#endif // ROCE_FIFO_H
