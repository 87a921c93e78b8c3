/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-db: the results database (SQLite), written by the C core.
 *
 * Contract: tn_db_open() opens or creates a database file, creates the schema
 * when missing (schema_version, run, node, link, collective, transfer, flow,
 * port_sample, pfc_event, drop_event, iteration, layer, llm_rank, deadlock, job, job_port,
 * cc_sample, cc_qp and the views), upgrades a database of schema 1 (which had only run), 2 (run
 * without error), 3 (collective without the tuner's columns), 4 (no LLM breakdown), 5
 * (run.status without 'deadlock' and 'stalled'), 6 and 7 (no jobs), 8 (job_port without
 * tx_bytes), 9 (no congestion-control tables) and 10 (transfer and flow keyed by PRIMARY KEY)
 * in place, and refuses any other schema
 * version, a file that is not an SQLite database and a path it cannot write,
 * with a message naming the file. A database of another program is refused
 * before anything is written to it (not even the journal mode): a PRAGMA
 * user_version other than 0, a table, view or trigger not of this schema, or
 * a table where the schema has a view (indexes are allowed). One database
 * holds many runs; every row of a run carries its run_id.
 *
 * Runs: tn_db_run_begin() records a run as 'running' and returns its id (the processes of a
 * distributed simulation add rows to one run: one begins it and the others write with its id);
 * tn_db_run_finish() writes the rows still buffered, then sets the run's final
 * status ('ok', 'aborted', 'error', 'deadlock', 'stalled'), wall time and simulated time.
 *
 * Rows: the tn_db_add_* functions copy a row into a buffer (text included);
 * the buffer is written in one transaction (prepared statements, BEGIN
 * IMMEDIATE) when it holds tn_db_set_batch_rows() rows, on tn_db_flush() and
 * on tn_db_run_finish(); with tn_db_set_writer_thread() a full batch is written by a
 * thread of the tn_db's own while the caller goes on. Between batches the file is not locked, so
 * several processes may append runs to one file at once: each waits for the others' short write
 * transactions (busy timeout, then retries with back-off) and no row is lost. A failed batch is
 * rolled back and reported; its rows are dropped (the run should then finish with status 'error').
 *
 * Keys: transfer rows are unique by (run_id, collective_id, transfer_id) and flow rows by
 * (run_id, src_node, message_id), enforced and served by the unique indexes transfer_key and
 * flow_key, which are written with the rows; a run whose batches read or write more index
 * pages than half their rows (keys random in an index larger than the page cache) drops them
 * for the rest of the run and tn_db_run_finish builds them. A second row of a key is left out,
 * or deleted when the indexes are built (the first is kept), and fails tn_db_run_finish
 * naming the table and the count. A file whose indexes a run
 * of an earlier version dropped (and was killed) has them built when the next run finishes.
 *
 * In a run shared by processes (tn_db_set_shared_keys) a
 * transfer row added twice for one run (the sender's process knows its issue time, the
 * receiver's its arrival times) is one row: each time column keeps the value it has, or takes
 * the new one where it had none.
 *
 * Signals: tn-signal.h (included here), so that a recording run can end 'aborted'.
 *
 * Text from users is always bound, never pasted into SQL. The tn_db is owned
 * by the caller and released by tn_db_close(); it is not thread-safe: one thread calls
 * it (the writer thread is internal, and joined before the caller's thread touches the
 * connection again).
 *
 * The schema (tables, columns, units, views) is documented in
 * doc/results-database.rst.
 */
#ifndef TN_DB_H
#define TN_DB_H

#include "tn-error.h"
#include "tn-signal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** Schema version written by this code. */
#define TN_DB_SCHEMA_VERSION 11

    /**
     * Rows buffered before a batch is written (tn_db_set_batch_rows). The key indexes are
     * written with the rows, which come in an order random in the keys: a batch dirties about
     * one index page per key range it touches, so a larger batch adds more keys to each page
     * (ResNet-50 on torus:16x16, 7 M rows of each keyed table, in completion order: 8,192
     * rows of each a batch wrote 38 s of CPU in the sqlite3 shell, 65,536 rows 24 s, 262,144
     * rows 22 s). Two batches are in memory, about 200 bytes a row.
     */
#define TN_DB_DEFAULT_BATCH_ROWS 131072

    typedef struct tn_db tn_db;

    /** What a run records about itself when it starts. */
    typedef struct tn_run_info
    {
        const char* name;           /**< scenario or program name */
        const char* params_json;    /**< parameters as a JSON object ("{}" if none) */
        uint64_t seed;              /**< RngSeedManager seed */
        uint64_t run_number;        /**< RngSeedManager run number */
        const char* ns3_version;    /**< e.g. "3.37" */
        const char* module_version; /**< training-net VERSION */
    } tn_run_info;

    /** A node of the simulated network (table node). */
    typedef struct tn_db_node
    {
        uint32_t node;    /**< topology node id */
        const char* kind; /**< "npu" or "switch" */
        int64_t rank;     /**< NPU rank, -1 for a switch */
        uint32_t ports;   /**< number of ports */
    } tn_db_node;

    /** One direction of a cable (table link): the egress port src_node:src_port. */
    typedef struct tn_db_link
    {
        uint32_t link;     /**< directed link id */
        uint32_t src_node; /**< sending node */
        uint32_t src_port; /**< its port */
        uint32_t dst_node; /**< receiving node */
        uint32_t dst_port; /**< its port */
        uint64_t rate_bps; /**< bit/s */
        uint64_t delay_ns; /**< propagation delay, ns */
        int32_t dim;       /**< topology dimension, -1 if none */
    } tn_db_link;

    /** One collective (table collective). Negative times are stored as NULL. */
    typedef struct tn_db_collective
    {
        uint32_t collective;   /**< collective id of the simulation */
        const char* op;        /**< "all-reduce", ... */
        const char* algorithm; /**< planning algorithm */
        const char* scheduler; /**< executor scheduling: "step-order" or "ready" */
        uint64_t bytes;        /**< S: the collective's size in bytes */
        uint32_t participants; /**< ranks of the group */
        uint32_t transfers;    /**< transfers of the plan */
        uint32_t priority;     /**< RDMA traffic class */
        int64_t start_ns;      /**< start, ns of simulated time (<0: NULL) */
        int64_t end_ns;        /**< end, ns (<0: NULL, the collective did not end) */
        int64_t estimated_ns;  /**< cost-model estimate, ns (<=0: NULL) */
        double algbw_Bps;      /**< bytes/s (NULL when end_ns < 0) */
        double busbw_Bps;      /**< bytes/s, nccl-tests convention (NULL when end_ns < 0) */
        /** The algorithm asked for: "auto" when the tuner (tn-tune.h) chose `algorithm`, else
         *  the name given (NULL: NULL, as rows of schema 3 and before). */
        const char* requested_algorithm;
        int64_t choice_estimated_ns;    /**< the tuner's estimate of the choice (<=0: NULL) */
        const char* runner_up;          /**< the tuner's second (NULL: none, or not tuned) */
        int64_t runner_up_estimated_ns; /**< its estimate (<=0 or no runner_up: NULL) */
        /** What it serves in a training job: "tp", "pp", "dp", "ep" (NULL or "": NULL) */
        const char* parallelism;
        /** A communication library's protocol the algorithm ran with: NCCL's "ll", "ll128",
         *  "simple" (NULL or "": NULL, as for every other algorithm; schema 7) */
        const char* protocol;
        uint32_t channels; /**< the library's channels (0: NULL; schema 7) */
        uint32_t job;      /**< the [[job]] it belongs to (0: NULL, no job; schema 8) */
    } tn_db_collective;

    /** One executed schedule transfer (table transfer). Negative times are NULL. */
    typedef struct tn_db_transfer
    {
        uint32_t collective; /**< collective id */
        uint32_t transfer;   /**< transfer id in the schedule */
        uint32_t chunk;      /**< chunk index */
        uint32_t step;       /**< logical step */
        int32_t dim;         /**< topology dimension, -1 if none */
        uint32_t src_rank;   /**< source rank of the group */
        uint32_t dst_rank;   /**< destination rank */
        uint32_t src_node;   /**< topology node of the source */
        uint32_t dst_node;   /**< topology node of the destination */
        uint64_t bytes;      /**< bytes */
        int reduce;          /**< 1: reduce at the destination, 0: copy */
        uint32_t lane;       /**< RDMA lane */
        int64_t issue_ns;    /**< posted by the sender */
        int64_t first_ns;    /**< first byte at the receiver */
        int64_t last_ns;     /**< last byte at the receiver */
        int64_t ready_ns;    /**< data usable at the receiver */
        uint32_t job;        /**< the [[job]] of its collective (0: NULL; schema 8) */
    } tn_db_transfer;

    /** One RDMA WRITE message (table flow), as completed at its sender. */
    typedef struct tn_db_flow
    {
        uint32_t src_node;    /**< sender node */
        uint64_t message;     /**< message id on the sender's NIC */
        uint32_t dst_node;    /**< receiver node */
        uint32_t qpn;         /**< sender QP number */
        uint32_t priority;    /**< traffic class */
        uint32_t udp_sport;   /**< UDP source port (ECMP entropy) */
        uint32_t lane;        /**< QP lane */
        uint64_t bytes;       /**< message size */
        int64_t start_ns;     /**< posted */
        int64_t end_ns;       /**< last byte acknowledged */
        int64_t ideal_fct_ns; /**< FCT alone in the network (<=0: NULL, slowdown NULL) */
        uint64_t retx_bytes;  /**< payload bytes sent again */
        int64_t collective;   /**< collective id (RETH R_Key) or -1 */
    } tn_db_flow;

    /** Data priorities of a port (queue_bytes has one more entry: the control queue). */
#define TN_DB_PRIORITIES 8

    /** One port over one sampling interval (table port_sample). */
    typedef struct tn_db_port_sample
    {
        int64_t time_ns;                            /**< end of the interval */
        int64_t interval_ns;                        /**< length of the interval */
        uint32_t node;                              /**< node */
        uint32_t port;                              /**< port (egress of link src_node:src_port) */
        uint64_t tx_bytes;                          /**< frame bytes started in the interval */
        uint64_t tx_packets;                        /**< frames started in the interval */
        double utilisation;                         /**< wire time of those frames / (interval) */
        uint64_t queue_bytes[TN_DB_PRIORITIES + 1]; /**< queued at time_ns: 0..7, control */
        int64_t paused_ns;  /**< time paused by the peer in the interval, summed over priorities */
        uint64_t ecn_marks; /**< packets CE-marked at this egress in the interval */
        uint64_t drops;     /**< packets from this ingress port dropped in the interval */
    } tn_db_port_sample;

    /** One PFC frame event (table pfc_event). */
    typedef struct tn_db_pfc_event
    {
        int64_t time_ns;   /**< when */
        uint32_t node;     /**< node */
        uint32_t port;     /**< port */
        uint32_t priority; /**< priority 0..7 */
        int pause;         /**< 1 PAUSE, 0 RESUME */
        int sent;          /**< 1 sent by this node (it pauses its peer), 0 received */
    } tn_db_pfc_event;

    /** One dropped packet (table drop_event). */
    typedef struct tn_db_drop
    {
        int64_t time_ns;    /**< when */
        uint32_t node;      /**< node */
        int64_t port;       /**< ingress port, -1 if none */
        int32_t priority;   /**< priority, -1 if unknown */
        const char* where;  /**< "switch" (the node's forwarding / MMU) or "device" */
        const char* reason; /**< "BufferFull", "LossyThreshold", "NoRoute", ... */
        uint32_t bytes;     /**< packet size */
    } tn_db_drop;

    /** One training iteration at one NPU (table iteration). */
    typedef struct tn_db_iteration
    {
        uint32_t iteration;      /**< iteration index */
        uint32_t node;           /**< the NPU's node */
        int64_t start_ns;        /**< forward pass started */
        int64_t end_ns;          /**< backward, collectives and updates done */
        int64_t compute_ns;      /**< compute kernels */
        int64_t exposed_comm_ns; /**< waiting for collectives */
        /** 1: breakdown_ns holds the split of exposed_comm_ns (generated LLM programs), else
         *  its columns are NULL */
        int breakdown;
        /** bubble, exposed TP, PP, DP, EP (bubble_ns, exposed_tp_ns ... exposed_ep_ns) */
        int64_t breakdown_ns[5];
        uint32_t job; /**< the [[job]] the NPU runs (0: NULL; schema 8) */
    } tn_db_iteration;

    /** Which NPU holds which rank of a generated LLM program (table llm_rank). */
    typedef struct tn_db_llm_rank
    {
        uint32_t node; /**< the NPU's node */
        uint32_t rank; /**< its rank in the program */
        uint32_t tp, ep, dp, pp;
    } tn_db_llm_rank;

    /** One pass of one layer in one iteration at one NPU (table layer). */
    typedef struct tn_db_layer
    {
        uint32_t iteration;      /**< iteration index */
        uint32_t layer;          /**< layer index in the workload */
        uint32_t node;           /**< the NPU's node */
        const char* name;        /**< the layer's name in the workload */
        const char* phase;       /**< "fwd", "ig" or "wg" */
        int64_t start_ns;        /**< the pass's compute kernel started */
        int64_t end_ns;          /**< kernel, collectives (and for wg the update) done */
        int64_t compute_ns;      /**< its kernels (wg: with the weight update) */
        int64_t exposed_comm_ns; /**< waiting that this pass's communication ended */
        uint32_t job;            /**< the [[job]] the NPU runs (0: NULL; schema 8) */
    } tn_db_layer;

    tn_status tn_db_open(const char* path, tn_db** db, tn_error* err);
    /** Writes the buffered rows and builds the key indexes a run dropped (errors ignored: call
     * tn_db_flush or tn_db_run_finish first to see them). */
    void tn_db_close(tn_db* db);

    tn_status tn_db_run_begin(tn_db* db, const tn_run_info* info, int64_t* run_id, tn_error* err);
    tn_status tn_db_run_finish(tn_db* db,
                               int64_t run_id,
                               const char* status,
                               double wall_seconds,
                               uint64_t simulated_ns,
                               tn_error* err);

    /**
     * Rows of the runs this tn_db begins or joins come from several processes (on != 0; off by
     * default): the key indexes are kept while they write, and a transfer added by two of
     * them is merged into one row. Set before tn_db_run_begin or tn_db_run_join.
     */
    void tn_db_set_shared_keys(tn_db* db, int on);
    /** This tn_db adds rows to a run another process began (tn_db_set_shared_keys first). */
    tn_status tn_db_run_join(tn_db* db, tn_error* err);

    /** Set the run's error text (why it is not ok), whatever its status. */
    tn_status tn_db_run_set_error(tn_db* db, int64_t run_id, const char* error_text, tn_error* err);
    /**
     * Close a run its process left 'running' (it died): set status and error text and
     * finished_at, only while the run is still 'running' (*changed = 1 then, else 0), so a
     * run its process did finish is never overwritten. Nothing buffered is written.
     */
    tn_status tn_db_run_abandon(tn_db* db,
                                int64_t run_id,
                                const char* status,
                                const char* error_text,
                                int* changed,
                                tn_error* err);

    /** \param rows rows per batch (>= 1) */
    void tn_db_set_batch_rows(tn_db* db, size_t rows);
    /**
     * Write full batches on a thread of their own (on != 0) while the caller goes on adding
     * rows: the SQLite work leaves the simulation's thread. At most three batches are in
     * memory (the one being written, one queued behind it, and the one being filled: a batch
     * that takes longer does not hold the caller up); a batch that fails is reported by the
     * second hand-over after it (whether the thread was quick or not, so the caller stops at the
     * same batch every time), or by the flush or the run's finish that comes first. Off by
     * default.
     */
    void tn_db_set_writer_thread(tn_db* db, int on);
    /** Write the buffered rows now, in one transaction (after the writer thread's batch). */
    tn_status tn_db_flush(tn_db* db, tn_error* err);
    /** \return rows not written yet (buffered or being written) */
    size_t tn_db_pending_rows(const tn_db* db);
    /** \return rows written so far by this tn_db (all tables but run) */
    uint64_t tn_db_rows_written(const tn_db* db);

    tn_status tn_db_add_node(tn_db* db, int64_t run_id, const tn_db_node* row, tn_error* err);
    tn_status tn_db_add_link(tn_db* db, int64_t run_id, const tn_db_link* row, tn_error* err);
    tn_status tn_db_add_collective(tn_db* db,
                                   int64_t run_id,
                                   const tn_db_collective* row,
                                   tn_error* err);
    tn_status tn_db_add_transfer(tn_db* db,
                                 int64_t run_id,
                                 const tn_db_transfer* row,
                                 tn_error* err);
    tn_status tn_db_add_flow(tn_db* db, int64_t run_id, const tn_db_flow* row, tn_error* err);
    tn_status tn_db_add_port_sample(tn_db* db,
                                    int64_t run_id,
                                    const tn_db_port_sample* row,
                                    tn_error* err);
    tn_status tn_db_add_pfc_event(tn_db* db,
                                  int64_t run_id,
                                  const tn_db_pfc_event* row,
                                  tn_error* err);
    tn_status tn_db_add_drop(tn_db* db, int64_t run_id, const tn_db_drop* row, tn_error* err);
    tn_status tn_db_add_iteration(tn_db* db,
                                  int64_t run_id,
                                  const tn_db_iteration* row,
                                  tn_error* err);
    /** One rank of a generated LLM program (table llm_rank). */
    tn_status tn_db_add_llm_rank(tn_db* db,
                                 int64_t run_id,
                                 const tn_db_llm_rank* in,
                                 tn_error* err);

    tn_status tn_db_add_layer(tn_db* db, int64_t run_id, const tn_db_layer* row, tn_error* err);

    /** One paused egress port of a PFC deadlock cycle (table deadlock). */
    typedef struct tn_db_deadlock_hop
    {
        uint32_t hop;            /**< position in the loop (0, 1, ...; each waits for the next) */
        int64_t detected_ns;     /**< when the cycle was found */
        uint32_t node;           /**< node of the paused egress port */
        uint32_t port;           /**< the port */
        uint32_t priority;       /**< the paused priority */
        uint32_t peer_node;      /**< next hop (its ingress buffer is full) */
        uint32_t peer_port;      /**< its ingress port */
        int64_t paused_since_ns; /**< start of the port's pause */
        uint64_t queue_bytes;    /**< bytes waiting on (port, priority) */
        const char* flows;       /**< flows whose frames wait there ("src->dst:sport bytes", ...) */
    } tn_db_deadlock_hop;

    tn_status tn_db_add_deadlock_hop(tn_db* db,
                                     int64_t run_id,
                                     const tn_db_deadlock_hop* row,
                                     tn_error* err);

    /** One job of a run of several jobs on one fabric (table job, schema 8). */
    typedef struct tn_db_job
    {
        uint32_t job;          /**< its id in the run (1, 2, ...: the [[job]] tables' order) */
        const char* name;      /**< its name */
        const char* npus;      /**< its NPUs, topology NPU ranks in rank order ("0,1,2") */
        const char* placement; /**< "list", "packed", "spread" or "random" */
        int64_t start_ns;      /**< when it starts */
        int64_t alone_run_id;  /**< the run of this job alone (isolate = true; <= 0: NULL) */
    } tn_db_job;

    tn_status tn_db_add_job(tn_db* db, int64_t run_id, const tn_db_job* row, tn_error* err);

    /** A port that a job's traffic may cross: on a shortest path between two of its NPUs, or
     *  one its flows crossed (table job_port, schema 8; tx_bytes schema 9). */
    typedef struct tn_db_job_port
    {
        uint32_t job;     /**< the job */
        uint32_t node;    /**< the port's node */
        uint32_t port;    /**< the port */
        int64_t tx_bytes; /**< the job's frame bytes the port sent; < 0: NULL (not measured) */
    } tn_db_job_port;

    tn_status tn_db_add_job_port(tn_db* db,
                                 int64_t run_id,
                                 const tn_db_job_port* row,
                                 tn_error* err);

    /** A NIC's or a queue pair's congestion-control event counts (the columns cc_sample and
     *  cc_qp share, in their order). */
    typedef struct tn_db_cc_counts
    {
        uint64_t cnps_sent;      /**< CNPs sent (notification point: CE-marked data arrived) */
        uint64_t cnps_received;  /**< CNPs received (reaction point) */
        uint64_t ce_received;    /**< CE-marked data packets that arrived */
        uint64_t ecn_echoes;     /**< ACKs received that echoed a CE mark (BECN) */
        uint64_t rate_cuts;      /**< a queue pair's pacing rate went down */
        uint64_t rate_raises;    /**< a queue pair's pacing rate went up */
        uint64_t window_updates; /**< a queue pair's window changed (HPCC, windowed controls) */
        double min_rate_bps;     /**< lowest rate a queue pair was set to (<0: NULL, none) */
    } tn_db_cc_counts;

    /** Congestion-control counters of one NIC over one sampling interval (table cc_sample,
     *  schema 10): written only for an interval in which one of them is not 0. */
    typedef struct tn_db_cc_sample
    {
        int64_t time_ns;        /**< end of the interval */
        int64_t interval_ns;    /**< its length */
        uint32_t node;          /**< the NIC's node */
        tn_db_cc_counts counts; /**< its events in the interval */
    } tn_db_cc_sample;

    /** Congestion-control totals of one queue pair over the run (table cc_qp, schema 10): one
     *  row per queue pair that had a congestion-control event, at the run's end. */
    typedef struct tn_db_cc_qp
    {
        uint32_t node;              /**< the NIC's node */
        uint32_t qpn;               /**< the local QP number */
        uint32_t peer_node;         /**< the node at the other end */
        uint32_t priority;          /**< traffic class */
        uint32_t lane;              /**< QP lane */
        const char* control;        /**< the NIC's congestion control ("dcqcn", "hpcc", ...) */
        uint64_t line_rate_bps;     /**< rate of the port it sends on */
        tn_db_cc_counts counts;     /**< its events over the run */
        double final_rate_bps;      /**< its rate at the end (<0: NULL, never changed) */
        int64_t final_window_bytes; /**< its window at the end (<0: NULL, never set) */
    } tn_db_cc_qp;

    tn_status tn_db_add_cc_sample(tn_db* db,
                                  int64_t run_id,
                                  const tn_db_cc_sample* row,
                                  tn_error* err);
    tn_status tn_db_add_cc_qp(tn_db* db, int64_t run_id, const tn_db_cc_qp* row, tn_error* err);

    /** The open sqlite3 handle, for readers and tests (typed void* to keep sqlite3.h out). */
    void* tn_db_handle(tn_db* db);

#ifdef __cplusplus
}
#endif

#endif /* TN_DB_H */
