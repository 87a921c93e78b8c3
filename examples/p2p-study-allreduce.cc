/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An all-reduce across the hosts of an ordinary ns-3 study: a dumbbell of PointToPoint links
 * (hosts on two routers joined by a bottleneck link) with InternetStackHelper, IPv4
 * addresses and global routing, as an ns-3 user builds it. CollectiveHelper::Install(hosts)
 * reads the study's nodes and links into a topology, plans and verifies the collective on
 * it, and gives each host an RDMA NIC whose RoCEv2 packets travel over UDP port 4791
 * through the hosts' own devices, with go-back-N recovering what is lost.
 *
 *   p2p-study-allreduce --hosts=8 --algorithm=ring --bytes=4MiB --error-rate=0.001
 *
 * It prints the collective's time, the cost model's estimate on the topology read and the
 * bytes the NICs retransmitted. With --db the study (its nodes, links and port samples of
 * every PointToPoint device) is a run of the results database.
 */
#include "ns3/collective-helper.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/program-options.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-net-device.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-tune.h"

#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t hosts = 8;
    uint64_t bytes = 4 << 20;
    uint64_t hostRate = 10000000000ULL;
    uint64_t bottleneckRate = 40000000000ULL;
    std::string algorithm = "ring";
    std::string errorRate = "0";
    std::string dbPath;
    ProgramOptions options("p2p-study-allreduce", __FILE__);
    options.AddCount("hosts", "hosts, half on each side of the dumbbell", 2u, 1024u, &hosts);
    options.AddBytes("bytes", "all-reduce size", &bytes);
    options.AddString("algorithm", "collective algorithm (ring, multitree, ...)", &algorithm);
    options.AddRate("host-rate", "rate of the hosts' links", &hostRate);
    options.AddRate("bottleneck-rate", "rate of the link between the routers", &bottleneckRate);
    options.AddString("error-rate",
                      "fraction of the packets lost on the bottleneck link (each direction)",
                      &errorRate);
    options.AddString("db", "results database to record the study into (none if empty)", &dbPath);
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    if (!dbPath.empty())
    {
        // from here to the exit: a signal aborts the run it comes before, or ends the program
        // after the last run is recorded, never kills it midway (with no database nothing
        // polls the flag: a signal kills the program, as it must to stop it)
        options.WatchSignals();
    }
    // below the fabric's floor a run's events grow as the rate falls (at 1 bit/s the 4 MiB
    // all-reduce would run for simulated months)
    for (const auto& [option, bps] :
         {std::make_pair("host-rate", hostRate), std::make_pair("bottleneck-rate", bottleneckRate)})
    {
        if (bps < RoceNetDevice::MIN_DATA_RATE_BPS)
        {
            std::cerr << "p2p-study-allreduce: --" << option << " " << bps
                      << "bps is below the lowest rate a fabric takes ("
                      << RoceNetDevice::MIN_DATA_RATE_BPS << "bps, 1Gbps)" << std::endl;
            return 2;
        }
    }
    char* end = nullptr;
    const double loss = std::strtod(errorRate.c_str(), &end);
    if (errorRate.empty() || *end != '\0' || !(loss >= 0 && loss < 1))
    {
        std::cerr << "p2p-study-allreduce: --error-rate: '" << errorRate
                  << "' is not a fraction in [0, 1)" << std::endl;
        return 2;
    }

    tn_error nameError;
    if (tn_tune_algorithm_check(algorithm.c_str(), &nameError) != TN_OK)
    {
        std::cerr << "p2p-study-allreduce: --algorithm: " << nameError.message << std::endl;
        return 2;
    }

    // the study: hosts 0 .. n/2-1 on router A, the others on router B
    NodeContainer hostNodes;
    hostNodes.Create(hosts);
    NodeContainer routers;
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(hostRate)));
    access.SetChannelAttribute("Delay", StringValue("1us"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(bottleneckRate)));
    bottleneck.SetChannelAttribute("Delay", StringValue("5us"));
    Ipv4AddressHelper address("10.0.0.0", "255.255.255.0");
    for (uint32_t h = 0; h < hosts; h++)
    {
        address.Assign(access.Install(hostNodes.Get(h), routers.Get(h < hosts / 2 ? 0 : 1)));
        address.NewNetwork();
    }
    NetDeviceContainer middle = bottleneck.Install(routers.Get(0), routers.Get(1));
    address.Assign(middle);
    if (loss > 0)
    {
        for (uint32_t i = 0; i < 2; i++)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(loss);
            middle.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // recorded as the study it is, before the hosts get their RDMA NICs
    StatsHelper stats;
    std::string error;
    if (!dbPath.empty())
    {
        std::ostringstream params;
        params << "{\"example\":\"p2p-study-allreduce\",\"hosts\":" << hosts
               << ",\"bytes\":" << bytes << ",\"algorithm\":\"" << algorithm << "\"}";
        if (!stats.Install(dbPath,
                           "p2p-study-allreduce",
                           params.str(),
                           NodeContainer::GetGlobal(),
                           &error))
        {
            std::cerr << "p2p-study-allreduce: --db: " << error << std::endl;
            return 1;
        }
    }

    // the collective across the hosts
    CollectiveHelper collectives;
    if (!collectives.Install(hostNodes, &error))
    {
        if (!dbPath.empty())
        {
            stats.Finish("error", 0, error);
        }
        std::cerr << "p2p-study-allreduce: " << error << std::endl;
        Simulator::Destroy();
        return 1;
    }
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = TN_COLL_ALL_REDUCE;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    Ptr<Collective> c = collectives.Create(request, {}, &error);
    if (!c)
    {
        // an algorithm that cannot plan these hosts: the run says why, none is left 'running'
        if (!dbPath.empty())
        {
            stats.Finish("error", 0, error);
        }
        std::cerr << "p2p-study-allreduce: --algorithm: " << error << std::endl;
        Simulator::Destroy();
        return 2;
    }
    collectives.Start(c);
    Simulator::Run();

    uint64_t retransmitted = 0;
    for (uint32_t h = 0; h < hosts; h++)
    {
        retransmitted += hostNodes.Get(h)->GetObject<RdmaNic>()->GetRetransmittedBytes();
    }
    const std::string check = c->Check();
    const bool ok = c->IsComplete() && check.empty();
    const std::string failure =
        ok ? ""
           : "the collective did not run as planned: " + (check.empty() ? "incomplete" : check);
    // a run that did not go as planned is recorded as 'error' with the reason: it was
    // recorded, only not as 'ok'
    const std::string recorded =
        dbPath.empty() ? (ok ? "ok" : "error")
                       : stats.Finish(ok ? "ok" : "error",
                                      c->IsComplete() ? c->GetDuration().GetNanoSeconds()
                                                      : Simulator::Now().GetNanoSeconds(),
                                      failure);
    if (!dbPath.empty())
    {
        options.Recorded(stats.GetRecorder()->GetRunId(), recorded);
    }
    // the line of a recorded run: a signal while it is printed leaves the run as it is
    std::cout << algorithm << " all-reduce of " << bytes << " bytes across " << hosts << " hosts: ";
    if (c->IsComplete())
    {
        std::cout << c->GetDuration().GetMicroSeconds() << " us (estimate "
                  << c->GetEstimatedTime().GetMicroSeconds() << " us), ";
    }
    else
    {
        std::cout << "incomplete, ";
    }
    std::cout << retransmitted << " bytes retransmitted, path MTU "
              << hostNodes.Get(0)->GetObject<RdmaNic>()->GetMtu() << ", data "
              << (check.empty() ? "as planned" : check) << std::endl;
    Simulator::Destroy();
    if (recorded == "aborted")
    {
        std::cerr << "p2p-study-allreduce: interrupted; run recorded as aborted" << std::endl;
        return tn_signal_exit_status(stats.GetRecorder()->GetSignal());
    }
    if (!dbPath.empty() && !stats.GetRecorder()->GetError().empty())
    {
        std::cerr << "p2p-study-allreduce: --db: " << stats.GetRecorder()->GetError() << std::endl;
        return 1;
    }
    if (recorded != "ok")
    {
        const std::string& limit = dbPath.empty() ? failure : stats.GetRecorder()->GetRunError();
        std::cerr << "p2p-study-allreduce: " << (limit.empty() ? failure : limit) << std::endl;
        return 1;
    }
    return options.ExitStatus(0);
}
