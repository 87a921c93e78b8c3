/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-helper.h"

#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"

namespace ns3
{

TrainingHelper::TrainingHelper()
{
    m_factory.SetTypeId(TrainingJob::GetTypeId());
}

TrainingHelper::~TrainingHelper()
{
    tn_workload_destroy(m_workload);
}

void
TrainingHelper::SetJobAttribute(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
TrainingHelper::SetAlgorithm(tn_collective collective, const std::string& algorithm)
{
    NS_ABORT_MSG_IF(collective >= TN_COLL_COUNT, "TrainingHelper::SetAlgorithm: no collective");
    m_algorithm[collective] = algorithm;
}

bool
TrainingHelper::Load(const std::string& path, std::string* error)
{
    tn_error err;
    tn_workload* wl = nullptr;
    if (tn_workload_load_file(path.c_str(), &wl, &err) != TN_OK)
    {
        *error = err.message;
        return false;
    }
    tn_workload_destroy(m_workload);
    m_workload = wl;
    return true;
}

Ptr<TrainingJob>
TrainingHelper::Install(CollectiveHelper& collectives,
                        const NpuHelper& npus,
                        uint32_t modelGroup,
                        std::string* error)
{
    if (!m_workload)
    {
        *error = "no workload (TrainingHelper::Load)";
        return nullptr;
    }
    Ptr<TrainingJob> job = m_factory.Create<TrainingJob>();
    for (int c = 0; c < TN_COLL_COUNT; c++)
    {
        if (!m_algorithm[c].empty())
        {
            job->SetAlgorithm(static_cast<tn_collective>(c), m_algorithm[c]);
        }
    }
    if (!job->Setup(m_workload, collectives.GetService(), npus.GetEndpoints(), modelGroup, error))
    {
        return nullptr;
    }
    return job;
}

} // namespace ns3
