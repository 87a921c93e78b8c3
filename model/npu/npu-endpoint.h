/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NPU endpoint: the NPU's memory as collectives use it, with a baseline (NPU-driven) or an
 * ACE collective engine.
 */
#ifndef NPU_ENDPOINT_H
#define NPU_ENDPOINT_H

#include "collective-executor.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class Collective;

/**
 * \ingroup training-net
 * \brief The memory side of an NPU's collective engine (aggregated to the NPU's node, beside
 * its CollectiveExecutor).
 *
 * Two engines (Rashidi et al., "Enabling Compute-Communication Overlap in Distributed Deep
 * Learning Training Platforms", ISCA 2021):
 *  - baseline: collectives run on the NPU's own cores and memory, as NCCL-like kernels do.
 *    Every byte this NPU sends is read from memory (1 byte per byte); a received copy is
 *    written to memory (1); a received reduce is written to a staging buffer, read back with
 *    the local operand and the result written (4). The reduction is a kernel that moves 3
 *    bytes of memory per byte reduced, at MemoryBandwidth.
 *  - ace: an engine beside the NIC with its own buffer and reducers. It reads this NPU's
 *    input from memory once when the NPU's part of a collective starts and writes its output
 *    once when the part ends; sends and receives in between stay in the engine. A reduce
 *    takes bytes / ReductionRate.
 * Memory traffic is counted per executed operation (GetMemoryBytes, the MemoryTraffic trace),
 * so its ratio to network bytes is a measurement of the schedule that ran: about 3.5 bytes
 * per network byte for a baseline ring all-reduce, N/(N-1) with ACE.
 *
 * The endpoint sets the executor's reduction-time hook. Not modelled yet: compute kernels
 * and their slowdown when they share memory bandwidth with communication, the compute share
 * baseline collectives take, the injection limit memory bandwidth puts on the NIC, and the
 * finite size of ACE's buffer (collectives are assumed to stream through it).
 */
class NpuEndpoint : public Object, private TransferBytesListener
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// Collective engines.
    enum Engine
    {
        BASELINE = 0, //!< NPU-driven collectives (cores and memory of the NPU)
        ACE = 1       //!< collective engine beside the NIC (ACE)
    };

    /**
     * Memory traffic trace signature.
     * \param bytes bytes read or written \param what "send", "receive", "reduce", "input",
     * "output"
     */
    typedef void (*MemoryTracedCallback)(uint64_t bytes, const std::string& what);

    NpuEndpoint();
    ~NpuEndpoint() override;

    /** \return the engine */
    Engine GetEngine() const
    {
        return m_engine;
    }

    /** \return bytes of memory traffic caused by collectives */
    uint64_t GetMemoryBytes() const
    {
        return m_memoryBytes;
    }

    /** \return bytes this NPU sent in collectives */
    uint64_t GetNetworkBytesSent() const
    {
        return m_networkBytes;
    }

    /** \return total time spent reducing */
    Time GetReductionTime() const
    {
        return m_reductionTime;
    }

    /**
     * \param bytes bytes reduced at this NPU
     * \return the time the reduction takes with this engine
     */
    Time ReductionTime(uint64_t bytes);

    /// Completion callback of a compute kernel.
    typedef Callback<void> ComputeDoneCallback;

    /**
     * Run a compute kernel of `cycles` cycles at ClockRate that moves `memoryBytes` bytes of
     * memory (roofline: the longer of the two). While a collective part is active at this
     * NPU, a baseline engine takes BaselineComputeShare of the compute units and, at either
     * engine, the collective's memory traffic (its links' rate times MemoryPerNetworkByte)
     * leaves less memory bandwidth to the kernel. The shares are taken when the kernel
     * starts (kernels are short next to the changes of communication).
     * \param cycles compute cycles \param memoryBytes memory traffic of the kernel
     * \param done called when it ends (may be null)
     * \return the kernel's duration
     */
    Time Compute(uint64_t cycles, uint64_t memoryBytes, ComputeDoneCallback done);

    /** \return collective parts active at this NPU now */
    uint32_t GetActiveParts() const
    {
        return m_activeParts;
    }

    /** \return ClockRate (Hz) */
    uint64_t GetClockRate() const
    {
        return m_clockRate;
    }

    /// Lowest ClockRate (Hz): 1 MHz, a thousandth of the 1 GHz ASTRA-sim workloads count
    /// cycles at. A run's samplers tick per simulated second, so a slower clock only makes a
    /// run last longer: at 1 Hz the workload limit of 10^9 cycles is 31 simulated years.
    static constexpr uint64_t MIN_CLOCK_RATE_HZ = UINT64_C(1000000);

    /**
     * \return "" when the attributes can work together, else why not: MemoryBandwidth and
     * ReductionRate below RoceNetDevice::MIN_DATA_RATE_BPS (a collective would run for
     * simulated days at the rate of a modem), ClockRate below MIN_CLOCK_RATE_HZ
     */
    std::string GetConfigError() const;

    /**
     * \return the cap on the NIC's injection: min(MemoryBandwidth / memory bytes per network
     * byte, and ReductionRate for ACE), or 0 when the links are slower
     */
    DataRate GetInjectionLimit() const
    {
        return m_injectionLimit;
    }

    /** \return total time of compute kernels run */
    Time GetComputeTime() const
    {
        return m_computeTime;
    }

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    void Count(uint64_t bytes, const char* what);
    void TransferSent(uint64_t bytes, bool reduce) override;
    void TransferReceived(uint64_t bytes, bool reduce) override;
    void PartStart(Ptr<const Collective> c, uint32_t rank);
    void PartEnd(Ptr<const Collective> c, uint32_t rank);
    void LimitInjection();
    static void ComputeEnded(ComputeDoneCallback done);

    Ptr<CollectiveExecutor> m_executor;
    Engine m_engine{BASELINE};
    DataRate m_memoryBandwidth;
    DataRate m_reductionRate;
    uint64_t m_clockRate{1000000000};
    double m_computeShare{0.0};
    double m_baselineMemoryPerByte{3.5};
    double m_aceMemoryPerByte{1.0};
    uint32_t m_activeParts{0};
    DataRate m_injectionLimit; //!< set on the NIC (0: the links are the limit)
    Time m_computeTime;
    uint64_t m_memoryBytes{0};
    uint64_t m_networkBytes{0};
    Time m_reductionTime;
    TracedCallback<uint64_t, const std::string&> m_memoryTrace;
};

} // namespace ns3

#endif // NPU_ENDPOINT_H
