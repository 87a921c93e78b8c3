/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Trace sinks that record a RoCE fabric and its collectives into the results database.
 */
#ifndef STATS_RECORDER_H
#define STATS_RECORDER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/flow-network.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/tn-db.h"
#include "ns3/tn-schedule.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class Collective;
class ThemisCollective;
class TrainingJob;
struct TrainingIterationRecord;
struct TrainingLayerRecord;
class CollectiveExecutor;
class Node;
class Packet;
class PointToPointNetDevice;
class RdmaNic;
class RoceNetDevice;
class RoceSwitch;
struct CollectiveTransferRecord;
struct RdmaMessageRecord;

/**
 * \ingroup training-net
 * \brief Records a simulation into the results database (tn-db): the statistics are kept
 * apart from the model, as src/flow-monitor does.
 *
 * A StatsRecorder writes one run: BeginRun() adds the run row, AddNode() / AddLink()
 * describe the network and connect the trace sinks of a node (RoceSwitch: PfcPause,
 * PfcResume, Drop; RoceNetDevice: Drop; RdmaNic: MessageComplete), AddExecutor() follows
 * the collectives of an NPU (CollectiveExecutor PartStart, then the Collective's
 * TransferReady and End), Start() starts sampling every port each SampleInterval, and
 * Finish() takes the last sample, writes what is buffered and sets the run's status.
 * StatsHelper does all of it in one call.
 *
 * Rows: one per node, per directed link, per collective (at its end, or at Finish if it
 * did not end), per transfer (when its data is ready), per RDMA message (at its sender's
 * completion: FCT, ideal FCT from the IdealFct callback, slowdown, retransmitted bytes),
 * per port and sampling interval (bytes and frames started, utilisation: the wire bits sent
 * inside the interval, a frame split at the sampling instants, over the rate; queue bytes per
 * priority at the sample time, time paused, ECN marks, drops), per PFC event and per drop.
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
 * SIGTERM (tn_db_signal_watch, attribute CatchSignals) and for a failed database write: then
 * it stops the simulation, and Finish() marks the run 'aborted' or 'error'. Finish() must be
 * called after Simulator::Run() and before Simulator::Destroy().
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
     * \param node the node \param topoId its topology id \param rank NPU rank or -1
     */
    void AddNode(Ptr<Node> node, uint32_t topoId, int64_t rank);
    /**
     * Flow level: the nodes added after this call have the out-links of the network's
     * topology as ports, sampled from the fluid rates (utilisation; queue, pause, ECN and drop
     * columns 0; tx_packets counts full packets of `mtu` payload bytes).
     * \param network the fluid network \param mtu payload bytes per packet
     */
    void SetFlowNetwork(Ptr<FlowNetwork> network, uint32_t mtu);
    /** \param link a directed link row */
    void AddLink(const tn_db_link& link);
    /** \param executor follow the collectives this NPU takes part in */
    void AddExecutor(Ptr<CollectiveExecutor> executor);
    /** \param collective follow a collective (before it starts) */
    void AddCollective(Ptr<Collective> collective);
    /**
     * Follow a collective scheduled at run time (before it starts). Its chunk-phase
     * sub-collectives are recorded as any collective (they are what the executors run); the
     * whole operation gets a row of its own, at its end (or at Finish): its id, the
     * scheduler's name as algorithm, scheduler "run-time", the sum of its phases' transfers,
     * no estimate (0).
     * \param collective the operation
     */
    void AddScheduledCollective(Ptr<ThemisCollective> collective);

    /**
     * Record a training job's iterations (table iteration), one row per NPU and iteration.
     * \param job the job
     */
    void AddTrainingJob(Ptr<TrainingJob> job);
    /** \param cb ideal FCT of a message (flow rows' ideal_fct_ns and slowdown) */
    void SetIdealFctCallback(IdealFctCallback cb);

    /** Start sampling (the first sample one SampleInterval from now) and watching signals. */
    void Start();

    /**
     * Take the last sample, write the collectives that did not end, write the buffered rows
     * and set the run's final status: `status` ("ok" or "error"), unless a signal arrived
     * ("aborted") or a write failed ("error"). Call once, after Simulator::Run().
     * \param status the program's verdict \param simulatedNs simulated time of the run
     * \return the status recorded
     */
    std::string Finish(const std::string& status, uint64_t simulatedNs);

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

    /** \return port samples taken (one per port per interval) */
    uint64_t GetSamples() const
    {
        return m_samples;
    }

  protected:
    void DoDispose() override;

  private:
    /// Sampled state of one port.
    struct PortState
    {
        Ptr<RoceNetDevice> dev;         //!< the device (RoCE ports)
        Ptr<RoceSwitch> sw;             //!< its node's forwarding object (RoCE ports)
        Ptr<PointToPointNetDevice> p2p; //!< the device (ns-3 point-to-point ports)
        Ptr<FlowNetwork> fluid;         //!< its network (flow-level ports)
        uint32_t link{0};               //!< its directed link (flow-level ports)
        uint32_t packetWire{0};         //!< wire bytes of a full packet (flow-level ports)
        uint64_t queueDiscBytes{0};     //!< bytes in the root queue disc in front of p2p
        uint64_t p2pTxBytes{0};         //!< frame bytes started (PhyTxBegin)
        uint64_t p2pTxPackets{0};       //!< frames started
        uint64_t p2pDrops{0};           //!< packets dropped by the device or its queue
        int64_t p2pBusyNs{0};           //!< wire time of the frames started (p2p)
        int64_t p2pTxEndNs{0};          //!< end of the last frame started (p2p)
        uint32_t node{0};               //!< topology node
        uint32_t port{0};               //!< port index
        double rateBps{0};              //!< line rate
        uint64_t txBytes{0};            //!< counters at the last sample
        uint64_t txPackets{0};          //!< frames
        int64_t pausedNs{0};            //!< paused time (all priorities)
        uint64_t ecnMarks{0};           //!< ECN marks
        uint64_t drops{0};              //!< drops
        int64_t busyNs{0};              //!< transmitter busy time
        int64_t writtenNs{0};           //!< end of the last row written for this port
    };

    /// A collective being followed.
    struct Followed
    {
        Ptr<Collective> collective; //!< the collective (null once its row is written)
        bool written{false};        //!< its row is written
    };

    /// Register the out-links of a node of the fluid network as its ports; \return how many.
    uint32_t AddFlowPorts(uint32_t topoId);
    /// Register the point-to-point devices of a node as its ports; \return how many.
    uint32_t AddPointToPointPorts(Ptr<Node> node, uint32_t topoId);

    /// Counters of a port now: (tx bytes, frames, queue bytes per queue, paused ns, ECN marks,
    /// drops, paused mask, transmitter busy time).
    struct PortCounters
    {
        uint64_t txBytes{0};
        uint64_t txPackets{0};
        uint64_t queueBytes[TN_DB_PRIORITIES + 1]{};
        int64_t pausedNs{0};
        uint64_t ecnMarks{0};
        uint64_t drops{0};
        uint8_t pausedMask{0};
        int64_t busyNs{0};
    };

    static PortCounters ReadPort(const PortState& s);
    void Tick();
    /** \param last the final sample (idle stretches are written too) */
    void Sample(bool last);
    bool Check(tn_status status, const tn_error& err);
    void Partake(Ptr<const Collective> collective, uint32_t rank);
    void CollectiveEnded(Ptr<const Collective> collective);
    void Forget(uint32_t id);
    void WriteCollective(Ptr<const Collective> collective);
    void ScheduledEnded(Ptr<const ThemisCollective> collective);
    void ForgetScheduled(uint32_t id);
    void WriteScheduled(Ptr<const ThemisCollective> collective);
    /** Fill a collective row's algbw and busbw (nccl-tests convention) and write it. */
    void AddCollectiveRow(tn_db_collective* row, tn_collective kind);
    void TransferReady(const CollectiveTransferRecord& record);
    void IterationEnd(const TrainingIterationRecord& record);
    void LayerEnd(const TrainingLayerRecord& record);
    void MessageComplete(const RdmaMessageRecord& record);
    void Pfc(uint32_t node, bool pause, uint32_t port, uint8_t priority, bool sent);
    void SwitchDrop(uint32_t node,
                    Ptr<const Packet> packet,
                    uint32_t port,
                    uint8_t priority,
                    const std::string& reason);
    void DeviceDrop(uint32_t node,
                    uint32_t port,
                    Ptr<const Packet> packet,
                    const std::string& reason);

    static void PfcPauseSink(StatsRecorder* recorder,
                             uint32_t node,
                             uint32_t port,
                             uint8_t priority,
                             bool sent);
    static void PfcResumeSink(StatsRecorder* recorder,
                              uint32_t node,
                              uint32_t port,
                              uint8_t priority,
                              bool sent);

    tn_db* m_db{nullptr};
    bool m_ownDb{false};
    int64_t m_runId{-1};
    std::chrono::steady_clock::time_point m_wallStart;
    std::vector<PortState> m_ports;
    Ptr<FlowNetwork> m_fluid;  //!< flow level: the network whose links are the ports
    uint32_t m_fluidPacket{0}; //!< flow level: wire bytes of a full packet
    std::map<uint32_t, Followed> m_collectives; //!< by collective id
    /// run-time scheduled operations whose row is not written yet, by id
    std::map<uint32_t, Ptr<ThemisCollective>> m_scheduled;
    IdealFctCallback m_idealFct;
    EventId m_tick;
    Time m_lastSample;
    bool m_started{false};
    bool m_finished{false};
    bool m_failed{false};
    bool m_watching{false};
    int m_signal{0};
    std::string m_error;
    uint64_t m_samples{0};

    // attributes
    Time m_interval;
    bool m_recordPorts;
    bool m_recordFlows;
    bool m_recordTransfers;
    bool m_recordPfc;
    bool m_recordDrops;
    bool m_catchSignals;
    uint32_t m_batchRows;
    bool m_writerThread;
};

} // namespace ns3

#endif // STATS_RECORDER_H
