/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HASH_H
#define ROCE_HASH_H

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief MurmurHash3's 32-bit finalizer (fmix32): every input bit flips each output bit with
 * probability near 1/2, so consecutive addresses and ports spread over ECMP next hops.
 * RoceForwarding::EcmpHash chains it; RoceMurmur3 ends with it.
 * \param h the state
 * \return the mixed state
 */
inline uint32_t
RoceMurmur3Finalize(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/**
 * \ingroup training-net
 * \brief MurmurHash3 (x86, 32-bit) of `count` 32-bit words, each taken as its four
 * little-endian bytes (the key is 4 x count bytes long): the hash the HPCC family's switches
 * use for ECMP (RoceHpccFamilyEcmpHash).
 * \param words the key \param count its words \param seed the seed
 * \return the hash
 */
inline uint32_t
RoceMurmur3(const uint32_t* words, size_t count, uint32_t seed)
{
    uint32_t h = seed;
    for (size_t i = 0; i < count; ++i)
    {
        uint32_t k = words[i] * 0xcc9e2d51u;
        k = (k << 15) | (k >> 17);
        h ^= k * 0x1b873593u;
        h = (h << 13) | (h >> 19);
        h = h * 5 + 0xe6546b64u;
    }
    return RoceMurmur3Finalize(h ^ uint32_t(4 * count));
}

} // namespace ns3

#endif // ROCE_HASH_H
