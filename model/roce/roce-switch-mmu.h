/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_MMU_H
#define ROCE_SWITCH_MMU_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup training-net
 * Shared-buffer memory management unit of a RoceSwitch (ingress accounting, PFC decisions,
 * lossy drops) and its ECN marker (egress, at dequeue).
 *
 * Buffer of BufferSize bytes split into: per (ingress port, priority) reserve (Reserve bytes,
 * for all 8 priorities of every port), per (ingress port, lossless priority) headroom
 * (2*(MTU+overhead) + PFC response + 2*rate*delay bytes, pre-allocated), and the shared pool.
 * A packet of a (port, priority) is counted in its reserve first, then in the shared pool while
 * the shared use of that (port, priority) is below the dynamic threshold
 * T = alpha * free, free = BufferSize - reserves - headrooms - total shared use (>= 0),
 * and beyond T in the headroom (lossless) or dropped (lossy, reason "LossyThreshold"; a packet
 * that does not fit in the whole buffer is dropped with "BufferFull").
 * Lossless priorities never drop: beyond their headroom they are still admitted and counted as
 * headroom overflow (a misconfiguration indicator, GetHeadroomOverflows()).
 * PAUSE when the headroom of (port, priority) is in use or its shared use >= T; RESUME when the
 * headroom is empty and shared use + ResumeOffset <= T.
 *
 * ECN: at dequeue on an egress port of rate R with q bytes left in that priority queue,
 * mark with p = 0 below Kmin, pmax*(q-Kmin)/(Kmax-Kmin) in [Kmin, Kmax], 1 above Kmax; with
 * EcnScaleWithRate Kmin and Kmax are the attribute values times R / 25 Gb/s (pmax is not
 * scaled).
 *
 * Storage is linear in the number of ports (vectors), never ports^2.
 */
class RoceSwitchMmu : public Object
{
  public:
    static constexpr uint32_t NUM_PRIORITIES = 8; //!< data priorities
    /// per-packet bytes beyond the RoCE payload: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
    /// RETH 16 + ICRC 4 + FCS 4 + preamble/SFD 8 + IFG 12
    static constexpr uint32_t PACKET_OVERHEAD = 98;

    /**
     * Drop trace signature.
     * \param port ingress port
     * \param priority priority
     * \param bytes packet bytes
     * \param reason why
     */
    typedef void (*DropTracedCallback)(uint32_t port,
                                       uint8_t priority,
                                       uint32_t bytes,
                                       const std::string& reason);

    /** \return the TypeId */
    static TypeId GetTypeId();
    RoceSwitchMmu();
    ~RoceSwitchMmu() override;

    /**
     * Register a port (index = number of ports before the call).
     * \param rate port rate
     * \param delay propagation delay of its link
     * \param pfcEnableMask lossless priorities of that port
     * \return port index
     */
    uint32_t AddPort(DataRate rate, Time delay, uint8_t pfcEnableMask);

    /** \return number of ports */
    uint32_t GetNPorts() const
    {
        return m_portRate.size();
    }

    /**
     * Ingress admission; on success the bytes are accounted.
     * \param port ingress port
     * \param priority 0..7
     * \param bytes packet size
     * \param[out] reason drop reason when returning false
     * \return true if admitted
     */
    bool Admit(uint32_t port, uint8_t priority, uint32_t bytes, const char** reason);
    /**
     * Account a control-class packet (always admitted, never pauses).
     * \param bytes size
     */
    void AdmitControl(uint32_t bytes);
    /** \param bytes size of a control packet leaving */
    void ReleaseControl(uint32_t bytes);
    /**
     * A packet admitted on (port, priority) left the switch.
     * \param port ingress port
     * \param priority priority
     * \param bytes size
     */
    void Release(uint32_t port, uint8_t priority, uint32_t bytes);
    /** \return true if (port, priority) should be paused now */
    bool ShouldPause(uint32_t port, uint8_t priority) const;
    /** \return true if a paused (port, priority) may resume now */
    bool ShouldResume(uint32_t port, uint8_t priority) const;
    /**
     * ECN decision at dequeue.
     * \param port egress port
     * \param queueBytes bytes left in the egress priority queue
     * \return true to mark CE
     */
    bool ShouldMarkEcn(uint32_t port, uint64_t queueBytes);
    /**
     * Marking probability (no randomness), for checks.
     * \param port egress port
     * \param queueBytes queue bytes
     * \return probability
     */
    double GetMarkProbability(uint32_t port, uint64_t queueBytes) const;

