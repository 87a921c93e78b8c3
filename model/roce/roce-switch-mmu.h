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
 * Buffer of BufferSize bytes (by default scaled with the ports as switch chips are: the sum
 * over ports of rate x BufferTimePerPort, 1 MB per 400 Gb/s port, and at least 32 MiB) split
 * into: per (ingress port, priority) reserve (Reserve bytes,
 * for all 8 priorities of every port; by default 2 frames, but never more than a quarter of
 * the buffer over all reserves), headroom for the lossless priorities, and the shared pool.
 * The headroom of a port is what still arrives after it sends a PAUSE:
 * 2*(MTU+overhead) + PFC response + 2*rate*delay bytes (or the Headroom attribute). It is either
 * dedicated (HeadroomPoolSize 0: pre-allocated per (port, lossless priority)) or pooled
 * (HeadroomPoolSize > 0: one switch-wide pool of that size is pre-allocated instead; a
 * (port, priority) may still hold at most its port's headroom), which lets a switch of
 * thousands of ports keep a shared pool without a larger BufferSize.
 * A packet of a (port, priority) is counted in its reserve first, then in the shared pool while
 * the shared use of that (port, priority) is below the dynamic threshold
 * T = alpha * free, free = BufferSize - reserves - headrooms (or pool) - total shared use (>= 0),
 * and beyond T in the headroom (lossless) or dropped (lossy, reason "LossyThreshold"; a packet
 * that does not fit in the whole buffer is dropped with "BufferFull").
 * A lossless packet that does not fit in its headroom (or in the pool) is dropped with reason
 * "HeadroomOverflow": a real switch has no more memory for it, and the drop is the sign of a
 * headroom too small for the cable (GetHeadroomOverflows() counts them).
 * PAUSE when the headroom of (port, priority) is in use or its shared use >= T; RESUME when the
 * headroom is empty and shared use + ResumeOffset <= T.
 *
 * ECN: at dequeue on an egress port of rate R with q bytes left in that priority queue,
 * mark with p = 0 below Kmin, pmax*(q-Kmin)/(Kmax-Kmin) in [Kmin, Kmax], 1 above Kmax; with
 * EcnScaleWithRate Kmin and Kmax are the attribute values times R / 25 Gb/s (pmax is not
 * scaled).
 *
 * Layout selects how the HPCC family's switches lay the buffer out instead ("hpcc": alibaba-edu's
 * SwitchMmu, "ns3-datacenter": inet-tub's SONiC-like dynamic threshold), for runs held to
 * them (roce-hpcc-flows --family). Both size a port's headroom as 3 x rate x delay (whole
 * bytes of rate x delay, times 3) and keep control frames out of the buffer; "hpcc" keeps a
 * 4096-byte reserve per (port, priority) but pre-allocates reserve and headroom once per port,
 * and resumes at shared use + 3072 <= T; "ns3-datacenter" has no reserve, pre-allocates the
 * headroom for all 8 priorities of every port, compares the queue's bytes with T taken after
 * the packet joined the pool, keeps a (port, priority) in its headroom until that drains,
 * pauses only while the headroom is in use, and resumes below 1248 bytes or at bytes + 2496
 * <= T. Reserve, ResumeOffset and Headroom still win when set.
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
    /// Smallest buffer when it scales with the ports (BufferSize 0): the former fixed default.
    static constexpr uint64_t MIN_AUTO_BUFFER = 32 * 1024 * 1024;
    static constexpr uint64_t HPCC_RESERVE = 4096;        //!< "hpcc": reserve per (port, priority)
    static constexpr uint64_t HPCC_RESUME_OFFSET = 3072;  //!< "hpcc": resume offset
    static constexpr uint64_t NS3DC_RESUME_OFFSET = 2496; //!< "ns3-datacenter": xon_offset
    static constexpr uint64_t NS3DC_XON = 1248;           //!< "ns3-datacenter": xon

    /// Buffer layout (the Layout attribute): this model's, or an HPCC family member's.
    enum Layout
    {
        LAYOUT_OWN,           //!< "training-net": reserve, headroom and resume as above
        LAYOUT_HPCC,          //!< "hpcc": alibaba-edu/High-Precision-Congestion-Control
        LAYOUT_NS3DATACENTER, //!< "ns3-datacenter": inet-tub/ns3-datacenter
    };

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
     * Register a port (index = number of ports before the call). Ports are added while the
     * buffer is empty (before traffic): the default reserve depends on the port count.
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
        return m_headroomAttr > 0 ? m_headroomAttr : m_headroomSize[port];
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

    /** \return buffer size in effect (BufferSize, or scaled with the ports) */
    uint64_t GetBufferSize() const
    {
        return m_bufferSize;
    }

    /** \return drops so far, all reasons (lossy thresholds and headroom overflows) */
    uint64_t GetDrops() const
    {
        return m_drops;
    }

    /** \return lossless packets dropped because their headroom was full (should stay 0) */
    uint64_t GetHeadroomOverflows() const
    {
        return m_headroomOverflows;
    }

    /** \return the free shared buffer now (the T = Alpha * free of the dynamic threshold) */
    uint64_t GetFreeBuffer() const
    {
        return GetFree();
    }

    /** \return the reserve per (port, priority) in effect (Reserve, or its default) */
    uint64_t GetReserve() const;

    /** \return bytes pre-allocated to reserves */
    uint64_t GetTotalReserve() const
    {
        // "hpcc" pre-allocates one reserve per port
        return GetReserve() * (m_layout == LAYOUT_HPCC ? 1 : NUM_PRIORITIES) * m_portRate.size();
    }

    /** \return bytes pre-allocated to headroom (dedicated headrooms, or the pool) */
    uint64_t GetTotalHeadroom() const;

    /** \return headroom pool bytes in use (0 with dedicated headroom) */
    uint64_t GetHeadroomPoolUsed() const
    {
        return m_poolUsed;
    }

    /**
     * \param port port \param priority priority
     * \return bytes of (port, priority) counted in the shared pool (beyond reserve and headroom)
     */
    uint64_t GetSharedBytes(uint32_t port, uint8_t priority) const
    {
        const uint64_t used = m_ingress[port * NUM_PRIORITIES + priority];
        const uint64_t reserve = GetReserve();
        return used > reserve ? used - reserve : 0;
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
    /** \return the resume offset in effect (ResumeOffset, or its default) */
    uint64_t GetResumeOffset() const;

    /// BufferSize attribute setter: the size in effect follows it
    void SetBufferSize(uint64_t bytes);
    /// \return the BufferSize attribute (0: scaled with the ports)
    uint64_t GetBufferSizeAttribute() const;
    /// the size in effect: BufferSize, or scaled with the ports
    void UpdateBufferSize();

    uint64_t m_bufferSize{MIN_AUTO_BUFFER}; //!< buffer in effect
    uint64_t m_bufferAttr{0};               //!< BufferSize (0 = scaled with the ports)
    Time m_bufferTime;                      //!< BufferTimePerPort
    double m_portBuffer{0};                 //!< sum of rate * BufferTimePerPort, bytes
    uint32_t m_mtu;                         //!< Mtu (RoCE payload)
    uint64_t m_reserve;                     //!< Reserve (0 = default)
    uint64_t m_headroomAttr;                //!< Headroom (0 = computed per port)
    uint64_t m_poolSize;                    //!< HeadroomPoolSize (0 = dedicated headroom)
    uint64_t m_resumeOffset;                //!< ResumeOffset (0 = default)
    Layout m_layout{LAYOUT_OWN};            //!< Layout
    double m_alpha;                         //!< Alpha
    uint32_t m_pfcResponseQuanta;           //!< PFC response quanta at 100 Gb/s
    uint64_t m_kmin;                        //!< EcnKmin at 25 Gb/s
    uint64_t m_kmax;                        //!< EcnKmax at 25 Gb/s
    double m_pmax;                          //!< EcnPmax
    bool m_ecnScale;                        //!< EcnScaleWithRate
    bool m_ecnEnabled;                      //!< EcnEnabled

    std::vector<uint64_t> m_portRate;     //!< bit/s per port
    std::vector<uint64_t> m_headroomSize; //!< per port headroom size per lossless priority
    std::vector<uint8_t> m_lossless;      //!< per port PFC enable mask
    std::vector<uint64_t> m_kminPort;     //!< per port Kmin
    std::vector<uint64_t> m_kmaxPort;     //!< per port Kmax
    std::vector<uint64_t> m_ingress;      //!< per (port, priority) reserve+shared bytes
    std::vector<uint64_t> m_headroom;     //!< per (port, priority) headroom bytes
    uint64_t m_totalHeadroom{0};          //!< sum of computed dedicated headroom sizes
    uint64_t m_losslessQueues{0};         //!< (port, lossless priority) pairs
    uint64_t m_poolUsed{0};               //!< headroom pool bytes in use
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
