/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_HELPER_H
#define TRAINING_HELPER_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/tn-llm.h"
#include "ns3/tn-simai.h"
#include "ns3/tn-workload.h"
#include "ns3/training-job.h"

#include <string>
#include <utility>
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

    /** \param algorithm the algorithm of every collective kind but all-to-all (which stays
     *  direct): "ring" gives the flat rings jobs ran before they defaulted to "auto" */
    void SetAlgorithms(const std::string& algorithm);

    /**
     * The algorithm of a generated program's (LLM, SimAI) collectives serving one parallelism
     * (TrainingJob::SetParallelismAlgorithm); unset, data-parallel collectives run as rings.
     */
    void SetParallelismAlgorithm(tn_chakra_serves serves, const std::string& algorithm);

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
     * The communicator groups of the traces' pg_name attributes (ASTRA-sim's comm-group
     * file: a name, its ranks), for the next Install of Chakra traces
     * (tn_chakra_load_file_groups). Empty: a node with pg_name and no comm_group is refused.
     */
    void SetCommGroups(const std::vector<std::pair<std::string, std::vector<uint32_t>>>& groups);

    /**
     * A trace set must have one file per NPU: PREFIX.<npus>.et must not exist (Install and
     * the scenario reader refuse a larger set rather than run its first ranks).
     * \param prefix the traces' prefix \param npus the NPUs of the topology
     * \return "" or the error naming the extra file
     */
    static std::string ExtraTraces(const std::string& prefix, uint32_t npus);

    /**
     * Run a generated transformer training iteration instead (tn-llm.h): Install checks the
     * descriptions against the NPUs (the error names the key), generates every rank's
     * program, sets each NPU's ClockRate to the GPU's achievable FLOP/s and its
     * MemoryBandwidth to its achievable bytes/s, and runs the programs as Chakra traces
     * (OpsPerCycle 1). The descriptions are copied.
     */
    void LoadLlm(const tn_llm_model& model,
                 const tn_llm_gpu& gpu,
                 const tn_llm_training& training,
                 const tn_llm_layout& layout);

    /**
     * Run a SimAI / AICB workload file instead (tn-simai.h): Install checks all_gpus against
     * the NPUs, generates every rank's program (rank r on NPU r), sets each NPU's ClockRate
     * to 1 GHz (the file's times are nanoseconds) and runs the programs as Chakra traces
     * (OpsPerCycle 1).
     * \param path the file \param error set to the reason (file, line, token) on failure
     * \return true when read
     */
    bool LoadSimai(const std::string& path, std::string* error);

    /// An LLM run as a user states it: presets or files by name, schedules by name.
    struct LlmSettings
    {
        std::string model;                      //!< a preset name or a model file
        std::string gpu{"h100"};                //!< a preset name or a GPU file
        uint32_t size[TN_LLM_DIMS]{1, 1, 1, 1}; //!< tp, ep, dp, pp
        uint32_t vpp{1};
        bool sequenceParallel{false};
        uint32_t microBatch{1};
        uint64_t globalBatch{0};
        std::string schedule{"1f1b"};
        std::string recompute{"none"};
        bool distributedOptimizer{false};
        std::string order{"tp,ep,dp,pp"};
    };

    /// The four descriptions LoadLlm takes.
    struct LlmDescription
    {
        tn_llm_model model;
        tn_llm_gpu gpu;
        tn_llm_training training;
        tn_llm_layout layout;
    };

    /**
     * Read the model and GPU (FindLlmFile) and parse the names of the settings; the number
     * of NPUs is checked at Install.
     * \param settings what the user stated \param baseDir the scenario file's folder ("": none)
     * \param out the descriptions \param error "KEY: reason" (the files' own errors name
     * their file, line and key) \return true when every setting is valid
     */
    static bool DescribeLlm(const LlmSettings& settings,
                            const std::string& baseDir,
                            LlmDescription* out,
                            std::string* error);

    /**
     * Find a model or GPU description: `name` itself when it names a file, else the preset
     * `<folder>/<kind>/<name>.toml` for folder in {baseDir, "scenarios", the module's
     * scenarios/} (a scenario file's folder, scenarios/ of the working directory, then the
     * presets shipped with the module, wherever the program runs from).
     * \param kind "models" or "gpus" \param name a preset name or a file
     * \param baseDir the folder of the scenario file naming it ("" : none)
     * \param error set to where it looked when nothing is found
     * \return the path, or "" with error set
     */
    static std::string FindLlmFile(const std::string& kind,
                                   const std::string& name,
                                   const std::string& baseDir,
                                   std::string* error);

    /**
     * \param npuOfRank rank r of an LLM program runs on endpoint npuOfRank[r] of the NPU
     * helper (empty, the default: rank r on endpoint r); Install refuses a list that is not a
     * permutation of the endpoints
     */
    void SetRankPlacement(const std::vector<uint32_t>& npuOfRank);

    /**
     * Run the job on some NPUs of the fabric (several jobs on one fabric): rank r on NPU
     * npus[r] of the topology (the endpoint of that index in the NPU helper); its collectives
     * are planned over those NPUs (TrainingJob::SetNpuRanks). Empty (the default): every NPU,
     * rank r on NPU r. Install refuses an index out of range or listed twice.
     * \param npus the topology NPU rank of each rank of the job
     */
    void SetNpus(const std::vector<uint32_t>& npus);

    /** \return the NPUs of SetNpus ({}: all) */
    const std::vector<uint32_t>& GetNpus() const
    {
        return m_npus;
    }

    /** \return the LLM program generated by Install (null before, or for other workloads) */
    const tn_llm_program* GetLlmProgram() const
    {
        return m_llmProgram;
    }

    /** \return the endpoint index of each rank of the LLM program (after Install) */
    const std::vector<uint32_t>& GetRankPlacement() const
    {
        return m_npuOfRank;
    }

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
     * \param topo the topology \param npus the installed endpoints (the job's, SetNpus)
     * \param iterations the job's iterations
     * \return the cost (0 before Load)
     */
    Time GetCostBound(const tn_topology* topo, const NpuHelper& npus, uint32_t iterations) const;

  private:
    ObjectFactory m_factory;
    tn_workload* m_workload{nullptr};
    std::string m_chakraPrefix; //!< LoadChakra's prefix ("" : a text workload)
    std::vector<std::pair<std::string, std::vector<uint32_t>>> m_commGroups; //!< pg_name's
    std::vector<tn_chakra_trace*> m_traces; //!< read by Install, one per NPU
    void DestroyTraces();
    /// LoadLlm's descriptions (m_llm false: none)
    bool m_llm{false};
    tn_llm_model m_llmModel;
    tn_llm_gpu m_llmGpu;
    tn_llm_training m_llmTraining;
    tn_llm_layout m_llmLayout;
    tn_llm_program* m_llmProgram{nullptr}; //!< owns m_traces when set
    std::vector<uint32_t> m_npuOfRank;
    std::vector<uint32_t> m_npus; //!< SetNpus ({}: every NPU)
    /// The endpoints the job runs on (SetNpus), or "" in *error when an index is bad.
    bool JobEndpoints(const NpuHelper& npus,
                      std::vector<Ptr<NpuEndpoint>>* out,
                      std::string* error) const;
    tn_simai_workload* m_simai{nullptr};       //!< LoadSimai's workload (nullptr: none)
    tn_simai_program* m_simaiProgram{nullptr}; //!< owns m_traces when set
    /// Install's SimAI part: program, endpoints' clocks, the job's traces
    bool InstallSimai(Ptr<TrainingJob> job,
                      CollectiveHelper& collectives,
                      const std::vector<Ptr<NpuEndpoint>>& all,
                      std::string* error);
    /// Install's LLM part: program, endpoints' rates, the job's traces
    bool InstallLlm(Ptr<TrainingJob> job,
                    CollectiveHelper& collectives,
                    const std::vector<Ptr<NpuEndpoint>>& all,
                    std::string* error);
    /**
     * Whether the LLM's first data-parallel replica can run for all on a symmetric flow
     * network of `period` representatives. \return "" or "KEY: reason"
     */
    std::string CheckLlmSymmetric(uint32_t period, uint32_t npus) const;
    std::string m_algorithm[TN_COLL_COUNT];
    std::string m_servesAlgorithm[TN_SERVES_COUNT]; //!< SetParallelismAlgorithm's ("": unset)
};

} // namespace ns3

#endif // TRAINING_HELPER_H
