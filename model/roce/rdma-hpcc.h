/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HPCC (Li et al., SIGCOMM 2019) and its PINT variant (Ben Basat et al., SIGCOMM 2020).
 */
#ifndef RDMA_HPCC_H
#define RDMA_HPCC_H

#include "rdma-cc.h"

#include "ns3/data-rate.h"
#include "ns3/random-variable-stream.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief HPCC: window and rate from in-band telemetry.
 *
 * Data packets carry an INT header of IntMaxHops slots; every switch on the path stamps its
 * egress port (timestamp, bytes sent, queue length, link rate); the responder echoes the stamps
 * in the ACK. On an ACK, for each hop i against the previous stamps of the same hop:
 * u_i = txRate_i / B_i + min(q_i, q_i') x 8 / (B_i T), with T = BaseRtt. The path's U is the
 * largest u_i (PerHopRate=false) and is smoothed over one base RTT: U <- (U (T - dt) + u dt) / T,
 * dt the time between the two stamps of that hop (at most T). With k = U / eta
 * (eta = TargetUtilization): if k >= 1 or the increase stage reached MaxStage,
 * R = R_c / k + R_AI and the stage restarts, else R = R_c + R_AI (additive increase, stage + 1);
 * R is kept in [MinRate, line rate] and the window is R x T (W = R T, W_AI = R_AI T in the
 * paper's terms). The reference rate R_c and the stage are committed once per round trip (when
 * the ACK passes the PSN that was next when the previous update was committed); the ACKs in
 * between (FastReact) set the rate from R_c without committing it. PerHopRate keeps U, R_c and
 * the stage per hop and sends at the smallest rate; SampleFeedback skips hops with an empty
 * queue in the per-ACK reactions. The first ACK only records the stamps. With a path BDP
 * (SetPathBdp: the path's slowest link is slower than the line rate), the queue term is
 * min(q_i, q_i') x line rate / (B_i x BDP) and the window BDP x R / line rate, as the HPCC
 * family computes them from its window (pairBdp or maxBdp); without, the two are the same.
 * VariableWindow false fixes the window at the line rate x T, or that BDP, whatever the rate
 * (the family's VAR_WIN 0). On such a path the queue term weighs line rate / the path's rate
 * times the paper's q 8 / (B T), as the family's does (4 times at 100 over 25 Gb/s).
 */
class RdmaHpcc : public RdmaCongestionControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// IntRates: how an INT hop carries its link's rate
    enum IntRates
    {
        INT_RATES_AUTO,  //!< codes where every switch port's rate has one, else wide
        INT_RATES_CODES, //!< the HPCC family's 3-bit codes (RoceIntHeader::RateTable)
        INT_RATES_WIDE   //!< 32 bits of Mb/s (RoceIntHeader::HOPS_WIDE)
    };

    /// \return the IntRates attribute
    IntRates GetIntRates() const
    {
        return m_intRates;
    }

    RdmaHpcc();
    /// A copy of a control never started (Fork): its attributes; its state is the initial one.
    RdmaHpcc(const RdmaHpcc&) = default;
    RdmaHpcc& operator=(const RdmaHpcc&) = delete;
    ~RdmaHpcc() override;

    RoceIntHeader::Mode GetTelemetry() const override;
    void FillTelemetry(RoceIntHeader& h) const override;
    std::string GetConfigError() const override;
    /// This class's copy; null for a subclass, HPCC-PINT included (its own random stream).
    Ptr<RdmaCongestionControl> Fork() const override;
    /// Replaces BaseRtt (T).
    void SetPathBaseRtt(Time rtt) override;

    /** \return the smoothed utilisation of the bottleneck (aggregate mode) */
    double GetUtilisation() const
    {
        return m_u;
    }

  protected:
    void DoStart() override;
    void DoOnAck(const RdmaCcFeedback& fb) override;

    /**
     * One reaction to a utilisation estimate.
     * \param u smoothed utilisation \param curRate reference rate (bit/s)
     * \param stage increase stage (updated if commit) \param commit once-per-RTT update
     * \return the new rate
     */
    double React(double u, double& curRate, uint32_t& stage, bool commit) const;
    /** \param bps rate: sets the rate and the window R x T */
    void Apply(double bps);

    double m_eta;                        //!< TargetUtilization
    uint32_t m_maxStage;                 //!< MaxStage
    DataRate m_ai;                       //!< AdditiveIncrease (R_AI)
    bool m_fastReact;                    //!< FastReact
    Time m_baseRtt;                      //!< BaseRtt (T)
    DataRate m_minRate;                  //!< MinRate
    uint32_t m_slots;                    //!< IntMaxHops
    uint32_t m_multi;                    //!< IntMulti
    bool m_perHop;                       //!< PerHopRate
    bool m_sampleFeedback;               //!< SampleFeedback
    bool m_variableWindow;               //!< VariableWindow
    double m_initialU;                   //!< InitialUtilization
    IntRates m_intRates{INT_RATES_AUTO}; //!< IntRates

    bool m_started{false};       //!< first ACK seen
    uint64_t m_lastUpdatePsn{0}; //!< next PSN at the last committed update
    double m_curRate{0};         //!< R_c
    uint32_t m_stage{0};         //!< increase stage
    double m_u{0};               //!< smoothed utilisation (aggregate)
    RoceIntHeader m_last;        //!< previous stamps

    /// per-hop state (PerHopRate)
    struct HopState
    {
        double u{0};       //!< smoothed utilisation
        double rate{0};    //!< R_c of the hop
        uint32_t stage{0}; //!< increase stage of the hop
    };

    std::vector<HopState> m_hops; //!< per hop
};

/**
 * \ingroup training-net
 * \brief HPCC-PINT: the path's largest utilisation in one 2-byte field.
 *
 * Each switch keeps, per egress port, u = q dt / (B T^2) + s / (B T) + u (T - dt) / T at every
 * data packet it sends (q the queue, s the size of the previous packet, dt the time since it, at
 * most T = RoceSwitch::TelemetryBaseRtt) and writes it into the packet's PINT field if larger
 * than what is there (log-coded, RoceSwitch::PintLogBase). The responder echoes the field; the
 * sender reacts to a sampled fraction SampleProbability of the ACKs as HPCC does to U (the value
 * is already smoothed by the switch).
 */
class RdmaHpccPint : public RdmaHpcc
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    RdmaHpccPint();
    ~RdmaHpccPint() override;

    RoceIntHeader::Mode GetTelemetry() const override;
    void FillTelemetry(RoceIntHeader& h) const override;
    std::string GetConfigError() const override;

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoOnAck(const RdmaCcFeedback& fb) override;

  private:
    double m_logBase;                    //!< LogBase
    double m_probability;                //!< SampleProbability
    Ptr<UniformRandomVariable> m_sample; //!< ACK sampling
};

} // namespace ns3

#endif // RDMA_HPCC_H
