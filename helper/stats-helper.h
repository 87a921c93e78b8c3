/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STATS_HELPER_H
#define STATS_HELPER_H

#include "ns3/attribute.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/stats-recorder.h"
#include "ns3/tn-db.h"
#include "ns3/tn-topology.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FlowNetwork;
class NpuHelper;
class RoceHelper;
class ThemisCollective;
class TrainingHelper;
class TrainingJob;

/**
 * \ingroup training-net
 * \brief Records a whole RoCE fabric and its collectives into the results database in one
 * call.
 *
 * \code
 *   RoceHelper roce;
 *   roce.Install(topo);
 *   CollectiveHelper collectives;
 *   collectives.Install(topo, roce);
 *   StatsHelper stats;
 *   stats.SetRecorderAttribute("SampleInterval", TimeValue(MicroSeconds(10)));
 *   std::string error;
 *   if (!stats.Install("results.db", "my-study", "{}", topo, roce, &error)) { ... error ... }
 *   collectives.AllReduce(16 << 20, "multitree");
 *   Simulator::Run();
 *   stats.Finish("ok", Simulator::Now().GetNanoSeconds());   // before Simulator::Destroy()
 * \endcode
 *
 * Finish() gives the run its status and simulated time. A run it did not end is finished by
 * the recorder at Simulator::Destroy ('ok', or 'error' naming a collective that did not
 * complete, run.error saying so), or 'aborted' ("not finished") when the process exits without
 * Destroy (StatsRecorder): no run stays 'running'. examples/training-net-script.cc is a whole
 * script.
 *
 * Install() opens the database (a clear error, before anything is simulated, for an
 * unwritable path, a file that is not a database or another schema), begins the run
 * (RngSeedManager seed and run, versions), writes one node row per topology node and one
 * link row per directed link, connects the sinks of every node (StatsRecorder::AddNode),
 * follows the collectives of every NPU's CollectiveExecutor (so call it after
 * CollectiveHelper::Install) and starts sampling. Flow rows get their ideal FCT from the
 * topology's routes (RoceIdealFctNs). Which tables are recorded, which ports are sampled
 * (PortSampling), the sampling interval and signal handling are StatsRecorder attributes
 * (SetRecorderAttribute). The run's parameters get "mode" (fabric installs) and
 * "port_sampling" when the program's JSON lacks them.
 *
 * The topology must outlive the run (until Finish).
 *
 * In a distributed run (DistributedHelper, more than one rank; the granted engine) every rank
 * records its own nodes into the same file and the same run: rank 0 begins the run (its row is
 * written once) and the other ranks add their rows to it (StatsRecorder::JoinRun), each in
 * transactions of its own (tn-db lets processes share a file). Node, link, flow, port_sample,
 * pfc_event and drop_event rows come from the rank of their node; a transfer between ranks
 * from both (issue time at the sender's, arrival at the receiver's: one row); a collective's
 * row from the lowest rank that took part, with the times of all. Finish() on every rank at
 * once: the other ranks write their last rows, then rank 0 sets the run's status, the worst
 * of all ranks. A signal caught by one rank stops every rank at the same sampling tick, so
 * the run holds what every rank recorded, marked 'aborted'.
 */
class StatsHelper
{
  public:
    StatsHelper();
    ~StatsHelper();
    StatsHelper(const StatsHelper&) = delete;
    StatsHelper& operator=(const StatsHelper&) = delete;

    /** \param name attribute of ns3::StatsRecorder \param value value */
    void SetRecorderAttribute(std::string name, const AttributeValue& value);

    /**
     * Open a database file and record the fabric (see class doc).
     * \param path database file \param name run name \param paramsJson run parameters
     * \param topo topology \param roce the helper that built its fabric
     * \param error set to the reason on failure
     * \return the recorder, or null with *error set
     */
    Ptr<StatsRecorder> Install(const std::string& path,
                               const std::string& name,
                               const std::string& paramsJson,
                               const tn_topology* topo,
                               const RoceHelper& roce,
                               std::string* error);
    /**
     * The same with a database already open (several runs of one program); not owned.
     */
    Ptr<StatsRecorder> Install(tn_db* db,
                               const std::string& name,
                               const std::string& paramsJson,
                               const tn_topology* topo,
                               const RoceHelper& roce,
                               std::string* error);

