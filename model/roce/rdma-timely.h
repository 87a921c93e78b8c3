/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TIMELY (Mittal et al., SIGCOMM 2015): rate from the RTT gradient.
 */
#ifndef RDMA_TIMELY_H
#define RDMA_TIMELY_H

#include "rdma-cc.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup training-net
 * \brief TIMELY: data packets carry their transmit time (8-byte telemetry header), the ACK
 * echoes it, and the sender measures the RTT. Once per round trip (when the ACK passes the PSN
 * that was next at the previous update):
 * rtt_diff = (1 - alpha) rtt_diff + alpha (rtt - prev_rtt); g = rtt_diff / MinRtt;
 * rtt < T_low: R += delta; rtt > T_high: R *= 1 - beta (1 - T_high / rtt);
 * else g <= 0: R += delta (HyperIncrease after HaiThreshold increases in a row);
 * else R *= 1 - beta g (at least MinRate).
 * The paper's TIMELY has no window; the HPCC family's runs it with one (HAS_WIN 1, its default):
 * WindowRtt > 0 limits the bytes in flight to the line rate (or, with VariableWindow, the
 * current rate) x WindowRtt.
 */
class RdmaTimely : public RdmaCongestionControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RdmaTimely();
    /// A copy of a control never started (Fork): its attributes; its state is the initial one.
    RdmaTimely(const RdmaTimely&) = default;
    RdmaTimely& operator=(const RdmaTimely&) = delete;
    ~RdmaTimely() override;

    RoceIntHeader::Mode GetTelemetry() const override;
    void FillTelemetry(RoceIntHeader& h) const override;
    std::string GetConfigError() const override;
    /// This class's copy; null for a subclass (whose attributes a copy of this class drops).
    Ptr<RdmaCongestionControl> Fork() const override;
    /// Replaces WindowRtt when the window is on.
    void SetPathBaseRtt(Time rtt) override;

    /** \return the last RTT measured */
    Time GetLastRtt() const
    {
        return m_lastRtt;
    }

  protected:
    void DoStart() override;
    void DoOnAck(const RdmaCcFeedback& fb) override;

  private:
    double m_alpha;        //!< EwmaWeight
    double m_beta;         //!< Beta
    Time m_tLow;           //!< LowThreshold
    Time m_tHigh;          //!< HighThreshold
    Time m_minRtt;         //!< MinRtt
    DataRate m_ai;         //!< AdditiveIncrease
    DataRate m_hai;        //!< HyperIncrease
    uint32_t m_haiAfter;   //!< HaiThreshold
    DataRate m_minRate;    //!< MinRate
    Time m_windowRtt;      //!< WindowRtt
    bool m_variableWindow; //!< VariableWindow

    bool m_started{false};
    uint64_t m_lastUpdatePsn{0};
    Time m_lastRtt;
    double m_rttDiff{0}; //!< ns
    uint32_t m_incStage{0};
};

} // namespace ns3

#endif // RDMA_TIMELY_H
