/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STATS_PROBE_H
#define STATS_PROBE_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

class StatsRecorder;

/**
 * \ingroup training-net
 * \brief Base of the probes of a StatsRecorder: a probe connects to the trace sources of one
 * kind of model object and hands rows to its recorder, as ns-3's FlowProbe does for
 * FlowMonitor; the recorder knows its probes, never the model classes.
 *
 * The recorder owns its probes and disposes them before itself.
 */
class StatsProbe : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param recorder the recorder the rows go to */
    explicit StatsProbe(StatsRecorder* recorder);
    ~StatsProbe() override;

    /**
     * What this probe follows that did not end, one sentence each ("collective 0 (all-reduce,
     * multitree, 16777216 bytes) did not complete"): a run the recorder finishes by itself at
     * Simulator::Destroy is 'error' with these as its reason. Reads only what the model
     * objects keep after they are disposed (the node list is disposed before the recorder's
     * destroy event runs).
     * \param what appended to
     */
    virtual void GetUnfinished(std::vector<std::string>* what) const;

    /**
     * \return when what this probe follows last moved data (a NIC's last data packet in), -1 ns
     * when never or when the probe does not tell: the stall watch counts it as work done
     */
    virtual Time GetLastDataTime() const;

    /**
     * Write the rows of the sampling interval (startNs, endNs] that the probe counts itself
     * (events of its model object, not ports: the ports are read by the recorder). Called at
     * every sampling tick. Default: nothing.
     * \param startNs the previous tick \param endNs this tick
     */
    virtual void Sample(int64_t startNs, int64_t endNs);

    /**
     * The run ends (Finish, or Simulator::Destroy): write the last, partial interval's rows
     * and the run's totals. Reads only what the probe kept (as GetUnfinished). Default: nothing.
     * \param startNs the last tick \param endNs now
     */
    virtual void WriteSummary(int64_t startNs, int64_t endNs);

  protected:
    void DoDispose() override;

    StatsRecorder* m_recorder; //!< where the rows go (the recorder owns this probe)
};

} // namespace ns3

#endif // STATS_PROBE_H
