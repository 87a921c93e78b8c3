/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Verifies schedules (tn_verify_schedule_within) on a thread of its own, one at a time, so
 * that a job's set-up plans its next collective while the last one's plan is verified
 * (CollectiveService::CheckDeferred, doc/training-net.rst "Plan verification").
 */
#ifndef PLAN_VERIFIER_H
#define PLAN_VERIFIER_H

#include "ns3/tn-error.h"
#include "ns3/tn-routing.h"
#include "ns3/tn-schedule.h"
#include "ns3/tn-topology.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace ns3
{

/**
 * Verifications queue and run one after another on the verifier's thread, so the verifier's
 * state (bounded by the budget) is held once, never twice; the caller goes on planning. The
 * schedule is held by its job; the topology and the routes are only read (tn_verify's and
 * tn_routes' queries are thread-safe) and must outlive the job's verdict (Take, Wait). The
 * thread ends when the queue is empty and starts again with the next job; when no thread can
 * be started, Start verifies on the caller's thread.
 */
class PlanVerifier
{
  public:
    /// tn_verify_schedule_within's outcome of one schedule.
    struct Verdict
    {
        tn_status status{TN_OK}; //!< TN_OK, TN_EUNSUPPORTED (past the budget) or the failure
        std::string message;     //!< the verifier's message when status is not TN_OK
    };

    /// One schedule's verification: queued by Start, its verdict given by Take.
    class Job
    {
        friend class PlanVerifier;
        std::shared_ptr<const tn_schedule> m_schedule;
        const tn_topology* m_topo{nullptr};
        const tn_routes* m_routes{nullptr};
        uint64_t m_budget{0};
        Verdict m_verdict;
        bool m_done{false}; //!< guarded by the verifier's mutex
        void Run();
    };

    PlanVerifier() = default;
    /// Waits for the queued verifications.
    ~PlanVerifier();
    PlanVerifier(const PlanVerifier&) = delete;
    PlanVerifier& operator=(const PlanVerifier&) = delete;

    /**
     * \param schedule the finalized schedule \param topo its topology, or nullptr (a group
     * planned without it) \param routes routes of topo \param budget the verifier's state in
     * bytes (tn_verify_schedule_within) \return the job, queued or (without a thread) done
     */
    std::shared_ptr<Job> Start(std::shared_ptr<const tn_schedule> schedule,
                               const tn_topology* topo,
                               const tn_routes* routes,
                               uint64_t budget);
    /// \return the job's verdict, once it is done (waiting for it when it is queued)
    const Verdict& Take(const std::shared_ptr<Job>& job);
    /// Waits for every queued verification and ends the thread.
    void Wait();

  private:
    /// The thread's loop: run the queued jobs, end when none is left.
    void Work();

    std::mutex m_mutex;
    std::condition_variable m_doneChanged;    //!< a job is done
    std::deque<std::shared_ptr<Job>> m_queue; //!< queued, not started (guarded)
    bool m_working{false};                    //!< the thread runs Work (guarded)
    std::thread m_thread;
};

} // namespace ns3

#endif // PLAN_VERIFIER_H
