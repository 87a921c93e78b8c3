/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-net quickstart: the program `make run` runs.
 *
 * It records a run in the results database (results.db by default), runs the
 * ns-3 simulator and marks the run finished with its wall and simulated time.
 * Query it afterwards:
 *   sqlite3 results.db 'SELECT run_id, name, status, simulated_ns FROM run'
 */
#include "ns3/command-line.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/tn-db.h"
#include "ns3/tn-version.h"

#include <chrono>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string dbPath = "results.db";
    uint32_t nodes = 8;
    CommandLine cmd(__FILE__);
    cmd.AddValue("db", "results database (SQLite) to append this run to", dbPath);
    cmd.AddValue("nodes", "number of NPUs", nodes);
    cmd.Parse(argc, argv);

    tn_error err{};
    tn_db* db = nullptr;
    if (tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
    {
        std::cerr << "training-net-quickstart: " << err.message << std::endl;
        return 1;
    }
    std::ostringstream params;
    params << "{\"nodes\":" << nodes << "}";
    std::string paramsText = params.str();
    tn_run_info info{"training-net-quickstart",
                     paramsText.c_str(),
                     RngSeedManager::GetSeed(),
                     RngSeedManager::GetRun(),
                     TN_NS3_VERSION,
                     TN_VERSION};
    int64_t runId = 0;
    if (tn_db_run_begin(db, &info, &runId, &err) != TN_OK)
    {
        std::cerr << "training-net-quickstart: " << err.message << std::endl;
        tn_db_close(db);
        return 1;
    }

    auto wallStart = std::chrono::steady_clock::now();
    Simulator::Stop(MicroSeconds(1));
    Simulator::Run();
    uint64_t simulatedNs = Simulator::Now().GetNanoSeconds();
    Simulator::Destroy();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    tn_status status = tn_db_run_finish(db, runId, "ok", wall, simulatedNs, &err);
    tn_db_close(db);
    if (status != TN_OK)
    {
        std::cerr << "training-net-quickstart: " << err.message << std::endl;
        return 1;
    }
    std::cout << "run " << runId << " recorded in " << dbPath << std::endl;
    return 0;
}
