/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Trace sinks that record a RoCE fabric and its collectives into the results database.
 */
#ifndef STATS_RECORDER_H
#define STATS_RECORDER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/pfc-deadlock-watch.h"
#include "ns3/port-sampling.h"
#include "ns3/ptr.h"
#include "ns3/tn-db.h"
#include "ns3/tn-schedule.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveProbe;
class Node;
class PortActivity;
class PortCounters;
class StatsProbe;

/**
 * \ingroup training-net
 * \brief Records a simulation into the results database (tn-db): the statistics are kept
 * apart from the model, as src/flow-monitor does.
 *
 * A StatsRecorder writes one run: BeginRun() adds the run row, AddNode() / AddLink()
 * describe the network and attach the probes of a node (model/stats/network-probes.h:
 * RoceSwitchProbe, PointToPointPortProbe, RdmaNicProbe; model/stats/cc-probe.h: RdmaCcProbe),
 * AddProbe() takes any other probe
 * (a TrainingJobProbe of a job, model/stats/npu-probes.h), GetCollectiveProbe() is the
 * run's CollectiveProbe (the executors, collectives and run-time operations it follows),
 * Start() starts sampling the ports each SampleInterval (which ports: attribute PortSampling,
 * model/stats/port-sampling.h), and Finish() takes the last
 * sample, writes what is buffered and sets the run's status. StatsHelper does all of it in
 * one call and builds the probes from the model objects (StatsHelper::AddTrainingJob,
 * AddScheduledCollective).
 *
 * As ns-3's FlowMonitor, the recorder knows its probes, not the model classes: each probe
 * connects to the trace sources of one kind of model object and hands rows to the recorder
 * (the Write* methods); ports are sampled through the PortCounters interface
 * (model/roce/port-counters.h) that a node's forwarding object implements (RoceSwitch) or a
 * probe adapts (PointToPointPortProbe, FlowNetworkPortProbe). Where the ports' fabric tells
 * which ports moved (PortActivity: the FlowNetwork), a tick reads only those
 * (MovedPortsOnly): an idle port has no row to write.
 *
 * Rows: one per node, per directed link, per collective (at its end, or at Finish if it
 * did not end), per transfer (when its data is ready), per RDMA message (at its sender's
 * completion: FCT, ideal FCT from the IdealFct callback, slowdown, retransmitted bytes),
 * per port and sampling interval (bytes and frames started, utilisation: the wire bits sent
 * inside the interval, a frame split at the sampling instants, over the rate; queue bytes per
 * priority at the sample time, time paused, ECN marks, drops), per PFC event and per drop, and
 * the congestion-control events of the RDMA NICs: per NIC and sampling interval that had one,
 * and per queue pair that had one, at the end (RdmaCcProbe, through StatsProbe::Sample at
 * every tick and StatsProbe::WriteSummary when the run ends).
 * The ports of ns-3's own PointToPointNetDevice are sampled too (AddNode finds them on a
 * node without a RoceSwitch), so a study built on ns-3's internet stack records into the
 * same tables: frame bytes and frames started (PhyTxBegin), utilisation at the device's rate,
 * the bytes in the device's queue and its root queue disc (q0_bytes), and drops (device
 * MacTxDrop, PhyTxDrop, PhyRxDrop and the root queue disc's Drop); PFC and ECN columns are 0.
 *
 * An idle stretch of a port (no frame, empty queues, not paused, no mark, no drop) is
 * written as one row whose interval_ns spans it: each port's rows tile the run without gap
 * or overlap (time_ns - interval_ns = the previous row's time_ns), and a quiet fabric does
 * not cost a row per port per interval.
 *
 * Sampling stops by itself when no other event is left (a sample finds the event queue
 * empty), so it never keeps the simulator alive. Each sample also checks for SIGINT /
 * SIGTERM (tn_signal_watch, attribute CatchSignals) and for a failed database write: then
 * it stops the simulation, and Finish() marks the run 'aborted' or 'error'. Finish() is
 * called after Simulator::Run() and before Simulator::Destroy().
 *
 * No run stays 'running' once its process has ended normally. A run that Finish() did not end
 * is finished by the recorder itself at Simulator::Destroy (a destroy event, which holds the
 * recorder until then): 'ok', or 'error' when something it follows did not end (its probes'
 * GetUnfinished: a collective, a run-time operation, a training job), with the simulated time
 * at Destroy and a run.error that says so. ns-3 disposes the nodes before that event runs, so
 * no port is read then: the last sampling tick of a simulation that ran out of events takes
 * the closing sample (the one Finish would take at that instant), and a simulation stopped
 * early (Simulator::Stop) keeps the rows up to its last tick. A process that exits without
 * Simulator::Destroy (return from main, exit()) ends the run 'aborted' with run.error "not
 * finished: ...", its buffered rows written (an atexit handler; the writer thread's batch is
 * joined first). A run of a distributed simulation is finished by Finish on every rank: one
 * not finished is 'aborted' at Destroy. A database given with SetDatabase must then stay open
 * until Simulator::Destroy or the process's exit.
 */