    /**
     * Record an ns-3 study of nodes joined by PointToPointNetDevices (internet stack or
     * not): one node row per node (node_id = the ns-3 node id), one link row per device
     * (src_port = its index among the node's point-to-point devices, rate and delay from the
     * device and its channel, dim 0), and port samples of every device (StatsRecorder).
     * \param path database file \param name run name \param paramsJson run parameters
     * \param nodes the nodes to record
     * \param error set to the reason on failure
     * \return the recorder, or null with *error set
     */
    Ptr<StatsRecorder> Install(const std::string& path,
                               const std::string& name,
                               const std::string& paramsJson,
                               const NodeContainer& nodes,
                               std::string* error);

    /**
     * The three Install() above, reporting in the C core's tn_error instead of a std::string
     * (code TN_EDB, the message as the std::string would hold it), so that a script that also
     * calls the core (tn_topology_from_spec, which takes a tn_error) needs one error variable.
     */
    Ptr<StatsRecorder> Install(const std::string& path,
                               const std::string& name,
                               const std::string& paramsJson,
                               const tn_topology* topo,
                               const RoceHelper& roce,
                               tn_error* error);
    /** The same with a database already open (see above). */
    Ptr<StatsRecorder> Install(tn_db* db,
                               const std::string& name,
                               const std::string& paramsJson,
                               const tn_topology* topo,
                               const RoceHelper& roce,
                               tn_error* error);
    /** The same for an ns-3 study of point-to-point devices (see above). */
    Ptr<StatsRecorder> Install(const std::string& path,
                               const std::string& name,
                               const std::string& paramsJson,
                               const NodeContainer& nodes,
                               tn_error* error);

    /** \return the recorder of the last Install (null before) */
    Ptr<StatsRecorder> GetRecorder() const
    {
        return m_recorder;
    }

    /**
     * Record a training job in the last Install's run: its TrainingJobProbe (one iteration
     * row per NPU and iteration, one layer row per NPU, layer and pass; the operations it
     * schedules at run time go to the recorder's CollectiveProbe). Before the job starts.
     * \param job the job
     */
    void AddTrainingJob(Ptr<TrainingJob> job);

    /**
     * Record one of several jobs on one fabric in the last Install's run (before it starts):
     * its row in table job, its NPUs' rows naming it (StatsRecorder::SetJobOfNode), and, at
     * Finish, its ports (table job_port): every port on a shortest path between two of its
     * NPUs, which ECMP may hash a flow onto and planned routing picks among (not for a job of
     * more than MAX_JOB_PORT_NPUS NPUs: one walk of the shortest paths towards each of its
     * NPUs, its NPUs times the fabric's links), each with the frame bytes of the job's flows
     * that crossed it at flow level (FlowNetwork::SetNodeGroup; a port they crossed off those
     * paths too), NULL at packet level (not measured).
     * \param row the job's row (its npus text, placement, start, alone run)
     * \param npus its topology NPU ranks \param topo the topology
     */
    void AddJob(const tn_db_job& row, const std::vector<uint32_t>& npus, const tn_topology* topo);

    /** The largest job whose ports AddJob writes. */
    static constexpr uint32_t MAX_JOB_PORT_NPUS = 1024;

    /**
     * Record which NPU holds which (tp, ep, dp, pp) rank of the LLM program the training
     * helper installed (table llm_rank), on the job's NPUs (TrainingHelper::SetNpus);
     * nothing for other workloads.
     * \param training the helper that installed the job \param npus its NPUs
     */
    void AddLlmPlacement(const TrainingHelper& training, const NpuHelper& npus);

