/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion control of one RDMA queue pair (sender side): the interface every algorithm
 * implements (DCQCN, HPCC, TIMELY, DCTCP and a user's own subclass).
 */
#ifndef RDMA_CC_H
#define RDMA_CC_H

#include "roce-header.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief What an ACK tells the sender's congestion control.
 */
struct RdmaCcFeedback
{
    uint64_t ackedPsn{0};                    //!< every PSN below this one is acknowledged
    uint64_t nextPsn{0};                     //!< the sender's next new PSN when the ACK arrives
    bool ecnEcho{false};                     //!< BECN: a CE-marked packet since the previous ACK
    const RoceIntHeader* telemetry{nullptr}; //!< echoed telemetry (null: the ACK has none)
};

/**
 * \ingroup training-net
 * \brief The first failed check of an object's attributes, for the GetConfigError of the NIC
 * and of its congestion controls, so that a range reads the same wherever it is checked. Each
 * check names its attribute in full (ns3::Class::Name); checks after a failed one are skipped.
 */
class RdmaConfigCheck
{
  public:
    /// Lowest MinRate of a congestion control (bit/s): 1 Mbit/s. A queue pair cut to its
    /// floor sends a frame per MTU x 8 / MinRate and waits that long for the feedback that
    /// raises it: TIMELY's 4 MiB all-to-all of cc-comparison took 77 ms of simulated time at
    /// 1 Mbit/s, 0.68 s at 100 kbit/s and would take about 19 hours at 1 bit/s.
    static constexpr uint64_t MIN_RATE_FLOOR_BPS = UINT64_C(1000000);

    /** \param attribute full name \param value must be in (0, 1] \return this */
    RdmaConfigCheck& UnitInterval(const std::string& attribute, double value);
    /** \param attribute full name \param value must be > 0 \return this */
    RdmaConfigCheck& Positive(const std::string& attribute, Time value);
    /**
     * \param attribute full name \param rate a rate floor, at least MIN_RATE_FLOOR_BPS
     * \return this
     */
    RdmaConfigCheck& MinRate(const std::string& attribute, DataRate rate);
    /** \param holds the condition \param message the whole error when it does not \return this */
    RdmaConfigCheck& That(bool holds, const std::string& message);

    /** \return the first failure, "" when every check held */
    const std::string& GetError() const;

  private:
    std::string m_error; //!< first failure
};

/**
 * \ingroup training-net
 * \brief Congestion control of one queue pair (reaction point), in the way of ns-3's
 * TcpCongestionOps: the NIC creates one per QP from an ObjectFactory (RdmaNic attribute
 * CongestionControl, parameters as attributes of the algorithm's class), calls Start(), then
 * tells it about every data packet sent (OnSent), ACK (OnAck), CNP (OnCnp) and NACK (OnNack).
 * Outputs: the pacing rate (GetRate, bit/s, notified through the rate callback on every
 * change) and a window (GetWindow: most payload bytes in flight, 0 = none), and the telemetry
 * its data packets must carry (GetTelemetry, FillTelemetry; the responder echoes it in ACKs).
 * Implementations override the Do* hooks and report with SetRate / SetWindow.
 */
class RdmaCongestionControl : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * Who hears a control's changes: the queue pair it drives. A pointer, not Callbacks: a QP
     * lives for every peer its NIC ever wrote to (2.1 M of them in a 4,096-GPU hierarchical
     * all-reduce), and each Callback is a heap object of about 100 bytes.
     */
    class Listener
    {
      public:
        virtual ~Listener() = default;
        /** \param bps the new rate (bit/s), after every change */
        virtual void RateChanged(double bps) = 0;
        /** \param bytes the new window (payload bytes, 0 = none), after every change, the
         *  one set at Start included */
        virtual void WindowChanged(uint64_t bytes) = 0;
    };

    RdmaCongestionControl();
    ~RdmaCongestionControl() override;

    /**
     * Start at the line rate.
     * \param lineRateBps egress link rate (bit/s) \param mtu payload bytes per packet
     * \param listener told of each rate and window change (may be null); it outlives the
     * control's use
     */
    void Start(double lineRateBps, uint32_t mtu, Listener* listener);

    /** \param psn PSN just sent \param payloadBytes its payload */
    void OnSent(uint64_t psn, uint32_t payloadBytes)
    {
        DoOnSent(psn, payloadBytes);
    }

    /** \param fb what an ACK (not a NACK) carried */
    void OnAck(const RdmaCcFeedback& fb)
    {
        DoOnAck(fb);
    }

    /// A CNP arrived.
    void OnCnp()
    {
        DoOnCnp();
    }

    /** \param psn a NACK asks to go back to this PSN */
    void OnNack(uint64_t psn)
    {
        DoOnNack(psn);
    }

    /** \return pacing rate (bit/s) */
    double GetRate() const
    {
        return m_rate;
    }

    /** \return most payload bytes in flight (0 = no window) */
    uint64_t GetWindow() const
    {
        return m_window;
    }

    /** \return the telemetry the data packets carry */
    virtual RoceIntHeader::Mode GetTelemetry() const;
    /** \param h the telemetry header of a data packet about to leave (mode already set) */
    virtual void FillTelemetry(RoceIntHeader& h) const;
    /** \return the algorithm's alpha (DCQCN, DCTCP), else 0 */
    virtual double GetAlpha();
    /**
     * Parameter values the algorithm cannot work with (the NIC refuses them before it starts).
     * \return "" if usable, else what is wrong, naming the attribute
     */
    virtual std::string GetConfigError() const;
    /**
     * A control of the same class with the same attributes, not started: a NIC makes its
     * queue pairs' controls this way from the first one it built. ObjectFactory walks every
     * attribute of the class through strings, about 12 us a control: 25 s for the 2.1 million
     * queue pairs of a 4,096-GPU all-reduce. Called only on a control never started.
     * \return the copy, or null (the default) for the NIC to build each from its factory
     */
    virtual Ptr<RdmaCongestionControl> Fork() const;
    /**
     * Fix the random streams the control draws from (ns-3's AssignStreams).
     * \param stream first stream
     * \return streams used (the default: 0, a control that draws nothing)
     */
    virtual int64_t AssignStreams(int64_t stream);
    /// Cancel timers (QP disposal).
    virtual void Stop();

    /**
     * Whether the receiver of this algorithm's packets sends a CNP on a CE mark (DCQCN's
     * notification point, at most one per RdmaNic::CnpInterval per QP). The NIC asks the
     * congestion control of the receiving queue pair, so a NIC's setting decides what its
     * peers hear. Default: no CNP.
     * \return true to send CNPs
     */
    virtual bool RequestsCnp() const;

    /**
     * The base RTT of this QP's path (RdmaNic::SetPeerBaseRtt: the HPCC family's T per
     * source and destination, GLOBAL_T 0), given before Start. It replaces the algorithm's
     * own where it has one: HPCC's T, and the window RTT of DCQCN, DCTCP and TIMELY when their
     * window is on. The default has none and ignores it.
     * \param rtt base RTT of the path
     */
    virtual void SetPathBaseRtt(Time rtt);

    /**
     * The window at the line rate on this QP's path, in bytes (RdmaNic::SetPeerBaseRtt: the
     * HPCC family's pairBdp or maxBdp, T x the slowest link rate of the path / 8), given before
     * Start where it is not the line rate x T. The window of an algorithm that sizes it from T
     * (and HPCC's queue term) takes it in place of the line rate x T; 0 (default): line rate x T.
     * \param bytes window at the line rate
     */
    void SetPathBdp(uint64_t bytes)
    {
        m_pathBdp = bytes;
    }

  protected:
    /// Called at the end of Start (rate = line rate, no window).
    virtual void DoStart();
    /** \param psn PSN \param payloadBytes payload */
    virtual void DoOnSent(uint64_t psn, uint32_t payloadBytes);
    /** \param fb ACK feedback */
    virtual void DoOnAck(const RdmaCcFeedback& fb);
    virtual void DoOnCnp();
    /** \param psn NACKed PSN */
    virtual void DoOnNack(uint64_t psn);

    /** \param bps new pacing rate (capped at the line rate), notified if it changed */
    void SetRate(double bps);

    /** \param bytes window (0 = none), notified if it changed */
    void SetWindow(uint64_t bytes);

    /**
     * The HPCC family's window of a queue pair: (variable ? the current rate : the line
     * rate) x rtt, at least one byte (its VAR_WIN 1 and 0); with a path BDP (SetPathBdp), that
     * BDP (x the current rate / the line rate if variable); unchanged when rtt is 0.
     * \param rtt the window's RTT \param variable scale it with the current rate
     */
    void SetWindowFromRtt(Time rtt, bool variable);

    /** \return line rate (bit/s) */
    double GetLineRate() const
    {
        return m_lineRate;
    }

    /** \return payload bytes per packet */
    uint32_t GetMtu() const
    {
        return m_mtu;
    }

    /** \return the window at the line rate on this QP's path (SetPathBdp), 0 = line rate x T */
    uint64_t GetPathBdp() const
    {
        return m_pathBdp;
    }

  private:
    Listener* m_listener{nullptr}; //!< the QP (not owned)
    double m_lineRate{0};
    double m_rate{0};
    uint64_t m_window{0};
    uint32_t m_mtu{0};
    uint64_t m_pathBdp{0};
};

} // namespace ns3

#endif // RDMA_CC_H