    /** \return current dynamic threshold alpha * free (bytes) */
    uint64_t GetThreshold() const;

    /** \param port port \return headroom size (bytes) per lossless priority of that port */
    uint64_t GetHeadroomSize(uint32_t port) const
    {
        return m_headroomSize[port];
    }

    /** \return bytes in the buffer now */
    uint64_t GetBufferUsed() const
    {
        return m_used;
    }

    /** \return highest buffer use seen */
    uint64_t GetMaxBufferUsed() const
    {
        return m_maxUsed;
    }

    /** \return buffer size */
    uint64_t GetBufferSize() const
    {
        return m_bufferSize;
    }

    /** \return lossy drops so far */
    uint64_t GetDrops() const
    {
        return m_drops;
    }

    /** \return lossless packets admitted beyond their headroom (should stay 0) */
    uint64_t GetHeadroomOverflows() const
    {
        return m_headroomOverflows;
    }

    /** \param port port \param priority priority \return bytes accounted to (port, priority) */
    uint64_t GetIngressBytes(uint32_t port, uint8_t priority) const;

    /** \param port port \param priority priority \return headroom bytes in use */
    uint64_t GetHeadroomBytes(uint32_t port, uint8_t priority) const
    {
        return m_headroom[port * NUM_PRIORITIES + priority];
    }

    /**
     * \param stream first stream index
     * \return number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    /** \return the current free pool (clamped at 0) */
    uint64_t GetFree() const;

    uint64_t m_bufferSize;        //!< BufferSize
    uint32_t m_mtu;               //!< Mtu (RoCE payload)
    uint64_t m_reserve;           //!< Reserve
    uint64_t m_resumeOffset;      //!< ResumeOffset
    double m_alpha;               //!< Alpha
    uint32_t m_pfcResponseQuanta; //!< PFC response quanta at 100 Gb/s
    uint64_t m_kmin;              //!< EcnKmin at 25 Gb/s
    uint64_t m_kmax;              //!< EcnKmax at 25 Gb/s
    double m_pmax;                //!< EcnPmax
    bool m_ecnScale;              //!< EcnScaleWithRate
    bool m_ecnEnabled;            //!< EcnEnabled

    std::vector<uint64_t> m_portRate;     //!< bit/s per port
    std::vector<uint64_t> m_headroomSize; //!< per port headroom size per lossless priority
    std::vector<uint8_t> m_lossless;      //!< per port PFC enable mask
    std::vector<uint64_t> m_kminPort;     //!< per port Kmin
    std::vector<uint64_t> m_kmaxPort;     //!< per port Kmax
    std::vector<uint64_t> m_ingress;      //!< per (port, priority) reserve+shared bytes
    std::vector<uint64_t> m_headroom;     //!< per (port, priority) headroom bytes
    uint64_t m_totalReserve{0};           //!< sum of reserves
    uint64_t m_totalHeadroom{0};          //!< sum of headroom sizes
    uint64_t m_sharedUsed{0};             //!< bytes in the shared pool
    uint64_t m_controlUsed{0};            //!< control-class bytes
    TracedValue<uint64_t> m_used;         //!< total bytes in the buffer
    uint64_t m_maxUsed{0};                //!< peak
    uint64_t m_drops{0};                  //!< lossy drops
    uint64_t m_headroomOverflows{0};      //!< lossless beyond headroom
    Ptr<UniformRandomVariable> m_rng;     //!< ECN random stream
    TracedCallback<uint32_t, uint8_t, uint32_t, const std::string&> m_dropTrace; //!< drops
};

} // namespace ns3

#endif // ROCE_SWITCH_MMU_H