    /**
     * Follow a collective scheduled at run time in the last Install's run (before it starts;
     * the recorder's CollectiveProbe). Its chunk-phase sub-collectives are recorded as any
     * collective (they are what the executors run); the whole operation gets a row of its
     * own, at its end (or at Finish): its id, the scheduler's name as algorithm, scheduler
     * "run-time", the sum of its phases' transfers, no estimate (0).
     * \param collective the operation
     */
    void AddScheduledCollective(Ptr<ThemisCollective> collective);

    /// How many times its plan's cost a run may last in simulated time (LimitSimulatedTime).
    static constexpr uint32_t SIMULATED_TIME_FACTOR = 1000;
    /// Sample intervals a run's plan cost may span (CheckRunLength).
    static constexpr uint64_t MAX_SAMPLE_TICKS = UINT64_C(1000000000);

    /**
     * A run whose plan already costs more than MAX_SAMPLE_TICKS sample intervals of simulated
     * time cannot end in a day of wall time: the samplers alone tick that often (a 2^62-byte
     * all-reduce at 100 Gbit/s: 10^8 simulated seconds). Checked before the run is recorded.
     * \param planCost the plan's cost or bound \param interval the sample interval
     * \param origin what the cost is \return "" or the error
     */
    static std::string CheckRunLength(Time planCost, Time interval, const std::string& origin);

    /**
     * Limit the simulated time of the last Install's run (StatsRecorder::SetSimulatedTimeLimit)
     * to SIMULATED_TIME_FACTOR x its plan's cost, at least one simulated second. Contention and
     * congestion control make a run slower than its plan (TIMELY at its lowest floor: about
     * 150 x); a value the plan does not see (a timer, an increase step, an injection cap) could
     * make it go on for simulated months, and is stopped with a message instead.
     * \param planCost the plan's cost \param origin what it is, for the message
     */
    void LimitSimulatedTime(Time planCost, const std::string& origin);

    /**
     * A plan's cost where the cost model gives none (collectives scheduled at run time, the
     * collectives of a training workload): `bytes` twice through the topology's slowest link
     * (an all-reduce's data over one link) plus one largest link latency per node.
     * \param topo the topology \param bytes the bytes of the collectives
     * \return the bound
     */
    static Time TransferBound(const tn_topology* topo, uint64_t bytes);

    /**
     * StatsRecorder::Finish of the last Install.
     * \param status "ok" or "error" \param simulatedNs simulated time
     * \param error why the run is not ok (run.error; ignored for "ok")
     * \return the status recorded ("aborted" after a signal, "error" after a write failure)
     */
    std::string Finish(const std::string& status,
                       uint64_t simulatedNs,
                       const std::string& error = "");

  private:
    bool Record(Ptr<StatsRecorder> recorder,
                const std::string& name,
                const std::string& paramsJson,
                const tn_topology* topo,
                const RoceHelper& roce,
                std::string* error);

    bool OpenShared(Ptr<StatsRecorder> recorder, const std::string& path, std::string* error);
    /// The job_port rows (AddJob's ports, with each job's bytes at flow level), at Finish.
    void WriteJobPorts();
    std::string FinishShared(const std::string& status,
                             uint64_t simulatedNs,
                             const std::string& error);

    ObjectFactory m_factory;
    Ptr<StatsRecorder> m_recorder;
    std::string m_mainPath;   //!< distributed: the database the parts are joined into
    std::string m_partPath;   //!< distributed: this rank's part
    tn_db* m_part{nullptr};   //!< distributed: this rank's part (owned)
    Ptr<FlowNetwork> m_fluid; //!< flow level: measures each job's bytes per link (AddJob)
    uint32_t m_packetWire{0}; //!< flow level: wire bytes of a full packet
    /// AddJob: the ports (node, port) each job's traffic may cross, by job
    std::map<uint32_t, std::set<std::pair<uint32_t, uint32_t>>> m_jobPorts;
};

} // namespace ns3

#endif // STATS_HELPER_H
