/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_CONFIG_H
#define SCENARIO_CONFIG_H

#include "ns3/themis-collective.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-schedule.h"
#include "ns3/training-helper.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup training-net
 * \brief One collective of a scenario point ([[collective]] in a scenario file).
 */
struct ScenarioCollective
{
    tn_collective op{TN_COLL_ALL_REDUCE}; //!< operation
    std::string algorithm{"ring"};        //!< tn_plan algorithm name
    uint64_t bytes{0};                    //!< S (tn-schedule.h)
    uint32_t chunks{0};                   //!< 0: the algorithm's default
    uint32_t root{0};                     //!< broadcast / reduce root
    /// Static Themis plan: its intra-dimension policy, fifo or scf. Run time
    /// (CollectiveHelper::SetScheduler): themis-scf, themis-fifo or fixed.
    std::string scheduler{tn_themis_policy_name(TN_THEMIS_FIFO)};
    bool baseline{false}; //!< static Themis plan: the fixed dimension order
    uint32_t active{1};   //!< Themis: active chunk-phases per dimension
    uint64_t startNs{0};  //!< start time

    /// \return true when the collective is scheduled at run time (CreateScheduled)
    bool IsScheduled() const
    {
        return ThemisCollective::IsSchedulerName(scheduler);
    }

    /// \return the plan request of this collective (its algorithm string stays ours)
    tn_plan_request ToRequest() const
    {
        tn_plan_request request;
        tn_plan_request_init(&request);
        request.collective = op;
        request.algorithm = algorithm.c_str();
        request.bytes = bytes;
        request.chunks = chunks;
        request.root = root;
        tn_themis_policy policy = TN_THEMIS_FIFO; // a run-time scheduler plans nothing here
        tn_themis_policy_parse(scheduler.c_str(), &policy, nullptr);
        request.themis.policy = policy;
        request.themis.baseline = baseline;
        request.themis.active_chunks_per_dim = active;
        return request;
    }
};

struct ScenarioPoint;

/**
 * \ingroup training-net
 * \brief One of several training jobs on one fabric ([[job]] in a scenario file).
 */
struct ScenarioJob
{
    uint32_t id{0};             //!< 1, 2, ...: the [[job]] tables' order (the database's job_id)
    std::string name;           //!< its name (default "job<id>")
    std::vector<uint32_t> npus; //!< topology NPU ranks, rank r of the job on npus[r]
    std::string placement;      //!< "list" (npus given), "packed", "spread" or "random"
    uint64_t startNs{0};        //!< when it starts
    /// What it runs: the [training] keys of the job's table, read by the same reader (the
    /// workload fields, iterations, algorithm, scheduler of a ScenarioPoint)
    std::shared_ptr<ScenarioPoint> training;
};

/**
 * \ingroup training-net
 * \brief One fully resolved run of a scenario: a sweep point, validated.
 */
struct ScenarioPoint
{
    uint32_t index{0};                  //!< position in the sweep (0-based)
    std::string label;                  //!< the sweep values of this point ("" without a sweep)
    std::string name;                   //!< run name
    std::string scenarioFile;           //!< the scenario file
    std::string topologySpec;           //!< generator spec, or ""
    std::string topologyFile;           //!< topology file (resolved path), or ""
    std::string routing;                //!< planned or ecmp
    std::string routeOrder{"shortest"}; //!< [roce] routing (RoceHelper::SetRouting)
    bool dateline{true};                //!< [roce] dateline (RoceHelper::SetDateline)
    std::string mode;                   //!< packet, flow or flow-symmetric (RoceHelper::SetMode)
    bool verify{true};                  //!< run the schedule verifier on every plan
    /// `partition`: the MPI rank of every topology node (RoceHelper::ParsePartition), used in
    /// a distributed run; empty: tn_partition_auto
    std::vector<uint32_t> partition;
    std::string database;            //!< results database path
    uint32_t seed{1};                //!< RngSeedManager seed
    uint64_t run{1};                 //!< RngSeedManager run number
    uint64_t sampleIntervalNs;       //!< StatsRecorder::SampleInterval
    bool portSamples{true};          //!< StatsRecorder tables
    std::string portSampling{"all"}; //!< StatsRecorder::PortSampling ([sampling] ports)
    bool flows{true};                //!< StatsRecorder tables
    bool transfers{true};            //!< StatsRecorder tables
    bool pfcEvents{true};            //!< StatsRecorder tables
    bool drops{true};                //!< StatsRecorder tables
    /// [roce]: full attribute names ("ns3::RdmaNic::Mtu") and values, as Config defaults
    std::vector<std::pair<std::string, std::string>> roce;
    /// [npu]: NpuEndpoint attributes and values
    std::vector<std::pair<std::string, std::string>> npu;
    bool installNpus{false};                     //!< an [npu] table or a workload
    std::vector<ScenarioCollective> collectives; //!< [[collective]] (or empty)
    std::string workload;                        //!< [training] workload file, or ""
    std::string chakra;                          //!< [training] Chakra traces' prefix, or ""
    std::string simai;                           //!< [training] a SimAI workload file, or ""
    bool llm{false};                             //!< [training] model: an LLM program
    TrainingHelper::LlmSettings llmSettings;     //!< [training] its keys
    std::vector<uint32_t> llmPlacement;          //!< [training] placement ({}: the order)
    uint32_t symmetricPeriod{1}; //!< flow-symmetric: NPUs that run (RoceHelper::SetSymmetricPeriod)
    std::string llmBaseDir;      //!< where its presets are looked for
    uint32_t iterations{1};      //!< [training]
    bool overlap{true};          //!< [training]
    uint32_t modelGroup{0};      //!< [training]; 0: the first dim's size
    std::string trainingAlgorithm;   //!< [training] all-reduce algorithm ("": the job's default)
    std::string trainingDpAlgorithm; //!< [training] data-parallel algorithm ("": the default)
    std::string trainingScheduler;   //!< [training] run-time scheduler or ""
    uint32_t trainingChunks{TN_THEMIS_DEFAULT_CHUNKS}; //!< [training] chunks of a scheduled op
    uint32_t trainingActive{1};                        //!< [training] its active phases per dim
    std::string paramsJson;                            //!< every resolved key, for the run row
    std::vector<ScenarioJob> jobs; //!< [[job]]: several jobs on one fabric (or empty)
    bool isolate{false};           //!< [[job]]: run each job alone too (its baseline)
    /// A baseline of isolate = true: this point is job `alone` (1, 2, ...) of the point run
    /// alone (ScenarioRunner runs it before the jobs together; 0: not a baseline)
    uint32_t alone{0};
};

