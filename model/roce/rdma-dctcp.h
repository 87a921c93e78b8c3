/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCTCP (Alizadeh et al., SIGCOMM 2010) for RDMA, as the HPCC family's simulators run it.
 */
#ifndef RDMA_DCTCP_H
#define RDMA_DCTCP_H

#include "rdma-cc.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup training-net
 * \brief DCTCP for RDMA: switches CE-mark at the ECN threshold, the responder echoes marks in
 * the ACK's BECN bit, and the sender keeps alpha, the fraction of marked packets, updated once
 * per round trip: alpha = (1 - g) alpha + g F, F = marked / sent in that round trip (an ACK with
 * BECN counts the packets it acknowledges as marked). On an echo outside a congestion-window
 * reduction: R = R (1 - alpha / 2) (at least MinRate) and a reduction lasts until the ACK passes
 * the PSN that was next at the cut. Each round trip without reduction adds AdditiveIncrease
 * (key DCTCP_RATE_AI). The window is R x BaseRtt (0 = rate only), the HPCC family's window of
 * HAS_WIN 1 / VAR_WIN 1, or the line rate x BaseRtt with VariableWindow false (VAR_WIN 0).
 */
class RdmaDctcp : public RdmaCongestionControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RdmaDctcp();
    /// A copy of a control never started (Fork): its attributes; its state is the initial one.
    RdmaDctcp(const RdmaDctcp&) = default;
    RdmaDctcp& operator=(const RdmaDctcp&) = delete;
    ~RdmaDctcp() override;

    double GetAlpha() override;
    std::string GetConfigError() const override;
    /// This class's copy; null for a subclass (whose attributes a copy of this class drops).
    Ptr<RdmaCongestionControl> Fork() const override;
    /// Replaces BaseRtt when the window is on.
    void SetPathBaseRtt(Time rtt) override;

  protected:
    void DoStart() override;
    void DoOnAck(const RdmaCcFeedback& fb) override;

  private:
    void Apply(double bps);

    double m_g;            //!< G
    double m_initialAlpha; //!< InitialAlpha
    DataRate m_ai;         //!< AdditiveIncrease
    DataRate m_minRate;    //!< MinRate
    Time m_baseRtt;        //!< BaseRtt (window)
    bool m_variableWindow; //!< VariableWindow

    double m_alpha{1};
    bool m_started{false};
    uint64_t m_lastUpdatePsn{0}; //!< end of the current alpha round
    uint64_t m_roundStart{0};    //!< acked PSN at the round's start
    uint64_t m_marked{0};        //!< packets acked with an echo in the round
    uint64_t m_acked{0};         //!< packets acked in the round
    uint64_t m_lastAcked{0};     //!< acked PSN of the previous ACK
    bool m_cwr{false};           //!< in a reduction
    uint64_t m_cwrEnd{0};        //!< PSN ending it
};

} // namespace ns3

#endif // RDMA_DCTCP_H