class StatsRecorder : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /** Ideal FCT in ns of a message of `bytes` from node src to node dst (0: unknown). */
    typedef Callback<uint64_t, uint32_t, uint32_t, uint64_t> IdealFctCallback;

    StatsRecorder();
    ~StatsRecorder() override;

    /**
     * Open (or create) a database file; the recorder owns it.
     * \param path file \param error set to the reason on failure \return true on success
     */
    bool Open(const std::string& path, std::string* error);
    /** \param db an open database, not owned (must outlive the recorder's Finish) */
    void SetDatabase(tn_db* db);

    /** \return the database (null before Open / SetDatabase) */
    tn_db* GetDatabase() const
    {
        return m_db;
    }

    /**
     * Record the run row ('running'), with RngSeedManager's seed and run number.
     * \param name program or scenario \param paramsJson parameters as a JSON object
     * \param error set on failure \return true on success
     */
    bool BeginRun(const std::string& name, const std::string& paramsJson, std::string* error);

    /** \return the run id (-1 before BeginRun) */
    int64_t GetRunId() const
    {
        return m_runId;
    }

    /**
     * Record a node and connect its sinks: its RoceSwitch (ports sampled, PFC, drops), its
     * ports' devices (drops) and its RdmaNic (flows), when it has them.
     *
     * A node whose ports no RoceSwitch gives may come with `ports`, a probe that has
     * registered them (AddPorts; at flow level the FlowNetworkPortProbe of its out-links),
     * instead of its point-to-point devices; the recorder owns it as any probe.
     * \param node the node \param topoId its topology id \param rank NPU rank or -1
     * \param ports the probe of its ports, or null
     */
    void AddNode(Ptr<Node> node, uint32_t topoId, int64_t rank, Ptr<StatsProbe> ports = nullptr);
    /** \param link a directed link row */
    void AddLink(const tn_db_link& link);
    /**
     * Own a probe (disposed with the recorder), e.g. a TrainingJobProbe; a probe connects
     * itself to its model object when it is made.
     * \param probe the probe
     */
    void AddProbe(Ptr<StatsProbe> probe);
    /**
     * The run's collective probe: it follows the collectives of the executors, collectives
     * and run-time operations given to it (CollectiveProbe::AddExecutor, AddCollective,
     * AddScheduledCollective); the recorder has it write the rows of those that did not end
     * at Finish, and joined over the ranks at GatherCollectives.
     * \return the probe
     */
    Ptr<CollectiveProbe> GetCollectiveProbe() const;
    /**
     * \param cb ideal FCT of a message (flow rows' ideal_fct_ns and slowdown): asked once
     * per (src, dst, bytes), its answer memoized, so it must depend on those only
     */
    void SetIdealFctCallback(IdealFctCallback cb);

    /**
     * Combines a sampling tick over the ranks of a distributed run: called by every rank at
     * the same instant with the signal this rank caught (0: none); sets *busy when any rank has
     * an event left or a frame in flight; returns the signal of any rank (0: none).
     */
    typedef Callback<int, int, bool*> RankSyncCallback;
    /** Every rank's values, in rank order (called by every rank at once). */
    typedef Callback<std::vector<int64_t>, std::vector<int64_t>> RankGatherCallback;

    /**
     * Record one rank's part of a distributed run (StatsHelper sets it, with
     * DistributedHelper::SyncTick and AllGather): sampling goes on while any rank is busy and a
     * signal caught by one rank stops every rank at the same tick, so each rank's port rows are
     * those of one process; a transfer whose receiver is on another rank is written with its
     * issue time (the database joins it with the receiver's row); the collectives' rows are
     * written at Finish, once, by the lowest rank that took part, with the earliest start and
     * the latest end over the ranks. Only the nodes added (AddNode) are this rank's. Call
     * before Start().
     * \param rank this process's rank
     * \param sync the tick's exchange between the ranks
     * \param gather the exchange of the collectives' times at Finish
     */
    void SetRankSync(uint32_t rank, RankSyncCallback sync, RankGatherCallback gather);

    /** \return this process's rank (0 when not a rank's part) */
    uint32_t GetRank() const
    {
        return m_rank;
    }

    /**
     * A rank's part of a distributed run: write the collectives' rows, joined over the ranks
     * (see SetRankSync). Every rank calls it at once, after Simulator::Run() and before
     * Finish() (which does it otherwise).
     */
    void GatherCollectives();

    /**
     * A rank's part of a distributed run, other than the one that began it: add rows to the
     * run `runId` of the database (another process's BeginRun); Finish then writes the rows
     * and leaves the run's status to that process.
     * \param runId the run
     */
    void JoinRun(int64_t runId);

    /**
     * \param values this rank's values
     * \return every rank's (RankGatherCallback), or values alone when not a rank's part
     */
    std::vector<int64_t> GatherRanks(const std::vector<int64_t>& values) const;

    /** \return true for a rank's part of a distributed run (SetRankSync) */
    bool IsRankPart() const
    {
        return !m_rankSync.IsNull();
    }

    /** \param node topology node \return true if it was added (AddNode) */
    bool HasNode(uint32_t node) const;

    /** Start sampling (the first sample one SampleInterval from now) and watching signals. */
    void Start();

    /**
     * The simulated time at which the run is stopped and recorded as 'error' if it is
     * still busy then: checked at every sample tick, and at the limit itself when it comes
     * before the next sample; a run whose work ended earlier is not stopped by it. The
     * message names the limit, where it comes from and the attribute that raises it; the
     * attribute SimulatedTimeLimit, when set, wins.
     * \param limit simulated time (0: none)
     * \param origin where the limit comes from ("1000 x the plan's cost, ...")
     */
    void SetSimulatedTimeLimit(Time limit, const std::string& origin);

    /** \return the limit in force (SimulatedTimeLimit, else SetSimulatedTimeLimit's; 0: none) */
    Time GetSimulatedTimeLimit() const;

    /** \return why the run was stopped at its simulated time limit ("" if it was not) */
    const std::string& GetTimeLimitError() const
    {
        return m_timeLimitError;
    }

    /**
     * Follow a PFC deadlock watch: when it finds a cycle the run ends 'deadlock', with the
     * watch's message as its error text and the cycle in the deadlock table.
     * \param watch the watch (RoceHelper::GetDeadlockWatch)
     */
    void WatchDeadlocks(Ptr<PfcDeadlockWatch> watch);

    /**
     * \return why the run was stopped early: the PFC deadlock found, else the stall, else the
     * simulated time limit reached ("" if none)
     */
    const std::string& GetStopError() const
    {
        return !m_deadlock.message.empty() ? m_deadlock.message
               : !m_stallError.empty()     ? m_stallError
                                           : m_timeLimitError;
    }

    /**
     * Take the last sample, write the collectives that did not end, write the buffered rows
     * and set the run's final status: `status` ("ok" or "error"), unless a signal arrived
     * ("aborted") or a write failed ("error"). A run that is not ok gets its error text
     * (run.error, GetRunError): the write failure ("database: ..."), else the signal
     * ("interrupted by signal 2"), else `error`. Call once, after Simulator::Run().
     * \param status the program's verdict \param simulatedNs simulated time of the run (0:
     * the simulator's clock, where a run that did not complete stopped)
     * \param error why the program's verdict is "error" (ignored for "ok")
     * \return the status recorded
     */
    std::string Finish(const std::string& status,
                       uint64_t simulatedNs,
                       const std::string& error = "");

    /** \return true once the run is finished (Finish, Simulator::Destroy or process exit) */
    bool IsFinished() const
    {
        return m_finished;
    }

    /** \return true if the recorder finished the run itself (Simulator::Destroy, exit) */
    bool IsFinishedByItself() const
    {
        return m_byItself;
    }

    /** \return the error text Finish recorded ("" for an ok run or none given) */
    const std::string& GetRunError() const
    {
        return m_runError;
    }

    /** \return true once a signal stopped the run */
    bool IsAborted() const
    {
        return m_signal != 0;
    }

    /** \return the signal that stopped the run (0 if none) */
    int GetSignal() const
    {
        return m_signal;
    }

    /** \return the first database error ("" if none) */
    std::string GetError() const
    {
        return m_error;
    }

    /** \return port_sample rows written (busiest:K: once the run ends) */
    uint64_t GetSamples() const
    {
        return m_samples;
    }

    /** \return the ports' counters read by the samples (what MovedPortsOnly spares) */
    uint64_t GetPortReads() const
    {
        return m_portReads;
    }

    // ---- for the probes ------------------------------------------------------------

    /** \return true if flows are recorded (attribute Flows) */
    bool RecordsFlows() const
    {
        return m_recordFlows;
    }

    /** \return true if transfers are recorded (attribute Transfers) */
    bool RecordsTransfers() const
    {
        return m_recordTransfers;
    }

    /** \return true if PFC events are recorded (attribute PfcEvents) */
    bool RecordsPfcEvents() const
    {
        return m_recordPfc;
    }

    /** \return true if congestion-control events are recorded (attribute CcEvents) */
    bool RecordsCcEvents() const
    {
        return m_recordCc;
    }

    /** \return true if drops are recorded (attribute Drops) */
    bool RecordsDrops() const
    {
        return m_recordDrops;
    }

    /**
     * The network as the per-dimension rule of PortSampling sees it (PerDimensionPorts over
     * PortSamplingLinks): StatsHelper gives it before AddNode. Read at once, not kept. Without
     * it the rule takes the link rows (AddLink, no sign) and the NPUs (AddNode) at Start.
     * \param topo the topology the nodes and links are those of
     */
    void SetPortTopology(const tn_topology* topo);

    /** \return the PortSampling mode in force ("all", "none", "per-dimension", "busiest:K") */
    std::string GetPortSampling() const;

    /**
     * Sample ports 0 .. GetNCounterPorts() - 1 of counters as the node's ports.
     * \param node topology node \param owner keeps counters alive \param counters the ports
     */
    void AddPorts(uint32_t node, Ptr<Object> owner, const PortCounters* counters);

    /** \param src source \param dst destination \param bytes size \return ideal FCT (0: unknown) */
    int64_t GetIdealFct(uint32_t src, uint32_t dst, uint64_t bytes) const;

    /** \param id collective id \return true if the run follows (or followed) it */
    bool IsCollectiveFollowed(uint32_t id) const;

    /** \param row a flow row */
    void WriteFlow(const tn_db_flow& row);

    /** \param row a PFC event row */
    void WritePfcEvent(const tn_db_pfc_event& row)
    {
        Add(tn_db_add_pfc_event, row);
    }

    /** \param row a drop row */
    void WriteDrop(const tn_db_drop& row)
    {
        Add(tn_db_add_drop, row);
    }

    /**
     * Add one row of any table through `add` (a tn_db_add_* function) unless a write failed
     * before: a probe's own tables (RdmaCcProbe's cc_sample and cc_qp) need no writer here.
     * \param add the table's tn_db_add_* \param row the row
     */
    template <typename Row>
    void Add(tn_status (*add)(tn_db*, int64_t, const Row*, tn_error*), const Row& row)
    {
        tn_error err{};
        if (!m_failed)
        {
            Check(add(m_db, m_runId, &row, &err), err);
        }
    }

    /** \param row a transfer row */
    void WriteTransfer(const tn_db_transfer& row);
    /** \param row a layer row */
    void WriteLayer(const tn_db_layer& row);
    /** \param row an iteration row */
    void WriteIteration(const tn_db_iteration& row);

    /** \param row which NPU holds which rank of a generated LLM program */
    void WriteLlmRank(const tn_db_llm_rank& row)
    {
        Add(tn_db_add_llm_rank, row);
    }

    /**
     * Several jobs on one fabric: the rows of NPU `node` (iterations, layers, the transfers it
     * sends, the collectives whose first member it is) name job `job`; jobs hold disjoint NPUs.
     * \param node an NPU's topology node \param job the job's id (1, 2, ...)
     */
    void SetJobOfNode(uint32_t node, uint32_t job);
    /** \param node a topology node \return its job (SetJobOfNode), 0 for none */
    uint32_t GetJobOfNode(uint32_t node) const;

    /** \param row a job of the run */
    void WriteJob(const tn_db_job& row)
    {
        Add(tn_db_add_job, row);
    }

    /** \param row a port a job's traffic may cross */
    void WriteJobPort(const tn_db_job_port& row)
    {
        Add(tn_db_add_job_port, row);
    }

    /**
     * Fill a collective row's algbw and busbw (nccl-tests convention) and write it.
     * \param row the row \param kind the collective
     */
    void WriteCollective(tn_db_collective* row, tn_collective kind);

  protected:
    void DoDispose() override;

  private:
    /// Sampled state of one port.
    struct PortState
    {
        Ptr<Object> owner;                     //!< keeps counters alive
        const PortCounters* counters{nullptr}; //!< where the port's counters are read
        uint32_t node{0};                      //!< topology node
        uint32_t port{0};                      //!< port index
        uint64_t txBytes{0};                   //!< counters at the last sample
        uint64_t txPackets{0};                 //!< frames
        int64_t pausedNs{0};                   //!< paused time (all priorities)
        uint64_t ecnMarks{0};                  //!< ECN marks
        uint64_t drops{0};                     //!< drops
        int64_t busyNs{0};                     //!< transmitter busy time
        int64_t writtenNs{0};                  //!< end of the last row written for this port
        bool sampled{true};                    //!< chosen by PortSampling (per-dimension)
    };

    void Tick();
    /** Schedule the next Tick: one SampleInterval from now, or the time limit if sooner. */
    void ScheduleTick();
    /** The run is open (BeginRun, JoinRun): follow it to its end (FinishAtDestroy, atexit) */
    void TrackRun();
    /** Finish() or FinishAtDestroy(); `lastSample`: the ports may still be read */
    std::string Close(const std::string& status,
                      uint64_t simulatedNs,
                      const std::string& error,
                      bool lastSample);
    /**
     * What the run still waits for: the collectives' dependency frontier (the first few
     * waits and how many in all) and what did not end.
     * \return one line
     */
    std::string DescribePending() const;
    /** A watch found a PFC deadlock. \param deadlock what it found */
    void DeadlockFound(const PfcDeadlock& deadlock);
    /** The destroy event: finish a run Finish() did not */
    void FinishAtDestroy();
    /**
     * End the open run 'aborted' with `why` after writing the buffered rows; only C calls (no
     * simulator, no log): it runs at the process's exit too. \param why run.error
     */
    void Abandon(const std::string& why);
    /** The atexit handler: abandon every run still open. */
    static void AbandonOpenRuns();
    /** \param last the final sample (idle stretches are written too) */
    void Sample(bool last);
    /**
     * One port's rows of a sample (none while it is idle, unless `last`).
     * \param index its entry of m_ports \param nowNs now \param previousNs the last sample
     * \param last the final sample \return false when a write failed
     */
    bool SamplePort(uint32_t index, int64_t nowNs, int64_t previousNs, bool last);
    /** MovedPortsOnly: follow the sampled ports' PortActivity from the run's start */
    void WatchPorts();
    /** Let go of the PortActivity sources WatchPorts followed (their probes hold them alive) */
    void UnwatchPorts();
    /** Mark in m_visit the ports that may have moved since the last sample. */
    void MarkMovedPorts();
    /**
     * \return when a port of the run last sent data or a probe's NIC last received it (-1 ns:
     * never; a walk of every port and probe)
     */
    Time GetLastDataTime() const;
    bool Check(tn_status status, const tn_error& err);
    /** \return the PortSampling attribute, parsed when set (not per row written) */
    PortSamplingMode GetPortSamplingMode() const;
    /** PortSampling's setter: parses once (its checker let only modes in) */
    void SetPortSampling(std::string text);
    /** Per-dimension without SetPortTopology: choose from the link rows and NPUs added. */
    void ChoosePortsFromRows();
    /**
     * One port_sample row: into the database, or the spill under busiest:K.
     * \param index the port's entry of m_ports \param row the row \return false on failure
     */
    bool WritePortRow(uint32_t index, const tn_db_port_sample& row);
    /** busiest:K: write the rows of the K busiest ports (once); only C calls, as Abandon. */
    void WriteBusiest();

    tn_db* m_db{nullptr};
    bool m_ownDb{false};
    int64_t m_runId{-1};
    std::chrono::steady_clock::time_point m_wallStart;
    std::vector<PortState> m_ports;
    std::map<uint32_t, uint32_t> m_portsOfNode; //!< node -> its entries of m_ports
    std::vector<Ptr<StatsProbe>> m_probes;      //!< the probes of nodes and jobs
    Ptr<CollectiveProbe> m_collectiveProbe;     //!< the collectives of the run
    IdealFctCallback m_idealFct;

    /// A memoized ideal FCT (ns < 0: an empty slot).
    struct IdealFctEntry
    {
        uint32_t src{0};   //!< source node
        uint32_t dst{0};   //!< destination node
        uint64_t bytes{0}; //!< message bytes
        int64_t ns{-1};    //!< its ideal FCT
    };

    /// The callback's answers by (src, dst, bytes), open addressing, at most half full: a
    /// run asks once per message (millions) for a few kinds each, and a call through the
    /// callback's wrappers cost more than this look-up
    mutable std::vector<IdealFctEntry> m_idealMemo;
    mutable std::size_t m_idealMemoUsed{0}; //!< entries of m_idealMemo
    RankSyncCallback m_rankSync;
    RankGatherCallback m_rankGather;
    uint32_t m_rank{0};         //!< SetRankSync
    bool m_joined{false};       //!< JoinRun: the run is another process's
    std::set<uint32_t> m_nodes; //!< topology ids of the nodes added
    EventId m_tick;
    Time m_lastSample;
    int64_t m_probeSampleNs{0}; //!< the last tick of the probes' own rows (StatsProbe::Sample)
    bool m_started{false};
    bool m_finished{false};
    bool m_byItself{false};       //!< finished at Simulator::Destroy or at exit, not by Finish
    std::string m_finalStatus;    //!< the status recorded
    EventId m_destroyEvent;       //!< FinishAtDestroy
    bool m_destroyPending{false}; //!< m_destroyEvent is in the simulator's destroy list
    int64_t m_pid{0};             //!< the process that began the run (not a forked child)
    bool m_failed{false};
    std::map<uint32_t, uint32_t> m_jobOfNode; //!< SetJobOfNode
    bool m_watching{false};
    int m_signal{0};
    std::string m_error;
    std::string m_runError;        //!< run.error written by Finish
    Time m_timeLimitSet;           //!< SimulatedTimeLimit (0: the program's)
    Time m_timeLimit;              //!< the program's limit (SetSimulatedTimeLimit)
    std::string m_timeLimitOrigin; //!< where the program's limit comes from
    std::string m_timeLimitError;  //!< set when the run was stopped at the limit
    PfcDeadlock m_deadlock;        //!< the deadlock a watch found (empty message: none)
    std::string m_stallError;      //!< set when the run was stopped as stalled
    Time m_stallTimeout;           //!< StallTimeout
    uint64_t m_progress{0};        //!< rows of work done (transfers, flows, layers, ...)
    uint64_t m_progressSeen{0};    //!< m_progress at the last tick that saw it grow
    Time m_progressAt;             //!< that tick
    uint64_t m_samples{0};
    uint64_t m_portReads{0}; //!< GetPortReads

    // attributes
    Time m_interval;
    bool m_recordPorts;
    bool m_recordPortCopies; //!< PortCopies
    bool m_movedPortsOnly;   //!< MovedPortsOnly

    /// The sampled ports that follow one PortActivity, by key.
    struct PortWatch
    {
        PortActivity* source{nullptr}; //!< the ports' source
        uint32_t watcher{0};           //!< this recorder's id there
        std::vector<uint32_t> first;   //!< key k's ports: ports[first[k] .. first[k + 1])
        std::vector<uint32_t> ports;   //!< entries of m_ports, by key
    };

    std::vector<PortWatch> m_portWatches;   //!< WatchPorts
    std::vector<uint32_t> m_unwatchedPorts; //!< sampled entries with no source: read always
    std::size_t m_watchedUpTo{0};           //!< entries added later are read always
    bool m_portsWatched{false};             //!< WatchPorts done
    bool m_fullScan{true};                  //!< the first sample reads every port
    std::vector<uint64_t> m_visit;          //!< ports to read at this sample, a bit each
    std::vector<uint32_t> m_movedKeys;      //!< scratch of MarkMovedPorts
    PortSamplingMode m_portMode;            //!< PortSampling, parsed
    std::set<std::pair<uint32_t, uint32_t>> m_chosenPorts; //!< per-dimension: (node, port)
    bool m_chosenKnown{false};                             //!< m_chosenPorts set (SetPortTopology)
    std::vector<PortSamplingLink> m_linkRows;              //!< per-dimension without a topology
    std::set<uint32_t> m_npuNodes;                         //!< per-dimension without a topology
    PortSampleSpill m_spill;                               //!< busiest:K
    bool m_busiestWritten{false};                          //!< WriteBusiest done
    bool m_recordFlows;
    bool m_recordTransfers;
    bool m_recordPfc;
    bool m_recordDrops;
    bool m_recordCc; //!< CcEvents
    bool m_catchSignals;
    uint32_t m_batchRows;
    bool m_writerThread;
};

} // namespace ns3

#endif // STATS_RECORDER_H
