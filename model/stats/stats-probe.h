/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STATS_PROBE_H
#define STATS_PROBE_H

#include "ns3/object.h"

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

  protected:
    void DoDispose() override;

    StatsRecorder* m_recorder; //!< where the rows go (the recorder owns this probe)
};

} // namespace ns3

#endif // STATS_PROBE_H
