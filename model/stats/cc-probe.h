/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CC_PROBE_H
#define CC_PROBE_H

#include "stats-probe.h"

#include "ns3/ptr.h"
#include "ns3/tn-db.h"

#include <cstdint>
#include <map>
#include <string>

namespace ns3
{

class Node;
class RdmaNic;

/**
 * \ingroup training-net
 * \brief Probe of the congestion-control events of a node's RdmaNic: CNPs sent (CnpSent) and
 * received (CnpReceived), CE-marked data arrivals (CeReceived), ECN echoes in ACKs (EcnEcho),
 * rate cuts and raises (RateChange, against the queue pair's previous rate, the line rate at
 * first) and window changes (WindowChange).
 *
 * Rows: per NIC and sampling interval, the counts of the interval (table cc_sample; an
 * interval with none is not written), and at the run's end one row per queue pair that had an
 * event, with its totals, lowest and last rate and last window (table cc_qp). A flow-level run
 * (FlowNic: no packets, no control) writes none; under CongestionControl none the CE marks and
 * their echoes still arrive and are counted, and nothing else happens.
 */
class RdmaCcProbe : public StatsProbe
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param recorder the recorder \param nic the NIC \param node its topology id
     */
    RdmaCcProbe(StatsRecorder* recorder, Ptr<RdmaNic> nic, uint32_t node);

    /**
     * \param recorder the recorder \param node a node \param topoId its topology id
     * \return a probe of its RdmaNic, connected; null if it has none or the recorder does not
     * record congestion-control events (attribute CcEvents)
     */
    static Ptr<RdmaCcProbe> Attach(StatsRecorder* recorder, Ptr<Node> node, uint32_t topoId);

    void Sample(int64_t startNs, int64_t endNs) override;
    void WriteSummary(int64_t startNs, int64_t endNs) override;

  private:
    /// Event counts (of an interval, or of a queue pair over the run).
    struct Counts
    {
        uint64_t cnpsSent{0};      //!< CnpSent
        uint64_t cnpsReceived{0};  //!< CnpReceived
        uint64_t ceReceived{0};    //!< CeReceived
        uint64_t ecnEchoes{0};     //!< EcnEcho
        uint64_t rateCuts{0};      //!< RateChange below the previous rate
        uint64_t rateRaises{0};    //!< RateChange above it
        uint64_t windowUpdates{0}; //!< WindowChange
        double minRate{-1};        //!< lowest rate set (-1: none)

        /** \return true if nothing was counted */
        bool IsEmpty() const;
        /** \return the counts as the database row's columns */
        tn_db_cc_counts ToRow() const;
    };

    /// A queue pair with an event: what it is (read once, while the NIC is alive) and its totals.
    struct Qp
    {
        uint32_t peer{0};     //!< node at the other end
        uint32_t priority{0}; //!< traffic class
        uint32_t lane{0};     //!< lane
        double lineRate{0};   //!< rate of its port (its control's start)
        double rate{-1};      //!< last rate set (-1: never changed)
        int64_t window{-1};   //!< last window set (-1: never set)
        Counts total;         //!< its events over the run
    };

    void DoDispose() override;
    /** \param qpn a local QP number \return its entry, made at its first event */
    Qp& Find(uint32_t qpn);
    /** Write the interval's row if it counted anything. \param startNs \param endNs */
    void WriteInterval(int64_t startNs, int64_t endNs);
    void CnpSent(uint32_t qpn);
    void CnpReceived(uint32_t qpn);
    void CeReceived(uint32_t qpn);
    void EcnEcho(uint32_t qpn);
    void RateChange(uint32_t qpn, double bps);
    void WindowChange(uint32_t qpn, uint64_t bytes);

    Ptr<RdmaNic> m_nic;           //!< the NIC (released at the run's end)
    uint32_t m_node;              //!< its topology id
    std::string m_control;        //!< its congestion control's name
    Counts m_interval;            //!< counts since the last row
    std::map<uint32_t, Qp> m_qps; //!< by local QPN (ordered: rows in QPN order)
};

} // namespace ns3

#endif // CC_PROBE_H
