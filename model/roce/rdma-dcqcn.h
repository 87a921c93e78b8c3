/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN reaction point (sender side) of one RDMA queue pair.
 */
#ifndef RDMA_DCQCN_H
#define RDMA_DCQCN_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief Parameters of DCQCN, shared by all queue pairs of a NIC.
 *
 * Defaults are the NVIDIA ConnectX values (doc/design.rst, Sources; doc/roce-nic.rst); the additive
 * and hyper increase steps are already scaled to the link rate by the NIC (step * link / 25 Gb/s).
 */
struct RdmaDcqcnConfig
{
    double g{1.0 / 256};                    //!< alpha gain
    double initialAlpha{1.0};               //!< alpha set on the first CNP
    Time alphaPeriod{MicroSeconds(1)};      //!< alpha update period
    Time decreasePeriod{MicroSeconds(4)};   //!< minimum time between two rate decreases
    Time increasePeriod{MicroSeconds(300)}; //!< rate increase timer
    uint32_t fastRecoveryStages{1};         //!< F: fast recovery stages after a decrease
    uint32_t additiveStages{5};             //!< additive stages before hyper (no byte counter)
    double aiBps{20e6};                     //!< additive increase step (bit/s, scaled)
    double haiBps{200e6};                   //!< hyper increase step (bit/s, scaled)
    double minRateBps{100e6};               //!< rate floor (bit/s)
    uint64_t byteCounter{32767 * 64};       //!< byte counter threshold (bytes), 0 = off
    bool clampTargetRate{false};            //!< every decrease sets target = rate
    bool clampAfterTimeIncrease{true};      //!< ... or only after a timer increase (ConnectX)
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
 * decreasePeriod are folded into one decrease at the end of the period. A decrease does
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
    EventId m_decreaseEvent;
    EventId m_increaseEvent;
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytes{0};
    uint64_t m_decreases{0};
};

} // namespace ns3

#endif // RDMA_DCQCN_H
