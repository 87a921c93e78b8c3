/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceFifo, the queue of a queue pair's messages (model/roce/roce-fifo.h).
 */
#include "ns3/roce-fifo.h"
#include "ns3/test.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net-tests
 * RoceFifo, the queue of a QP's messages, against std::deque under a seeded mix of pushes
 * and pops that empties the queue, grows it past the compaction threshold and keeps a long
 * dead prefix: the same items in the same order at every position, no memory while empty,
 * a taken-out item released at once, the storage bounded by the live items, TakeAll in order.
 */
class RoceFifoTestCase : public TestCase
{
  public:
    RoceFifoTestCase()
        : TestCase("RoceFifo: a deque's order, no memory while empty")
    {
    }

  private:
    void DoRun() override
    {
        RoceFifo<std::shared_ptr<uint32_t>> fifo;
        std::deque<std::shared_ptr<uint32_t>> reference;
        NS_TEST_ASSERT_MSG_EQ(fifo.GetCapacity(), 0U, "a new queue holds no memory");
        uint32_t next = 0;
        uint64_t lcg = 12345;
        size_t emptied = 0;
        size_t longRounds = 0;
        size_t maxLive = 0; // since the queue last emptied
        for (uint32_t round = 0; round < 24000; ++round)
        {
            lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
            // from empty, balanced (it empties often); growing; balanced around a long queue
            // (without compaction its storage would grow with every push); draining
            const uint32_t die = static_cast<uint32_t>(lcg >> 33) % 6;
            bool push = die < 3;
            if (round >= 3000 && round < 5000)
            {
                push = die < 4;
            }
            else if (round >= 15000)
            {
                push = die < 2;
            }
            if (reference.empty() || push)
            {
                auto item = std::make_shared<uint32_t>(next++);
                reference.push_back(item);
                fifo.push_back(std::move(item));
            }
            else
            {
                std::weak_ptr<uint32_t> out = fifo.front();
                NS_TEST_ASSERT_MSG_EQ(*fifo.front(), *reference.front(), "front, round " << round);
                fifo.pop_front();
                reference.pop_front();
                NS_TEST_ASSERT_MSG_EQ(out.expired(),
                                      true,
                                      "a popped item is released, round " << round);
                if (reference.empty())
                {
                    ++emptied;
                    maxLive = 0;
                    NS_TEST_ASSERT_MSG_EQ(fifo.GetCapacity(),
                                          0U,
                                          "an emptied queue holds no memory");
                }
            }
            maxLive = std::max(maxLive, reference.size());
            NS_TEST_ASSERT_MSG_EQ(fifo.size(), reference.size(), "size, round " << round);
            NS_TEST_ASSERT_MSG_EQ(fifo.empty(), reference.empty(), "empty, round " << round);
            if (!reference.empty())
            {
                const size_t at = static_cast<size_t>(lcg >> 40) % reference.size();
                NS_TEST_ASSERT_MSG_EQ(*fifo[at],
                                      *reference[at],
                                      "item " << at << ", round " << round);
            }
            // dead items stay fewer than the live ones (or the threshold): the storage, which a
            // vector at most doubles, follows the longest the queue was since it last emptied
            NS_TEST_ASSERT_MSG_LT_OR_EQ(fifo.GetCapacity(),
                                        2 * (2 * maxLive + RoceFifo<int>::COMPACT_AFTER),
                                        "storage follows the live items, round " << round);
            longRounds += reference.size() > 4 * RoceFifo<int>::COMPACT_AFTER ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT(emptied, 10U, "the mix emptied the queue often");
        NS_TEST_ASSERT_MSG_GT(longRounds, 10000U, "and held a long queue for long");
        const size_t live = reference.size();
        std::vector<std::shared_ptr<uint32_t>> all = fifo.TakeAll();
        NS_TEST_ASSERT_MSG_EQ(all.size(), live, "TakeAll takes every item");
        for (size_t i = 0; i < all.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(*all[i], *reference[i], "TakeAll's order at " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(fifo.empty(), true, "empty after TakeAll");
        NS_TEST_ASSERT_MSG_EQ(fifo.GetCapacity(), 0U, "no memory after TakeAll");
    }
};

/**
 * \ingroup training-net-tests
 * RoceFifo's test suite.
 */
class RoceFifoTestSuite : public TestSuite
{
  public:
    RoceFifoTestSuite()
        : TestSuite("training-net-roce-fifo", UNIT)
    {
        AddTestCase(new RoceFifoTestCase, TestCase::QUICK);
    }
};

static RoceFifoTestSuite g_roceFifoTestSuite; //!< static instance

} // namespace ns3