/**
 * \ingroup training-net
 * \brief A scenario file (TOML): read, overridden, expanded into sweep points, validated.
 *
 * \code
 *   ScenarioConfig config;
 *   std::string error;
 *   if (!config.Load("scenarios/quickstart.toml", &error) ||
 *       !config.Set("topology.spec=torus:8x8", &error) || !config.Expand(&points, &error))
 *     { std::cerr << error << "\n"; return 2; }   // "file:line:column: key: reason"
 * \endcode
 *
 * Every key, its type and default are in doc/scenarios.rst. An array of values anywhere is a
 * sweep axis: Expand() gives the cartesian product of all axes (in the order of the file,
 * the last axis varying fastest). Expand() validates every point before returning (types,
 * ranges, unknown keys, ns-3 attribute names and values, the topology, each collective's
 * plan, the workload file), so nothing is simulated for a scenario with a mistake anywhere.
 */
class ScenarioConfig
{
  public:
    ScenarioConfig();
    ~ScenarioConfig();
    ScenarioConfig(const ScenarioConfig&) = delete;
    ScenarioConfig& operator=(const ScenarioConfig&) = delete;

    /**
     * Read a TOML file.
     * \param path the file \param error set to "file:line:column: reason" on failure
     * \return true when read
     */
    bool Load(const std::string& path, std::string* error);

    /**
     * Read TOML text (tests); `name` stands for the file in messages and relative paths
     * are taken from the current folder.
     * \param text the TOML text \param name its name \param error the reason
     * \return true when read
     */
    bool LoadText(const std::string& text, const std::string& name, std::string* error);

    /**
     * Override a key: "table.key=value" ("seed=3", "topology.spec=torus:8x8",
     * "collective.bytes=[\"1MiB\",\"4MiB\"]" for every collective, "collective[1].bytes=..."
     * for one, "roce.ns3::RdmaNic::Mtu=1024"). The value is read as a TOML value (a list
     * sweeps); text that is not one is a string.
     * \param assignment key=value \param error the reason \return true when applied
     */
    bool Set(const std::string& assignment, std::string* error);

    /**
     * Apply the overrides of the file's [test] table (the reduced size of the test suite).
     * \param error the reason \return true when applied
     */
    bool ApplyTestSize(std::string* error);

    /**
     * Replace the database of every point (a command line's --db), after the scenario's own
     * `database` key has been validated like any other.
     * \param path the database path (not empty)
     */
    void SetDatabase(const std::string& path);

    /**
     * Validate every point of the sweep, one at a time (nothing is kept: a sweep of many
     * points costs the memory of one). A sweep of more than MAX_POINTS points is refused
     * before any is read, with its count.
     * \param count the number of points \param error the first problem found
     * \param databases if not null: the points' databases, each once, in point order
     * \return true when every point is valid
     */
    bool Validate(uint64_t* count,
                  std::string* error,
                  std::vector<std::string>* databases = nullptr) const;

    /**
     * One point of the sweep (the last axis varies fastest), validated.
     * \param index 0 to the count of Validate() - 1 \param point the point
     * \param error what is wrong \return true when valid
     */
    bool GetPoint(uint64_t index, ScenarioPoint* point, std::string* error) const;

    /**
     * Expand the sweep and validate every point (Validate, then every GetPoint).
     * \param points the points \param error the first problem found \return true when valid
     */
    bool Expand(std::vector<ScenarioPoint>* points, std::string* error) const;

    /** \return the number of points without validating them (1 without a sweep) */
    uint64_t CountPoints() const;

    /** The largest sweep a scenario may describe (doc/limits.rst). */
    static constexpr uint64_t MAX_POINTS = 100000;

    struct Impl; //!< the parsed file (opaque; toml++ stays out of this header)

  private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace ns3

#endif // SCENARIO_CONFIG_H
