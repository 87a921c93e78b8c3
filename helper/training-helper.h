/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_HELPER_H
#define TRAINING_HELPER_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/tn-workload.h"
#include "ns3/training-job.h"

#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;
class NpuHelper;

/**
 * \ingroup training-net
 * \brief Runs an ASTRA-sim workload file on the NPUs of a fabric.
 *
 * \code
 *   TrainingHelper training;
 *   training.SetJobAttribute("Iterations", UintegerValue(2));
 *   training.SetAlgorithm(TN_COLL_ALL_REDUCE, "ring");
 *   std::string error;
 *   if (!training.Load("Resnet50_DataParallel.txt", &error)) { ... }
 *   Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
 *   job->Start();
 *   Simulator::Run();   // job->GetIterations(0)
 * \endcode
 */
class TrainingHelper
{
  public:
    TrainingHelper();
    ~TrainingHelper();
    TrainingHelper(const TrainingHelper&) = delete;
    TrainingHelper& operator=(const TrainingHelper&) = delete;

    /** \param name attribute of ns3::TrainingJob \param value value */
    void SetJobAttribute(std::string name, const AttributeValue& value);

    /** \param collective a collective kind \param algorithm its algorithm, or "auto" (the
     *  cost model's best per group and size bucket, see CollectiveService) */
    void SetAlgorithm(tn_collective collective, const std::string& algorithm);

    /**
     * Read a workload file (tn-workload.h).
     * \param path the file \param error set to the reason (file, line, field) on failure
     * \return true when read
     */
    bool Load(const std::string& path, std::string* error);

    /**
     * Run Chakra execution traces instead (tn-chakra.h): Install reads PREFIX.<rank>.et for
     * every NPU and checks them together (TrainingJob::SetupChakra).
     * \param prefix the files' prefix (ASTRA-sim's workload path)
     * \param error set when this build cannot read Chakra traces (no protobuf-c)
     * \return true when the build reads them
     */
    bool LoadChakra(const std::string& prefix, std::string* error);

    /**
     * A trace set must have one file per NPU: PREFIX.<npus>.et must not exist (Install and
     * the scenario reader refuse a larger set rather than run its first ranks).
     * \param prefix the traces' prefix \param npus the NPUs of the topology
     * \return "" or the error naming the extra file
     */
    static std::string ExtraTraces(const std::string& prefix, uint32_t npus);

    /** \return the workload read (null before Load) */
    const tn_workload* GetWorkload() const
    {
        return m_workload;
    }

    /**
     * Create the job on the NPUs of `npus` (their endpoints, in rank order) with the
     * collectives of `collectives` (installed on the same fabric).
     * \param collectives the collective helper \param npus the NPU helper
     * \param modelGroup model-parallel group size when the file gives none (0: none)
     * \param error set when the workload cannot run there (e.g. more NPUs needed)
     * \return the job, or null
     */
    Ptr<TrainingJob> Install(CollectiveHelper& collectives,
                             const NpuHelper& npus,
                             uint32_t modelGroup,
                             std::string* error);

    /**
     * The cost of the loaded workload for a run's simulated time limit
     * (StatsHelper::LimitSimulatedTime): per iteration, every pass's compute (forward passes
     * twice, for recomputation) and update at the slowest endpoint's ClockRate, and every
     * collective's bytes as StatsHelper::TransferBound counts them; Chakra traces (after
     * Install): the largest rank's compute (num_ops as cycles, or duration_micros) and
     * communication bytes.
     * \param topo the topology \param npus the installed endpoints
     * \param iterations the job's iterations
     * \return the cost (0 before Load)
     */
    Time GetCostBound(const tn_topology* topo, const NpuHelper& npus, uint32_t iterations) const;

  private:
    ObjectFactory m_factory;
    tn_workload* m_workload{nullptr};
    std::string m_chakraPrefix;             //!< LoadChakra's prefix ("" : a text workload)
    std::vector<tn_chakra_trace*> m_traces; //!< read by Install, one per NPU
    void DestroyTraces();
    std::string m_algorithm[TN_COLL_COUNT];
};

} // namespace ns3

#endif // TRAINING_HELPER_H
