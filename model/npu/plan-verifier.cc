/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plan-verifier.h"

#include "ns3/tn-verify.h"

#include <csignal>
#include <pthread.h>
#include <system_error>

namespace ns3
{

void
PlanVerifier::Job::Run()
{
    tn_error err;
    m_verdict.status =
        tn_verify_schedule_within(m_schedule.get(), m_topo, m_routes, m_budget, &err);
    if (m_verdict.status != TN_OK)
    {
        m_verdict.message = err.message;
    }
}

PlanVerifier::~PlanVerifier()
{
    Wait();
}

std::shared_ptr<PlanVerifier::Job>
PlanVerifier::Start(std::shared_ptr<const tn_schedule> schedule,
                    const tn_topology* topo,
                    const tn_routes* routes,
                    uint64_t budget)
{
    auto job = std::make_shared<Job>();
    job->m_schedule = std::move(schedule);
    job->m_topo = topo;
    job->m_routes = routes;
    job->m_budget = budget;
    std::unique_lock<std::mutex> lock(m_mutex);
    m_queue.push_back(job);
    if (m_working)
    {
        return job; // the running thread takes it
    }
    m_working = true;
    lock.unlock();
    if (m_thread.joinable())
    {
        m_thread.join(); // it found the queue empty and ended
    }
    // signals go to the simulation's thread, which watches them (tn_signal_watch)
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    try
    {
        m_thread = std::thread(&PlanVerifier::Work, this);
    }
    catch (const std::system_error&)
    {
        Work(); // no thread: verified here
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return job;
}

void
PlanVerifier::Work()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_queue.empty())
    {
        std::shared_ptr<Job> job = m_queue.front();
        m_queue.pop_front();
        lock.unlock();
        job->Run();
        lock.lock();
        job->m_done = true;
        m_doneChanged.notify_all();
    }
    m_working = false;
    m_doneChanged.notify_all();
}

const PlanVerifier::Verdict&
PlanVerifier::Take(const std::shared_ptr<Job>& job)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    m_doneChanged.wait(lock, [&job] { return job->m_done; });
    return job->m_verdict;
}

void
PlanVerifier::Wait()
{
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_doneChanged.wait(lock, [this] { return !m_working; });
    }
    if (m_thread.joinable())
    {
        m_thread.join();
    }
}

} // namespace ns3
