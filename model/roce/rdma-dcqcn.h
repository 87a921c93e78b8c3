/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN reaction point (sender side) of one RDMA queue pair: its state machine, and the
 * congestion control that runs it (RdmaDcqcnControl, whose attributes are DCQCN's parameters).
 */
#ifndef RDMA_DCQCN_H
#define RDMA_DCQCN_H

#include "rdma-cc.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief The DCQCN defaults: the NVIDIA ConnectX values. The one home of these numbers:
 * RdmaDcqcnControl's attributes start from them, and so does RdmaDcqcnConfig.
 */
struct RdmaDcqcnDefaults
{
    static constexpr double G = 1.0 / 256;                  //!< alpha gain
    static constexpr double INITIAL_ALPHA = 1.0;            //!< alpha on the first CNP
    static constexpr int64_t ALPHA_PERIOD_NS = 1000;        //!< alpha update period
    static constexpr int64_t DECREASE_PERIOD_NS = 4000;     //!< between two rate decreases
    static constexpr int64_t INCREASE_PERIOD_NS = 300000;   //!< rate increase timer
    static constexpr uint32_t FAST_RECOVERY_STAGES = 1;     //!< F
    static constexpr uint32_t ADDITIVE_STAGES = 5;          //!< before hyper increase
    static constexpr uint64_t AI_BPS = 5000000;             //!< additive step per REFERENCE_BPS
    static constexpr uint64_t HAI_BPS = 50000000;           //!< hyper step per REFERENCE_BPS
    static constexpr uint64_t REFERENCE_BPS = 25000000000;  //!< the rate the steps refer to
    static constexpr uint64_t MIN_RATE_BPS = 100000000;     //!< rate floor
    static constexpr uint64_t BYTE_COUNTER = 32767 * 64;    //!< rpg_byte_reset, bytes
    static constexpr bool CLAMP_TARGET_RATE = false;        //!< clamp_tgt_rate
    static constexpr bool CLAMP_AFTER_TIME_INCREASE = true; //!< clamp_tgt_rate_after_time_inc
    /// The link rate RdmaDcqcnConfig's default steps are scaled to.
    static constexpr uint64_t CONFIG_LINK_BPS = 100000000000;
};

/**
 * \ingroup training-net
 * \brief Parameters of DCQCN for one queue pair: each queue pair's RdmaDcqcnControl fills its
 * own copy from its attributes when it starts.
 *
 * Defaults are RdmaDcqcnDefaults; the additive and hyper increase steps are already scaled to
 * the queue pair's line rate (step * line rate / ReferenceRate), here to a 100 Gb/s link.
 */
struct RdmaDcqcnConfig
{
    double g{RdmaDcqcnDefaults::G};                                          //!< alpha gain
    double initialAlpha{RdmaDcqcnDefaults::INITIAL_ALPHA};                   //!< alpha on first CNP
    Time alphaPeriod{NanoSeconds(RdmaDcqcnDefaults::ALPHA_PERIOD_NS)};       //!< alpha update
    Time decreasePeriod{NanoSeconds(RdmaDcqcnDefaults::DECREASE_PERIOD_NS)}; //!< min decrease gap
    Time increasePeriod{NanoSeconds(RdmaDcqcnDefaults::INCREASE_PERIOD_NS)}; //!< increase timer
    uint32_t fastRecoveryStages{RdmaDcqcnDefaults::FAST_RECOVERY_STAGES};    //!< F
    uint32_t additiveStages{RdmaDcqcnDefaults::ADDITIVE_STAGES}; //!< additive before hyper
    /// additive increase step (bit/s, scaled)
    double aiBps{double(RdmaDcqcnDefaults::AI_BPS) * RdmaDcqcnDefaults::CONFIG_LINK_BPS /
                 RdmaDcqcnDefaults::REFERENCE_BPS};
    /// hyper increase step (bit/s, scaled)
    double haiBps{double(RdmaDcqcnDefaults::HAI_BPS) * RdmaDcqcnDefaults::CONFIG_LINK_BPS /
                  RdmaDcqcnDefaults::REFERENCE_BPS};
    double minRateBps{double(RdmaDcqcnDefaults::MIN_RATE_BPS)}; //!< rate floor (bit/s)
    uint64_t byteCounter{RdmaDcqcnDefaults::BYTE_COUNTER};      //!< bytes, 0 = off
    bool clampTargetRate{RdmaDcqcnDefaults::CLAMP_TARGET_RATE}; //!< every decrease
    bool clampAfterTimeIncrease{RdmaDcqcnDefaults::CLAMP_AFTER_TIME_INCREASE}; //!< ConnectX
    /// payload bytes in flight <= rate x windowRtt (variableWindow) or line rate x windowRtt;
    /// 0 = no window (ConnectX paces by rate only; the HPCC family's HAS_WIN 1 adds one)
    Time windowRtt{Time(0)};
    bool variableWindow{true}; //!< the window follows the rate (the family's VAR_WIN 1)
    /// rate decreases on a grid of decreasePeriod from the first notification, the first one
    /// period after it (the HPCC family); false: the first notification after a quiet period
    /// cuts at once (ConnectX)
    bool periodicDecrease{false};
    /// notifications are the ECN echoes of ACKs (the HPCC family, which has no CNP); false:
    /// CNPs only
    bool notifyByAck{false};
};

/**
 * \ingroup training-net
 * \brief DCQCN rate state machine of one queue pair (reaction point).
 *
 * Alpha: initialised to initialAlpha on the first CNP; then on a grid of alphaPeriod
 * starting at that CNP, alpha = (1-g) alpha + g if a CNP arrived in the period, else
 * (1-g) alpha. The update is computed lazily (exactly equal to a periodic timer, without
 * the events).
 *
 * Decrease: the first CNP after a quiet time decreases at once; further CNPs within
 * decreasePeriod are folded into one decrease at the end of the period. With
 * periodicDecrease the decreases keep to a grid of decreasePeriod that starts at the QP's
 * first CNP: a period in which a CNP arrived ends with a decrease, the first period included
 * (so the first decrease comes one period after the first CNP). Only the grid points that
 * follow a CNP are scheduled; the quiet ones change nothing. A decrease does
 * rate = max(minRate, rate * (1 - alpha/2)), resets the increase stages and restarts the
 * increase timer. The target rate takes the rate before the decrease when clampTargetRate is
 * set, or (ConnectX default clamp_tgt_rate_after_time_inc) when the timer raised the rate
 * since the previous decrease; otherwise it keeps its value, so a burst of CNPs does not
 * lower the rate the flow recovers to.
 *
 * Increase: every increasePeriod (timer stage T) and, if byteCounter > 0, every byteCounter
 * bytes sent (byte stage B). Without byte counter: T <= F fast recovery
 * (rate = (rate+target)/2), F < T <= F + additiveStages additive (target += ai), beyond hyper
 * (target += hai). With byte counter: max(T,B) <= F fast recovery, min(T,B) > F hyper, else
 * additive. After an additive or hyper step rate = (rate+target)/2; target and rate are
 * capped at the line rate. The timers stop once the rate is back at the line rate.
 */
class RdmaDcqcn
{
  public:
    /// Called with the new rate (bit/s) after every change.
    typedef Callback<void, double> RateCallback;

    /**
     * \param config parameters (must outlive this object)
     * \param lineRateBps the line rate of the egress link (bit/s)
     * \param onRate notified after each rate change
     */
    RdmaDcqcn(const RdmaDcqcnConfig* config, double lineRateBps, RateCallback onRate);
    ~RdmaDcqcn();
    RdmaDcqcn(const RdmaDcqcn&) = delete;
    RdmaDcqcn& operator=(const RdmaDcqcn&) = delete;

    /// A CNP arrived for this QP.
    void ReceiveCnp();
    /// \param bytes payload bytes just sent (byte counter)
    void NotifySent(uint64_t bytes);

    /// \return current rate (bit/s)
    double GetRate() const
    {
        return m_rate;
    }

    /// \return target rate (bit/s)
    double GetTargetRate() const
    {
        return m_target;
    }

    /// \return alpha brought up to date to now
    double GetAlpha();

    /// \return whether the rate is below the line rate
    bool IsLimited() const
    {
        return m_rate < m_lineRate;
    }

    /// \return number of rate decreases so far
    uint64_t GetDecreases() const
    {
        return m_decreases;
    }

    /// Cancel timers (QP disposal).
    void Stop();

  private:
    void UpdateAlpha();
    void Decrease();
    void DecreaseTimerExpired();
    void IncreaseTimerExpired();
    void Increase();
    void SetRate(double rate);

    const RdmaDcqcnConfig* m_cfg;
    double m_lineRate;
    RateCallback m_onRate;
    double m_rate;
    double m_target;
    double m_alpha;
    bool m_seenCnp{false}; //!< alpha initialised
    Time m_alphaAnchor;    //!< start of the current alpha period
    bool m_cnpInAlphaPeriod{false};
    bool m_cnpInDecreasePeriod{false};
    Time m_decreaseAnchor; //!< origin of the periodicDecrease grid
    EventId m_decreaseEvent;
    EventId m_increaseEvent;
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytes{0};
    uint64_t m_decreases{0};
};

/**
 * \ingroup training-net
 * \brief DCQCN (Zhu et al., SIGCOMM 2015) as an RdmaCongestionControl: the RdmaDcqcn state
 * machine fed with CNPs (or ECN echoes) and sent bytes. Its attributes are DCQCN's parameters
 * (ns3::RdmaDcqcnControl::G, RateIncreasePeriod, ...); their old paths on ns3::RdmaNic are
 * obsolete attributes whose message names the new path. The additive and hyper increase steps
 * are given per ReferenceRate and scaled to the queue pair's line rate at Start.
 */
class RdmaDcqcnControl : public RdmaCongestionControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /// How the receiver tells the sender of CE marks (CongestionNotification).
    enum NotificationType
    {
        NOTIFY_CNP, //!< CNP packets, at most one per RdmaNic::CnpInterval per QP (default)
        NOTIFY_ACK  //!< no CNP: ACKs echo the mark (the HPCC family)
    };

    /// When the rate is cut after a notification (RateDecrease).
    enum DecreaseTiming
    {
        DECREASE_IMMEDIATE, //!< at once after a quiet period (ConnectX, default)
        DECREASE_PERIODIC   //!< on a grid from the first notification (the HPCC family)
    };

    RdmaDcqcnControl();
    /// A copy of a control never started (Fork): its attributes, no state machine.
    RdmaDcqcnControl(const RdmaDcqcnControl& o);
    ~RdmaDcqcnControl() override;
    RdmaDcqcnControl& operator=(const RdmaDcqcnControl&) = delete;

    double GetAlpha() override;
    void Stop() override;
    std::string GetConfigError() const override;
    /// This class's copy; null for a subclass (whose attributes a copy of this class drops).
    Ptr<RdmaCongestionControl> Fork() const override;
    /// CNPs unless CongestionNotification is ack.
    bool RequestsCnp() const override;
    /// Replaces the window RTT (WindowRtt) when the window is on.
    void SetPathBaseRtt(Time rtt) override;

    /** \return the state machine (after the first CNP; null before it: the QP is at line
     *  rate with the initial alpha) */
    RdmaDcqcn* GetStateMachine() const
    {
        return m_dcqcn.get();
    }

    /** \return the parameters of this queue pair (scaled to its line rate after Start) */
    const RdmaDcqcnConfig& GetConfig() const
    {
        return m_config;
    }

  protected:
    void DoStart() override;
    void DoOnSent(uint64_t psn, uint32_t payloadBytes) override;
    void DoOnCnp() override;
    /// With notifyByAck, an ACK that echoes a CE mark counts as a CNP.
    void DoOnAck(const RdmaCcFeedback& fb) override;

  private:
    void Rate(double bps);

    // attributes
    double m_g;
    double m_initialAlpha;
    Time m_alphaPeriod;
    Time m_decreasePeriod;
    Time m_increasePeriod;
    uint32_t m_fastRecoveryStages;
    uint32_t m_additiveStages;
    DataRate m_ai;
    DataRate m_hai;
    DataRate m_referenceRate;
    DataRate m_minRate;
    uint64_t m_byteCounter;
    bool m_clampTarget;
    bool m_clampAfterTimeInc;
    Time m_windowRtt;                //!< WindowRtt
    bool m_variableWindow;           //!< VariableWindow
    NotificationType m_notification; //!< CongestionNotification
    DecreaseTiming m_decreaseTiming; //!< RateDecrease
    bool m_pathRttSet{false};        //!< SetPathBaseRtt replaced WindowRtt
    Time m_pathRtt;                  //!< that RTT

    /// the state machine, built at the first CNP
    RdmaDcqcn& StateMachine();

    RdmaDcqcnConfig m_config; //!< filled at Start
    bool m_started{false};    //!< Start has run
    std::unique_ptr<RdmaDcqcn> m_dcqcn;
};

} // namespace ns3

#endif // RDMA_DCQCN_H
