/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NPU_PROBES_H
#define NPU_PROBES_H

#include "stats-probe.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>

namespace ns3
{

class Collective;
class CollectiveExecutor;
class ThemisCollective;
class TrainingJob;
struct CollectiveTransferRecord;
struct TrainingIterationRecord;
struct TrainingLayerRecord;

/**
 * \ingroup training-net
 * \brief Probe of the collectives of a run: one collective row per collective at its end
 * (Collective End; at the recorder's Finish if it did not end), one transfer row per
 * executed transfer (TransferReady). Collectives are followed from the first executor that
 * starts its part (CollectiveExecutor PartStart), or when given. Operations scheduled at run
 * time (ThemisCollective) get a row of their own at their end: their id, the scheduler's name
 * as algorithm, scheduler "run-time", the sum of their phases' transfers, no estimate (0).
 */
class CollectiveProbe : public StatsProbe
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** \param recorder the recorder */
    explicit CollectiveProbe(StatsRecorder* recorder);

    /** \param executor follow the collectives this NPU takes part in */
    void AddExecutor(Ptr<CollectiveExecutor> executor);
    /** \param collective follow a collective (before it starts) */
    void AddCollective(Ptr<Collective> collective);
    /** \param collective follow an operation scheduled at run time (before it starts) */
    void AddScheduledCollective(Ptr<ThemisCollective> collective);
    /** \param id a collective id \return true if it is (or was) followed */
    bool IsFollowed(uint32_t id) const;
    /** Write the rows of the collectives and operations that did not end. */
    void WriteUnfinished();
    void GetUnfinished(std::vector<std::string>* what) const override;
    /**
     * The dependency frontier of the followed collectives that started and did not end: the
     * transfers issued and not ready, each a receiving NPU waiting for a message of a peer
     * ("node D waits for node S: collective C transfer T, B bytes, issued at X us, no byte
     * yet", "partly arrived" or "arrived, not ready"). Collectives generated at run time (no
     * schedule) and symmetric ones are named with their progress only.
     * \param what the first `max` waits are appended
     * \param max how many to describe
     * \param oldest when not null, set to the earliest time a wait began (a transfer's issue,
     * a named collective's start); unchanged when there is no wait
     * \return how many waits there are in all
     */
    uint64_t GetFrontier(std::vector<std::string>* what,
                         std::size_t max,
                         Time* oldest = nullptr) const;
    /**
     * A rank's part of a distributed run: write the rows of the collectives this rank took
     * part in, joined over the ranks (StatsRecorder::GatherRanks); once.
     */
    void WriteRankParts();

  private:
    /// A collective being followed.
    struct Followed
    {
        Ptr<Collective> collective; //!< the collective (null once its row is written)
        bool written{false};        //!< its row is written
    };

    void DoDispose() override;
    void Partake(Ptr<const Collective> collective, uint32_t rank);
    void CollectiveEnded(Ptr<const Collective> collective);
    void Forget(uint32_t id);
    void WriteCollective(Ptr<const Collective> collective);
    void WriteCollective(Ptr<const Collective> collective, int64_t startNs, int64_t endNs);
    void ScheduledEnded(Ptr<const ThemisCollective> collective);
    void ForgetScheduled(uint32_t id);
    void WriteScheduled(Ptr<const ThemisCollective> collective);
    void TransferReady(const CollectiveTransferRecord& record);
    void TransferIssued(const CollectiveTransferRecord& record);

    std::map<uint32_t, Followed> m_collectives; //!< by collective id
    bool m_rankPartsWritten{false};             //!< WriteRankParts done
    /// run-time scheduled operations whose row is not written yet, by id
    std::map<uint32_t, Ptr<ThemisCollective>> m_scheduled;
};

/**
 * \ingroup training-net
 * \brief Probe of a training job: one iteration row per NPU and iteration (IterationEnd),
 * one layer row per NPU, layer and pass (LayerEnd); its collectives (CollectiveCreated) and
 * the operations it schedules at run time (ScheduledCreated) go to the collective probe.
 */
class TrainingJobProbe : public StatsProbe
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param recorder the recorder
     * \param job the job (connected here)
     * \param collectives the recorder's collective probe
     */
    TrainingJobProbe(StatsRecorder* recorder,
                     Ptr<TrainingJob> job,
                     Ptr<CollectiveProbe> collectives);

    /** \param what "the training job did not complete" unless it did */
    void GetUnfinished(std::vector<std::string>* what) const override;

  private:
    void DoDispose() override;
    void IterationEnd(const TrainingIterationRecord& record);
    void LayerEnd(const TrainingLayerRecord& record);
    void CollectiveCreated(Ptr<Collective> collective);
    void ScheduledCreated(Ptr<ThemisCollective> collective);

    Ptr<CollectiveProbe> m_collectives; //!< where collectives and run-time operations go
    Ptr<TrainingJob> m_job;             //!< the job (GetUnfinished)
};

} // namespace ns3

#endif // NPU_PROBES_H
